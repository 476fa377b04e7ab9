"""The bench's rows of the game itself: ``core`` and ``core-obs`` (the batched engine), ``aec``
(the PettingZoo env, alone or interleaved with ``rlcard-step``) and ``vector`` (the Gymnasium
VectorEnv); what each row times is in :mod:`uno_rl.programs.bench.command`."""

from __future__ import annotations

import functools
import math
import random

import numpy as np

from uno_rl.core import State, engine, load_rules, observe, sample_legal_actions
from uno_rl.core.rng import new_seeds
from uno_rl.programs.bench.peers import rlcard_record, rlcard_stepper
from uno_rl.programs.bench.search_rows import play_step
from uno_rl.programs.bench.timing import StepFn, log, measure, measure_pair

__all__ = [
    "AGED_GAMES",
    "VECTOR_GAMES",
    "aec_record",
    "aec_rlcard_rows",
    "aec_row",
    "aec_stepper",
    "aged_state",
    "core_row",
    "core_stepper",
    "vector_row",
]

#: Games in the vector env row.
VECTOR_GAMES = 4096
#: Games aged once per player count; every core row starts from copies of them.
AGED_GAMES = 256


def core_stepper(state: State, rng: np.random.Generator, with_obs: bool = False) -> StepFn:
    """One random legal decision in every game of ``state``; finished rounds are re-dealt."""

    def step() -> tuple[int, int]:
        if with_obs:
            observe.observe(state, state.actor)
        return play_step(state, sample_legal_actions(engine.legal_mask(state), rng), rng)

    return step


@functools.cache
def aged_state(players: int, seed: int, deck: str = "classic") -> State:
    """``AGED_GAMES`` games played for ``2 * max_turns`` steps: spread over their rounds.

    A fresh batch starts every game at its first decision, and random play under the official
    rules takes hundreds of decisions per round, so after a short warm-up hardly any round of a
    large batch would have ended yet and rounds/s would come out far too low. Rows start from
    copies of these games instead (cached: one ageing per player count and seed).
    """
    rules = load_rules("official", players=players, deck=deck)
    rng = np.random.default_rng([seed, players])
    state = engine.reset(rules, new_seeds(rng, AGED_GAMES))
    log(
        f"ageing {AGED_GAMES} games of {players} players ({deck} deck) "
        f"for {2 * rules.max_turns} steps"
    )
    step = core_stepper(state, rng)
    for _ in range(2 * rules.max_turns):
        step()
    return state


def core_row(
    players: int,
    batch: int,
    seconds: float,
    repeats: int,
    seed: int,
    with_obs: bool = False,
    deck: str = "classic",
) -> dict:
    """Batched random legal play in the core engine (``core`` or ``core-obs`` row), on ``deck``."""
    state = aged_state(players, seed, deck).take(np.arange(batch) % AGED_GAMES)
    step = core_stepper(state, np.random.default_rng(seed), with_obs)
    timing = measure(step, seconds, repeats)
    return {
        "name": "core-obs" if with_obs else "core",
        "deck": deck,
        "players": players,
        "batch": batch,
        **timing,
        "bytes_per_game": float(state.nbytes_per_game()),
        "note": "",
    }


def aec_stepper(players: int, seed: int) -> StepFn:
    """Random legal play through the wrapped PettingZoo AEC env (``uno_v1.env``), one game.

    Each step is what a PettingZoo user's loop does: ``env.last()`` (the acting agent's
    observation and mask), a uniformly random legal action, ``env.step``; a finished game is
    reset. Decisions are agent steps (dead steps at the end of a game included). The action is
    picked as in the ``rlcard-step`` loop (``random.Random.randrange`` over the legal list), so
    both rows time their env and the same per-step overhead.
    """
    from uno_rl.envs import uno_v1

    aec = uno_v1.env(players=players)
    aec.reset(seed=seed)
    pick = random.Random(seed)

    def step() -> tuple[int, int]:
        observation, _, termination, truncation, _ = aec.last()
        if termination or truncation:
            aec.step(None)
        else:
            legal = np.flatnonzero(observation["action_mask"])
            aec.step(int(legal[pick.randrange(len(legal))]))
        if not aec.agents:
            aec.reset()
            return 1, 1
        return 1, 0

    return step


def aec_record(players: int, timing: dict[str, float], note: str = "") -> dict:
    """The ``aec`` row of a timing (:func:`uno_rl.programs.bench.timing.measure`)."""
    return {
        "name": "aec",
        "players": players,
        "batch": 1,
        **timing,
        "bytes_per_game": math.nan,
        "note": note,
    }


def aec_row(players: int, seconds: float, repeats: int, seed: int) -> dict:
    """The ``aec`` row alone (:func:`aec_stepper`)."""
    return aec_record(players, measure(aec_stepper(players, seed), seconds, repeats))


def aec_rlcard_rows(seconds: float, repeats: int, seed: int) -> tuple[dict, dict]:
    """The 2-player ``aec`` and ``rlcard-step`` rows with their repeats interleaved
    (:func:`uno_rl.programs.bench.timing.measure_pair`), so both see the same load of a shared machine
    and their ratio is what is compared."""
    rlcard_step, real, note = rlcard_stepper(2, seed)
    aec, rl = measure_pair(aec_stepper(2, seed), rlcard_step, seconds, repeats)
    return (
        aec_record(2, aec, "repeats interleaved with rlcard-step"),
        rlcard_record(real, rl, "; ".join(filter(None, [note, "repeats interleaved with aec"]))),
    )


def vector_row(players: int, seconds: float, repeats: int, seed: int) -> dict:
    """The native Gymnasium VectorEnv (``UnoVectorEnv``), ``VECTOR_GAMES`` games: the learner
    seat plays uniformly random legal actions from ``info["action_mask"]``, random opponents.

    Decisions are learner steps (``num_envs`` per ``step`` call); the opponents' decisions in
    between are not counted. Rounds are learner episodes that ended.
    """
    from uno_rl.envs.vector import UnoVectorEnv

    env = UnoVectorEnv(num_envs=VECTOR_GAMES, players=players, opponents="random")
    _, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    mask = info["action_mask"]

    def step() -> tuple[int, int]:
        nonlocal mask
        actions = sample_legal_actions(mask, rng)
        _, _, terminated, truncated, info = env.step(actions)
        mask = info["action_mask"]
        return VECTOR_GAMES, int(np.count_nonzero(terminated | truncated))

    return {
        "name": "vector",
        "players": players,
        "batch": VECTOR_GAMES,
        **measure(step, seconds, repeats),
        "bytes_per_game": math.nan,
        "note": "",
    }
