"""The scorecard protocol: one fixed, citable measurement of an agent (``uno_rl scorecard``).

Everything but the agent is fixed here, so that two scorecards of the same uno_rl version
compare and a paper can cite one by its command line:

* the rules: the preset :data:`PRESET` (``official``), at :data:`PLAYER_COUNTS` (2 and 4
  players);
* the opponents: every zoo heuristic (:data:`HEURISTICS`) and the shipped PPO bots of the
  player count (:data:`BOTS`: a bot plays only at the player count it was trained for). Search
  agents (``pimc``, ``ismcts`` and the ``pimc-*`` specs) are no opponents: at about a second a
  round they would take days;
* the line-ups: at 2 players the agent against the opponent, at 4 the agent in one seat and
  three copies of the opponent in the others (``uno_rl evaluate AGENT OPPONENT --players 4``);
  every deal replayed with the line-up rotated through the seats (duplicate deals), every
  opponent on the same deals;
* the three measures: rounds won and net points per round over single rounds, matches to 500
  won over whole matches, each with its :data:`CONFIDENCE` (99%) interval, taken from the
  evaluator's per-agent table (:mod:`uno_rl.eval.summary`);
* the seeds :data:`SEEDS` (one for the single rounds, one for the matches) and the sizes
  :data:`FULL` (20,000 single rounds and 2,000 matches an opponent: the sizes of
  ``uno_rl exploit``'s final evaluation); :data:`SEARCH` for a search agent, which thinks
  for a twenty-fifth of a second (``pimc``) to half a second (a search over a PPO bot) a
  round (the full sizes would take it hours to days); or, for a try, :data:`QUICK`.

A scorecard is played in parts (:class:`Part`), one per player count and unit (``2p-rounds``,
``2p-matches``, ``4p-rounds``, ``4p-matches``), each one evaluator call
(:func:`uno_rl.eval.run.evaluate_variant`) whose per-agent table is written to
``OUT/parts/NAME.parquet`` as soon as it ends; :func:`play_scorecard` skips the parts already
there, so a stopped scorecard resumes where it stopped. A part is played one opponent at a
time, each opponent's rows written to ``OUT/parts/NAME/K-OPPONENT.parquet`` as it ends (the
same rows as one call over every opponent: :func:`~uno_rl.eval.run.evaluate_variant`'s
``first_matchup``), so a resume also keeps the opponents of a part already played: a search
agent's part is hours. The rows and the texts are made by
:mod:`uno_rl.eval.scorecard_report`.
"""

from __future__ import annotations

import dataclasses
import json
import math
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path

import pandas as pd
from tqdm import tqdm

import uno_rl
from uno_rl.agents import AgentError, make_agent
from uno_rl.agents.base import Agent
from uno_rl.core.rules import Rules, load_rules
from uno_rl.plumbing.durable import write_text_durably
from uno_rl.plumbing.processes import stop_pool

from .estimate import Work, estimate, notice
from .run import as_matches, default_workers, evaluate_variant, parallel_workers, write_atomic
from .tournament import Matchup, worker_pool

__all__ = [
    "BOTS",
    "CONFIDENCE",
    "FULL",
    "HEURISTICS",
    "PLAYER_COUNTS",
    "PRESET",
    "QUICK",
    "SEARCH",
    "SEEDS",
    "SIZES",
    "UNITS",
    "Part",
    "Plan",
    "Sizes",
    "opponents",
    "parts_done",
    "pieces_done",
    "plan_scorecard",
    "play_scorecard",
    "trained_players",
]

#: The rule preset of every game.
PRESET = "official"
#: The player counts a scorecard measures (an agent that cannot play one gets the other).
PLAYER_COUNTS = (2, 4)
#: The confidence of every interval.
CONFIDENCE = 0.99
#: The zoo heuristics, opponents at every player count.
HEURISTICS = (
    "random", "random-playable", "color-first", "points-dumper", "aggressive", "rule",
    "bluffer", "suspicious", "bayes-challenger",
)  # fmt: skip
#: The shipped PPO bots, by the player count they were trained for (and play at).
#: A bot shipped later is appended to its count's tuple (``--refresh`` adds its rows to a
#: finished scorecard).
BOTS = {2: ("ppo-official-2p", "ppo-official-2p-v1"), 4: ("ppo-official-4p", "ppo-official-4p-v1")}
#: The units a player count is measured in: single rounds (rounds won, net points per
#: round) and whole matches to 500 (matches won).
UNITS = ("rounds", "matches")
#: The seed of the deals of each unit (public and fixed: every scorecard plays these deals).
SEEDS = {"rounds": 31_415, "matches": 27_182}
#: What makes a scorecard shorter (said by a refusal to run above a week).
_FEWER = (
    "pass --search for a search agent's sizes, name a faster agent, or pass --quick to try "
    "the scorecard at a small size"
)


