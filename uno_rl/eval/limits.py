"""How big one evaluation or experiment may be: bounds checked by arithmetic before anything
is built or played.

* :data:`MAX_MATCHUPS` match-ups per cell (per ``uno_rl evaluate`` run): a round-robin of at
  most 45 agents at 2 players, of at most 32 at more players (each pair plays both ways).
* :data:`MAX_CELLS` cells per experiment, and :data:`MAX_EXPERIMENT_MATCHUPS` match-ups over
  all its cells.
* :data:`MAX_TOTAL_ROUNDS` rounds and :data:`MAX_TOTAL_MATCHES` matches in one run (every
  match-up of every cell together).
* A cell's results must fit in memory: every round (or match) of a cell is kept until its
  tables are made, :func:`bytes_per_game` bytes each (96 at 2 players, 424 at 10), about 2.5
  times over while they are made; a cell needing more than :data:`MEMORY_SHARE` of the computer's memory
  (:func:`memory_bytes`) is refused.

Each check raises ``ValueError`` with one sentence naming the number and the limit.
"""

from __future__ import annotations

import dataclasses
import math
import os
from pathlib import Path

from .jobs import Outcomes

__all__ = [
    "MAX_CELLS",
    "MAX_EXPERIMENT_MATCHUPS",
    "MAX_MATCHUPS",
    "MAX_TOTAL_MATCHES",
    "MAX_TOTAL_ROUNDS",
    "MEMORY_SHARE",
    "bytes_per_game",
    "check_cell_memory",
    "check_matchup_count",
    "check_total_games",
    "matchup_count",
    "memory_bytes",
    "most_round_robin_agents",
    "number",
    "plural",
    "rate",
    "size",
]

#: The most match-ups one cell (or one ``uno_rl evaluate`` run) may have.
MAX_MATCHUPS = 1_000
#: The most cells one experiment may have (all its parts together).
MAX_CELLS = 10_000
#: The most match-ups one experiment may have over all its cells.
MAX_EXPERIMENT_MATCHUPS = 100_000
#: The most single rounds one run may ask, over every match-up of every cell.
MAX_TOTAL_ROUNDS = 10_000_000_000
#: The most whole matches one run may ask, over every match-up of every cell.
MAX_TOTAL_MATCHES = 1_000_000_000
#: The share of the computer's memory one cell's results may take.
MEMORY_SHARE = 0.8
#: A cell's peak memory over its kept results: they are copied once, and the tables are
#: made from the copy (a run of 1,000,000 rounds at 2 players peaks about 230 MB above one
#: of 20,000).
_COPIES = 2.5


def number(value: float) -> str:
    """``12,345`` (a count as messages write it)."""
    return f"{value:,.0f}"


def rate(value: float) -> str:
    """``7,400`` or ``0.48`` (a speed: two significant digits below 10, so a slow one is not 0)."""
    return number(value) if value >= 10 else f"{value:.2g}"


def plural(count: int, word: str, words: str | None = None) -> str:
    """``1 match-up``, ``2 match-ups``."""
    return f"{number(count)} {word if count == 1 else (words or word + 's')}"


def size(nbytes: float) -> str:
    """``1.5 GB``, ``640 MB``."""
    if nbytes >= 1e9:
        return f"{nbytes / 1e9:.1f} GB"
    return f"{max(1, round(nbytes / 1e6))} MB"


def matchup_count(agents: int, players: int, mode: str) -> int:
    """How many match-ups :func:`~uno_rl.eval.tournament.make_matchups` makes of ``agents``
    distinct agents in ``mode`` (``cross``: ``agents`` is focal x opponents already)."""
    if mode == "round-robin":
        return math.comb(agents, 2) * (2 if players > 2 else 1)
    if mode == "cross":
        return agents
    return 1


def most_round_robin_agents(players: int) -> int:
    """The most agents a round-robin at ``players`` may have within :data:`MAX_MATCHUPS`."""
    agents = 2
    while matchup_count(agents + 1, players, "round-robin") <= MAX_MATCHUPS:
        agents += 1
    return agents


def check_matchup_count(agents: int, players: int, mode: str, focal: int = 0) -> int:
    """The match-up count of ``agents`` in ``mode`` at ``players`` (``cross``: ``focal`` x
    ``agents // focal`` opponents); ``ValueError`` above :data:`MAX_MATCHUPS`."""
    count = matchup_count(agents, players, mode)
    if count <= MAX_MATCHUPS:
        return count
    if mode == "round-robin":
        most = most_round_robin_agents(players)
        what = f"a round-robin of {number(agents)} agents at {players} players"
        fix = f"compare at most {most} agents in a round-robin at {players} players"
    else:
        what = f"{plural(focal, 'focal agent')} x {plural(agents // focal, 'opponent')}"
        fix = "name fewer focal agents or opponents"
    raise ValueError(
        f"{what} makes {number(count)} match-ups; at most {number(MAX_MATCHUPS)} are allowed: {fix}"
    )


def check_total_games(games: int, match: bool, subject: str, fix: str) -> None:
    """``ValueError`` when ``games`` rounds (matches, ``match``) in all exceed
    :data:`MAX_TOTAL_ROUNDS` (:data:`MAX_TOTAL_MATCHES`): ``{subject} asks N rounds in all``,
    the limit, then ``fix``."""
    unit = "matches" if match else "rounds"
    high = MAX_TOTAL_MATCHES if match else MAX_TOTAL_ROUNDS
    if games > high:
        raise ValueError(
            f"{subject} asks {number(games)} {unit} in all; at most {number(high)} are allowed "
            f"in one run: {fix}"
        )


def bytes_per_game(players: int) -> int:
    """Bytes a kept round (or match) takes at ``players`` seats (its row of every
    :class:`~uno_rl.eval.jobs.Outcomes` array)."""
    outcomes = Outcomes.empty(1, players)
    return sum(getattr(outcomes, f.name).nbytes for f in dataclasses.fields(outcomes))


def memory_bytes() -> int | None:
    """The memory this process may use: the computer's, or its container's limit when lower;
    None when neither can be read."""
    limits = []
    try:
        limits.append(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):  # pragma: no cover - not POSIX
        pass
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            text = Path(path).read_text().strip()
        except OSError:
            continue
        if text.isdigit() and 0 < int(text) < 2**60:
            limits.append(int(text))
    return min(limits) if limits else None


def check_cell_memory(
    matchups: int, games: int, players: int, match: bool, subject: str, fix: str
) -> None:
    """``ValueError`` when a cell of ``matchups`` match-ups of ``games`` rounds (matches,
    ``match``) each would keep more than :data:`MEMORY_SHARE` of :func:`memory_bytes`:
    ``{subject} would need about N GB``, the limit, then ``fix``."""
    available = memory_bytes()
    if available is None:
        return
    need = _COPIES * matchups * games * bytes_per_game(players)
    if need > MEMORY_SHARE * available:
        raise ValueError(
            f"{subject} would need about {size(need)} of memory for its results "
            f"({bytes_per_game(players)} bytes a {'match' if match else 'round'} at {players} "
            f"players, about {_COPIES:g} times over while its tables are made); at most "
            f"{size(MEMORY_SHARE * available)} ({MEMORY_SHARE:.0%} of {size(available)}) is "
            f"allowed: {fix}"
        )
