"""One evaluation: a rule variant, a player count, match-ups, rounds; the tables it yields."""

from __future__ import annotations

import dataclasses
import functools
import math
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pandas as pd
from tqdm import tqdm

from uno_rl.agents import make_agent
from uno_rl.agents.base import Agent
from uno_rl.core.rules import Rules, load_rules
from uno_rl.plumbing.cli import MAX_COUNT, check_float, check_int, check_seed
from uno_rl.plumbing.durable import replace_durably
from uno_rl.plumbing.processes import MAX_WORKERS

from .backends import make_executor
from .estimate import Work, estimate, notice
from .jobs import IllegalActionError
from .limits import check_cell_memory, check_matchup_count, check_total_games, number, plural
from .replays import ReplayRequest, merge_sample, sampled_task, save_violation, write_sample
from .summary import agent_table, deal_table, pair_table, rating_table, seat_table
from .tournament import (
    Matchup,
    concat_outcomes,
    iter_chunks,
    make_matchups,
    play_chunk,
    play_chunks,
)
from .variant_names import switches_label, variant_name

__all__ = [
    "MAX_MATCHES",
    "MAX_ROUNDS",
    "Evaluation",
    "as_matches",
    "check_count",
    "check_live_agents",
    "check_run_size",
    "check_settings",
    "default_workers",
    "evaluate",
    "parallel_workers",
    "variant_label",
]


#: The most rounds (single rounds) one evaluation may ask per match-up.
MAX_ROUNDS = 100_000_000
#: The most matches one evaluation may ask per match-up (a match to 500 is several rounds).
MAX_MATCHES = 10_000_000


def check_count(count: int, match: bool, name: str | None = None) -> int:
    """``count`` rounds (or matches, ``match``) per match-up, checked: an int in
    ``[1, MAX_ROUNDS]`` (``[1, MAX_MATCHES]``); the error names ``name`` (default ``rounds``
    or ``matches``)."""
    name = name or ("matches" if match else "rounds")
    high = MAX_MATCHES if match else MAX_ROUNDS
    if isinstance(count, bool) or not isinstance(count, int):
        raise ValueError(f"{name} must be an integer, got {count!r}")
    if count < 1:
        raise ValueError(f"{name} must be at least 1, got {count}")
    if count > high:
        raise ValueError(f"{name} must be at most {high:,}, got {count:,}")
    return count


def check_settings(seed: int, workers: int | None, confidence: float, rating_rounds: int) -> None:
    """The run-wide settings of an evaluation, checked before any game: a seed in
    [0, 2^63 - 1], 1 to :data:`~uno_rl.plumbing.processes.MAX_WORKERS` workers, a confidence in
    (0, 1), 0 to :data:`~uno_rl.plumbing.cli.MAX_COUNT` rating rounds; ``ValueError`` naming the bad
    one."""
    check_seed(seed)
    if workers is not None:
        check_int(workers, "workers", 1, MAX_WORKERS)
    check_float(confidence, "confidence", 0.0, 1.0, low_open=True, high_open=True)
    check_int(rating_rounds, "rating_rounds", 0, MAX_COUNT)


def as_matches(rules: Rules, label: str) -> tuple[Rules, str]:
    """The same rules played as whole matches (``match = true``, keeping the preset's
    ``match_target`` and ``scoring``) and their variant label (``, match=true`` added when the
    rules were single rounds)."""
    if rules.match:
        return rules, label
    return rules.replace(match=True), f"{label}, match=true"


