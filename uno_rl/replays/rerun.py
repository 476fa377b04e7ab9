"""Play a replay again on the engine, decision by decision, and check it.

The engine is deterministic given the rules, the deal seed and the actions, so a replay is
re-simulated on a one-game batched state (N = 1). :func:`steps` yields every decision with
the state before and after it (for viewers), :func:`simulate` returns the final state, and
:func:`verify` also checks the recorded outcome. Any mismatch raises
:class:`~uno_rl.replays.format.ReplayError` naming the step as ``actions[k]``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import numpy as np

from uno_rl.core import engine
from uno_rl.core.engine import StepResult
from uno_rl.core.phases import OVER, PHASE_NAMES
from uno_rl.core.state import State
from uno_rl.replays.model import Outcome, Replay, ReplayError

__all__ = ["Decision", "deal", "outcome_of", "simulate", "steps", "verify"]


@dataclasses.dataclass(frozen=True)
class Decision:
    """One replayed decision.

    Attributes:
        index: position in ``replay.actions`` (0-based).
        seat: the seat that acted.
        action: the action it took.
        before: a copy of the one-game state before the action.
        after: the live state after it (the next decision mutates it: copy to keep it).
        result: the engine's :class:`~uno_rl.core.engine.StepResult` of the step (1 row).
    """

    index: int
    seat: int
    action: int
    before: State
    after: State
    result: StepResult


def deal(replay: Replay) -> State:
    """The one-game state the replay starts from."""
    return engine.reset(replay.rules, np.array([replay.seed], dtype=np.uint64))


def steps(replay: Replay) -> Iterator[Decision]:
    """Every decision of the replay, in order, on one state (see :class:`Decision`).

    Raises:
        ReplayError: ``actions[k]`` comes after the end of the game, names a seat that is not
            the one to act, or is illegal there.
    """
    state = deal(replay)
    for index, (seat, action) in enumerate(replay.actions):
        check_action(state, index, seat, action)
        before = state.copy()
        result = engine.step(state, np.array([action], dtype=np.int64))
        yield Decision(index, seat, action, before, state, result)


def check_action(state: State, index: int, seat: int, action: int) -> None:
    """Raise :class:`ReplayError` unless ``seat`` may take ``action`` now (step ``index``)."""
    where = f"actions[{index}] (decision {index + 1})"
    if state.phase[0] == OVER:
        raise ReplayError(f"{where}: the game is already over; the replay has too many actions")
    actor = int(state.actor[0])
    if seat != actor:
        raise ReplayError(f"{where}: recorded for seat {seat}, but seat {actor} is to act")
    legal = engine.legal_mask(state)[0]
    layout = state.rules.layout
    if not 0 <= action < layout.num_actions:
        raise ReplayError(
            f"{where}: action {action} is not in [0, {layout.num_actions}) (deck "
            f"{state.rules.deck!r})"
        )
    if not legal[action]:
        names = ", ".join(f"{a} ({layout.action_name(a)})" for a in np.flatnonzero(legal))
        raise ReplayError(
            f"{where}: illegal action {action} ({layout.action_name(action)}) for seat {seat} in "
            f"phase '{PHASE_NAMES[state.phase[0]]}'; legal actions: {names}"
        )


def simulate(replay: Replay) -> State:
    """The state after every action of the replay (a one-game state)."""
    state = None
    for decision in steps(replay):
        state = decision.after
    return deal(replay) if state is None else state


def outcome_of(state: State, decisions: int, game: int = 0) -> Outcome:
    """The :class:`Outcome` of game ``game`` of ``state`` after ``decisions`` actions."""
    rules, i = state.rules, game
    p = rules.players
    scores = tuple(int(x) for x in state.scores[i])
    if rules.match:
        finished = bool(state.match_over[i])
        winner = int(engine.match_winner(state.take([i]))[0]) if finished else -1
        return Outcome(
            finished=finished,
            winner=winner,
            truncated=False,
            rounds=int(state.round_index[i]) + 1,
            decisions=int(decisions),
            points=scores,
            scores=scores,
        )
    finished = bool(state.phase[i] == OVER)
    winner = int(state.winner[i]) if finished else -1
    points = [0] * p
    if winner >= 0:
        points = rules.layout.kind_points.astype(np.int64)
        left = (state.hands[i].astype(np.int64) * points).sum(axis=1)
        points = [int(left.sum()) if seat == winner else -int(left[seat]) for seat in range(p)]
    return Outcome(
        finished=finished,
        winner=winner,
        truncated=bool(state.truncated[i]) and finished,
        rounds=1,
        decisions=int(decisions),
        points=tuple(points),
        scores=scores,
    )


def verify(replay: Replay) -> State:
    """Replay every action and check the recorded outcome; the final state.

    Raises:
        ReplayError: a bad action (see :func:`steps`), or an outcome that the actions do not
            reproduce (the message names the differing field).
    """
    state = simulate(replay)
    if replay.outcome is not None:
        got = outcome_of(state, len(replay.actions))
        for field in dataclasses.fields(Outcome):
            want, have = getattr(replay.outcome, field.name), getattr(got, field.name)
            if want != have:
                raise ReplayError(
                    f"the actions do not reproduce the recorded outcome: {field.name} is "
                    f"{have!r} after replaying {len(replay.actions)} actions, the file says "
                    f"{want!r}"
                )
    if replay.violation is not None and replay.violation.seat != int(state.actor[0]):
        raise ReplayError(
            f"violation.seat is {replay.violation.seat}, but after the recorded actions seat "
            f"{int(state.actor[0])} is to act"
        )
    return state
