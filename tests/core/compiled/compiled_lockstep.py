"""Play the NumPy engine and the compiled one side by side from the same deal seeds with the
same actions, and require the same state, masks, the actor's observation and step results at
every step.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from uno_rl.core import deal as numpy_deal
from uno_rl.core import masks as numpy_masks
from uno_rl.core.compiled import nb_engine
from uno_rl.core.numpy_engine import observe as numpy_observe
from uno_rl.core.numpy_engine import sample_legal_actions
from uno_rl.core.numpy_engine import step as numpy_step
from uno_rl.core.rules import Rules
from uno_rl.core.scoring import StepResult
from uno_rl.core.state import State

PLAY_PROB = 0.9


@dataclasses.dataclass
class Played:
    decisions: int = 0
    rounds: int = 0
    phases: set = dataclasses.field(default_factory=set)


def differences(one: State, other: State) -> list[str]:
    """The fields in which two batches differ (the draw pile only below its size)."""
    out = []
    for name, array in one.arrays().items():
        theirs = getattr(other, name)
        if name == "pile":
            live = np.arange(array.shape[1])[None, :] < one.pile_size[:, None]
            same = (one.pile_size == other.pile_size).all() and (
                np.where(live, array, 0) == np.where(live, theirs, 0)
            ).all()
        else:
            same = array.shape == theirs.shape and (array == theirs).all()
        if not same:
            out.append(name)
    return out


def assert_same_state(numpy_state: State, compiled_state: State) -> None:
    diff = differences(numpy_state, compiled_state)
    if diff:
        name = diff[0]
        rows = np.flatnonzero(
            (getattr(numpy_state, name) != getattr(compiled_state, name))
            .reshape(numpy_state.num_games, -1)
            .any(axis=1)
        )
        g = int(rows[0]) if rows.size else 0
        raise AssertionError(
            f"fields {diff} differ; first game {g}: numpy {getattr(numpy_state, name)[g]} "
            f"compiled {getattr(compiled_state, name)[g]}"
        )


def assert_same_result(one: StepResult, other: StepResult) -> None:
    for field in dataclasses.fields(StepResult):
        a, b = getattr(one, field.name), getattr(other, field.name)
        assert a.dtype == b.dtype and a.shape == b.shape, field.name
        assert (a == b).all(), field.name


def prefer_play(mask: np.ndarray, gen: np.random.Generator) -> np.ndarray:
    """Mostly a random legal non-draw action (random play's rounds are long), else any."""
    non_draw = mask.copy()
    non_draw[:, 60] = False
    prefer = non_draw.any(axis=1) & (gen.random(mask.shape[0]) < PLAY_PROB)
    return sample_legal_actions(np.where(prefer[:, None], non_draw, mask), gen)


def play_lockstep(rules: Rules, num_games: int, decisions: int, seed: int) -> Played:
    """Play until ``decisions`` decisions were compared; returns what was covered."""
    gen = np.random.default_rng(seed)

    def new_seeds(k: int) -> np.ndarray:
        return gen.integers(0, 2**63 - 1, size=k, dtype=np.int64).astype(np.uint64)

    seeds = new_seeds(num_games)
    ours, theirs = numpy_deal.reset(rules, seeds), nb_engine.reset(rules, seeds)
    assert_same_state(ours, theirs)
    played = Played()
    while played.decisions < decisions:
        mask = numpy_masks.legal_mask(ours)
        assert (mask == nb_engine.legal_mask(theirs)).all(), "legal masks differ"
        seen = numpy_observe(ours, ours.actor)
        assert (seen == nb_engine.observe(theirs, theirs.actor)).all(), "observations differ"
        actions = prefer_play(mask, gen)
        played.phases.update(ours.phase.tolist())
        result = numpy_step(ours, actions)
        assert_same_result(result, nb_engine.step(theirs, actions))
        assert_same_state(ours, theirs)
        played.decisions += num_games
        played.rounds += int(result.round_over.sum())
        over = ours.phase == 7
        if over.any():
            fresh = new_seeds(int(over.sum()))
            numpy_deal.reset_games(ours, over, fresh)
            nb_engine.reset_games(theirs, over, fresh)
            assert_same_state(ours, theirs)
    return played
