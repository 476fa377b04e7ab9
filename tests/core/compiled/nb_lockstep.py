"""Random play in the batched NumPy engine with a check of the compiled kernel at every step.

:func:`play_lockstep` deals games, plays them with the differential tests' seeded policy
(``prefer_play``: mostly a card), restarts the finished ones and, after every deal and every
step (over games included), calls ``check(state)``, which holds a kernel function to the
engine on ``nb_state.game_arrays(state)``. The sweeps (presets, shipped decks, switch
combinations) are those of ``tests/core/test_differential.py``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np
from core.test_differential import COMBO_PLAYERS, PRESET_CASES, SWITCH_COMBOS, prefer_play

from uno_rl.core import numpy_engine as engine
from uno_rl.core.phases import OVER, PHASE_NAMES
from uno_rl.core.rules import Rules, load_rules
from uno_rl.core.state import State

__all__ = [
    "COMBO_CASES",
    "DECK_CASES",
    "PRESET_CASES",
    "Coverage",
    "combo_rules",
    "describe",
    "play_lockstep",
    "preset_cases",
]

#: The shipped decks, each at 2, 4 and 6 players.
DECK_CASES = [
    (deck, players)
    for deck in ("classic", "extension", "extreme", "modern-112", "swap-112")
    for players in (2, 4, 6)
]


def preset_cases() -> list[tuple[str, int]]:
    """(preset, players): each shipped preset at the differential tests' two player counts."""
    return [(name, p) for name, counts in PRESET_CASES.items() for p in counts]


def combo_rules(index: int) -> Rules:
    """The official rules with switch combination ``index`` (at the differential test's
    player count)."""
    combo = dict(SWITCH_COMBOS[index])
    players = combo.pop("players", COMBO_PLAYERS[index % len(COMBO_PLAYERS)])
    return load_rules("official", players=players, **combo)


def _combo_id(combo: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in combo.items())


#: (index into SWITCH_COMBOS, its test id): the official rules with each combination.
COMBO_CASES = [(i, _combo_id(c)) for i, c in enumerate(SWITCH_COMBOS)]


@dataclasses.dataclass
class Coverage:
    """What a lockstep run went through: phases acted in, steps, rounds finished, checks."""

    phases: set = dataclasses.field(default_factory=set)
    steps: int = 0
    rounds: int = 0
    checks: int = 0


def describe(state: State, i: int) -> str:
    """One line locating game ``i`` for an assertion message."""
    return (
        f"game {i} (round seed {int(state.key[i])}, {state.rules.players} players, deck "
        f"{state.rules.deck}): turn {int(state.turn[i])}, phase "
        f"{PHASE_NAMES[state.phase[i]]}, actor {int(state.actor[i])}, top "
        f"{state.rules.layout.card_name(int(state.top[i]))}"
    )


def play_lockstep(
    rules: Rules,
    check: Callable[[State], None],
    *,
    num_games: int = 32,
    steps: int = 80,
    seed: int = 0,
) -> Coverage:
    """Play ``steps`` steps of ``num_games`` games under ``rules`` and ``check`` the state
    after the deal, after every step and after every restart of finished games."""
    gen = np.random.default_rng(seed)

    def new_seeds(k: int) -> np.ndarray:
        return gen.integers(0, 2**63 - 1, size=k, dtype=np.int64).astype(np.uint64)

    state = engine.reset(rules, new_seeds(num_games))
    cov = Coverage()
    check(state)
    cov.checks += 1
    for _ in range(steps):
        cov.phases.update(state.phase.tolist())
        result = engine.step(state, prefer_play(engine.legal_mask(state), gen))
        cov.steps += 1
        check(state)  # finished games are still over here: their masks and observations too
        cov.checks += 1
        cov.rounds += int(result.round_over.sum())
        finished = state.phase == OVER
        if finished.any():
            engine.reset_games(state, finished, new_seeds(int(finished.sum())))
            check(state)
            cov.checks += 1
    return cov
