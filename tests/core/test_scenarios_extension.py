"""Scenarios: the extension cards of rules specification §11 (Targeted +2 / +4, Boomerang),
each run through both the reference and the engine (``run_both`` checks legal actions,
states, observations and outcomes agree after every action)."""

from __future__ import annotations

from collections import Counter

from uno_rl.core.layout import EXTENDED
from uno_rl.core.phases import OVER, PLAY, RESPOND, TARGET

try:
    from .scenario import build, hand_of, rules, run_both
except ImportError:
    from scenario import build, hand_of, rules, run_both

P1 = ["yellow 1", "yellow 2", "yellow 3"]
P2 = ["blue 1", "blue 2", "blue 3"]
P3 = ["green 1", "green 2"]
PILE = ["red 3", "red 4", "red 6", "red 7", "red 8", "red 9"]  # next drawn last
NO_BOOMERANGS = {"deck": "tests/core/decks/chaos.toml"}  # no Boomerang in it


def targeted_deck(**overrides):
    """The extension deck, with Boomerangs (every victim gets to answer)."""
    return rules(deck="extension", **overrides)


def test_targeted_two_chooses_any_victim_and_play_goes_on():
    r = targeted_deck(players=4)
    g = build(r, hands={0: ["red targeted +2", "red 5"], 1: P1, 2: P2, 3: P3}, top="red 1",
              pile=PILE)  # fmt: skip
    run = run_both(g, ["red targeted +2"])
    assert run.game.phase == TARGET and run.game.actor == 0
    assert len(run.legal()) == 3  # any other seat
    run = run_both(run.game, ["target 2", "accept"])  # seat 2, not next: play goes on
    g = run.game
    assert hand_of(g, 2)["red 9"] == 1 and hand_of(g, 2)["red 8"] == 1
    assert g.actor == 1 and g.phase == PLAY and g.pending == 0


def test_targeted_two_on_the_next_player_skips_them():
    r = targeted_deck(players=3)
    g = build(r, hands={0: ["red targeted +2", "red 5"], 1: P1, 2: P2}, top="red 1", pile=PILE)
    run = run_both(g, ["red targeted +2", "target 1"])
    assert run.game.phase == RESPOND and run.game.actor == 1  # a Boomerang may answer
    assert run.legal() == ["accept the draw"]  # seat 1 holds none
    run = run_both(run.game, ["accept"])
    assert run.game.hand_size(1) == 5 and run.game.actor == 2


def test_targeted_draw_without_boomerangs_is_drawn_at_once():
    r = rules(players=3, **NO_BOOMERANGS)
    deck_has = r.deck_cards.table()
    assert "boomerang" not in deck_has
    g = build(r, hands={0: ["+4", "red 5"], 1: P1, 2: P2}, top="red 1", pile=PILE,
              extra_copies=True)  # fmt: skip
    assert run_both(g).game.phase == PLAY


def test_targeted_four_only_the_victim_challenges():
    r = targeted_deck(players=4)
    hand = ["targeted +4", "red 5"]  # holds red: a bluff
    g = build(r, hands={0: hand, 1: P1, 2: P2, 3: P3}, top="red 1", pile=PILE)
    run = run_both(g, ["targeted +4 green", "target 3"])
    g = run.game
    assert g.phase == RESPOND and g.actor == 3 and g.draw4_bluff and g.pending == 4
    assert "challenge" in run.legal()
    obs = g.observe(3)
    assert obs[EXTENDED.slices["draw4_player"]][1] == 1.0  # seat 0 is 1 seat after seat 3
    run = run_both(g, ["challenge"])  # guilty: the bluffer draws 4, play goes on after them
    g = run.game
    assert g.hand_size(0) == 5 and g.hand_size(3) == 2 and g.actor == 1
    assert g.stats["challenges_won"][3] == 1 and g.reveal_viewer == 3


def test_targeted_four_innocent_victim_far_away_draws_six():
    r = targeted_deck(players=4)
    g = build(r, hands={0: ["targeted +4", "blue 5"], 1: P1, 2: P2, 3: P3}, top="red 1",
              pile=PILE)  # fmt: skip
    run = run_both(g, ["targeted +4 green", "target 2", "challenge"])
    g = run.game
    assert g.hand_size(2) == 9 and g.actor == 1  # seat 2 was not next: seat 1 plays


