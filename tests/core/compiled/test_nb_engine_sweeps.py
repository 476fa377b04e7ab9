"""The compiled engine against the NumPy engine over more than a million decisions: every
shipped deck at 2, 4 and 6 players, and every switch set of the reference differential tests
(state, masks, observations and results compared at every step: :mod:`compiled_lockstep`)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from compiled_lockstep import play_lockstep

from uno_rl.core.decks import available_decks
from uno_rl.core.rules import load_rules

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/core: the switch sets
from test_differential import COMBO_PLAYERS, SWITCH_COMBOS  # noqa: E402

#: Games in lockstep and decisions compared per deck and player count (15 of them: 1,152,000).
DECK_GAMES, DECK_DECISIONS = 256, 76_800
#: The same per switch set (70 of them: 1,075,200).
COMBO_GAMES, COMBO_DECISIONS = 256, 15_360
DECKS = sorted(available_decks())


def test_the_sweeps_compare_over_a_million_decisions_each():
    assert len(DECKS) * 3 * DECK_DECISIONS >= 1_000_000
    assert len(SWITCH_COMBOS) * COMBO_DECISIONS >= 1_000_000


@pytest.mark.parametrize("players", [2, 4, 6])
@pytest.mark.parametrize("deck", DECKS)
def test_every_shipped_deck(deck, players):
    rules = load_rules("official", players=players, deck=deck)
    played = play_lockstep(rules, DECK_GAMES, DECK_DECISIONS, seed=players)
    assert played.decisions >= DECK_DECISIONS and played.rounds > 0


@pytest.mark.parametrize("index", range(len(SWITCH_COMBOS)))
def test_every_switch_set(index):
    combo = dict(SWITCH_COMBOS[index])
    players = combo.pop("players", COMBO_PLAYERS[index % len(COMBO_PLAYERS)])
    rules = load_rules("official", players=players, **combo)
    played = play_lockstep(rules, COMBO_GAMES, COMBO_DECISIONS, seed=100 + index)
    assert played.decisions >= COMBO_DECISIONS
