"""The compiled legal masks (:mod:`uno_rl.core.compiled.nb_masks`) against the batched
engine's :func:`~uno_rl.core.masks.legal_mask`: every game's row after every deal and step of
random play (over games included) of the shipped presets and random rule sets (the shipped
decks and the switch combinations: :mod:`test_nb_engine_sweeps`, whole engine against whole
engine); and the compiled Swap Hands targets against
:func:`~uno_rl.core.hand_changes.swap_targets`."""

from __future__ import annotations

import numba
import numpy as np
import pytest
import suite_profile
from core.compiled.nb_lockstep import (
    COMBO_CASES,
    DECK_CASES,
    combo_rules,
    describe,
    play_lockstep,
    preset_cases,
)
from core.test_differential import expected_phases, rule_sets
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from uno_rl.core import load_rules
from uno_rl.core import numpy_engine as engine
from uno_rl.core.compiled.nb_masks import has_swap_target, legal_masks, swap_target_allowed
from uno_rl.core.compiled.nb_rules import rule_tables
from uno_rl.core.compiled.nb_state import game_arrays
from uno_rl.core.hand_changes import swap_targets
from uno_rl.core.phases import COLOR
from uno_rl.core.rules import Rules
from uno_rl.core.state import State


def kernel_masks(state: State, games: np.ndarray | None = None) -> np.ndarray:
    """(k, A) bool: the compiled masks of ``games`` (all by default), into a buffer of True
    (each row must be cleared by the kernel)."""
    games = np.arange(state.num_games) if games is None else np.asarray(games, np.int64)
    out = np.ones((games.size, state.rules.layout.num_actions), bool)
    legal_masks(game_arrays(state), rule_tables(state.rules), games, out)
    return out


def check_masks(state: State) -> None:
    """Every game's compiled mask equals the engine's."""
    expected = engine.legal_mask(state)
    got = kernel_masks(state)
    bad = np.flatnonzero((got != expected).any(axis=1))
    if bad.size:
        i, name = int(bad[0]), state.rules.layout.action_name
        raise AssertionError(
            f"masks differ in {bad.size} game(s); first: {describe(state, i)}\n"
            f"  engine: {[name(x) for x in np.flatnonzero(expected[i])]}\n"
            f"  kernel: {[name(x) for x in np.flatnonzero(got[i])]}"
        )


def test_actions_of_each_kind_are_one_run():
    for rules in (Rules(), Rules(deck="extreme")):
        t, layout = rule_tables(rules), rules.layout
        for kind in range(layout.num_kinds):
            run = np.zeros(layout.num_actions, bool)
            run[t.first_action[kind] : t.first_action[kind] + t.kind_action_count[kind]] = True
            assert np.array_equal(run, layout.kind_actions[kind]), layout.card_name(kind)


def test_rule_sets_share_one_compiled_type():
    """Every rule set's tables have one numba type: the kernel compiles once."""
    rules = [load_rules(name, players=p) for name, p in preset_cases()]
    rules += [load_rules("official", deck=d, players=p) for d, p in DECK_CASES]
    rules += [combo_rules(i) for i, _ in COMBO_CASES]
    types = {numba.typeof(rule_tables(r)) for r in rules}
    assert len(types) == 1


@pytest.mark.parametrize(("preset", "players"), preset_cases())
def test_presets(preset, players):
    rules = load_rules(preset, players=players)
    cov = play_lockstep(rules, check_masks, num_games=48, steps=120, seed=players)
    assert cov.rounds > 0
    missing = expected_phases(rules) - {COLOR} - cov.phases  # a first-card Wild is rare
    assert not missing, f"phases never reached: {missing}"


@settings(
    max_examples=suite_profile.examples(40),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(rules=rule_sets(), seed=st.integers(0, 2**32 - 1))
def test_random_rule_sets(rules, seed):
    play_lockstep(rules, check_masks, num_games=8, steps=40, seed=seed)


def test_any_games_in_any_order():
    rules = load_rules("house", players=4, deck="extension")
    state = engine.reset(rules, np.arange(20, dtype=np.uint64))
    games = np.array([17, 3, 3, 0, 11])  # repeats are fine: each row is written alone
    assert np.array_equal(kernel_masks(state, games), engine.legal_mask(state)[games])
    assert kernel_masks(state, np.zeros(0, np.int64)).shape == (0, rules.layout.num_actions)


@pytest.mark.parametrize("excludes_uno", [True, False])
def test_swap_targets(excludes_uno):
    rules = load_rules("official", deck="swap-112", players=4, hand_size=2,
                       swap_excludes_uno=excludes_uno)  # fmt: skip
    t, p = rule_tables(rules), rules.players
    seen = set()

    def check(state: State) -> None:
        a = game_arrays(state)
        for g in range(state.num_games):
            for seat in range(p):
                expected = swap_targets(state, np.array([g]), np.array([seat], np.int8))[0]
                got = [swap_target_allowed(a, t, g, seat, k) for k in range(1, p)]
                assert got == expected.tolist(), describe(state, g)
                assert has_swap_target(a, t, g, seat) == expected.any(), describe(state, g)
                seen.add(bool(expected.all()))

    play_lockstep(rules, check, num_games=4, steps=30, seed=5)
    assert seen == ({True, False} if excludes_uno else {True})
