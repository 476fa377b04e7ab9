"""The play-outs' view read from the engine state equals the observation's, piece by piece,
and the heuristics play exactly the same actions from it, over long random play on the
official rules, house rules (stacking, jump-ins, 7-0, multi-plays), matches and every shipped
deck of the extended layout (``uno_rl/agents/state_view.py``)."""

from __future__ import annotations

import numpy as np
import pytest

from uno_rl.agents import make_agent
from uno_rl.agents.state_view import StateView
from uno_rl.agents.view import ObservationView
from uno_rl.core import engine, load_rules
from uno_rl.core.observe import observe
from uno_rl.core.phases import DRAWN, OVER, PLAY, RESPOND
from uno_rl.core.sampling import sample_legal_actions

CONFIGS = [
    ("official", dict(players=2)),
    ("official", dict(players=4)),
    ("official", dict(players=3, match=True)),
    ("house", dict(players=4)),
    ("party", dict(players=5)),
    ("seven-zero", dict(players=3)),
    ("official", dict(players=3, deck="extreme", dispenser="off")),
    ("official", dict(players=4, deck="extreme")),
    ("official", dict(players=4, deck="extension")),
    ("official", dict(players=3, deck="swap-112")),
    ("official", dict(players=2, deck="modern-112")),
]
AGENTS = [
    "color-first",
    "rule",
    "points-dumper",
    "aggressive",
    "bluffer",
    "suspicious",
    "color-first:bluff=1,bluff_hand_max=4,bluff_when=any,bluff_lead_max=-10",
    "points-dumper:challenge=always,play_drawn=false,stack=false",
]
PIECES = [
    "hand", "discard", "top", "color", "phase", "direction", "pending", "hand_sizes", "drawn",
    "previous_color", "draw4_player", "next_seat", "previous_seat", "play_order", "color_counts",
]  # fmt: skip
EXTENDED_PIECES = ["swap_seats", "shuffled", "presses"]


def snapshots(rules, games=64, steps=240, every=8, seed=0):
    """Running games every ``every`` random decisions (copies of the live ones)."""
    rng = np.random.default_rng(seed)
    state = engine.reset(rules, np.arange(games, dtype=np.uint64) + 7 * seed + 1)
    out = []
    for step in range(steps):
        done = state.phase == OVER
        if done.any():
            engine.reset_games(state, done, rng.integers(1, 2**62, int(done.sum()), np.uint64))
        if step % every == 0:
            out.append(state.copy())
        actions = sample_legal_actions(engine.legal_mask(state), rng)
        engine.step(state, actions, validate=False)
    return out


@pytest.mark.parametrize(("preset", "switches"), CONFIGS)
def test_the_state_view_is_the_observation_view_and_the_heuristics_act_alike(preset, switches):
    rules = load_rules(preset, **switches)
    agents = [make_agent(spec, rules) for spec in AGENTS]
    seen_phases = set()
    for i, state in enumerate(snapshots(rules, seed=len(preset) + rules.players)):
        seats = state.actor.astype(np.int64)
        from_obs = ObservationView(observe(state, seats), rules.players)
        from_state = StateView(state)
        names = PIECES + (EXTENDED_PIECES if from_obs.extended else [])
        for name in names:
            expected, got = getattr(from_obs, name), getattr(from_state, name)
            assert got.dtype == expected.dtype and got.shape == expected.shape, name
            np.testing.assert_array_equal(got, expected, err_msg=name)
        np.testing.assert_array_equal(
            from_state.match_scores(rules.match_target), from_obs.match_scores(rules.match_target)
        )
        np.testing.assert_array_equal(
            from_state.decisions(rules.max_turns), from_obs.decisions(rules.max_turns)
        )
        rows = np.flatnonzero(state.phase == state.phase[0])
        np.testing.assert_array_equal(from_state.take(rows).hand, from_obs.take(rows).hand)
        seen_phases.update(np.unique(state.phase).tolist())
        masks = engine.legal_mask(state)
        obs = observe(state, seats)
        for agent in agents:
            expected = agent.act(obs, masks, np.random.default_rng(i))
            got = agent.act_on_state(state, masks, np.random.default_rng(i))
            np.testing.assert_array_equal(got, expected, err_msg=agent.label)
    assert PLAY in seen_phases and len(seen_phases) >= 2
    if preset == "official" and "deck" not in switches:
        assert {DRAWN, RESPOND} <= seen_phases


def test_the_state_view_reads_only_the_acting_seat():
    rules = load_rules("official", players=3)
    state = snapshots(rules, steps=40)[-1]
    view = StateView(state)
    other = state.copy()
    actor = state.actor.astype(np.int64)
    for offset in (1, 2):
        seat = (actor + offset) % 3
        other.hands[np.arange(state.num_games), seat] = 0  # hidden cards changed
    other.pile[:] = 0
    again = StateView(other)
    for name in PIECES:
        if name != "hand_sizes":
            np.testing.assert_array_equal(getattr(again, name), getattr(view, name), err_msg=name)
