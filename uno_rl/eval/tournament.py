"""Tournaments: line-ups of agents, duplicate deals, chunks of work, worker processes.

A *match-up* is a line-up of ``P`` agent specs (repeats allowed). Every deal of a match-up is
played ``P`` times, the line-up rotated one seat each time, so each line-up position sits in
every seat once per deal and deal luck cancels (duplicate deals). All match-ups of one rule
variant share the same deals, so agents are compared on identical cards. Under match rules a
deal is a whole match's sequence of deals: round ``k`` of the match is dealt the same cards
in every seating.

Work is cut into chunks of :data:`CHUNK_DEALS` deals; chunk ``c``'s deal seeds and agent
generator derive from ``(seed, rules, players, c)`` only, so a run's outcomes do not depend on
how many worker processes play the chunks. Line-ups with a search agent play the same chunks
in pieces of at most :data:`SEARCH_CHUNK_DEALS` deals (the same deals; each piece its own agent
generator; a small run's pieces are smaller, :func:`search_piece_deals`), so that their slow
work spreads over every worker.

Line-ups name agents by spec; *live* agents (``live``: a mapping from a name used in the
line-ups to an :class:`~uno_rl.agents.base.Agent` object, such as the policy a training run is
training) play as those objects instead of being built from the name. They travel to worker
processes by pickling, so they must pickle.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import json
import math
import os
import sys
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, ProcessPoolExecutor, wait

import numpy as np

from uno_rl.agents import AgentError, make_agent
from uno_rl.agents.base import Agent
from uno_rl.core.rules import Rules
from uno_rl.plumbing import processes

from .jobs import Outcomes, Recorder, play_jobs

__all__ = [
    "CHUNK_DEALS",
    "SEARCH_CHUNK_DEALS",
    "search_piece_deals",
    "MODES",
    "Chunk",
    "Matchup",
    "chunk_count",
    "concat_outcomes",
    "cross_matchups",
    "iter_chunks",
    "lineup_searches",
    "make_matchups",
    "plan_chunks",
    "play_chunks",
    "worker_pool",
]

#: Deals per unit of work.
CHUNK_DEALS = 2048
#: Deals per unit of work of line-ups with a search agent: pieces of the same chunks (the same
#: deals) that spread the slow work over every worker, each with enough games in lockstep
#: for the search's batched play-outs to stay efficient.
SEARCH_CHUNK_DEALS = 256
#: A small search run is cut into about this many pieces (of at least SEARCH_MIN_DEALS deals):
#: enough for a few workers; more games in lockstep make each batched search cheaper per
#: round (2,000 rounds of pimc against color-first: about 16% less time per round in pieces of
#: 125 deals than of 63).
SEARCH_PIECES = 8
SEARCH_MIN_DEALS = 8
#: How a list of agents becomes match-ups.
MODES = ("table", "head-to-head", "round-robin")


@dataclasses.dataclass(frozen=True)
class Matchup:
    """A line-up: one agent spec per line-up position (``P`` of them)."""

    lineup: tuple[str, ...]

    @property
    def agents(self) -> list[str]:
        """Distinct specs, in line-up order."""
        return list(dict.fromkeys(self.lineup))

    @property
    def label(self) -> str:
        """``a vs b`` for two distinct agents (``a vs 3 x b`` with copies), else the line-up."""
        return self.named({})

    def named(self, names: Mapping[str, str]) -> str:
        """:attr:`label` with each spec written as ``names`` names it (a spec it lacks as
        itself): the match-up in the agents' short labels (:mod:`uno_rl.agents.labels`)."""
        distinct = [names.get(a, a) for a in self.agents]
        lineup = [names.get(a, a) for a in self.lineup]
        if len(distinct) == 2 and self.lineup.count(self.agents[0]) == 1:
            copies = len(lineup) - 1
            other = distinct[1] if copies == 1 else f"{copies} x {distinct[1]}"
            return f"{distinct[0]} vs {other}"
        return " | ".join(lineup)


def make_matchups(agents: Sequence[str], players: int, mode: str) -> list[Matchup]:
    """The match-ups a mode makes of ``agents`` for ``players`` seats.

    * ``table``: the agents share one table (``len(agents) == players``).
    * ``head-to-head``: two agents, the first against ``P - 1`` copies of the second.
    * ``round-robin``: every pair; with more than 2 seats each of the pair also plays against
      copies of the other.
    """
    agents = list(agents)
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
    if mode == "table":
        if len(agents) != players:
            raise ValueError(
                f"mode 'table' seats one agent per seat: {players} players need {players} "
                f"agents, got {len(agents)}"
            )
        return [Matchup(tuple(agents))]
    if mode == "head-to-head":
        if len(agents) != 2:
            raise ValueError(f"mode 'head-to-head' needs exactly 2 agents, got {len(agents)}")
        return [Matchup((agents[0],) + (agents[1],) * (players - 1))]
    if len(set(agents)) < 2 or len(set(agents)) != len(agents):
        raise ValueError("mode 'round-robin' needs at least 2 distinct agents, each once")
    out = []
    for a, b in itertools.combinations(agents, 2):
        out.append(Matchup((a,) + (b,) * (players - 1)))
        if players > 2:
            out.append(Matchup((b,) + (a,) * (players - 1)))
    return out


