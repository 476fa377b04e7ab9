"""Replays sampled by the evaluator, for inspection: ``--save-replays DIR``.

A sample spec names which games (rounds, or matches under ``match = true``) of each match-up
to keep, comma-separated (:class:`ReplaySample`)::

    longest:K     the K games with the most decisions (ties: the earlier deal)
    random:K      K games drawn uniformly, by a generator seeded with the run's seed
    truncated:K   the first K rounds truncated at max_turns (a draw), in deal order
    violations    the game in which an agent chose an illegal action: the evaluator stops
                  with its error, and the replay up to that action is saved first

Recording happens inside the chunks (:func:`play_sampled_chunk`): :class:`SampledRecorder`
logs every decision of the batched loop in :class:`~uno_rl.replays.batch.ActionLog` buffers
and keeps, per chunk, only the games that can still make the sample (a running top K, the
drawn jobs); :func:`merge_sample` picks the final sample across chunks, so a seed gives the
same replays for any number of workers. :func:`write_sample` saves one JSON replay per game
(:mod:`uno_rl.replays`; ``python -m uno_rl.replay FILE`` shows it) and ``index.csv``. Without
``--save-replays`` none of this runs and the evaluator records nothing.
"""

from __future__ import annotations

import csv
import dataclasses
import functools
import io
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from uno_rl.core.rules import Rules
from uno_rl.core.state import State
from uno_rl.plumbing.durable import write_text_durably
from uno_rl.replays import Replay, Violation, outcome_of, save, simulate
from uno_rl.replays.batch import ActionLog

from .jobs import IllegalActionError, Outcomes
from .tournament import Chunk, Matchup, play_chunk, rules_key

__all__ = [
    "DEFAULT_SAMPLE",
    "MAX_SAMPLE",
    "Kept",
    "ReplayRequest",
    "ReplaySample",
    "SampledOutcomes",
    "SampledRecorder",
    "merge_sample",
    "play_sampled_chunk",
    "random_picks",
    "save_violation",
    "write_sample",
]

#: The sample ``--save-replays`` keeps unless ``--replay-sample`` says otherwise.
DEFAULT_SAMPLE = "longest:3,random:3,truncated:3,violations"
_COUNTED = ("longest", "random", "truncated")
#: The most games one selector may keep per match-up (kept replays are held in memory).
MAX_SAMPLE = 10_000
_PICK_STREAM = 0x7265706C  # "repl": the random picks' own seed stream


@dataclasses.dataclass(frozen=True)
class ReplaySample:
    """Which games of each match-up to keep (see the module docstring)."""

    longest: int = 0
    random: int = 0
    truncated: int = 0
    violations: bool = False

    @classmethod
    def parse(cls, text: str) -> ReplaySample:
        """``longest:5,random:3,violations`` -> a sample; a clear error for anything else."""
        values: dict[str, int | bool] = {}
        for item in (part.strip() for part in str(text).split(",")):
            if not item:
                continue
            name, colon, count = item.partition(":")
            name = name.strip()
            if name in values:
                raise ValueError(f"replay sample {text!r}: {name!r} given twice")
            if name == "violations":
                if colon:
                    raise ValueError(f"replay sample {text!r}: 'violations' takes no count")
                values[name] = True
            elif name in _COUNTED:
                count = count.strip()
                if not count.isdigit() or len(count) > 12 or not 1 <= int(count) <= MAX_SAMPLE:
                    raise ValueError(
                        f"replay sample {text!r}: {name!r} needs a count from 1 to "
                        f"{MAX_SAMPLE:,}, e.g. {name}:5"
                    )
                values[name] = int(count)
            else:
                raise ValueError(
                    f"replay sample {text!r}: unknown selector {name!r}; use longest:K, "
                    "random:K, truncated:K, violations"
                )
        if not values:
            raise ValueError(f"replay sample {text!r} selects nothing")
        return cls(**values)  # type: ignore[arg-type]


@dataclasses.dataclass(frozen=True)
class ReplayRequest:
    """Where sampled replays go and which ones.

    Attributes:
        folder: the output folder (created if missing).
        sample: which games to keep.
    """

    folder: str | os.PathLike[str]
    sample: ReplaySample


