"""The heuristics' choices by role (:mod:`uno_rl.agents.play_order`, ``targets``,
``responses``, ``colors``): the same actions as before the cards' handling was organised by
role, on both layouts, and the kinds a mask plays read the same on both."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from uno_rl.agents import make_agent
from uno_rl.agents.heuristic import playable_kinds
from uno_rl.core import engine, load_rules
from uno_rl.core.layout import CLASSIC, EXTENDED
from uno_rl.core.observe import observe
from uno_rl.core.phases import OVER

SPECS = ["rule", "color-first", "points-dumper", "aggressive", "bayes-challenger:bluff=0.5"]
RULES = {
    "classic": dict(players=4, seven_zero=True, jump_in=True, multi_play=True),
    "extreme": dict(players=3, deck="extreme"),
    "extension": dict(players=3, deck="extension", stacking="any"),
}
#: sha256 (first 16 digits) of every action of 12 seeded games, 80 steps: recorded, so that a
#: change in how the heuristics play is seen.
RECORDED = {
    "classic": ["686d832beb9bb8dc", "ccd30043fbb1963b", "25508ddb7599cc06", "3bb8b0327710b47a",
                "4941e4895198639c"],
    "extreme": ["7b09d2d132a84bef", "7ab0bda3695ee11e", "81fdaaf26ba0e690", "86b358df4c7b8891",
                "7ab0bda3695ee11e"],
    "extension": ["4545cbf6158701cd", "b0cb5abeee035be9", "3d7667d3db8e24d3",
                  "1f7abf6874511ed8", "b0cb5abeee035be9"],
}  # fmt: skip


def _actions_digest(spec: str, rules) -> str:
    agent = make_agent(spec, rules)
    rng = np.random.default_rng(5)
    state = engine.reset(rules, rng.integers(0, 2**62, 12).astype(np.uint64))
    memories = [agent.new_memory(12) for _ in range(rules.players)]
    digest = hashlib.sha256()
    for _ in range(80):
        live = np.flatnonzero(state.phase != OVER)
        if not live.size:
            break
        mask = engine.legal_mask(state, live)
        actor = state.actor[live].astype(np.int64)
        obs = observe(state.take(live), actor)
        actions = np.empty(live.size, np.int64)
        for seat in np.unique(actor):
            rows = np.flatnonzero(actor == seat)
            memory = memories[seat]
            if memory is None:
                actions[rows] = agent.act(obs[rows], mask[rows], rng)
            else:
                actions[rows] = agent.act(obs[rows], mask[rows], rng, memory, live[rows])
        digest.update(actions.tobytes())
        engine.step(state, actions, games=live)
    return digest.hexdigest()[:16]


@pytest.mark.parametrize("deck", sorted(RULES))
def test_heuristics_play_as_recorded(deck):
    rules = load_rules("official", **RULES[deck])
    assert [_actions_digest(spec, rules) for spec in SPECS] == RECORDED[deck]


@pytest.mark.parametrize("layout", [CLASSIC, EXTENDED], ids=lambda x: x.name)
def test_playable_kinds_are_the_kinds_some_legal_action_plays(layout):
    masks = np.random.default_rng(0).random((64, layout.num_actions)) < 0.1
    expected = (masks[:, None, :] & layout.kind_actions[None, :, :]).any(axis=2)
    assert np.array_equal(playable_kinds(masks, layout), expected)