def cross_matchups(focal: Sequence[str], opponents: Sequence[str], players: int) -> list[Matchup]:
    """Every focal agent against ``P - 1`` copies of every opponent (focal-major order); a
    focal agent equal to the opponent plays a table of ``P`` copies."""
    return [Matchup((f,) + (o,) * (players - 1)) for f in focal for o in opponents]


def rules_key(rules: Rules) -> int:
    """A stable 32-bit fingerprint of a rule set (seeds deals per variant)."""
    text = json.dumps(dataclasses.asdict(rules), sort_keys=True)
    return zlib.crc32(text.encode())


@dataclasses.dataclass(frozen=True)
class Chunk:
    """One unit of work: ``deals`` deals from ``first_deal`` of one match-up under ``rules``."""

    rules: Rules
    lineup: tuple[str, ...]
    matchup_index: int
    seed: int
    chunk_index: int
    first_deal: int
    deals: int
    slots: int = 4096
    #: a piece of chunk ``chunk_index`` (line-ups with a search agent): its index (-1: the
    #: whole chunk) and the offset of its first deal in the chunk
    piece: int = -1
    piece_offset: int = 0

    def deal_seeds(self) -> np.ndarray:
        """(deals,) uint64: this chunk's deal seeds (the same for every match-up; a piece has
        its slice of its chunk's)."""
        sequence = np.random.SeedSequence(
            [self.seed, rules_key(self.rules), self.rules.players, self.chunk_index]
        )
        gen = np.random.Generator(np.random.PCG64(sequence))
        top = np.iinfo(np.int64).max
        seeds = gen.integers(0, top, self.piece_offset + self.deals, dtype=np.int64)
        return seeds[self.piece_offset :].astype(np.uint64)

    def agent_generator(self) -> np.random.Generator:
        sequence = np.random.SeedSequence(
            [
                self.seed,
                rules_key(self.rules),
                self.rules.players,
                self.chunk_index,
                self.matchup_index + 1,
                *([self.piece] if self.piece >= 0 else []),
            ]
        )
        return np.random.Generator(np.random.PCG64(sequence))


def iter_chunks(
    rules: Rules,
    matchups: Sequence[Matchup],
    rounds: int,
    seed: int,
    slots: int = 4096,
    live: Mapping[str, Agent] | None = None,
    first_matchup: int = 0,
) -> Iterator[Chunk]:
    """Chunks playing at least ``rounds`` jobs per match-up (whole deals: a multiple of P):
    rounds, or whole matches when ``rules.match`` (then a deal seeds the match's first round,
    and each later round's deal follows from the one before, the same in every seating).

    A generator: a run of any size starts at once, whatever its number of chunks
    (:func:`chunk_count`). ``live``: the line-ups' live agents (module docstring).
    ``first_matchup``: the index of ``matchups[0]`` in a larger run, so that its match-ups
    played alone draw what they draw in that run (the agents' generators depend on it)."""
    deals = math.ceil(rounds / rules.players)
    for m, matchup in enumerate(matchups, start=first_matchup):
        piece = search_piece_deals(deals) if lineup_searches(matchup.lineup, rules, live) else 0
        for c, first in enumerate(range(0, deals, CHUNK_DEALS)):
            count = min(CHUNK_DEALS, deals - first)
            if not piece:
                yield Chunk(rules, matchup.lineup, m, seed, c, first, count, slots)
                continue
            for j, offset in enumerate(range(0, count, piece)):
                yield Chunk(rules, matchup.lineup, m, seed, c, first + offset,
                            min(piece, count - offset), slots, j, offset)  # fmt: skip


def chunk_count(
    rules: Rules,
    matchups: Sequence[Matchup],
    rounds: int,
    live: Mapping[str, Agent] | None = None,
) -> int:
    """How many chunks :func:`iter_chunks` yields."""
    deals = math.ceil(rounds / rules.players)
    total = 0
    for matchup in matchups:
        if lineup_searches(matchup.lineup, rules, live):
            piece = search_piece_deals(deals)
            whole, rest = divmod(deals, CHUNK_DEALS)
            total += whole * math.ceil(CHUNK_DEALS / piece) + math.ceil(rest / piece)
        else:
            total += math.ceil(deals / CHUNK_DEALS)
    return total


def search_piece_deals(deals: int) -> int:
    """Deals per piece of a search line-up playing ``deals`` deals: :data:`SEARCH_CHUNK_DEALS`,
    or for a small run about ``deals / SEARCH_PIECES`` (at least :data:`SEARCH_MIN_DEALS`), so
    that a run of a few hundred matches still spreads over the workers. It depends on the
    run's size only, never on the number of workers: the same config gives the same tables."""
    return min(SEARCH_CHUNK_DEALS, max(SEARCH_MIN_DEALS, math.ceil(deals / SEARCH_PIECES)))


