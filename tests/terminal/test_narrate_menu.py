"""The words and menus of the terminal programs, over every decision of recorded games."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from uno_rl.agents import make_agent
from uno_rl.core import engine, load_rules
from uno_rl.core.actions import CHALLENGE, DRAW, PASS
from uno_rl.core.phases import PHASE_NAMES
from uno_rl.render.text import strip_ansi
from uno_rl.replays import AgentSeat, GameRecorder, play_game, steps
from uno_rl.terminal.menu import QUIT, build_menu, color_menu, parse_answer
from uno_rl.terminal.narrate import Voice, narrate, narrate_deal
from uno_rl.terminal.style import Style
from uno_rl.terminal.table import seat_names, table_text

DECKS = Path(__file__).parents[1] / "core" / "decks"
VARIANTS = [
    ("official", {"players": 2}),
    ("party", {"players": 4}),
    ("seven-zero", {"players": 3, "multi_play": True, "wild_cancels_draw": True}),
    ("official", {"players": 3, "caught_bluffer": "takes-back", "uno_forget_prob": 0.6}),
    ("kids", {"players": 3}),
    # rules specification §12: a lost turn, combinations of action cards, a fixed-length match
    (
        "official",
        {
            "players": 3,
            "caught_bluffer": "loses-turn",
            "multi_play": True,
            "multi_play_actions": True,
            "match": True,
            "scoring": "losers-add",
            "match_rounds": 2,
        },
    ),
]
FIXED_LENGTH_MATCH = VARIANTS[-1]
VARIANTS += [  # the decks of rules specification §11
    ("official", {"players": 3, "deck": "extreme"}),
    ("official", {"players": 4, "deck": "extension"}),
    ("official", {"players": 3, "deck": "modern-112"}),
    ("seven-zero", {"players": 3, "deck": "swap-112"}),
    ("official", {"players": 3, "deck": str(DECKS / "everything.toml")}),
]
PLAIN = Style(color=False)


def games(preset, overrides, count=4):
    rules = load_rules(preset, **overrides)
    lineup = ["random", "bluffer", "suspicious", "random-playable"][: rules.players]
    for seed in range(count):
        rng = np.random.default_rng(seed)
        recorder = GameRecorder(rules, seed, lineup)
        players = [AgentSeat(make_agent(spec, rules), rng) for spec in lineup]
        state = play_game(rules, players, seed, recorder)
        yield recorder.replay(state)


@pytest.mark.parametrize("preset, overrides", VARIANTS)
def test_every_decision_has_a_menu_of_exactly_its_legal_actions(preset, overrides):
    seen = set()
    for replay in games(preset, overrides):
        voice = Voice(seat_names(replay.seats), you=0)
        for d in steps(replay):
            legal = engine.legal_mask(d.before)[0]
            menu = build_menu(d.before, legal, voice, PLAIN)  # raises if it misses one
            chosen = [c for c in menu.choices if c.action <= d.action < c.action + 4]
            assert chosen, f"{d.action} not offered"
            if chosen[0].needs_color:
                colors = color_menu(d.before, chosen[0].action, PLAIN)
                assert d.action in [c.action for c in colors.choices]
                assert colors.question.startswith("Choose a color")
            seen.add(PHASE_NAMES[int(d.before.phase[0])])
    assert "play" in seen


@pytest.mark.parametrize("preset, overrides", VARIANTS)
def test_every_decision_is_told_and_private_events_stay_private(preset, overrides):
    for replay in games(preset, overrides):
        voice = Voice(seat_names(replay.seats))
        for d in steps(replay):
            events = narrate(d, voice, PLAIN)
            assert events, f"decision {d.index} ({d.action}) says nothing"
            for event in events:
                if event.audience is not None:
                    assert not event.visible_to((max(event.audience) + 1) % replay.rules.players)
                    assert event.visible_to(None)  # the open view sees everything
            texts = [strip_ansi(e.text) for e in events]
            if d.action == CHALLENGE:
                bluffer = int(d.before.draw4_player[0])
                shown = [e for e in events if "hand:" in e.text]
                assert len(shown) == 1 and shown[0].audience == {d.seat}  # only the challenger
                assert any("bluffing" in t for t in texts), texts
                assert voice.names[bluffer] in texts[0]
            if d.action == PASS and d.before.phase[0] in (1, 4, 6):  # drawn, multi, jump
                assert all(e.audience == {d.seat} for e in events[:1])  # gives nothing away
            drew = [e for e in events if e.text.startswith(f"({voice.names[d.seat]}")]
            for event in drew:
                assert event.audience == {d.seat}  # the drawn cards: the drawer's eyes only


def test_the_words_follow_the_game(capsys):
    rules = load_rules("official", players=3)
    replay = next(games("official", {"players": 3}, 1))
    voice = Voice(seat_names(replay.seats), you=1)
    lines = []
    for d in steps(replay):
        lines += [strip_ansi(e.text) for e in narrate(d, voice, PLAIN) if e.visible_to(1)]
    text = "\n".join(lines)
    assert "You " in text and "seat 0 (random)" in text.lower()
    assert "You plays" not in text and "You draws" not in text  # second person for you
    assert "wins the round" in text or "win the round" in text
    deal = narrate_deal(engine.reset(rules, np.array([replay.seed], np.uint64)), voice, PLAIN)
    assert "the first card is [" in strip_ansi(deal[0].text)


def test_the_table_shows_only_the_viewers_hand():
    replay = next(games("party", {"players": 4}, 1))
    state = engine.reset(replay.rules, np.array([replay.seed], np.uint64))
    voice = Voice(seat_names(replay.seats), you=2)
    mine = strip_ansi(table_text(state, voice, PLAIN, 2))
    assert mine.count("[") == 1 + int((state.hands[0, 2] > 0).sum())  # top card + own kinds
    assert "Your hand:" in mine and "7 cards" in mine
    open_view = strip_ansi(table_text(state, voice, PLAIN, None))
    assert open_view.count("[") > 25 and "to act (" in open_view
    colored = table_text(state, voice, Style(color=True), 2)
    assert "\x1b[" in colored and strip_ansi(colored) == mine


def test_answers_are_parsed_or_explained():
    assert parse_answer("2", 3) == 1
    assert parse_answer("  3 \n", 3) == 2
    assert parse_answer("q", 3) == QUIT and parse_answer("QUIT", 3) == QUIT
    assert parse_answer("", 3) == "Please type a number from 1 to 3 (or q to quit)."
    assert "'red' is not a number" in parse_answer("red", 3)
    assert "not a number" in parse_answer("-1", 3) and "not a number" in parse_answer("1.5", 3)
    assert parse_answer("4", 3) == "There is no choice 4: type a number from 1 to 3."
    assert parse_answer("0", 2).startswith("There is no choice 0")
    assert parse_answer("7", 1) == "There is no choice 7: type 1."


def test_answers_int_cannot_read_are_explained_not_raised():
    assert "not a number" in parse_answer("²", 3)  # str.isdigit says yes, int() says no
    assert "not a number" in parse_answer("\u0663", 3)  # an Arabic-Indic three
    assert parse_answer("9" * 5000, 3).startswith("There is no choice 999999999999...")
    assert parse_answer("0002", 3) == 1


def test_menus_ask_the_phase_question():
    rules = load_rules("official")
    state = engine.reset(rules, np.array([5], np.uint64))
    voice = Voice(["me", "bot"], you=int(state.actor[0]))
    menu = build_menu(state, engine.legal_mask(state)[0], voice, PLAIN)
    assert menu.question == "Your turn: play a card or draw."
    assert menu.choices[-1].label == "draw a card" and menu.choices[-1].action == DRAW
    with pytest.raises(ValueError, match="over"):
        state.phase[0] = 7
        build_menu(state, np.zeros(77, bool), voice, PLAIN)


def test_a_fixed_length_match_says_its_length():
    preset, overrides = FIXED_LENGTH_MATCH
    told = []
    for replay in games(preset, overrides, count=2):
        voice = Voice(seat_names(replay.seats))
        told += [strip_ansi(e.text) for d in steps(replay) for e in narrate(d, voice, PLAIN)]
    scores = [t for t in told if t.startswith("Match scores")]
    assert scores and all("2 rounds, lowest total wins" in t for t in scores)