@dataclasses.dataclass(frozen=True)
class Sizes:
    """How much is played against each opponent at each player count."""

    #: single rounds (rounds won, net points per round)
    rounds: int
    #: whole matches to 500 (matches won)
    matches: int

    def games(self, unit: str) -> int:
        return self.rounds if unit == "rounds" else self.matches


#: The sizes of the protocol: 99% intervals about +-0.9 percentage points wide on rounds won
#: at 2 players, +-2.9 on matches won.
FULL = Sizes(rounds=20_000, matches=2_000)
#: The sizes of ``--search``, for agents that search at every decision (``pimc``, ``ismcts``
#: and the ``pimc-*`` specs, up to half a second a round): 99% intervals about +-6.5 percentage
#: points wide on rounds won at 2 players, +-20 on matches won.
SEARCH = Sizes(rounds=400, matches=40)
#: The sizes of ``--quick``: a try, too small for findings.
QUICK = Sizes(rounds=200, matches=20)
#: The sizes by name (``Plan.size``).
SIZES = {"full": FULL, "search": SEARCH, "quick": QUICK}


def opponents(players: int) -> tuple[str, ...]:
    """The opponents at ``players`` seats: :data:`HEURISTICS`, then that count's :data:`BOTS`."""
    return HEURISTICS + BOTS.get(players, ())


def scorecard_rules(players: int, unit: str) -> tuple[Rules, str]:
    """The rules of a part and their variant label (``official`` or ``official, match=true``)."""
    rules = load_rules(PRESET, players=players)
    return as_matches(rules, PRESET) if unit == "matches" else (rules, PRESET)


@dataclasses.dataclass(frozen=True)
class Part:
    """One evaluator call of a scorecard: the agent against each opponent of ``players``
    seats (itself left out), ``games`` rounds or matches (``unit``) each, deals of ``seed``."""

    agent: str
    players: int
    unit: str
    games: int
    seed: int
    opponents: tuple[str, ...]

    @property
    def name(self) -> str:
        """``2p-rounds``, ``4p-matches``: the part's file name in ``OUT/parts``."""
        return f"{self.players}p-{self.unit}"

    def matchups(self) -> list[Matchup]:
        """The agent in one seat, ``P - 1`` copies of an opponent in the others."""
        return [Matchup((self.agent,) + (o,) * (self.players - 1)) for o in self.opponents]

    def rounds_per_matchup(self) -> int:
        """Jobs per match-up as the evaluator plays them (whole deals of P seatings)."""
        return math.ceil(self.games / self.players) * self.players


def trained_players(agent: Agent) -> int | None:
    """The player count ``agent`` was trained for, where it records one: a PPO checkpoint's
    config (``players``), a search agent's policy's; None for an agent that plays any."""
    config = getattr(agent, "config", None)
    if isinstance(config, dict) and isinstance(config.get("players"), int):
        return int(config["players"])
    policy = getattr(agent, "policy", None)
    return trained_players(policy) if isinstance(policy, Agent) and policy is not agent else None


@dataclasses.dataclass(frozen=True)
class Plan:
    """What a scorecard plays: ``agent`` at ``players`` (the counts it plays), ``sizes``
    (named ``size``: a key of :data:`SIZES`); ``skipped`` says why each other count of
    :data:`PLAYER_COUNTS` is not played."""

    agent: str
    players: tuple[int, ...]
    skipped: dict[int, str]
    sizes: Sizes
    size: str

    @property
    def quick(self) -> bool:
        """Whether this is a ``--quick`` try (too small for findings)."""
        return self.size == "quick"

    def parts(self) -> list[Part]:
        """The parts, by player count, single rounds before matches."""
        return [
            Part(self.agent, p, unit, self.sizes.games(unit), SEEDS[unit],
                 tuple(o for o in opponents(p) if o != self.agent))
            for p in self.players
            for unit in UNITS
        ]  # fmt: skip

    def settings(self) -> dict:
        """What the scorecard in a folder was played with (JSON values): a resume must find
        the same (the uno_rl version included)."""
        return {
            "uno_rl": uno_rl.__version__,
            "agent": self.agent,
            "preset": PRESET,
            "players": list(self.players),
            "opponents": {str(p): list(opponents(p)) for p in self.players},
            "seeds": dict(SEEDS),
            "sizes": dataclasses.asdict(self.sizes),
            "confidence": CONFIDENCE,
            "quick": self.quick,
        }