def test_targeted_four_taken_back():
    r = targeted_deck(players=3, caught_bluffer="takes-back")
    g = build(r, hands={0: ["targeted +4", "red 5"], 1: P1, 2: P2}, top="red 1", pile=PILE)
    run = run_both(g, ["targeted +4 blue", "target 1", "challenge"])
    g = run.game
    assert hand_of(g, 0)["targeted +4"] == 1 and g.top == EXTENDED.parse_card("red 1")
    assert g.color == 0 and g.hand_size(0) == 6


def test_final_targeted_card_still_asks_for_its_victim():
    r = targeted_deck(players=3, reward="points")
    g = build(r, hands={0: ["red targeted +2"], 1: P1, 2: P2}, top="red 1", pile=PILE)
    run = run_both(g, ["red targeted +2"])
    assert run.game.phase == TARGET and run.game.hand_size(0) == 0
    run = run_both(run.game, ["target 2"])  # drawn at once: the round is over
    g = run.game
    assert g.phase == OVER and g.winner == 0 and g.hand_size(2) == 5


def test_boomerang_sends_a_draw_back():
    r = targeted_deck(players=3)
    g = build(r, hands={0: ["red +2", "red 5"], 1: ["boomerang", "yellow 1"], 2: P2},
              top="red 1", pile=PILE)  # fmt: skip
    run = run_both(g, ["red +2"])
    assert run.game.phase == RESPOND and "play boomerang" in run.legal()
    run = run_both(run.game, ["boomerang"])
    g = run.game
    assert g.hand_size(0) == 3 and hand_of(g, 0)["red 9"] == 1  # the +2's player draws
    assert g.color == 0 and g.actor == 2 and g.pending == 0  # color kept, play goes on


def test_boomerang_sends_a_skip_back():
    r = targeted_deck(players=3)
    hands = {0: ["red skip", "red 5"], 1: ["boomerang", "yellow 1"], 2: ["red 2", "blue 1"]}
    g = build(r, hands=hands, top="red 1", pile=PILE)
    run = run_both(g, ["red skip"])
    assert run.game.phase == RESPOND and run.game.actor == 1 and run.game.pending == 0
    run = run_both(run.game, ["boomerang"])
    g = run.game
    assert g.skip_turn == [1, 0, 0] and g.actor == 2
    run = run_both(g, ["red 2"])  # on the Boomerang, red stays; seat 0 loses this turn
    assert run.game.actor == 1 and run.game.skip_turn == [0, 0, 0]


def test_skip_accepted_in_a_boomerang_deck():
    r = targeted_deck(players=3)
    g = build(r, hands={0: ["red skip", "red 5"], 1: P1, 2: P2}, top="red 1")
    run = run_both(g, ["red skip"])
    assert run.legal() == ["accept the draw"]  # every victim is asked: nothing shows
    run = run_both(run.game, ["accept"])
    assert run.game.actor == 2 and run.game.hand_size(1) == 3


def test_boomerang_returns_a_targeted_draw_and_a_plus_four_unchallenged():
    r = targeted_deck(players=4)
    g = build(r, hands={0: ["targeted +4", "red 5"], 1: P1, 2: ["boomerang", "blue 1"], 3: P3},
              top="red 1", pile=PILE)  # fmt: skip
    run = run_both(g, ["targeted +4 blue", "target 2", "boomerang"])
    g = run.game
    assert g.hand_size(0) == 5 and g.phase == PLAY and g.actor == 3 and g.color == 3


def test_final_boomerang_still_returns_the_draw():
    r = targeted_deck(players=2, reward="points")
    g = build(r, hands={0: ["red +2", "red 5"], 1: ["boomerang"]}, top="red 1", pile=PILE)
    run = run_both(g, ["red +2", "boomerang"])
    g = run.game
    assert (
        g.phase == OVER and g.winner == 1 and hand_of(g, 0) == Counter(["red 5", "red 9", "red 8"])
    )


def test_first_card_targeted_two_hits_the_first_player():
    import numpy as np

    from uno_rl.core import engine
    from uno_rl.core.reference import ReferenceGame

    r = targeted_deck(players=3)
    kinds = {EXTENDED.parse_card(f"{c} targeted +2") for c in ("red", "yellow", "green", "blue")}
    for seed in range(5000):
        game = ReferenceGame(r, seed)
        if game.top in kinds:
            break
    else:
        raise AssertionError("no first Targeted +2")
    first = (game.dealer + 1) % 3
    assert game.hand_size(first) == 9 and game.actor == (first + 1) % 3
    state = engine.reset(r, np.array([seed], np.uint64))
    assert state.hand_size[0].tolist() == [game.hand_size(s) for s in range(3)]
