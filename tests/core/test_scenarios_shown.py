"""Scenarios: what each seat shows the others (its hand's void, its plays, the colors it named)
and how the observation's last four pieces carry it (:mod:`uno_rl.core.observe_layout`)."""

from __future__ import annotations

import numpy as np
import pytest

from uno_rl.core.cards import COLOR_NAMES
from uno_rl.core.layout import CLASSIC, EXTENDED, TARGETED_TWO
from uno_rl.core.observe import observe
from uno_rl.core.observe_layout import OTHER_SEATS, SHOWN_PIECES

try:
    from .scenario import build, card, rules, run_both
except ImportError:
    from scenario import build, card, rules, run_both

RED, YELLOW, GREEN, BLUE = range(4)
SEVEN = 7


def shown(run, seat: int) -> dict[str, np.ndarray]:
    """The shown pieces of ``seat``'s observation (engine; the reference agrees, run_both),
    one row per relative seat 1 .. 9."""
    obs = observe(run.state, seat)[0]
    slices = run.state.rules.layout.slices
    return {name: obs[slices[name]].reshape(OTHER_SEATS, -1) for name in SHOWN_PIECES}


def test_a_draw_in_the_play_phase_shows_the_color_and_symbol_it_lacked():
    g = build(rules(), hands={0: ["blue 3", "green 9"], 1: ["yellow 1", "yellow 2"]},
              top="red 7", pile=["blue 5"])  # fmt: skip
    run = run_both(g, ["draw"])  # blue 5 cannot be played on red 7: the turn passes
    assert (run.game.void_color[0], run.game.void_symbol[0]) == (RED, SEVEN)
    assert run.game.void_color[1] == run.game.void_symbol[1] == -1
    seen_by_1 = shown(run, 1)  # seat 0 is one seat after seat 1 at two players
    assert np.flatnonzero(seen_by_1["void_color"][0]).tolist() == [RED]
    assert np.flatnonzero(seen_by_1["void_symbol"][0]).tolist() == [SEVEN]
    assert not seen_by_1["void_color"][1:].any()
    assert not shown(run, 0)["void_color"].any()  # its own void is not another seat's


def test_a_wild_on_top_shows_only_the_color():
    g = build(rules(), hands={0: ["blue 3"], 1: ["yellow 1", "yellow 2"]},
              top="wild", color="green", pile=["blue 5"])  # fmt: skip
    run = run_both(g, ["draw"])
    assert (run.game.void_color[0], run.game.void_symbol[0]) == (GREEN, -1)
    assert not shown(run, 1)["void_symbol"].any()


def test_the_void_holds_until_its_seat_draws_again():
    g = build(rules(), hands={0: ["blue 3", "green 9"], 1: ["red 2", "red +2", "yellow 4"]},
              top="red 7", pile=["yellow 8", "green 1", "blue 5"])  # fmt: skip
    run = run_both(g, ["draw"])  # seat 0: no red, no 7
    run = run_both(run.game, ["red 2"])  # seat 1 plays: seat 0's void stands
    assert (run.game.void_color[0], run.game.void_symbol[0]) == (RED, SEVEN)
    run = run_both(run.game, ["draw"])  # seat 0 draws on red 2: a new void
    assert (run.game.void_color[0], run.game.void_symbol[0]) == (RED, 2)
    run = run_both(run.game, ["red +2"])  # seat 0 draws two as a penalty: nothing is known
    assert run.game.void_color[0] == run.game.void_symbol[0] == -1


def test_a_draw_outside_the_play_phase_shows_nothing():
    # Keeping a drawn card is no draw of the play phase; accepting a +2 is a draw: it clears.
    r = rules(stacking="same")
    g = build(r, hands={0: ["blue 3", "green 9"], 1: ["red +2", "yellow 4", "yellow 5"]},
              top="red 7", actor=1, pile=["yellow 8", "green 1"])  # fmt: skip
    run = run_both(g, ["red +2", "accept"])
    assert run.game.void_color[0] == run.game.void_symbol[0] == -1