def plan_scorecard(
    agent: str, players: Sequence[int] | None = None, quick: bool = False,
    sizes: Sizes | None = None, search: bool = False,
) -> Plan:  # fmt: skip
    """The plan of ``agent``'s scorecard at ``players`` (default :data:`PLAYER_COUNTS`), at
    the sizes :data:`FULL`, :data:`SEARCH` (``search``) or :data:`QUICK` (``quick``).

    A count where the agent cannot be made for the rules, or that is not the one it was
    trained for (:func:`trained_players`), is skipped with the reason; where it plays none,
    the first reason is raised (:class:`~uno_rl.agents.base.AgentError`; an unknown agent so).
    ``sizes`` replaces the named size's sizes (for tests).
    A count named in ``players`` outside :data:`PLAYER_COUNTS`, or both ``quick`` and
    ``search``, raises ``ValueError``."""
    if not isinstance(agent, str) or not agent.strip():
        raise ValueError("AGENT: name the agent to measure (e.g. color-first)")
    if quick and search:
        raise ValueError("--quick and --search: choose one size")
    counts = tuple(dict.fromkeys(PLAYER_COUNTS if not players else players))
    for p in counts:
        if p not in PLAYER_COUNTS:
            raise ValueError(f"--players: the scorecard measures 2 and 4 players, got {p}")
    playing: list[int] = []
    skipped = {
        p: f"left out by --players {counts[0]}" if len(counts) == 1 else "left out"
        for p in PLAYER_COUNTS
        if p not in counts
    }
    errors: list[AgentError] = []
    for p in counts:
        try:
            made = make_agent(agent, load_rules(PRESET, players=p))
        except (AgentError, ValueError) as error:
            errors.append(AgentError(str(error)))
            skipped[p] = f"the agent cannot play it ({error})"
            continue
        trained = trained_players(made)
        if trained is not None and trained != p:
            skipped[p] = f"the agent was trained for {trained} players"
            errors.append(AgentError(
                f"agent {agent!r} was trained for {trained} players: its scorecard has "
                f"{trained} players only" if trained in PLAYER_COUNTS else
                f"agent {agent!r} was trained for {trained} players; the scorecard measures "
                "2 and 4 players"
            ))  # fmt: skip
            continue
        playing.append(p)
    if not playing:
        raise errors[0]
    size = "quick" if quick else "search" if search else "full"
    return Plan(agent, tuple(playing), skipped, sizes or SIZES[size], size)


#: The file of a scorecard folder that says what it was played with.
SETTINGS_FILE = "settings.json"


def parts_done(plan: Plan, out: Path) -> list[Part]:
    """The parts of ``plan`` whose table the folder ``out`` holds."""
    return [part for part in plan.parts() if (out / "parts" / f"{part.name}.parquet").is_file()]


def check_resumable(plan: Plan, out: Path, fresh: bool) -> bool:
    """Whether ``out`` holds an unfinished or finished scorecard of ``plan`` to go on with;
    ``ValueError`` when it holds one of other settings (unless ``fresh``, which forgets it).
    Nothing is written or removed here."""
    path = out / SETTINGS_FILE
    if fresh or not path.is_file():
        return False
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        found = None
    if found == plan.settings():
        return True
    what = "an unreadable" if found is None else "the"
    raise ValueError(
        f"--out {out}: holds {what} scorecard of other settings ({_differences(found, plan)}); "
        "choose another --out, or pass --fresh to play it again there"
    )


def _differences(found, plan: Plan) -> str:
    if not isinstance(found, dict):
        return f"{SETTINGS_FILE} cannot be read"
    wanted = plan.settings()
    keys = [k for k in wanted if found.get(k) != wanted[k]]
    return ", ".join(f"{k} {found.get(k)!r}" for k in keys[:3]) or "its settings differ"