@functools.lru_cache(maxsize=256)
def searches(lineup: tuple[str, ...], rules: Rules) -> bool:
    """Whether a line-up seats a search agent (:attr:`~uno_rl.agents.base.Agent.needs_state`);
    a spec that does not make an agent counts as none (playing it reports the error)."""
    for spec in dict.fromkeys(lineup):
        try:
            if make_agent(spec, rules).needs_state:
                return True
        except AgentError:
            continue
    return False


def lineup_searches(
    lineup: tuple[str, ...], rules: Rules, live: Mapping[str, Agent] | None = None
) -> bool:
    """:func:`searches`, where the names in ``live`` are those live agents."""
    if not live:
        return searches(lineup, rules)
    if any(live[spec].needs_state for spec in lineup if spec in live):
        return True
    return searches(tuple(spec for spec in lineup if spec not in live), rules)


def plan_chunks(
    rules: Rules,
    matchups: Sequence[Matchup],
    rounds: int,
    seed: int,
    slots: int = 4096,
    live: Mapping[str, Agent] | None = None,
) -> list[Chunk]:
    """:func:`iter_chunks` as a list (for small plans and tests)."""
    return list(iter_chunks(rules, matchups, rounds, seed, slots, live))


def play_chunk(
    chunk: Chunk,
    on_finished: Callable[[int], None] | None = None,
    recorder: Recorder | None = None,
    live: Mapping[str, Agent] | None = None,
) -> Outcomes:
    """Play one chunk (in this process); ``recorder``: see :func:`play_jobs`; ``live``: the
    line-up names that play as these agent objects (module docstring), the others are built
    from their spec."""
    live = live or {}
    agents = {
        spec: live[spec] if spec in live else make_agent(spec, chunk.rules)
        for spec in dict.fromkeys(chunk.lineup)
    }
    return play_jobs(
        chunk.rules,
        [agents[spec] for spec in chunk.lineup],
        chunk.deal_seeds(),
        chunk.agent_generator(),
        slots=chunk.slots,
        on_finished=on_finished,
        recorder=recorder,
    )


def _one_thread_per_worker() -> None:
    """Worker initializer: one math-library thread each (the workers fill the cores)."""
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ[name] = "1"
    if "torch" in sys.modules:  # a forked worker inherits torch: set its pool directly
        sys.modules["torch"].set_num_threads(1)


def worker_pool(workers: int) -> ProcessPoolExecutor:
    """A pool of ``workers`` processes for :func:`play_chunks` (started as
    :func:`uno_rl.plumbing.processes.process_context` says; they end when this process dies)."""
    return processes.worker_pool(workers, _one_thread_per_worker)


def play_chunks(
    chunks: Iterable[Chunk],
    workers: int = 1,
    on_finished: Callable[[int, int], None] | None = None,
    pool: Executor | None = None,
    task: Callable[..., Outcomes] = play_chunk,
    pending: int | None = None,
) -> list[Outcomes]:
    """Play ``chunks``: in this process (``workers == 1``), in ``pool``, or in a pool of
    ``workers`` processes made for the call. ``task(chunk, on_finished)`` plays one chunk
    (default :func:`play_chunk`; a picklable callable for worker processes).

    ``chunks`` is consumed lazily (an :func:`iter_chunks` generator): at most ``pending``
    chunks (default 4 per worker, at least 16) are submitted and not yet finished at any
    time, so the plan is never materialized. ``on_finished(chunk_position, rounds)`` reports
    progress; results come back in chunk order. A failing chunk raises its error here;
    nothing is returned for the others (and the workers of a pool made for the call are ended,
    as on a ``KeyboardInterrupt``).
    """
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    results: dict[int, Outcomes] = {}
    chunks = iter(chunks)
    head = list(itertools.islice(chunks, 2))
    chunks = itertools.chain(head, chunks)
    if pool is None and (workers == 1 or len(head) <= 1):
        for i, chunk in enumerate(chunks):
            report = None if on_finished is None else (lambda k, i=i: on_finished(i, k))
            results[i] = task(chunk, report)
        return [results[i] for i in range(len(results))]
    own = pool is None
    pool = worker_pool(workers) if own else pool
    limit = pending or max(16, 4 * workers)
    futures: dict = {}
    try:
        queue = iter(enumerate(chunks))
        while True:
            for i, chunk in queue:
                futures[pool.submit(task, chunk)] = i
                if len(futures) >= limit:
                    break
            if not futures:
                break
            finished, _ = wait(futures, return_when=FIRST_COMPLETED)
            for future in finished:
                i = futures.pop(future)
                results[i] = future.result()
                if on_finished is not None:
                    on_finished(i, int(results[i].winner.size))
    except BaseException:
        for future in futures:
            future.cancel()
        if own:
            processes.stop_pool(pool)
        raise
    if own:
        pool.shutdown(cancel_futures=True)
    return [results[i] for i in range(len(results))]


def concat_outcomes(parts: Sequence[Outcomes]) -> Outcomes:
    """Outcomes of consecutive chunks joined in order."""
    fields = [f.name for f in dataclasses.fields(Outcomes)]
    return Outcomes(**{name: np.concatenate([getattr(p, name) for p in parts]) for name in fields})
