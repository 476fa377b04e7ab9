"""Record one game while it is played: by agents, by a person, or both.

:func:`play_game` drives a single game (a one-game batched state) to its end: in each
decision the seat to act is asked for its action (an :class:`~uno_rl.agents.Agent`, run on
that seat's own observation, or any :class:`Decider` such as the terminal player), the action
is checked, recorded and applied. :class:`GameRecorder` collects the actions and turns them
into a :class:`~uno_rl.replays.format.Replay` with the outcome read off the final state, so
every game, finished or abandoned half way, can be saved and replayed exactly.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

import numpy as np

from uno_rl.agents.base import Agent
from uno_rl.core import engine
from uno_rl.core.observe import observe
from uno_rl.core.phases import OVER, PHASE_NAMES
from uno_rl.core.rules import Rules
from uno_rl.core.state import State

from .format import Replay, Violation
from .rerun import Decision, outcome_of, simulate

__all__ = ["AgentSeat", "Decider", "GameRecorder", "play_game"]


class Decider(Protocol):
    """Anything that chooses the action of one seat in a one-game state."""

    def decide(self, state: State, legal: np.ndarray) -> int:
        """One legal action; ``legal`` is the (A,) bool mask of the seat to act (A:
        ``state.rules.layout.num_actions``, 77 or 122)."""
        ...


class AgentSeat:
    """A batched agent playing one seat of one game, with its own memory.

    Args:
        agent: the agent.
        rng: the explicit generator its random choices come from.
    """

    def __init__(self, agent: Agent, rng: np.random.Generator):
        self.agent = agent
        self.rng = rng
        self.memory = agent.new_memory(1)

    def watch(self, state: State, seat: int, action: int) -> None:
        """Show the agent the action about to be played in the one-game ``state`` from its
        ``seat`` (agents that remember public events: the search agents)."""
        if self.memory is not None and hasattr(self.agent, "watch"):
            one = np.zeros(1, np.int64)
            self.agent.watch(self.memory, one, state, one, np.array([seat]), np.array([action]))

    def decide(self, state: State, legal: np.ndarray) -> int:
        seat = int(state.actor[0])
        observations = observe(state, seat) if self.agent.needs_observation else None
        masks = legal[None, :]
        if getattr(self.agent, "needs_state", False):  # a search agent reads the state
            chosen = self.agent.act(
                observations, masks, self.rng, self.memory, np.zeros(1, np.int64),
                state=state, games=np.zeros(1, np.int64),
            )  # fmt: skip
        elif self.memory is None:
            chosen = self.agent.act(observations, masks, self.rng)
        else:
            chosen = self.agent.act(
                observations, masks, self.rng, self.memory, np.zeros(1, np.int64)
            )
        chosen = np.asarray(chosen)
        if chosen.shape != (1,) or not np.issubdtype(chosen.dtype, np.integer):
            raise ValueError(
                f"agent {self.agent.label!r} must return one integer action, got "
                f"{chosen.dtype} {chosen.shape}"
            )
        return int(chosen[0])


class GameRecorder:
    """The actions of one game as they are taken, and the replay they make.

    Args:
        rules: the game's rules.
        seed: its deal seed.
        seats: who sits in each seat (names stored in the replay).
        preset: the preset name the rules came from, if any.
        source: free-form metadata stored in the replay.
    """

    def __init__(
        self,
        rules: Rules,
        seed: int,
        seats: Sequence[str],
        preset: str | None = None,
        source: Mapping[str, Any] | None = None,
    ):
        self.rules = rules
        self.seed = int(seed)
        self.seats = tuple(seats)
        self.preset = preset
        self.source = dict(source or {})
        self.actions: list[tuple[int, int]] = []

    def record(self, seat: int, action: int) -> None:
        """Append one decision."""
        self.actions.append((int(seat), int(action)))

    def replay(self, state: State | None = None, violation: Violation | None = None) -> Replay:
        """The replay of the actions so far, with the outcome read off ``state``, the
        one-game state they led to; without it (a game interrupted at any point, even
        inside a step) the actions are played again to get a consistent state."""
        replay = Replay(
            rules=self.rules,
            seed=self.seed,
            seats=self.seats,
            actions=tuple(self.actions),
            preset=self.preset,
            violation=violation,
            source=dict(self.source),
        )
        if state is None:
            state = simulate(replay)
        return dataclasses.replace(replay, outcome=outcome_of(state, len(self.actions)))


def play_game(
    rules: Rules,
    players: Sequence[Decider],
    seed: int,
    recorder: GameRecorder | None = None,
    on_decision: Callable[[Decision], None] | None = None,
    state: State | None = None,
) -> State:
    """Play one game (a round, or a match under ``rules.match``) to its end.

    Args:
        rules: the rules.
        players: one :class:`Decider` per seat (:class:`AgentSeat` for agents).
        seed: the deal seed.
        recorder: gets every action (``recorder.record(seat, action)``) before it is applied.
        on_decision: called after every step with the :class:`Decision` (narration).
        state: a one-game state to continue instead of dealing ``seed`` (it is mutated).

    Returns:
        The final one-game state.

    Raises:
        ValueError: a player chose an illegal action (the message names seat, action, phase).
    """
    if len(players) != rules.players:
        raise ValueError(f"{rules.players} players need {rules.players} seats, got {len(players)}")
    if state is None:
        state = engine.reset(rules, np.array([seed], dtype=np.uint64))
    index = 0
    while state.phase[0] != OVER:
        seat = int(state.actor[0])
        legal = engine.legal_mask(state)[0].copy()
        action = players[seat].decide(state, legal)
        if not (0 <= action < legal.size and legal[action]):
            name = rules.layout.action_name
            names = ", ".join(f"{a} ({name(a)})" for a in np.flatnonzero(legal))
            raise ValueError(
                f"seat {seat} chose illegal action {action} in phase "
                f"'{PHASE_NAMES[state.phase[0]]}'; legal actions: {names}"
            )
        if recorder is not None:
            recorder.record(seat, action)
        for watcher, player in enumerate(players):  # search agents remember public events
            if isinstance(player, AgentSeat):
                player.watch(state, watcher, action)
        before = state.copy() if on_decision is not None else state
        result = engine.step(state, np.array([action], dtype=np.int64))
        if on_decision is not None:
            on_decision(Decision(index, seat, action, before, state, result))
        index += 1
    return state
