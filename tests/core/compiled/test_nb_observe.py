"""The compiled observations (:mod:`uno_rl.core.compiled.nb_observe`) against the batched
engine's :func:`~uno_rl.core.observe.observe`: every seat's observation of every game after
every deal and step of random play (over games included) of the shipped presets, the shipped
decks at 2, 4 and 6 players, the differential tests' switch combinations and random rule
sets, value for value."""

from __future__ import annotations

from pathlib import Path

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
from core.test_differential import rule_sets
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from uno_rl.core import load_rules
from uno_rl.core import numpy_engine as engine
from uno_rl.core.compiled.nb_observe import observe_into, observe_many
from uno_rl.core.compiled.nb_rules import OBS_PIECES, rule_tables
from uno_rl.core.compiled.nb_state import game_arrays
from uno_rl.core.observe import observe_numpy as observe
from uno_rl.core.rules import Rules
from uno_rl.core.state import State

EVERYTHING = Path(__file__).resolve().parents[1] / "decks" / "everything.toml"


def kernel_observations(state: State, seats: np.ndarray, games=None) -> np.ndarray:
    """(k, O) float32: the compiled observations of ``seats[i]`` in ``games[i]`` (all games by
    default), into a buffer of NaN (the kernel must clear each row)."""
    games = np.arange(state.num_games) if games is None else np.asarray(games, np.int64)
    out = np.full((games.size, state.rules.layout.obs_size), np.nan, np.float32)
    seats = np.asarray(seats, np.int64)
    observe_many(game_arrays(state), rule_tables(state.rules), games, seats, out)
    return out


def compare(state: State, seats: np.ndarray) -> np.ndarray:
    """Assert the compiled observations of ``seats`` ((N,) int64) equal the engine's; return
    them."""
    expected = observe(state, seats)
    got = kernel_observations(state, seats)
    bad = np.flatnonzero((got != expected).any(axis=1))
    if bad.size:
        i = int(bad[0])
        pieces = [
            name
            for name, where in state.rules.layout.slices.items()
            if not np.array_equal(got[i, where], expected[i, where])
        ]
        raise AssertionError(
            f"observation of seat {int(seats[i])} differs in {pieces} in {bad.size} game(s); "
            f"first: {describe(state, i)}"
        )
    return got


def check_observations(state: State) -> None:
    """Every seat's observation of every game, and the actors' (seats differing by game)."""
    for seat in range(state.rules.players):
        compare(state, np.full(state.num_games, seat, np.int64))
    compare(state, state.actor.astype(np.int64))


@pytest.mark.parametrize("deck", ["classic", "extreme"])
def test_piece_offsets(deck):
    layout = Rules(deck=deck).layout
    t = rule_tables(Rules(deck=deck))
    assert t.obs_size == layout.obs_size
    for index, name in enumerate(OBS_PIECES):
        assert t.obs_start[index] == layout.starts.get(name, -1), name
    assert t.symbol_count * 9 == layout.slices["void_symbol"].stop - layout.starts["void_symbol"]


@pytest.mark.parametrize(("preset", "players"), preset_cases())
def test_presets(preset, players):
    rules = load_rules(preset, players=players)
    cov = play_lockstep(rules, check_observations, num_games=32, steps=80, seed=players)
    assert cov.rounds > 0


@pytest.mark.parametrize(("deck", "players"), DECK_CASES)
def test_shipped_decks(deck, players):
    rules = load_rules("official", deck=deck, players=players)
    cov = play_lockstep(rules, check_observations, num_games=32, steps=80, seed=players)
    assert cov.rounds > 0


@pytest.mark.parametrize(("index", "name"), COMBO_CASES, ids=[name for _, name in COMBO_CASES])
def test_switch_combos(index, name):
    play_lockstep(combo_rules(index), check_observations, num_games=24, steps=40, seed=7 + index)


@settings(
    max_examples=suite_profile.examples(40),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(rules=rule_sets(), seed=st.integers(0, 2**32 - 1))
def test_random_rule_sets(rules, seed):
    play_lockstep(rules, check_observations, num_games=8, steps=40, seed=seed)


def test_every_piece_is_compared():
    """A deck of every card, matches, challenges, with and without the dispenser: each piece
    is nonzero somewhere."""
    slices = Rules(deck=str(EVERYTHING)).layout.slices
    seen: set[str] = set()

    def check(state: State) -> None:
        for seat in range(state.rules.players):
            got = compare(state, np.full(state.num_games, seat, np.int64))
            seen.update(name for name, where in slices.items() if got[:, where].any())

    for dispenser in ("on", "off"):
        rules = load_rules("official", deck=str(EVERYTHING), players=4, dispenser=dispenser,
                           match=True, scoring="losers-add", seven_zero=True)  # fmt: skip
        play_lockstep(rules, check, num_games=24, steps=100, seed=11)
    assert seen == set(slices)


def test_any_games_in_any_order():
    rules = load_rules("party", players=5, deck="modern-112")
    state = engine.reset(rules, np.arange(20, dtype=np.uint64))
    games = np.array([17, 3, 3, 0, 11])
    seats = np.array([4, 0, 2, 1, 3])
    expected = np.stack([observe(state, s)[g] for g, s in zip(games, seats, strict=True)])
    assert np.array_equal(kernel_observations(state, seats, games), expected)


def test_a_seat_out_of_range_is_refused():
    rules = Rules(players=3)
    state = engine.reset(rules, np.arange(2, dtype=np.uint64))
    out = np.zeros(rules.layout.obs_size, np.float32)
    for seat in (-1, 3):
        with pytest.raises(ValueError, match="observing seat"):
            observe_into(game_arrays(state), rule_tables(rules), 0, seat, out)
