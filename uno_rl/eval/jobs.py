"""Play a queue of duplicate-deal rounds between batched agents, many games at once.

A *job* is one deal played with one seating: job ``j`` plays deal ``j // R`` with rotation
``j % R`` of the line-up (seat ``s`` gets line-up position ``rotations[r, s]``). Up to
``slots`` jobs run in lockstep on one batched core state; a finished job's slot takes the next
job at once. Each step, every game's acting seat is played by its agent, one batched call per
agent (a loop over agents, never over games). Under ``match=true`` a job is a whole match:
its rounds follow each other in the slot (the engine deals round ``k + 1`` from round ``k``'s
seed, so every seating of a deal sees the same sequence of deals: duplicate deals at the match
level), and every round's result is added to the job as it ends.

When every agent of the line-up is a compiled heuristic (a ``challenge=bayes`` memory
included), and nothing records or observes the steps, the whole loop runs compiled
(:mod:`uno_rl.agents.compiled.job_loop`), with the same outcomes and generator draws.

:func:`play_jobs` returns one :class:`Outcomes` row per job, in job order. Everything is a
function of the deal seeds and the generator: the same inputs give the same outcomes.

Replays: pass a ``recorder`` (:class:`Recorder`, such as
:class:`uno_rl.eval.replays.SampledRecorder`) to see every decision of every game; without one
(the default) nothing is recorded and the loop pays one ``if`` per step. An agent's illegal
action raises :class:`IllegalActionError`; with a recorder, its ``replay`` holds the game up
to that action.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np

from uno_rl.agents.base import Agent
from uno_rl.agents.compiled.job_loop import empty_results, play_compiled_jobs
from uno_rl.agents.compiled.policy import compiled_policy
from uno_rl.core import engine
from uno_rl.core.observe import observe
from uno_rl.core.phases import PHASE_NAMES
from uno_rl.core.rules import Rules
from uno_rl.core.state import STAT_NAMES, State

__all__ = ["IllegalActionError", "Outcomes", "Recorder", "play_jobs", "rotations"]


class IllegalActionError(ValueError):
    """An agent chose an illegal action. ``replay``: the game up to it, when recorded."""

    #: the row of the batch of live games it happened in
    row: int = -1
    #: the replay of that game up to the illegal action (a recorder was given), else None
    replay: Any = None
    #: where the evaluator saved that replay (``--save-replays``), else None
    replay_path: Any = None


class Recorder(Protocol):
    """What :func:`play_jobs` tells a recorder (k: games concerned, J: jobs, P: seats)."""

    def start(self, slots: int, job_seeds: np.ndarray, positions: np.ndarray) -> None:
        """Before play: ``slots`` games in lockstep; (J,) uint64 deal seed and (J, P) line-up
        position per seat of every job."""

    def record(self, games: np.ndarray, seats: np.ndarray, actions: np.ndarray) -> None:
        """Every step, before it is applied: (k,) slots, acting seats, their (legal) actions."""

    def finished(self, jobs: np.ndarray, games: np.ndarray, state: State) -> None:
        """(k,) jobs just finished in slots ``games`` of ``state`` (before the slots are reused)."""

    def violation(self, job: int, game: int, seat: int, action: int, message: str) -> Any:
        """The replay of job ``job`` (slot ``game``) up to the illegal ``action`` of ``seat``."""


def rotations(players: int) -> np.ndarray:
    """(P, P) int64: rotation ``r`` seats line-up position ``(s + r) % P`` in seat ``s``, so each
    position sits in every seat exactly once per deal."""
    seats = np.arange(players)
    return (seats[None, :] + seats[:, None]) % players


@dataclasses.dataclass
class Outcomes:
    """Per-job results (J jobs, P seats), in job order.

    A job is one round, or one whole match under ``rules.match``. The per-round measures
    (``round_wins``, ``net_points``, ``penalty``, the counts) are summed over every round of
    the job, so dividing by ``rounds`` gives per-round means in both cases.

    Attributes:
        position: (J, P) int8: line-up position seated in each seat.
        winner: (J,) int8: winning seat of the job: of the round, or of the match under match
            rules (-1: a truncated round, a draw; a match always ends with a winner).
        truncated: (J,) bool: the job is a round cut at ``max_turns`` (never for a match).
        rounds: (J,) int32: rounds played (1, or the rounds of the match).
        truncated_rounds: (J,) int32: of those, rounds cut at ``max_turns`` (no winner).
        decisions: (J,) int32: decisions taken, summed over the job's rounds.
        round_wins: (J, P) int32: rounds each seat won.
        net_points: (J, P) int32: zero-sum net points summed over the job's rounds: each
            round's winner gets the card points left in the other hands, each loser minus its
            own (0 for a truncated round); each row sums to 0.
        penalty: (J, P) int32: card points left in the seat's own hand at the end of the rounds
            it lost, summed (the ``losers-add`` school's count; 0 for won or truncated rounds).
        scores: (J, P) int32: final match scores under match rules (the rules' ``scoring``
            school), zeros otherwise.
        draw4_plays, bluffs, challenges, challenges_won, draw4_challenged, bluffs_caught:
            (J, P) int32 per-seat counts summed over the job's rounds
            (:data:`~uno_rl.core.state.STAT_NAMES`).
    """

    position: np.ndarray
    winner: np.ndarray
    truncated: np.ndarray
    rounds: np.ndarray
    truncated_rounds: np.ndarray
    decisions: np.ndarray
    round_wins: np.ndarray
    net_points: np.ndarray
    penalty: np.ndarray
    scores: np.ndarray
    draw4_plays: np.ndarray
    bluffs: np.ndarray
    challenges: np.ndarray
    challenges_won: np.ndarray
    draw4_challenged: np.ndarray
    bluffs_caught: np.ndarray

    @classmethod
    def empty(cls, jobs: int, players: int) -> Outcomes:
        return cls(position=np.zeros((jobs, players), np.int8), **empty_results(jobs, players))


def play_jobs(
    rules: Rules,
    lineup: Sequence[Agent],
    deal_seeds: np.ndarray,
    rng: np.random.Generator,
    seatings: np.ndarray | None = None,
    slots: int = 4096,
    on_finished: Callable[[int], None] | None = None,
    observer: Callable[[State, np.ndarray, np.ndarray, np.ndarray, np.ndarray], None] | None = None,
    recorder: Recorder | None = None,
) -> Outcomes:
    """Play every deal with every seating of ``lineup``.

    Args:
        rules: the rules of every game.
        lineup: one agent per line-up position (``P`` of them; the same agent object may
            appear several times; each position keeps its own memory).
        deal_seeds: (D,) uint64 deal seeds.
        rng: the agents' generator.
        seatings: (R, P) line-up position of each seat in each seating; default
            :func:`rotations` (R = P).
        slots: games in lockstep.
        on_finished: called with the number of jobs that just finished (progress bars).
        observer: called before every step with the state, the (k,) live game slots, their
            (k, A) legal masks, (k, P) line-up position per seat and the (k,) int64 actions
            about to be played (measurements that need the hidden state).
        recorder: told every decision and every finished job (:class:`Recorder`), to keep
            replays; None records nothing.

    Returns:
        :class:`Outcomes` of the ``D * R`` jobs, job ``d * R + r`` = deal ``d``, seating ``r``.

    Raises:
        IllegalActionError: an agent chose an illegal action (the message names the agent).
        ValueError: an agent returned a malformed batch of actions.
    """
    p = rules.players
    if len(lineup) != p:
        raise ValueError(f"the line-up needs one agent per seat: {p}, got {len(lineup)}")
    seatings = rotations(p) if seatings is None else np.asarray(seatings, np.int64)
    deal_seeds = np.asarray(deal_seeds, np.uint64)
    num_jobs = deal_seeds.size * seatings.shape[0]
    out = Outcomes.empty(num_jobs, p)
    if num_jobs == 0:
        return out
    n = min(slots, num_jobs)
    job_seed = np.repeat(deal_seeds, seatings.shape[0])
    job_seating = np.tile(np.arange(seatings.shape[0]), deal_seeds.size)
    out.position[:] = seatings[job_seating]

    agents = list(lineup)
    distinct = list(dict.fromkeys(agents))  # the same object plays all its positions at once
    memories = [agent.new_memory(n) for agent in agents]
    # Per distinct agent: its line-up positions, whether it plays them with memories, and
    # its compiled form where it has one (it then reads the state; a heuristic's memory is
    # kept batched beside it).
    plan = []
    for agent in distinct:
        positions = [i for i, a in enumerate(agents) if a is agent]
        remembers = any(memories[i] is not None for i in positions)
        plan.append((agent, positions, remembers, compiled_policy(agent)))
    needs_obs = any(agent.needs_observation and compiled is None
                    for agent, _, _, compiled in plan)  # fmt: skip

    slot_job = np.arange(n)
    state = engine.reset(rules, job_seed[:n])
    if recorder is None and observer is None and all(c is not None for *_, c in plan):
        units = []  # (agent, positions deciding at once), in the order of the loop below
        for q, (_, positions, remembers, _) in enumerate(plan):
            units += [(q, [i]) for i in positions] if remembers else [(q, positions)]
        play_compiled_jobs(state, [compiled for *_, compiled in plan], units,
                           [memory is not None for memory in memories], rng, job_seed,
                           out.position, out, on_finished)  # fmt: skip
        return out
    position = out.position[slot_job].astype(np.int64)  # (n, P) line-up position per seat
    if recorder is not None:
        recorder.start(n, job_seed, out.position)
    active = np.ones(n, bool)
    next_job = n
    rows_all = np.arange(n)
    while True:
        live = rows_all if active.all() else np.flatnonzero(active)
        if not live.size:
            break
        full = live.size == n
        masks = engine.legal_mask(state) if full else engine.legal_mask(state, live)
        actor = state.actor[live].astype(np.int64)
        acting_position = position[live, actor]
        observations = None
        if needs_obs:
            view = state if full else state.take(live)
            observations = observe(view, actor)
        actions = np.empty(live.size, np.int64)
        for agent, positions, remembers, compiled in plan:
            if remembers:
                groups = [np.flatnonzero(acting_position == i) for i in positions]
                mems = [memories[i] for i in positions]
            elif len(positions) == 1:
                groups, mems = [np.flatnonzero(acting_position == positions[0])], [None]
            else:
                groups, mems = [np.flatnonzero(np.isin(acting_position, positions))], [None]
            for rows, memory in zip(groups, mems):
                if rows.size and compiled is not None and memory is not None:
                    actions[rows] = compiled.remembering_actions(state, masks[rows], rng,
                                                                 live[rows], memory)  # fmt: skip
                elif rows.size and compiled is not None:
                    actions[rows] = compiled.actions(state, masks[rows], rng, live[rows])
                elif rows.size:
                    actions[rows] = _act(agent, observations, masks, rows, rng, memory, live, state)
        try:
            _check_legal(agents, acting_position, masks, actions, live, state)
        except IllegalActionError as error:
            if recorder is not None:
                game = int(live[error.row])
                error.replay = recorder.violation(
                    int(slot_job[game]), game, int(actor[error.row]), int(actions[error.row]),
                    str(error),
                )  # fmt: skip
            raise
        if recorder is not None:
            recorder.record(live, actor, actions)
        for i, (agent, memory) in enumerate(zip(agents, memories)):
            if memory is not None and hasattr(agent, "watch"):  # public events, every seat
                seat = np.argmax(position[live] == i, axis=1)
                agent.watch(memory, live, state, live, seat, actions)
        if observer is not None:
            observer(state, live, masks, position[live], actions)
        result = engine.step(state, actions, games=None if full else live, validate=False)
        ended = np.flatnonzero(result.round_over)
        if not ended.size:
            continue
        _add_rounds(out, slot_job[live[ended]], result, ended)
        done = ended[result.match_over[ended]] if rules.match else ended
        if not done.size:
            continue
        games = live[done]
        _record(out, slot_job[games], state, games, result, done, rules)
        if recorder is not None:
            recorder.finished(slot_job[games], games, state)
        if on_finished is not None:
            on_finished(int(done.size))
        refill = games[: max(0, num_jobs - next_job)]
        if refill.size:
            jobs = np.arange(next_job, next_job + refill.size)
            next_job += refill.size
            slot_job[refill] = jobs
            engine.reset_games(state, refill, job_seed[jobs])
            position[refill] = out.position[jobs]
            for agent, memory in zip(agents, memories):
                agent.reset_memory(memory, refill)
        active[games[refill.size :]] = False
    return out


def _act(agent, observations, masks, rows, rng, memory, live, state) -> np.ndarray:
    obs = None if observations is None else observations[rows]
    if getattr(agent, "needs_state", False):  # a search agent: it reads the state itself
        actions = agent.act(obs, masks[rows], rng, memory, live[rows], state=state,
                            games=live[rows])  # fmt: skip
    elif memory is None:
        actions = agent.act(obs, masks[rows], rng)
    else:
        actions = agent.act(obs, masks[rows], rng, memory, live[rows])
    actions = np.asarray(actions)
    if actions.shape != (rows.size,) or not np.issubdtype(actions.dtype, np.integer):
        raise ValueError(
            f"agent {agent.label!r} must return ({rows.size},) integer actions, got "
            f"{actions.dtype} {actions.shape}"
        )
    return actions


def _check_legal(agents, acting_position, masks, actions, live, state) -> None:
    in_range = (actions >= 0) & (actions < masks.shape[1])
    ok = in_range.copy()
    ok[in_range] = masks[np.flatnonzero(in_range), actions[in_range]]
    if ok.all():
        return
    i = int(np.flatnonzero(~ok)[0])
    game, a = int(live[i]), int(actions[i])
    agent = agents[int(acting_position[i])]
    action_name = state.rules.layout.action_name
    what = action_name(a) if 0 <= a < masks.shape[1] else "out of range"
    legal = ", ".join(f"{j} ({action_name(j)})" for j in np.flatnonzero(masks[i]))
    error = IllegalActionError(
        f"agent {agent.label!r} chose illegal action {a} ({what}) in game slot {game}, phase "
        f"'{PHASE_NAMES[state.phase[game]]}'; legal actions: {legal}"
    )
    error.row = i  # the row of ``live`` it happened in
    raise error


def _add_rounds(out: Outcomes, jobs, result, rows) -> None:
    """Add the rounds that just ended (result rows ``rows``) to their (distinct) ``jobs``."""
    out.rounds[jobs] += 1
    out.truncated_rounds[jobs] += result.truncated[rows]
    out.decisions[jobs] += result.decisions[rows]
    winner = result.winner[rows].astype(np.int64)
    won = winner >= 0
    out.round_wins[jobs[won], winner[won]] += 1
    net = result.net_points[rows]
    out.net_points[jobs] += net
    out.penalty[jobs] += np.maximum(-net, 0)
    for name in STAT_NAMES:
        getattr(out, name)[jobs] += getattr(result, name)[rows]


def _record(out, jobs, state, games, result, rows, rules) -> None:
    """Store how the finished jobs ended (state rows ``games``, result rows ``rows``)."""
    if rules.match:
        out.winner[jobs] = engine.match_winner(state.take(games))
        out.scores[jobs] = state.scores[games]
    else:
        out.winner[jobs] = result.winner[rows]
        out.truncated[jobs] = result.truncated[rows]