def default_workers() -> int:
    """Worker processes by default: every CPU this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def variant_label(preset: str, switches: dict[str, Any], base: Rules | None = None) -> str:
    """The short label (:func:`uno_rl.eval.variant_names.variant_name`): the preset and the switches,
    sorted by name, whose value differs from ``base`` (the preset's own rules; without it every
    switch is named): ``official`` or ``official, stacking=any``."""
    items = sorted(switches.items())
    if base is None:
        return ", ".join([str(preset)] + ([switches_label(items)] if items else []))
    return variant_name(preset, items, base)


@dataclasses.dataclass
class Evaluation:
    """The tables of an evaluation (see :mod:`uno_rl.eval.summary` for the columns).

    ``agents`` (and ``seats``) give, per agent: rounds won (``win_rate``, ``win_low``,
    ``win_high``), net points per round (``points``, ``points_low``, ``points_high``) and,
    when the rules are matches, matches won (``match_win_rate``, ``match_win_low``,
    ``match_win_high``) and the final score (``final_score``, ``final_score_low``,
    ``final_score_high``); ``pairs`` the paired tests; ``ratings`` OpenSkill ratings;
    ``deals`` (only when asked for: ``evaluate_variant(..., deal_scores=True)``) each
    match-up's first agent deal by deal (:func:`~uno_rl.eval.summary.deal_table`).
    """

    seats: pd.DataFrame
    agents: pd.DataFrame
    pairs: pd.DataFrame
    ratings: pd.DataFrame
    deals: pd.DataFrame | None = None

    @classmethod
    def concat(cls, parts: Sequence[Evaluation]) -> Evaluation:
        fields = [f.name for f in dataclasses.fields(cls)]
        tables = {}
        for name in fields:
            present = [getattr(p, name) for p in parts if getattr(p, name) is not None]
            tables[name] = pd.concat(present, ignore_index=True) if present else None
        return cls(**tables)

    def save(self, folder: str | os.PathLike[str]) -> None:
        """Write every table as ``NAME.parquet`` and ``NAME.csv`` into ``folder`` (``deals``,
        when present, as Parquet only: it has a row per deal)."""
        os.makedirs(folder, exist_ok=True)
        for field in dataclasses.fields(self):
            table: pd.DataFrame | None = getattr(self, field.name)
            if table is not None:
                write_atomic(table, os.path.join(folder, field.name), csv=field.name != "deals")


def write_atomic(table: pd.DataFrame, stem: str, csv: bool = True) -> None:
    """``stem.parquet`` and ``stem.csv`` (unless not ``csv``), each written durably and
    atomically (a temporary file, ``fsync``, rename, ``fsync`` of the folder:
    :func:`uno_rl.plumbing.durable.replace_durably`), so that what a resumed run reads back survives a
    crash or a power cut."""
    writers = ((".parquet", _to_parquet), (".csv", _to_csv))
    for suffix, writer in writers if csv else writers[:1]:
        with replace_durably(stem + suffix) as tmp:
            writer(table, str(tmp))


def _to_parquet(table: pd.DataFrame, path: str) -> None:
    table.to_parquet(path, index=False)


def _to_csv(table: pd.DataFrame, path: str) -> None:
    table.to_csv(path, index=False)


def evaluate(
    agents: Sequence[str],
    preset: str = "official",
    players: int | None = None,
    switches: dict[str, Any] | None = None,
    mode: str | None = None,
    rounds: int | None = None,
    seed: int = 0,
    workers: int | None = None,
    confidence: float = 0.95,
    rating_rounds: int = 50_000,
    progress: bool = True,
    slots: int = 4096,
    backend: str = "local",
    address: str | None = None,
    replays: ReplayRequest | None = None,
    matches: int | None = None,
    announce: Callable[[str], None] | None = None,
    allow_long: bool = False,
) -> Evaluation:
    """Play ``agents`` against each other under one rule variant and summarise.

    Args:
        agents: agent specs (:func:`uno_rl.agents.make_agent`).
        preset, players, switches: the rules (``players`` overrides the preset's).
        mode: ``table``, ``head-to-head`` or ``round-robin`` (:func:`make_matchups`); default
            ``head-to-head`` for 2 agents, ``table`` when there is one agent per seat,
            else ``round-robin``.
        rounds: rounds per match-up (rounded up to whole deals of P rotations; default
            20,000); when the rules are matches (``match = true``) it counts matches.
        seed: the run's seed; the same seed gives the same tables for any ``workers``.
        workers: processes (default :func:`default_workers`).
        confidence: of every interval.
        rating_rounds: games (rounds, or matches) fed to the OpenSkill ratings.
        progress: show a tqdm bar.
        slots: games in lockstep per process.
        backend: ``local`` (worker processes) or ``ray`` (Ray tasks; :mod:`.backends`), with
            the cluster ``address`` (None: a local Ray instance of ``workers`` CPUs).
        replays: save a sample of the games as JSON replays (:mod:`.replays`); None: record
            nothing.
        matches: instead of ``rounds``: play this many whole matches per match-up (sets
            ``match = true`` on top of the preset, keeping its ``match_target`` and
            ``scoring``; the variant label gets ``, match=true``).
        announce: given, a run estimated to take minutes or more is timed before it starts
            and the line saying how long is passed to it (:mod:`.estimate`); a run estimated
            above a week then raises :class:`~uno_rl.eval.estimate.RunTooLong` unless
            ``allow_long``.

    Too many match-ups, rounds or matches in all, or more results than memory holds, raise
    ``ValueError`` before anything is played (:mod:`.limits`).
    """
    if matches is not None and rounds is not None:
        raise ValueError("give rounds or matches, not both")
    rules, label = resolve_variant(preset, players, switches or {})
    if matches is not None:
        if switches and switches.get("match") is False:
            raise ValueError("matches plays whole matches: it cannot go with match=false")
        rules, label = as_matches(rules, label)
        rounds = check_count(matches, True)
    rounds = 20_000 if rounds is None else rounds
    check_count(rounds, rules.match)
    check_settings(seed, workers, confidence, rating_rounds)
    matchups = resolve_matchups(agents, rules, mode)
    check_run_size(rules, matchups, rounds)
    workers = default_workers() if workers is None else workers
    if announce is not None:
        work = Work(rules, matchups, rounds)
        parallel = parallel_workers(workers, backend, address)
        line = notice(estimate([work], parallel, seed, slots), allow_long, _FEWER)
        if line is not None:
            announce(f"{line}; Ctrl-C stops it (the tables are written when it ends)")
    pool = (
        None if backend == "local" and address is None else make_executor(backend, workers, address)
    )
    try:
        return evaluate_variant(
            rules, label, matchups, rounds, seed, workers, confidence, rating_rounds, progress,
            slots, pool=pool, replays=replays,
        )  # fmt: skip
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)


def resolve_variant(
    preset: str, players: int | None, switches: dict[str, Any]
) -> tuple[Rules, str]:
    """Validated rules and the variant label."""
    overrides = dict(switches)
    if players is not None:
        overrides["players"] = players
    rules = load_rules(preset, **overrides)
    base = load_rules(preset, **({"players": players} if players is not None else {}))
    return rules, variant_label(preset, dict(switches), base)


def resolve_matchups(agents: Sequence[str], rules: Rules, mode: str | None) -> list[Matchup]:
    """Match-ups of ``agents``; every spec is built once here so a bad one fails early, after
    their number is checked (at most :data:`~uno_rl.eval.limits.MAX_MATCHUPS` match-ups)."""
    agents = list(agents)
    if not agents:
        raise ValueError("name at least one agent")
    if mode is None:
        if len(agents) == 2:
            mode = "head-to-head"
        elif len(agents) == rules.players:
            mode = "table"
        else:
            mode = "round-robin"
    check_matchup_count(len(agents), rules.players, mode)
    for spec in dict.fromkeys(agents):
        make_agent(spec, rules)
    return make_matchups(agents, rules.players, mode)


#: What makes an evaluation smaller.
_FEWER = "ask fewer rounds (or matches) or compare fewer agents"


def check_run_size(rules: Rules, matchups: Sequence[Matchup], games: int) -> None:
    """``ValueError`` when ``matchups`` of ``games`` rounds (matches under match rules) each
    ask more than one run may play, or more results than memory holds (:mod:`.limits`)."""
    unit = "matches" if rules.match else "rounds"
    how = f"{plural(len(matchups), 'match-up')} x {number(games)} {unit}"
    check_total_games(len(matchups) * games, rules.match, f"the evaluation ({how})", _FEWER)
    whole_deals = math.ceil(games / rules.players) * rules.players
    subject = f"{how} at {rules.players} players"
    check_cell_memory(len(matchups), whole_deals, rules.players, rules.match, subject, _FEWER)


def parallel_workers(workers: int, backend: str = "local", address: str | None = None) -> int:
    """How many chunks run at once: ``workers``, at most one a CPU unless they run on a Ray
    cluster (``address``)."""
    if backend != "local" and address is not None:
        return workers
    return max(1, min(workers, default_workers()))


def check_live_agents(
    live: Mapping[str, Agent], rules: Rules, replays: ReplayRequest | None = None
) -> None:
    """``ValueError`` unless every live agent is an agent made for ``rules`` (and no replays
    are asked for: the replay recorder builds agents from their names)."""
    for name, agent in live.items():
        if not isinstance(agent, Agent):
            raise ValueError(f"live agent {name!r} must be an Agent, got {type(agent).__name__}")
        if agent.rules != rules:
            raise ValueError(f"live agent {name!r} was made for other rules")
    if live and replays is not None:
        raise ValueError("replays are not recorded in an evaluation with live agents")


def evaluate_variant(
    rules: Rules,
    label: str,
    matchups: Sequence[Matchup],
    rounds: int,
    seed: int,
    workers: int | None = None,
    confidence: float = 0.95,
    rating_rounds: int = 50_000,
    progress: bool = True,
    slots: int = 4096,
    description: str | None = None,
    pool=None,
    replays: ReplayRequest | None = None,
    deal_scores: bool = False,
    live: Mapping[str, Agent] | None = None,
    first_matchup: int = 0,
) -> Evaluation:
    """Play and summarise one variant (rules already built).

    ``rounds``: rounds per match-up, or matches when ``rules.match`` (:func:`as_matches`
    turns single-round rules into matches), bounded by :func:`check_count`; ``rating_rounds``:
    games (rounds or matches) rated. ``pool``: a :func:`~uno_rl.eval.tournament.worker_pool`
    to reuse across calls; ``deal_scores``: also the ``deals`` table; ``replays``: save a
    sample of the games (:mod:`.replays`); an
    illegal action's replay is saved before its :class:`~uno_rl.eval.jobs.IllegalActionError`
    propagates (``error.replay_path``).

    ``live``: agent objects playing under the names the match-ups give them (the tables name
    them so), instead of agents built from those names (:mod:`.tournament`): a policy in
    training, say. They must be made for ``rules``; with more than one worker they are
    pickled to the worker processes. Replays are not recorded for such a run.

    ``first_matchup``: the index of ``matchups[0]`` in a larger run
    (:func:`~uno_rl.eval.tournament.iter_chunks`): the tables of its match-ups played in
    separate calls are then the rows of the tables of that run.
    """
    check_count(rounds, rules.match)
    check_settings(seed, workers, confidence, rating_rounds)
    live = dict(live or {})
    check_live_agents(live, rules, replays)
    if replays is not None and first_matchup:
        raise ValueError("replays are recorded for a whole run (first_matchup 0)")

    def chunks():  # planned lazily, as often as needed: a chunk is a few numbers
        return iter_chunks(rules, matchups, rounds, seed, slots, live, first_matchup)

    workers = default_workers() if workers is None else workers
    deals = math.ceil(rounds / rules.players)
    total = len(matchups) * deals * rules.players
    with tqdm(
        total=total,
        disable=not progress,
        unit="match" if rules.match else "round",
        unit_scale=True,
        desc=description or f"{label} {rules.players}p",
        leave=False,
    ) as bar:
        task = functools.partial(play_chunk, live=live) if live else play_chunk
        if replays is not None:
            task = sampled_task(replays.sample, rules, len(matchups), total // len(matchups), seed)
        try:
            parts = play_chunks(chunks(), workers, lambda _i, k: bar.update(k), pool, task)
        except IllegalActionError as error:
            if replays is not None:
                error.replay_path = save_violation(replays, label, matchups, error)
            raise
    if replays is not None:
        write_sample(replays, label, matchups, merge_sample(replays.sample, chunks(), parts))
    outcomes = []
    by_matchup: list[list] = [[] for _ in matchups]
    for chunk, part in zip(chunks(), parts):
        by_matchup[chunk.matchup_index - first_matchup].append(part)
    for m in range(len(matchups)):
        outcomes.append(concat_outcomes(by_matchup[m]))
    players, match = rules.players, rules.match
    lowest = rules.scoring == "losers-add"
    return Evaluation(
        seats=seat_table(label, players, matchups, outcomes, confidence, match),
        agents=agent_table(label, players, matchups, outcomes, confidence, match),
        pairs=pair_table(label, players, matchups, outcomes, confidence, match),
        ratings=rating_table(label, players, matchups, outcomes, rating_rounds, match, lowest),
        deals=deal_table(label, players, matchups, outcomes, match) if deal_scores else None,
    )