@dataclasses.dataclass
class Kept:
    """A game kept for the sample.

    Attributes:
        job: its job in the match-up: ``deal * P + rotation``.
        reasons: the selectors that keep it.
        decisions: its length.
        truncated: it was a truncated round.
        replay: its replay (``source`` filled in by :func:`write_sample`).
    """

    job: int
    reasons: set[str]
    decisions: int
    truncated: bool
    replay: Replay


def random_picks(
    sample: ReplaySample, seed: int, rules: Rules, matchup: int, jobs: int
) -> np.ndarray:
    """Sorted job indices ``random:K`` keeps in match-up ``matchup`` of ``jobs`` jobs."""
    if not sample.random:
        return np.zeros(0, np.int64)
    sequence = np.random.SeedSequence(
        [seed, rules_key(rules), rules.players, matchup, _PICK_STREAM]
    )
    generator = np.random.Generator(np.random.PCG64(sequence))
    return np.sort(generator.choice(jobs, size=min(sample.random, jobs), replace=False))


class SampledRecorder:
    """Records one chunk's games and keeps those that may belong to the sample.

    Implements :class:`uno_rl.eval.jobs.Recorder`. Jobs are numbered in the match-up (global):
    the chunk's job ``j`` is ``chunk.first_deal * P + j``.

    Args:
        chunk: the chunk played.
        sample: which games to keep.
        picks: the match-up's jobs drawn by ``random:K`` (global numbering).
    """

    def __init__(self, chunk: Chunk, sample: ReplaySample, picks: Sequence[int] = ()):
        self.rules = chunk.rules
        self.lineup = chunk.lineup
        self.sample = sample
        self.first_job = chunk.first_deal * self.rules.players
        self.picks = np.asarray(sorted(picks), np.int64) - self.first_job
        self.kept: dict[int, Kept] = {}
        self._longest: list[tuple[int, int]] = []  # (-decisions, job): best first
        self._truncated: list[int] = []  # jobs, lowest first
        self._random: set[int] = set()

    # --------------------------------------------------------------- Recorder
    def start(self, slots: int, job_seeds: np.ndarray, positions: np.ndarray) -> None:
        capacity = min(self.rules.max_turns, 1024)
        self.log = ActionLog(slots, capacity)
        self.job_seeds = job_seeds
        self.positions = positions

    def record(self, games: np.ndarray, seats: np.ndarray, actions: np.ndarray) -> None:
        self.log.append(games, seats, actions)

    def finished(self, jobs: np.ndarray, games: np.ndarray, state: State) -> None:
        lengths = self.log.length[games]
        wanted: dict[int, int] = {}  # job -> row of jobs/games
        if self.sample.random:
            for row in np.flatnonzero(np.isin(jobs, self.picks)).tolist():
                self._random.add(int(jobs[row]))
                wanted[int(jobs[row])] = row
        if self.sample.longest:
            for row in self._candidates_longest(jobs, lengths).tolist():
                entry = (-int(lengths[row]), int(jobs[row]))
                self._longest = sorted([*self._longest, entry])[: self.sample.longest]
                if entry in self._longest:
                    wanted[int(jobs[row])] = row
        if self.sample.truncated and not self.rules.match:
            truncated = np.flatnonzero(state.truncated[games])
            for row in truncated.tolist():
                job = int(jobs[row])
                self._truncated = sorted([*self._truncated, job])[: self.sample.truncated]
                if job in self._truncated:
                    wanted[job] = row
        for job, row in wanted.items():
            self.kept[job] = self._keep(job, int(games[row]), state)
        self._prune()
        self.log.clear(games)

    def violation(self, job: int, game: int, seat: int, action: int, message: str) -> Replay | None:
        if not self.sample.violations:
            return None
        replay = self._replay(job, game, None, Violation(seat, action, message))
        outcome = outcome_of(simulate(replay), len(replay.actions))  # the game as it stands
        source = {**replay.source, "reasons": ["violation"]}
        return dataclasses.replace(replay, outcome=outcome, source=source)

    # --------------------------------------------------------------- helpers
    def _candidates_longest(self, jobs: np.ndarray, lengths: np.ndarray) -> np.ndarray:
        """Rows that would enter the running top K (a vectorized pre-filter)."""
        if len(self._longest) < self.sample.longest:
            return np.arange(jobs.size)
        worst_length, worst_job = -self._longest[-1][0], self._longest[-1][1]
        better = (lengths > worst_length) | ((lengths == worst_length) & (jobs < worst_job))
        return np.flatnonzero(better)

    def _keep(self, job: int, game: int, state: State) -> Kept:
        replay = self._replay(job, game, state, None)
        return Kept(
            job=self.first_job + job,
            reasons=set(),
            decisions=len(replay.actions),
            truncated=bool(replay.outcome is not None and replay.outcome.truncated),
            replay=replay,
        )

    def _replay(self, job: int, game: int, state: State | None, violation) -> Replay:
        actions = self.log.history(game)
        p = self.rules.players
        global_job = self.first_job + job
        replay = Replay(
            rules=self.rules,
            seed=int(self.job_seeds[job]),
            seats=tuple(self.lineup[int(i)] for i in self.positions[job]),
            actions=tuple(actions),
            violation=violation,
            source={
                "program": "uno_rl.programs.evaluate",
                "matchup": " | ".join(self.lineup),
                "deal": global_job // p,
                "rotation": global_job % p,
            },
        )
        if state is None:
            return replay
        return dataclasses.replace(replay, outcome=outcome_of(state, len(actions), game))

    def _prune(self) -> None:
        """Drop kept games no selector wants any more; tag the others."""
        longest = {job for _, job in self._longest}
        truncated, randoms = set(self._truncated), self._random
        for job in list(self.kept):
            reasons = set()
            if job in longest:
                reasons.add("longest")
            if job in truncated:
                reasons.add("truncated")
            if job in randoms:
                reasons.add("random")
            if reasons:
                self.kept[job].reasons = reasons
            else:
                del self.kept[job]

    def results(self) -> list[Kept]:
        """The kept games, by job."""
        return [self.kept[job] for job in sorted(self.kept)]