def play_scorecard(
    plan: Plan,
    out: Path,
    workers: int | None = None,
    progress: bool = True,
    fresh: bool = False,
    announce: Callable[[str], None] | None = None,
    allow_long: bool = False,
) -> dict[str, pd.DataFrame]:
    """Play the parts of ``plan`` not yet in ``out`` (all of them with ``fresh``), writing
    each part's per-agent table (:mod:`uno_rl.eval.summary`) to ``out/parts/NAME.parquet``
    as it ends; returns every part's table by :attr:`Part.name`.

    ``out`` holding a scorecard of other settings raises ``ValueError``
    (:func:`check_resumable`). ``announce`` is given the line of a run estimated at minutes or
    more (:mod:`uno_rl.eval.estimate`; above a week it raises
    :class:`~uno_rl.eval.estimate.RunTooLong` unless ``allow_long``). An exception, a
    ``KeyboardInterrupt`` too, ends the workers at once; the finished parts stay."""
    resuming = check_resumable(plan, out, fresh)
    parts = out / "parts"
    if not resuming:
        if parts.is_dir():
            shutil.rmtree(parts)
        write_text_durably(out / SETTINGS_FILE, json.dumps(plan.settings(), indent=2) + "\n")
    done = {part.name for part in parts_done(plan, out)}
    todo = [part for part in plan.parts() if part.name not in done]
    workers = default_workers() if workers is None else workers
    if todo and announce is not None:
        works = [Work(scorecard_rules(p.players, p.unit)[0], _missing(p, parts), p.games)
                 for p in todo]  # fmt: skip
        line = notice(estimate(works, parallel_workers(workers), SEEDS["rounds"]), allow_long,
                      _FEWER)  # fmt: skip
        if line is not None:
            announce(f"{line}; Ctrl-C stops it, and the same command resumes it")
    pool = worker_pool(workers) if todo and workers > 1 else None
    try:
        bar = tqdm(plan.parts(), desc=f"scorecard {plan.agent}"[:40], unit="part",
                   disable=not progress, initial=0)  # fmt: skip
        with bar:
            for part in bar:
                if part.name not in done:
                    _play_part(part, parts, workers, progress, pool)
    except BaseException:
        if pool is not None:
            stop_pool(pool)  # the part that was running is played again by a resume
        raise
    if pool is not None:
        pool.shutdown(cancel_futures=True)
    return {p.name: pd.read_parquet(parts / f"{p.name}.parquet") for p in plan.parts()}


def _missing(part: Part, parts: Path) -> list[Matchup]:
    """The match-ups of ``part`` whose rows ``parts`` does not hold yet."""
    return [m for k, m in enumerate(part.matchups()) if not piece_path(part, parts, k).is_file()]


def piece_path(part: Part, parts: Path, index: int) -> Path:
    """Where the rows of ``part``'s opponent number ``index`` are kept until the part ends."""
    return parts / part.name / f"{index:02d}-{part.opponents[index]}.parquet"


def pieces_done(part: Part, parts: Path) -> int:
    """How many of ``part``'s opponents the folder ``parts`` holds the rows of."""
    return sum(piece_path(part, parts, k).is_file() for k in range(len(part.opponents)))


def _play_part(part: Part, parts: Path, workers: int, progress: bool, pool) -> None:
    """Play one part, an opponent at a time (keeping each opponent's rows as it ends), and
    write its per-agent table."""
    rules, label = scorecard_rules(part.players, part.unit)
    tables = []
    for k, matchup in enumerate(part.matchups()):
        path = piece_path(part, parts, k)
        if not path.is_file():
            result = evaluate_variant(
                rules, label, [matchup], part.games, part.seed, workers, CONFIDENCE,
                rating_rounds=0, progress=progress, pool=pool, first_matchup=k,
                description=f"{part.name} vs {part.opponents[k]} ({part.games:,})"[:40],
            )  # fmt: skip
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(result.agents, str(path.with_suffix("")), csv=False)
        tables.append(pd.read_parquet(path))
    write_atomic(pd.concat(tables, ignore_index=True), str(parts / part.name), csv=False)
    shutil.rmtree(parts / part.name)
