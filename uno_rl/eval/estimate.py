"""How long a run will take, said before it starts; a run estimated above a week refused.

A run that will take at least :data:`NOTICE_SECONDS` prints one line before its first game::

    estimate: about 7.5 hours (2,000 cells, 2,000 match-ups, 200,000,000 rounds at about
    7,400 rounds/s on 2 workers)

The figure comes from a short calibration (:mod:`.calibrate`): the heaviest line-ups of the
run are played for a fraction of a second each on the run's own deals, and the rest scaled
from them. A run whose worst case is surely short (at most :data:`NOTICE_SECONDS` at costs
per decision far above any agent's: :data:`PRIOR_SECONDS_PER_DECISION`) is not calibrated
and prints nothing. A run estimated above :data:`MAX_SECONDS` (a week) is refused unless it
is allowed explicitly (``--allow-long``).
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Sequence

from uno_rl.agents import AgentError, make_agent
from uno_rl.agents.registry import STRATEGIES
from uno_rl.core.rules import Rules

from .calibrate import Speed, measure
from .limits import number, plural, rate
from .tournament import CHUNK_DEALS, Chunk, Matchup, search_piece_deals

__all__ = [
    "MAX_SECONDS",
    "NOTICE_SECONDS",
    "Estimate",
    "RunTooLong",
    "Work",
    "duration",
    "estimate",
    "notice",
]

#: A run estimated to take at least this long says so before it starts.
NOTICE_SECONDS = 5 * 60
#: A run estimated above this long is refused unless allowed (``--allow-long``).
MAX_SECONDS = 7 * 24 * 3600
_MAX_TEXT = "a week"
#: Seconds the calibration spends at most, beyond its first line-up.
CALIBRATION_SECONDS = 1.5
#: Worst-case seconds per decision of each kind of agent, for the check that a run is surely
#: short (far above what each measures: built-in strategies a few microseconds, a policy
#: network tens, a search with its defaults tens of milliseconds).
PRIOR_SECONDS_PER_DECISION = {"strategy": 50e-6, "network": 1e-3, "search": 0.2}
#: Worst-case decisions per round per player, and points a match's leader gains per round.
PRIOR_DECISIONS_PER_PLAYER = 40
PRIOR_POINTS_PER_ROUND = 20


class RunTooLong(ValueError):
    """A run estimated above :data:`MAX_SECONDS` (the message says how long and what to do)."""


@dataclasses.dataclass(frozen=True)
class Work:
    """One cell of a run: ``matchups`` under ``rules``, ``games`` rounds (matches under match
    rules) each."""

    rules: Rules
    matchups: Sequence[Matchup]
    games: int


@dataclasses.dataclass(frozen=True)
class Estimate:
    """How long a run takes: ``seconds`` for ``cells`` cells of ``matchups`` match-ups in
    all, ``rounds`` single rounds and ``matches`` whole matches (``round_equivalents``: the
    rounds of both), on ``workers`` worker processes."""

    seconds: float
    cells: int
    matchups: int
    rounds: int
    matches: int
    round_equivalents: float
    workers: int

    def text(self) -> str:
        """``about 7.5 hours (2,000 cells, 2,000 match-ups, 200,000,000 rounds at about
        7,400 rounds/s on 2 workers)``."""
        parts = [plural(self.cells, "cell")] if self.cells > 1 else []
        parts.append(plural(self.matchups, "match-up"))
        asked = [f"{number(n)} {unit}" for n, unit in ((self.rounds, "rounds"),
                 (self.matches, "matches")) if n]  # fmt: skip
        parts.append(" and ".join(asked))
        shown = rate(self.round_equivalents / max(self.seconds, 1e-9))
        return (
            f"about {duration(self.seconds)} ({', '.join(parts)} at about {shown} rounds/s on "
            f"{plural(self.workers, 'worker')})"
        )


def duration(seconds: float) -> str:
    """``40 minutes``, ``7.5 hours``, ``3.2 days``."""
    if seconds < 90 * 60:
        return plural(max(1, round(seconds / 60)), "minute")
    if seconds < 48 * 3600:
        return f"{seconds / 3600:.1f} hours"
    return f"{seconds / 86400:.1f} days"


def estimate(works: Sequence[Work], workers: int, seed: int, slots: int = 4096) -> Estimate | None:
    """How long playing ``works`` (one after the other, each spread over ``workers``
    processes) takes; None when it is surely shorter than :data:`NOTICE_SECONDS` (nothing is
    played then)."""
    works = [w for w in works if w.matchups and w.games > 0]
    kinds: dict[str, str] = {}
    plays = [(w, m, _prior_seconds(w, m, kinds)) for w in works for m in w.matchups]
    if sum(prior for _, _, prior in plays) / workers < NOTICE_SECONDS:
        return None
    groups: dict[tuple, list] = {}  # plays measured as one: [their rules, worst-case seconds]
    for work, matchup, prior in plays:
        groups.setdefault(_group(work, matchup), [work.rules, 0.0])[1] += prior
    speeds = _calibrate(groups, kinds, seed, slots)
    # Each play: (seconds, seconds of its longest chunk, rounds played); the unmeasured ones
    # are scaled from the measured ones by the ratio of their worst cases.
    timed: list[tuple[float, float, float] | None] = []
    measured = worst = 0.0
    for work, matchup, prior in plays:
        speed = speeds.get(_group(work, matchup))
        if speed is None:
            timed.append(None)
            continue
        per_chunk = _chunk_deals(work, matchup, kinds)
        full, rest = divmod(math.ceil(work.games / work.rules.players), per_chunk)
        chunk, last = (
            _chunk_seconds(speed, d * work.rules.players, slots) for d in (per_chunk, rest)
        )
        seconds = full * chunk + last
        timed.append((seconds, chunk if full else last, work.games * speed.rounds_per_game))
        measured += seconds
        worst += prior
    ratio = measured / worst
    cells: dict[int, list[float]] = {}  # per work: [seconds, its longest chunk]
    rounds = 0.0
    for (work, _, prior), play in zip(plays, timed):
        if play is None:
            play = (prior * ratio, prior * ratio, work.games * _prior_rounds(work.rules))
        cell = cells.setdefault(id(work), [0.0, 0.0])
        cell[0] += play[0]
        cell[1] = max(cell[1], play[1])
        rounds += play[2]
    seconds = sum(max(total / workers, longest) for total, longest in cells.values())
    return Estimate(
        seconds,
        len(works),
        sum(len(w.matchups) for w in works),
        sum(w.games * len(w.matchups) for w in works if not w.rules.match),
        sum(w.games * len(w.matchups) for w in works if w.rules.match),
        rounds,
        workers,
    )


def _group(work: Work, matchup: Matchup) -> tuple:
    """Plays measured as one: the same line-up at the same player count, rounds or matches."""
    return matchup.lineup, work.rules.players, work.rules.match


def _calibrate(
    groups: dict[tuple, list], kinds: dict[str, str], seed: int, slots: int
) -> dict[tuple, Speed]:
    """The speed of the heaviest ``groups`` (``[rules, worst-case seconds]`` by
    :func:`_group`), measured one after the other until :data:`CALIBRATION_SECONDS` are
    spent (at least one)."""
    speeds = {}
    start = time.perf_counter()
    for key in sorted(groups, key=lambda k: groups[k][1], reverse=True):
        lineup, rules = key[0], groups[key][0]
        searching = _searches(lineup, rules, kinds)
        deals = search_piece_deals(CHUNK_DEALS) if searching else CHUNK_DEALS
        chunk = Chunk(rules, lineup, 0, seed, 0, 0, deals, slots)
        speeds[key] = measure(rules, lineup, chunk, min(slots, deals * rules.players), searching)
        if time.perf_counter() - start > CALIBRATION_SECONDS:
            break
    return speeds


def _chunk_seconds(speed: Speed, games: int, slots: int) -> float:
    """Seconds of a chunk of ``games`` games (none: 0)."""
    return speed.chunk_seconds(games, min(slots, games)) if games else 0.0


def _chunk_deals(work: Work, matchup: Matchup, kinds: dict[str, str]) -> int:
    """Deals of each chunk (or piece) the run plays of ``matchup``
    (:func:`~uno_rl.eval.tournament.iter_chunks`)."""
    deals = math.ceil(work.games / work.rules.players)
    if _searches(matchup.lineup, work.rules, kinds):
        return search_piece_deals(deals)
    return min(CHUNK_DEALS, deals)


def _searches(lineup: Sequence[str], rules: Rules, kinds: dict[str, str]) -> bool:
    """Whether a line-up seats a search agent (as
    :func:`~uno_rl.eval.tournament.searches`, each spec looked at once a run)."""
    return any(_kind(spec, rules, kinds) == "search" for spec in lineup)


def _kind(spec: str, rules: Rules, kinds: dict[str, str]) -> str:
    """``strategy`` (a built-in), ``search`` or ``network`` (anything else: a policy), of
    each spec once (``kinds`` keeps them)."""
    if spec not in kinds:
        try:
            agent = make_agent(spec, rules)
        except AgentError:  # reported when it is played
            kinds[spec] = "strategy"
        else:
            if agent.needs_state:
                kinds[spec] = "search"
            elif type(agent) in STRATEGIES.values():
                kinds[spec] = "strategy"
            else:
                kinds[spec] = "network"
    return kinds[spec]


def _prior_rounds(rules: Rules) -> float:
    """Worst-case rounds of a game: 1, or a match's rounds."""
    if not rules.match:
        return 1.0
    return float(rules.match_rounds or max(1.0, rules.match_target / PRIOR_POINTS_PER_ROUND))


def _prior_seconds(work: Work, matchup: Matchup, kinds: dict[str, str]) -> float:
    """The worst-case seconds of one match-up of ``work`` (see
    :data:`PRIOR_SECONDS_PER_DECISION`)."""
    rules = work.rules
    per_decision = max(
        PRIOR_SECONDS_PER_DECISION[_kind(s, rules, kinds)] for s in dict.fromkeys(matchup.lineup)
    )
    decisions = PRIOR_DECISIONS_PER_PLAYER * rules.players * _prior_rounds(rules)
    return work.games * decisions * per_decision


def notice(estimate_: Estimate | None, allow_long: bool, fix: str) -> str | None:
    """The line to print before a run (None: too short to say), or :class:`RunTooLong` when
    it is estimated above :data:`MAX_SECONDS` and not ``allow_long``; ``fix`` says how to
    make it shorter."""
    if estimate_ is None or estimate_.seconds < NOTICE_SECONDS:
        return None
    if estimate_.seconds > MAX_SECONDS and not allow_long:
        raise RunTooLong(
            f"this run would take {estimate_.text()}; runs estimated above "
            f"{_MAX_TEXT} are refused: {fix}, or pass --allow-long to run it anyway"
        )
    return f"estimate: {estimate_.text()}"
