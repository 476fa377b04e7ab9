"""The cards of rules specification §11 in the terminal: their faces, what the narration says of
each (on hand-built positions: tests/core/scenario.py) and the menus that offer them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from core.scenario import act, build, rules

from uno_rl.core import engine
from uno_rl.core.actions import ACCEPT, DRAW
from uno_rl.core.convert import to_state
from uno_rl.core.layout import EXTENDED
from uno_rl.core.phases import RESPOND, TARGET
from uno_rl.render.text import strip_ansi
from uno_rl.replays import Decision
from uno_rl.terminal.menu import build_menu, color_menu
from uno_rl.terminal.narrate import Voice, narrate, narrate_deal
from uno_rl.terminal.style import Style
from uno_rl.terminal.table import table_text

DECKS = Path(__file__).parents[1] / "core" / "decks"
EVERYTHING = str(DECKS / "everything.toml")
PLAIN = Style(color=False)
NAMES = ["seat 0 (a)", "seat 1 (b)", "seat 2 (c)"]
P1 = ["yellow 1", "yellow 2", "yellow 3"]
P2 = ["blue 1", "blue 2", "blue 3"]


def step(game, action: str | int) -> Decision:
    """The decision ``action`` on the one-game position ``game``."""
    state = to_state([game])
    before = state.copy()
    a = act(action)
    result = engine.step(state, np.array([a], np.int64))
    return Decision(0, int(before.actor[0]), a, before, state, result)


def told(decision: Decision, viewer: int | None = None, you: int | None = None) -> list[str]:
    """The lines ``viewer`` sees (None: all), in plain text, seat ``you`` as "you"."""
    voice = Voice(NAMES[: decision.before.rules.players], you=you)
    events = narrate(decision, voice, PLAIN)
    return [e.text for e in events if e.visible_to(viewer)]


def menu_of(state, you: int = 0):
    voice = Voice(NAMES[: state.rules.players], you=you)
    return build_menu(state, engine.legal_mask(state)[0], voice, PLAIN)


def test_every_new_card_has_a_readable_colored_face():
    faces = {k: PLAIN.card(k) for k in range(54, EXTENDED.num_kinds)}
    assert faces[54] == "[red discard all]" and faces[61] == "[blue hit 2]"
    assert faces[62] == "[red targeted +2]" and faces[66] == "[wild hit-fire]"
    assert faces[68] == "[wild swap hands]" and faces[69] == "[wild shuffle hands]"
    assert faces[70] == "[wild customizable]" and faces[71] == "[targeted +4]"
    assert faces[72] == "[downpour +1]" and faces[74] == "[boomerang]"
    assert len(set(faces.values())) == 21
    colored = Style(color=True)
    assert colored.card(57) == "\x1b[34m[blue discard all]\x1b[0m"  # blue, as a blue card
    assert colored.card(67) == "\x1b[1;35m[wild all hit]\x1b[0m"  # colorless: the wild look
    assert strip_ansi(colored.card(74, 2)) == "[boomerang] x2"
    counts = np.zeros(75, np.int64)
    counts[[3, 55, 74]] = [1, 2, 1]
    assert PLAIN.cards(counts) == "[red 3] [yellow discard all] x2 [boomerang]"
    with pytest.raises(ValueError, match="card kind must be in"):
        PLAIN.card(75)


def test_discard_all_sheds_its_color_and_the_menu_offers_it():
    game = build(rules(deck="extreme", players=3), {0: ["red discard all", "red 4", "red 9", "blue 2"],
                                          1: P1, 2: P2}, top="red 5")  # fmt: skip
    state = to_state([game])
    labels = [c.label for c in menu_of(state).choices]
    assert "play [red discard all]" in labels and "press the dispenser" in labels
    lines = told(step(game, "red discard all"), you=0)
    assert lines[:2] == [
        "You play [red discard all].",
        "You shed 2 more red cards: [red 4] [red 9].",
    ]
    assert not any("draw" in line for line in lines)  # shed cards are no draws


def test_a_hit_says_presses_cards_and_the_dispenser_count():
    game = build(rules(deck="extreme", players=3), {0: ["red hit 2", "red 4"], 1: P1, 2: P2},
                 top="red 5")  # fmt: skip
    d = step(game, "red hit 2")
    lines = told(d)
    assert "Seat 1 (b) is hit (2 presses) and loses the turn." in lines
    drawn = int(d.after.hand_size[0, 1]) - 3
    presses = int(d.after.presses[0])
    fired = "it fired" if drawn else "it did not fire"
    assert f"Dispenser: 2 presses, {fired}; {presses} since its last fire." in lines
    if drawn:
        word = "card" if drawn == 1 else "cards"
        assert f"Seat 1 (b) draws {drawn} {word} from the hit." in lines
        private = [line for line in lines if line.startswith("(Seat 1 (b) drew")]
        assert private and private[0] not in told(d, viewer=2)  # only the victim sees them
    table = table_text(d.after, Voice(NAMES), PLAIN, 0)
    assert f"dispenser: {presses} press" in table


def test_all_hit_and_a_voluntary_press():
    game = build(rules(deck="extreme", players=3), {0: ["wild all hit", "red 4"], 1: P1, 2: P2},
                 top="red 5")  # fmt: skip
    lines = told(step(game, "wild all hit green"))
    assert lines[0] == "Seat 0 (a) plays [wild all hit], naming green."
    assert "Every other player presses the dispenser once." in lines
    assert any(line.startswith("Dispenser: 2 presses") for line in lines)
    game = build(rules(deck="extreme", players=3), {0: ["blue 4"], 1: P1, 2: P2}, top="red 5",
                 presses=0)  # fmt: skip
    d = step(game, DRAW)
    lines = told(d)
    if d.after.hand_size[0, 0] == 1:
        assert lines[0] == "Seat 0 (a) presses the dispenser: nothing comes out."
    else:
        assert lines[0].startswith("Seat 0 (a) draws") and "from the dispenser" in lines[0]
    assert any(line.startswith("Dispenser: 1 press,") for line in lines)


def test_downpour_every_other_player_draws():
    game = build(rules(deck="extension", players=3), {0: ["downpour +2", "red 4"], 1: P1, 2: P2},
                 top="red 5")  # fmt: skip
    lines = told(step(game, "downpour +2 blue"))
    assert lines[0] == "Seat 0 (a) plays [downpour +2], naming blue."
    assert "Downpour: every other player draws 2." in lines
    assert "Seat 1 (b) draws 2 cards." in lines and "Seat 2 (c) draws 2 cards." in lines


def test_a_shuffle_shows_each_seat_only_its_new_hand():
    game = build(rules(deck="modern-112", players=3), {0: ["wild shuffle hands", "red 4"], 1: P1, 2: P2},
                 top="red 5")  # fmt: skip
    d = step(game, "wild shuffle hands red")
    lines = told(d)
    assert any(line.startswith("Every hand is shuffled together and dealt again from seat 0 (a)'s left")
               for line in lines)  # fmt: skip
    assert not any(" draws " in line for line in lines)
    mine = told(d, viewer=1, you=1)
    own = [line for line in mine if line.startswith("(Your new hand")]
    assert own == [f"(Your new hand: {PLAIN.cards(d.after.hands[0, 1])}.)"]
    assert not any("seat 0 (a)'s new hand" in line.lower() for line in mine)


def test_a_swap_shows_the_two_seats_what_they_gave_and_got():
    game = build(rules(deck="swap-112", players=3), {0: ["wild swap hands", "red 4", "red 6"], 1: P1,
                                           2: P2}, top="red 5")  # fmt: skip
    d = step(game, "wild swap hands green")
    assert d.after.phase[0] == TARGET
    state = d.after.copy()
    menu = menu_of(state)
    assert menu.question == "Swap hands with whom? (wild swap hands)"
    assert [c.label for c in menu.choices] == ["seat 1 (b): 3 cards", "seat 2 (c): 3 cards"]
    swap = _decision(state, "target 2")
    assert "Seat 0 (a) swaps hands with seat 2 (c)." in told(swap)
    mine = told(swap, viewer=0, you=0)
    assert "(You gave seat 2 (c) [red 4] [red 6] and got [blue 1] [blue 2] [blue 3].)" in mine
    theirs = told(swap, viewer=2, you=2)
    assert "(You gave seat 0 (a) [blue 1] [blue 2] [blue 3] and got [red 4] [red 6].)" in theirs
    assert not any("gave" in line for line in told(swap, viewer=1, you=1))  # not in it


def _decision(state, action: str | int) -> Decision:
    before = state.copy()
    a = act(action)
    result = engine.step(state, np.array([a], np.int64))
    return Decision(0, int(before.actor[0]), a, before, state, result)


def test_a_targeted_draw_names_its_victim_and_the_menu_asks_whom():
    game = build(rules(deck="extension", players=3), {0: ["red targeted +2", "red 4"], 1: P1, 2: P2},
                 top="red 5")  # fmt: skip
    d = step(game, "red targeted +2")
    state = d.after.copy()
    menu = menu_of(state)
    assert menu.question == "Whom do you target with [red targeted +2]? They draw 2."
    pick = _decision(state, "target 2")
    lines = told(pick)
    assert lines[0] == "Seat 0 (a) targets seat 2 (c) with [red targeted +2]."
    # the extension deck holds Boomerangs: the victim answers first
    assert pick.after.phase[0] == RESPOND and int(pick.after.actor[0]) == 2
    assert lines[1] == "Seat 2 (c) faces 2 cards to draw (send it back with a boomerang, accept)."
    answer = menu_of(pick.after.copy(), you=2)
    labels = [c.label for c in answer.choices]
    assert labels == ["accept: draw 2 cards"]  # seat 2 is not next: no turn is lost
    took = _decision(pick.after.copy(), ACCEPT)
    assert "Seat 2 (c) draws 2 cards and loses the turn." not in told(took)
    assert any(line.startswith("Seat 2 (c) accepts the 2 cards pending") for line in told(took))


def test_a_boomerang_sends_a_draw_back():
    game = build(rules(deck="extension", players=3), {0: ["red +2", "red 4"], 1: ["boomerang", "blue 9"],
                                            2: P2}, top="red 5")  # fmt: skip
    d = step(game, "red +2")
    assert d.after.phase[0] == RESPOND
    assert told(d)[-1] == (
        "Seat 1 (b) faces 2 cards to draw (send it back with a boomerang, accept)."
    )
    state = d.after.copy()
    labels = [c.label for c in menu_of(state, you=1).choices]
    assert "send it back with [boomerang]" in labels
    assert "accept: draw 2 cards and lose your turn" in labels
    back = _decision(state, "boomerang")
    lines = told(back, you=0)
    assert lines[0] == "Seat 1 (b) sends it back with [boomerang]."
    assert "The 2 cards go back to you." in lines
    assert "You draw 2 cards sent back by the boomerang." in lines


def test_a_boomerang_sends_a_skip_back():
    game = build(rules(deck="extension", players=3), {0: ["red skip", "red 4"], 1: ["boomerang", "blue 9"],
                                            2: P2}, top="red 5")  # fmt: skip
    d = step(game, "red skip")
    assert told(d)[-1] == "Seat 1 (b) faces a Skip (send it back with a boomerang, accept)."
    state = d.after.copy()
    menu = menu_of(state, you=1)
    assert menu.question.startswith("A Skip is coming your way")
    assert [c.label for c in menu.choices] == ["send it back with [boomerang]",
                                               "accept: lose your turn"]  # fmt: skip
    back = _decision(state.copy(), "boomerang")
    assert "Seat 0 (a) will lose the next turn: the Skip came back." in told(back)
    accept = _decision(state.copy(), ACCEPT)
    assert told(accept, you=1) == ["You accept the Skip and lose the turn."]


def test_targeted_four_is_challenged_by_its_victim():
    game = build(rules(deck=EVERYTHING, players=3), {0: ["targeted +4", "red 4"], 1: P1, 2: P2},
                 top="red 5")  # fmt: skip
    d = step(game, "targeted +4 blue")
    assert told(d)[0] == "Seat 0 (a) plays [targeted +4], naming blue."
    assert "(A bluff: the [targeted +4] was not legal with seat 0 (a)'s hand.)" in told(d, viewer=0)
    pick = _decision(d.after.copy(), "target 1")
    menu = menu_of(pick.after.copy(), you=1)
    assert menu.question.startswith("Challenge the targeted +4?")
    assert menu.choices[0].label == "challenge the targeted +4"
    caught = _decision(pick.after.copy(), "challenge")
    lines = told(caught, viewer=1, you=1)
    assert lines[0] == "You challenge seat 0 (a)'s targeted +4."
    assert "Seat 0 (a) was bluffing!" in lines
    assert "(Seat 0 (a)'s hand" not in " ".join(told(caught, viewer=2))  # only the challenger


def test_customizable_says_what_it_acts_as_and_wilds_ask_a_color():
    plain = build(rules(deck="modern-112", players=3), {0: ["wild customizable", "red 4"], 1: P1, 2: P2},
                  top="red 5")  # fmt: skip
    state = to_state([plain])
    choice = next(c for c in menu_of(state).choices if "customizable" in c.label)
    assert choice.label == "play [wild customizable], then choose a color" and choice.needs_color
    colors = color_menu(state, choice.action, PLAIN)
    assert colors.question == "Choose a color for your [wild customizable]:"
    assert [c.label for c in colors.choices][0] == "red (1 in your hand)"
    assert told(step(plain, "wild customizable red"))[0] == (
        "Seat 0 (a) plays [wild customizable], naming red."
    )
    bound = build(rules(deck="modern-112", players=3, customizable_as="downpour+1"),
                  {0: ["wild customizable", "red 4"], 1: P1, 2: P2}, top="red 5")  # fmt: skip
    lines = told(step(bound, "wild customizable red"))
    assert lines[0] == "Seat 0 (a) plays [wild customizable], naming red (acting as downpour+1)."
    assert "Downpour: every other player draws 1." in lines


def test_a_first_card_downpour_is_told_at_the_deal():
    r = rules(deck="extension", players=3)
    downpour = EXTENDED.parse_card("downpour +1")
    tops = engine.reset(r, np.arange(2000, dtype=np.uint64)).top
    seed = int(np.flatnonzero(tops == downpour)[0])  # some deal of 2000 starts with one
    state = engine.reset(r, np.array([seed], np.uint64))
    lines = [e.text for e in narrate_deal(state, Voice(NAMES), PLAIN)]
    assert lines[0].endswith("the first card is [downpour +1].")
    assert any(line.startswith("Every player but the dealer draws: ") for line in lines)


def test_the_menu_refuses_a_mask_of_the_wrong_layout():
    game = build(rules(deck="extension", players=3), {0: ["red 4"], 1: P1, 2: P2}, top="red 5")
    state = to_state([game])
    with pytest.raises(ValueError, match=r"legal must be a \(122,\) mask"):
        build_menu(state, np.zeros(77, bool), Voice(NAMES), PLAIN)
