"""How much memory a search agent's budget holds at once, and the limit it must stay under.

A search agent (:mod:`uno_rl.agents.pimc`, :mod:`uno_rl.agents.ismcts`) plays its candidate
actions out on a batched engine state: ``lanes`` play-out lanes stepped at once, dealt from
worlds made at most :data:`WORLD_BATCH_BYTES` of dealing work at a time. With belief
particles (``explain`` < 1) its memory also keeps ``particles`` guesses of the other hands in
every game it plays, mends them (within the same bytes at a time) and weighs ``particles *
samples`` lanes of its model (at most ``lanes`` at a time, one game's at least) at each
decision of another seat. :func:`estimate` adds these up from the parameters and the rules (the bytes
of one game's state, the deck's cards, the actions, the players), for the worst case of an
evaluation: every game of a search line-up deciding at once (:data:`GAMES_PER_SEAT` deals in
each seating), each lane's state copied a few times by the step, the rollout agent's own
arrays (and its observations and network where it reads observations).

:func:`check` refuses, when the agent is made and before any game is played, a budget whose
estimate exceeds the limit: :data:`DEFAULT_LIMIT` (2 GiB), or the size in the environment
variable ``UNO_RL_SEARCH_MEMORY`` (bytes, or a number with K, M, G or T: powers of 1024, so
``4G``, ``4GB`` and ``4GiB`` are the same). The message names the estimate, its largest part
and the parameter value that would fit. Where the lanes are that largest part and ``lanes``
was left at its default (a speed setting), it is lowered to the most that fit instead.

The per-item sizes are measured (peak resident memory of a search on the classic and
extension decks at 2, 4 and 10 players, with heuristic and PPO rollout agents) and rounded up.
"""

from __future__ import annotations

import os
import re
from typing import NamedTuple

from uno_rl.core.rules import Rules
from uno_rl.core.state import State

from .base import Agent, AgentError

__all__ = [
    "DEFAULT_LIMIT",
    "GAMES_PER_SEAT",
    "LIMIT_VARIABLE",
    "MAX_PLAYOUTS",
    "WORLD_BATCH_BYTES",
    "Estimate",
    "check",
    "estimate",
    "format_bytes",
    "lane_bytes",
    "memory_limit",
    "parse_size",
    "world_bytes",
    "worlds_at_once",
]

#: The memory a search agent may hold at once unless ``UNO_RL_SEARCH_MEMORY`` says otherwise.
DEFAULT_LIMIT = 2 * 2**30
#: The environment variable that sets the limit.
LIMIT_VARIABLE = "UNO_RL_SEARCH_MEMORY"
#: Dealing work of the worlds made at once (their temporary arrays); more are made in parts.
WORLD_BATCH_BYTES = 128 * 2**20
#: Deals an evaluation or experiment plays at once in a line-up with a search agent, each in
#: every seating (``uno_rl.eval.tournament.SEARCH_CHUNK_DEALS``): the games whose belief
#: particles are kept at once.
GAMES_PER_SEAT = 256
#: Most play-outs per legal action at one decision (pimc's determinizations x rollouts, as
#: ismcts' iterations).
MAX_PLAYOUTS = 1_000_000

