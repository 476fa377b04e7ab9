"""Counters of long rounds: ``max_turns`` may be 1,000,000 decisions, so every counter that
grows with a round must hold that many steps. An int16 reshuffle counter wrapped at 32,768
(about 147,800 decisions of a draw-heavy policy) and the engine's reshuffles then differed
from the reference's. Here the counters start just below the old limit instead."""

from __future__ import annotations

import numpy as np
import pytest

from uno_rl.core import engine
from uno_rl.core.actions import DRAW
from uno_rl.core.convert import states_equal, to_reference, to_state
from uno_rl.core.observe import observe
from uno_rl.core.rules import RANGES
from uno_rl.core.state import STAT_NAMES, State

try:
    from .scenario import build, rules, run_both
except ImportError:
    from scenario import build, rules, run_both

OLD_LIMIT = 2**15  # an int16 counter wraps here
LONG = rules(players=2, max_turns=1_000_000)


def test_round_counters_hold_a_round_of_max_turns_decisions():
    state = State.empty(LONG, 1)
    longest = RANGES["max_turns"][1]  # at most one reshuffle and one stat count per decision
    for name in ("turn", "reshuffles", "stats", "round_index", "scores"):
        assert np.iinfo(getattr(state, name).dtype).max >= longest, name


def lockstep(game, steps: int, seed: int, until_reshuffles: int):
    """Play the reference ``game`` and an engine copy with a draw-heavy legal policy,
    requiring the same legal actions, outcomes, state and observations at every step."""
    state = to_state([game])
    gen = np.random.default_rng(seed)
    for i in range(steps):
        legal = game.legal_actions()
        assert legal == np.flatnonzero(engine.legal_mask(state)[0]).tolist(), i
        action = DRAW if DRAW in legal and gen.random() < 0.6 else int(gen.choice(legal))
        out = game.step(action)
        res = engine.step(state, np.array([action]))
        assert out.round_over == bool(res.round_over[0]), i
        assert out.rewards == res.rewards[0].tolist(), i
        size = int(state.pile_size[0])
        assert state.pile[0, :size].tolist() == game.pile, f"step {i}: draw piles differ"
        assert int(state.reshuffles[0]) == game.reshuffles, f"step {i}: reshuffle counts differ"
        assert not states_equal(state, 0, game), (i, states_equal(state, 0, game))
        for seat in range(game.num_players):
            assert np.array_equal(observe(state, seat)[0], game.observe(seat)), (i, seat)
        if out.round_over or game.reshuffles >= until_reshuffles:
            break
    return game, state


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_reshuffles_past_32768_draw_the_same_cards_as_the_reference(seed):
    """A small pile and discard (seat 1 holds the rest) so that the piles run dry every few
    decisions; the counter starts at 32,766 and passes 32,768 a few reshuffles later."""
    pile = ["red 1", "yellow 2", "green 3"]
    discard = ["blue 4", "blue 5", "red 6", "yellow 7", "green 8", "red 9"]
    game = build(
        LONG,
        hands={0: ["red 2", "blue 2", "green 2"]},
        top="red 5",
        pile=pile,
        discard=discard,
        rest=1,
        seed=seed,
        reshuffles=OLD_LIMIT - 2,
        turn=147_800,
    )
    game, state = lockstep(game, 3000, seed, OLD_LIMIT + 3)
    assert game.reshuffles >= OLD_LIMIT + 3, "the piles must run dry past the old limit"
    assert int(state.reshuffles[0]) == game.reshuffles
    assert int(state.turn[0]) == game.turn


def test_round_stats_past_32768_are_reported_exactly():
    """Per-seat +4 and challenge counters of a round past the old limit, in the state and in
    the step result that ends the round."""
    near = {name: [OLD_LIMIT - 1, OLD_LIMIT - 1] for name in STAT_NAMES}
    game = build(
        rules(players=2), hands={0: ["+4"], 1: ["blue 3", "blue 4"]}, top="red 5", stats=near
    )
    run = run_both(game, ["+4 green", "challenge"])  # innocent: seat 1 draws 6, seat 0 wins
    g = run.game
    assert run.last.round_over and run.last.winner == 0
    assert g.stats["draw4_plays"] == [OLD_LIMIT, OLD_LIMIT - 1]
    assert g.stats["challenges"] == [OLD_LIMIT - 1, OLD_LIMIT]
    assert g.stats["draw4_challenged"] == [OLD_LIMIT, OLD_LIMIT - 1]
    result = run.results[-1]
    assert result.draw4_plays[0].tolist() == [OLD_LIMIT, OLD_LIMIT - 1]
    assert result.challenges[0].tolist() == [OLD_LIMIT - 1, OLD_LIMIT]
    assert result.draw4_challenged[0].tolist() == [OLD_LIMIT, OLD_LIMIT - 1]
    assert result.bluffs[0].tolist() == [OLD_LIMIT - 1, OLD_LIMIT - 1]


def test_counters_past_the_old_limit_survive_copy_take_and_conversion():
    game = build(LONG, hands={0: ["red 2"], 1: ["blue 3"]}, top="red 5", reshuffles=40_000)
    state = to_state([game])
    assert int(state.copy().reshuffles[0]) == 40_000
    assert int(state.take([0]).reshuffles[0]) == 40_000
    assert to_reference(state, 0).reshuffles == 40_000