@dataclasses.dataclass
class SampledOutcomes(Outcomes):
    """A chunk's :class:`~uno_rl.eval.jobs.Outcomes` and the games it kept for the sample."""

    kept: list[Kept] = dataclasses.field(default_factory=list)


def play_sampled_chunk(
    chunk: Chunk, on_finished=None, *, sample: ReplaySample, picks: dict[int, tuple[int, ...]]
) -> SampledOutcomes:
    """Play ``chunk`` like :func:`~uno_rl.eval.tournament.play_chunk`, recording the sample.

    ``picks``: each match-up's jobs drawn by ``random:K``. An illegal action raises
    :class:`~uno_rl.eval.jobs.IllegalActionError` with the game's replay (``violations``).
    """
    recorder = SampledRecorder(chunk, sample, picks.get(chunk.matchup_index, ()))
    outcomes = play_chunk(chunk, on_finished, recorder)
    values = {f.name: getattr(outcomes, f.name) for f in dataclasses.fields(Outcomes)}
    return SampledOutcomes(**values, kept=recorder.results())


def sampled_task(sample: ReplaySample, rules: Rules, matchups: int, jobs: int, seed: int):
    """The chunk task of :func:`~uno_rl.eval.tournament.play_chunks` that records ``sample``
    (a picklable partial of :func:`play_sampled_chunk`) for ``matchups`` match-ups of
    ``jobs`` jobs each under ``rules``."""
    picks = {
        m: tuple(int(j) for j in random_picks(sample, seed, rules, m, jobs))
        for m in range(matchups)
    }
    return functools.partial(play_sampled_chunk, sample=sample, picks=picks)


def merge_sample(
    sample: ReplaySample, chunks: Iterable[Chunk], parts: Sequence[SampledOutcomes]
) -> list[list[Kept]]:
    """The final sample of every match-up (job order) from its chunks' kept games."""
    kept: dict[int, list[Kept]] = {}
    for chunk, part in zip(chunks, parts):
        kept.setdefault(chunk.matchup_index, []).extend(part.kept)
    count = 1 + max(kept, default=-1)
    return [_select(sample, kept.get(m, [])) for m in range(count)]