_UNITS = {"": 1, "k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40}


class Estimate(NamedTuple):
    """An estimate of a search agent's peak memory: ``total`` bytes, made of ``parts``
    (``(bytes, what, advice)``, largest first) and the ``lane`` bytes of one play-out lane."""

    total: int
    parts: list[tuple[int, str, str]]
    lane: int


def state_bytes(rules: Rules) -> int:
    """Bytes of one game's engine state under ``rules``."""
    return int(State.empty(rules, 1).nbytes_per_game())


def world_bytes(rules: Rules) -> int:
    """Bytes of the temporary arrays of dealing one world (a few int64 per unseen card, the
    hands' counts per seat and kind, the world's state and a copy)."""
    kinds = rules.layout.num_kinds
    return 80 * rules.deck_cards.size + 8 * rules.players * kinds + 2 * state_bytes(rules)


def worlds_at_once(rules: Rules) -> int:
    """Most worlds dealt at once (:data:`WORLD_BATCH_BYTES` of dealing work)."""
    return max(1, WORLD_BATCH_BYTES // world_bytes(rules))


def lane_bytes(rules: Rules, observes: bool | int = False) -> int:
    """Bytes of one play-out lane stepped: its state, the step's copies of it, its legal mask
    and the rollout agent's arrays; ``observes``: the agent reads observations (a PPO
    policy: the observation, then the columns its network reads and their activations), an
    int the number of columns it reads (True: every one)."""
    size = 5 * state_bytes(rules) + 16 * rules.layout.num_actions
    if observes:
        columns = rules.layout.obs_size if observes is True else int(observes)
        size += 4 * rules.layout.obs_size + 20 * columns
    return size


def particle_bytes(rules: Rules) -> int:
    """Bytes of one belief particle of one game kept in memory, with the copies a decision and
    an update make: every seat's hand (one byte per kind) and weight (float64)."""
    return 3 * rules.players * (rules.layout.num_kinds + 8)


def estimate(agent: Agent, observes: bool | int = False, lanes: int | None = None) -> Estimate:
    """The peak memory of ``agent``, a :class:`~uno_rl.agents.search.SearchAgent` (module
    docstring); ``observes``: its rollout agent or model reads observations; ``lanes``:
    instead of its own ``lanes``."""
    rules, params = agent.rules, agent.params
    lanes = params["lanes"] if lanes is None else lanes
    lane = lane_bytes(rules, observes)
    deal = WORLD_BATCH_BYTES  # dealing worlds, or mending particles, at most this at a time
    parts = [
        (
            lanes * lane + deal,
            f"{lanes:,} play-out lanes of about {format_bytes(lane)} each",
            "lower lanes",
        )
    ]
    bookkeeping, advice = agent.bookkeeping(lanes)
    if bookkeeping:
        parts.append((bookkeeping, "the search's own arrays", advice))
    if agent.explains:
        n, games = params["particles"], GAMES_PER_SEAT * rules.players
        weighed = n * params["samples"]
        if weighed > lanes:  # one game's model lanes at least
            parts[0] = (
                max(parts[0][0], weighed * lane + deal),
                f"{weighed:,} lanes of the model (particles x samples) of about "
                f"{format_bytes(lane)} each",
                "lower particles or samples",
            )
        parts.append(
            (
                games * n * particle_bytes(rules),
                f"{n:,} belief particles in each of {games:,} games",
                "lower particles (or set explain=1)",
            )
        )
    parts.sort(key=lambda part: -part[0])
    return Estimate(sum(part[0] for part in parts), parts, lane)


def check(agent: Agent, observes: bool | int | None = False) -> None:
    """Raise :class:`AgentError` when ``agent``'s :func:`estimate` exceeds the limit;
    ``observes`` as :func:`lane_bytes` has it, or None: not known yet (the estimate without
    observations, a ``lanes`` to suggest with every column read)."""
    limit = memory_limit()
    found = estimate(agent, observes or False)
    if found.total <= limit:
        return
    _, what, advice = found.parts[0]
    if advice == "lower lanes" and not getattr(agent, "lanes_given", True) and observes is not None:
        fit = _lanes_that_fit(agent, observes, limit)
        if fit is not None:  # the default is a speed setting: as many lanes as fit
            agent.params["lanes"] = fit
            found = estimate(agent, observes)
            if found.total <= limit:
                return
            _, what, advice = found.parts[0]
    if advice == "lower lanes":
        fit = _lanes_that_fit(agent, True if observes is None else observes, limit)
        advice = "no value of lanes fits" if fit is None else f"lower lanes (lanes={fit} fits)"
    raise AgentError(
        f"agent {agent.spec!r} would hold about {format_bytes(found.total)} of memory at once "
        f"({what}); the limit is {format_bytes(limit)}: {advice}, or raise the limit with "
        f"{LIMIT_VARIABLE}"
    )


def _lanes_that_fit(agent: Agent, observes: bool | int, limit: int) -> int | None:
    """The most ``lanes`` (two significant digits) whose estimate fits ``limit``; None if
    not even the fewest do."""
    low, high = int(agent.PARAMS["lanes"].low), agent.params["lanes"]
    if estimate(agent, observes, low).total > limit:
        return None
    while high - low > 1:  # estimate(low) fits, estimate(high) does not
        middle = (low + high) // 2
        if estimate(agent, observes, middle).total <= limit:
            low = middle
        else:
            high = middle
    scale = 10 ** max(len(str(low)) - 2, 0)
    return max(low // scale * scale, int(agent.PARAMS["lanes"].low))


def memory_limit() -> int:
    """The limit in bytes: ``UNO_RL_SEARCH_MEMORY`` where set, else :data:`DEFAULT_LIMIT`."""
    raw = os.environ.get(LIMIT_VARIABLE, "").strip()
    if not raw:
        return DEFAULT_LIMIT
    size = parse_size(raw)
    if size is None or size <= 0:
        raise AgentError(
            f"{LIMIT_VARIABLE}={raw!r} is not a memory size: give bytes or a number with K, M, "
            "G or T (powers of 1024), e.g. 4G"
        )
    return size


def parse_size(text: str) -> int | None:
    """Bytes of ``text``: ``4294967296``, ``4G``, ``4GB``, ``4GiB``, ``1.5g`` (K, M, G, T
    are powers of 1024); None if it is not one."""
    match = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?", text.strip(), re.IGNORECASE)
    if match is None:
        return None
    return int(float(match.group(1)) * _UNITS[match.group(2).lower()])


def format_bytes(size: float) -> str:
    """``size`` bytes as ``1.5 GiB``, ``640 MiB``, ``3.4 KiB`` or ``512 B``."""
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if size >= scale:
            value = size / scale
            return f"{value:.1f} {unit}" if value < 100 else f"{value:,.0f} {unit}"
    return f"{int(size)} B"