def test_plays_and_named_colors_are_counted_per_seat():
    g = build(rules(), hands={0: ["red 3", "wild", "green 9"], 1: ["red 5", "blue 5", "+4"]},
              top="red 7")  # fmt: skip
    run = run_both(g, ["red 3", "red 5", "wild blue", "blue 5"])
    assert run.game.played[0] == [1, 0, 0, 0, 1] and run.game.named[0] == BLUE
    assert run.game.played[1] == [1, 0, 0, 1, 0] and run.game.named[1] == -1
    seen_by_0 = shown(run, 0)
    assert seen_by_0["played_colors"][0].tolist() == [1, 0, 0, 1, 0]
    assert not seen_by_0["named_color"].any()
    seen_by_1 = shown(run, 1)
    assert seen_by_1["played_colors"][0].tolist() == [1, 0, 0, 0, 1]
    assert np.flatnonzero(seen_by_1["named_color"][0]).tolist() == [BLUE]


def test_a_zero_passes_each_void_on_with_its_hand():
    r = rules(players=3, seven_zero=True)
    g = build(r, hands={0: ["yellow 4", "blue 1"], 1: ["red 0", "red 1", "green 2"],
                        2: ["green 5", "green 6"]},
              top="red 7", pile=["yellow 9"])  # fmt: skip
    run = run_both(g, ["draw", "red 0"])  # seat 0's hand (no red, no 7) passes to seat 1
    assert run.game.void_color == [-1, RED, -1] and run.game.void_symbol == [-1, SEVEN, -1]
    assert run.game.played[1][RED] == 1  # the play stays with the seat that made it


def test_a_seven_swaps_the_voids_with_the_hands():
    r = rules(players=3, seven_zero=True)
    g = build(r, hands={0: ["yellow 4", "blue 1"], 1: ["red 7", "red 1", "green 2"],
                        2: ["green 5", "green 6"]},
              top="red 9", pile=["yellow 8"])  # fmt: skip
    run = run_both(g, ["draw", "red 7", "target 2"])  # seat 1 swaps with seat 0
    assert run.game.void_color == [-1, RED, -1] and run.game.void_symbol == [-1, 9, -1]


def test_a_new_round_forgets_everything_shown():
    r = rules(match=True)
    g = build(r, hands={0: ["red 3"], 1: ["green 2", "green 4"]}, top="red 7",
              pile=["blue 5"], actor=1)  # fmt: skip
    run = run_both(g, ["draw", "red 3"])  # seat 1 draws (a void), seat 0 goes out
    assert run.game.round_index == 1
    assert run.game.void_color == [-1, -1] and run.game.played == [[0] * 5, [0] * 5]


@pytest.mark.parametrize("players", [2, 4, 10])
def test_each_other_seat_has_its_block(players):
    hands = {s: [f"{('blue', 'green')[s % 2]} {1 + s // 2}"] for s in range(players)}
    pile = [f"yellow {1 + s // 2}" for s in range(players)]
    g = build(rules(players=players), hands=hands, top="red 7", pile=pile)
    run = run_both(g, ["draw"] * players)  # everyone draws on red 7 in turn
    assert all(c == RED for c in run.game.void_color)
    for seat in range(players):
        rows = shown(run, seat)["void_color"]
        assert rows[: players - 1, RED].all() and not rows[players - 1 :].any()


def test_the_extended_layout_has_a_slot_per_colored_symbol():
    assert dict(CLASSIC.pieces)["void_symbol"] == OTHER_SEATS * 13
    assert dict(EXTENDED.pieces)["void_symbol"] == OTHER_SEATS * 16
    assert EXTENDED.symbol_slot[TARGETED_TWO] == 15 and EXTENDED.symbol_slot[-1] == -1
    r = rules(deck="extension")
    top = f"{COLOR_NAMES[GREEN]} targeted +2"
    g = build(r, hands={0: ["blue 3"], 1: ["yellow 1", "yellow 2"]}, top=card(top),
              pile=["blue 5"], rest=None)  # fmt: skip
    run = run_both(g, ["draw"])
    assert (run.game.void_color[0], run.game.void_symbol[0]) == (GREEN, TARGETED_TWO)
    assert np.flatnonzero(shown(run, 1)["void_symbol"][0]).tolist() == [15]
