"""The bench's ``pimc`` row: a search agent's decisions per second on a batch of games.

The agent plays every seat of ``PIMC_GAMES`` 2-player games under the official rules (aged,
as the core rows' games, so they are spread over their rounds); each timed step is one batched
call of the agent per seat (the games where that seat acts), then the engine step; finished
rounds are re-dealt.
Decisions with one legal action count too (the agent plays them without search), as they do
in a real game. The agent keeps a memory per seat and watches every action, as in the
evaluator (what it knows of the other hands, its belief particles).
"""

from __future__ import annotations

import numpy as np

from uno_rl.agents import make_agent
from uno_rl.core import engine
from uno_rl.core.rng import new_seeds
from uno_rl.programs.bench.timing import StepFn, measure

__all__ = ["PIMC_GAMES", "QUICK_PIMC", "pimc_row", "play_step", "search_stepper"]

#: Games in the pimc row's batch.
PIMC_GAMES = 256
#: The agent of ``--quick`` runs (the default spec is the agent's defaults: ``pimc``).
QUICK_PIMC = "pimc:determinizations=4,rollouts=2"


def play_step(state, actions: np.ndarray, rng: np.random.Generator) -> tuple[int, int]:
    """Play ``actions`` in every game of ``state`` and re-deal the finished rounds:
    ``(decisions, finished rounds)``."""
    done = engine.step(state, actions).round_over
    finished = int(np.count_nonzero(done))
    if finished:
        engine.reset_games(state, done, new_seeds(rng, finished))
    return state.num_games, finished


def search_stepper(state, agent, rng: np.random.Generator) -> StepFn:
    """One decision of ``agent`` in every game of ``state``, with a memory per seat watching
    every action, as in the evaluator; finished rounds are re-dealt (and forgotten)."""
    games = np.arange(state.num_games)
    seats = np.arange(state.rules.players)
    memories = [agent.new_memory(state.num_games) for _ in seats]

    def step() -> tuple[int, int]:
        masks = engine.legal_mask(state)
        actor = state.actor.astype(np.int64)
        actions = np.empty(state.num_games, np.int64)
        for seat, memory in zip(seats, memories):
            rows = np.flatnonzero(actor == seat)
            if rows.size:
                actions[rows] = agent.act(None, masks[rows], rng, memory, rows, state=state,
                                          games=rows)  # fmt: skip
        for seat, memory in zip(seats, memories):
            agent.watch(memory, games, state, games, np.full(games.size, seat), actions)
        done = engine.step(state, actions).round_over
        finished = int(np.count_nonzero(done))
        if finished:
            for memory in memories:
                agent.reset_memory(memory, np.flatnonzero(done))
            engine.reset_games(state, done, new_seeds(rng, finished))
        return state.num_games, finished

    return step


def pimc_row(spec: str, seconds: float, repeats: int, seed: int, aged) -> dict:
    """The ``pimc`` row for agent ``spec`` (``aged(players, seed)``: the aged games)."""
    base = aged(2, seed)
    state = base.take(np.arange(PIMC_GAMES) % base.num_games)
    agent = make_agent(spec, state.rules)
    timing = measure(search_stepper(state, agent, np.random.default_rng(seed)), seconds, repeats)
    return {
        "name": "pimc",
        "players": 2,
        "batch": PIMC_GAMES,
        **timing,
        "bytes_per_game": float(state.nbytes_per_game()),
        "note": f"{agent.spec} playing every seat; step_latency_us is one step (a batched call per seat)",
    }