def _select(sample: ReplaySample, kept: Sequence[Kept]) -> list[Kept]:
    """The sample of one match-up among the games its chunks kept."""
    by_job = {k.job: k for k in kept}
    final: dict[int, set[str]] = {}

    def take(jobs, reason: str) -> None:
        for job in jobs:
            final.setdefault(job, set()).add(reason)

    longest = sorted((-k.decisions, k.job) for k in kept if "longest" in k.reasons)
    take([job for _, job in longest[: sample.longest]], "longest")
    take(sorted(k.job for k in kept if "truncated" in k.reasons)[: sample.truncated], "truncated")
    take([k.job for k in kept if "random" in k.reasons], "random")
    return [dataclasses.replace(by_job[job], reasons=final[job]) for job in sorted(final)]


_REASON_ORDER = ("violation", "longest", "truncated", "random")


def _file_name(matchup: int, replay: Replay, prefix: str = "") -> str:
    deal, rotation = replay.source["deal"], replay.source["rotation"]
    return f"{prefix}m{matchup}-deal{deal}-rot{rotation}.json"


def write_sample(
    request: ReplayRequest,
    variant: str,
    matchups: Sequence[Matchup],
    kept_by_matchup: Sequence[Sequence[Kept]],
) -> list[Path]:
    """Save the sampled replays into ``request.folder`` with ``index.csv``; their paths."""
    folder = Path(request.folder)
    folder.mkdir(parents=True, exist_ok=True)
    rows, paths = [], []
    for m, (matchup, kept) in enumerate(zip(matchups, kept_by_matchup)):
        for entry in kept:
            reasons = [r for r in _REASON_ORDER if r in entry.reasons]
            source = {**entry.replay.source, "variant": variant, "reasons": reasons}
            replay = dataclasses.replace(entry.replay, source=source)
            path = save(replay, folder / _file_name(m, replay))
            paths.append(path)
            rows.append(_index_row(path, variant, matchup, replay, reasons))
    _write_index(folder, rows)
    return paths


def save_violation(
    request: ReplayRequest, variant: str, matchups: Sequence[Matchup], error: IllegalActionError
) -> Path | None:
    """Save the replay an :class:`IllegalActionError` carries (if any); its path."""
    replay: Replay | None = error.replay
    if replay is None:
        return None
    label = replay.source.get("matchup")
    m = next((i for i, mu in enumerate(matchups) if " | ".join(mu.lineup) == label), 0)
    source = {**replay.source, "variant": variant}
    replay = dataclasses.replace(replay, source=source)
    path = save(replay, Path(request.folder) / _file_name(m, replay, "violation-"))
    _write_index(
        Path(request.folder), [_index_row(path, variant, matchups[m], replay, ["violation"])]
    )
    return path


def _index_row(path: Path, variant: str, matchup: Matchup, replay: Replay, reasons) -> dict:
    outcome = replay.outcome
    return {
        "file": path.name,
        "variant": variant,
        "players": replay.rules.players,
        "matchup": matchup.label,
        "seats": " | ".join(replay.seats),
        "deal": replay.source["deal"],
        "rotation": replay.source["rotation"],
        "decisions": len(replay.actions),
        "winner": -1 if outcome is None else outcome.winner,
        "truncated": False if outcome is None else outcome.truncated,
        "reasons": "+".join(reasons),
    }


def _write_index(folder: Path, rows: list[dict]) -> None:
    """``index.csv`` of the saved replays, written durably (:mod:`uno_rl.plumbing.durable`)."""
    names = ["file", "variant", "players", "matchup", "seats", "deal", "rotation", "decisions",
             "winner", "truncated", "reasons"]  # fmt: skip
    text = io.StringIO()
    writer = csv.DictWriter(text, fieldnames=names)
    writer.writeheader()
    writer.writerows(rows)
    write_text_durably(folder / "index.csv", text.getvalue())
