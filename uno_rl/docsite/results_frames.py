"""The tidy frames the results pages are drawn from, read from finished run folders.

Each function reads one kind of run (:mod:`uno_rl.docsite.results` finds them) and returns a
``pandas.DataFrame`` whose columns its docstring lists; rates are shares in [0, 1], points are
net card points per round, every ``_low`` / ``_high`` pair is the interval the run computed at
its own level (:attr:`RunInfo.confidence`). Rows keep the run's own order (bots, opponents,
agents as its config lists them), so the same run gives the same figures and tables.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from uno_rl.analysis.quick import is_quick, quick_note
from uno_rl.analysis.situations import run_note
from uno_rl.eval.summary import MATCH_COLUMNS
from uno_rl.experiments.overview import summarize

__all__ = [
    "EVAL_MEASURES",
    "RunInfo",
    "bluff_headline",
    "bluff_note",
    "cell_sizes",
    "editions_frame",
    "experiment_note",
    "final_evaluation",
    "read_run",
    "strength_frame",
    "trained_decisions",
    "training_note",
    "training_evaluations",
]

#: The periodic evaluation's measures in ``metrics.csv`` (:mod:`uno_rl.ppo.logger`), in the
#: order they are shown.
EVAL_MEASURES = ("win_rate", "points_per_round", "match_win_rate")
#: The level of the training logs' intervals (``eval/..._ci95_low``) and final evaluation.
TRAINING_CONFIDENCE = 0.95

_EVAL_COLUMN = re.compile(
    rf"^eval/(?P<measure>{'|'.join(EVAL_MEASURES)})_vs_(?P<opponent>.+?)"
    r"(?:_ci95_(?P<bound>low|high))?$"
)


@dataclass(frozen=True)
class RunInfo:
    """A finished run folder and what every output says of it.

    ``label``: ``NAME/STAMP``, how the progress lines name the run;
    ``config``: its ``config.json``; ``confidence``: the level of its intervals; ``quick``:
    a ``--quick`` run (its config's name ends in ``-quick``).
    """

    folder: Path
    label: str
    config: dict
    confidence: float
    quick: bool


def read_run(folder: str | Path, training: bool = False) -> RunInfo:
    """The :class:`RunInfo` of run ``folder`` (``training``: a ``uno_rl train`` run, whose
    logged intervals are all 95%)."""
    folder = Path(folder)
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    confidence = TRAINING_CONFIDENCE if training else float(config["confidence"])
    label = f"{folder.parent.name}/{folder.name}"
    return RunInfo(folder, label, config, confidence, is_quick(config))


def _units(config: dict) -> dict[str, str]:
    """Variant label -> ``rounds`` or ``matches``, from the run's cells."""
    return {cell["variant"]: cell["unit"] for cell in config["cells"]}


def cell_sizes(config: dict, unit: str) -> tuple[int, int]:
    """The fewest and most rounds (``unit`` ``rounds``) or matches per match-up of the run's
    cells of that unit."""
    sizes = [cell["rounds"] for cell in config["cells"] if cell["unit"] == unit]
    return min(sizes), max(sizes)


def experiment_note(run: RunInfo) -> str:
    """A quick experiment run's warning with its rounds per match-up, ``""`` for a full run."""
    return quick_note(run.config, *cell_sizes(run.config, "rounds"), what="rounds")


def training_note(run: RunInfo) -> str:
    """A quick training run's warning with its decisions, ``""`` for a full run."""
    if not run.quick:
        return ""
    return (
        f"Quick run ({run.config['total_decisions']:,} training decisions): too small for "
        "findings; train with the full config for the study."
    )


def strength_frame(run: RunInfo) -> pd.DataFrame:
    """Each shipped bot against each opponent of a ``strength`` run, one row per ``bot``,
    ``players`` (int) and ``opponent`` (the heuristic; at 4 players it fills the other three
    seats): from the single-round cells ``rounds`` (int), ``points``, ``win_rate`` and from
    the match cells ``matches`` (Int64), ``match_win_rate``, ``final_score``, each measure
    with ``_low`` / ``_high`` (``win_low``, ``match_win_low``, ...). A match-up measured in
    two parts of the config (the 4-player bot against ``color-first``) keeps its larger
    measurement: both parts deal from the run's seed, so the smaller one may replay deals of
    the larger and cannot be pooled with it."""
    agents = pd.read_parquet(run.folder / "agents.parquet")
    sides = agents["matchup"].str.split(" vs ", n=1, expand=True)
    focal = agents.assign(bot=sides[0], opponent=sides[1].str.replace(r"^\d+ x ", "", regex=True))
    focal = focal[focal["agent"] == focal["bot"]]
    focal["unit"] = focal["variant"].map(_units(run.config))
    keys = ["bot", "players", "opponent"]

    def largest(unit: str, size: str, columns: list[str]) -> pd.DataFrame:
        part = focal[focal["unit"] == unit]
        part = part.sort_values(size, ascending=False, kind="stable").drop_duplicates(keys)
        return part.set_index(keys)[[size, *columns]]

    rounds = largest("rounds", "rounds", [*_with_bounds("points"), *_with_bounds("win_rate")])
    matches = largest("matches", "matches", [
        *_with_bounds("match_win_rate"), *_with_bounds("final_score"),
    ])  # fmt: skip
    out = rounds.join(matches, how="outer").reset_index()
    # Each bot's rows together, opponents in the run's order (a bot may recur in later parts).
    for key in ("bot", "opponent"):
        out[key] = pd.Categorical(out[key], list(dict.fromkeys(focal[key])), ordered=True)
    out = out.sort_values(["bot", "opponent"]).reset_index(drop=True)
    out[["bot", "opponent"]] = out[["bot", "opponent"]].astype(str)
    return out.rename(columns={"win_rate_low": "win_low", "win_rate_high": "win_high",
                               "match_win_rate_low": "match_win_low",
                               "match_win_rate_high": "match_win_high"})  # fmt: skip


def _with_bounds(measure: str) -> list[str]:
    """``measure`` and its bounds as the agents table names them."""
    stem = {"win_rate": "win", "match_win_rate": "match_win"}.get(measure, measure)
    return [measure, f"{stem}_low", f"{stem}_high"]


def editions_frame(run: RunInfo) -> pd.DataFrame:
    """The heuristics of an ``editions`` run on each deck, over their single-round match-ups
    against each other: one row per ``deck``, ``players`` (int) and ``agent`` with
    ``rounds`` (int: the agent's rounds over all its match-ups), ``points``, ``win_rate`` and
    their bounds (weighted over the match-ups as :func:`uno_rl.experiments.overview.summarize` does).
    Only the match-ups played on every deck count, so that every deck is compared on the same
    opponents (the shipped bot, on the classic deck only, is left out)."""
    decks = {c["variant"]: c["rules"]["deck"] for c in run.config["cells"]}
    agents = pd.read_parquet(run.folder / "agents.parquet")
    agents = agents[agents["variant"].map(_units(run.config)) == "rounds"]
    agents = agents.assign(deck=agents["variant"].map(decks))
    played = agents.groupby(["players", "matchup"])["deck"].nunique()
    everywhere = played[played == agents["deck"].nunique()].index
    shared = agents.set_index(["players", "matchup"]).index.isin(everywhere)
    rows = agents[shared].drop(columns=[*MATCH_COLUMNS, "deck"], errors="ignore")
    summary = summarize(rows, run.confidence)
    summary.insert(0, "deck", summary["variant"].map(decks))
    return summary[["deck", "players", "agent", "rounds", "points", "points_low",
                    "points_high", "win_rate", "win_low", "win_high"]]  # fmt: skip


def bluff_headline(run: RunInfo) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``(field, answers)`` of a ``bluff-when`` run, both cut to the headline: the official
    rules (its preset's own variant) at 2 players, in single rounds. ``field``: the rows of its
    ``field`` table (:func:`uno_rl.analysis.situations.field_table`); ``answers``: those of
    ``best_answers`` (:func:`~uno_rl.analysis.situations.best_answers`: the verdict, ``best``
    and ``tied`` besides the gains), each side sorted by its points gain, best first."""
    official = {c["variant"] for c in run.config["cells"] if c["variant"] == c["preset"]}

    def headline(frame: pd.DataFrame) -> pd.DataFrame:
        keep = frame["variant"].isin(official) & (frame["players"] == 2)
        return frame[keep & (frame["unit"] == "rounds")].reset_index(drop=True)

    field = headline(pd.read_parquet(run.folder / "field.parquet"))
    answers = headline(pd.read_parquet(run.folder / "best_answers.parquet"))
    side = pd.Categorical(answers["side"], ["bluff", "challenge"], ordered=True)
    answers = answers.assign(_side=side).sort_values(
        ["_side", "points_gain"], ascending=[True, False], kind="stable"
    )
    return field, answers.drop(columns="_side").reset_index(drop=True)


def bluff_note(run: RunInfo) -> str:
    """A quick ``bluff-when`` run's warning (its paired deals), ``""`` for a full run."""
    return run_note(run.config, pd.read_parquet(run.folder / "field.parquet"))


def training_evaluations(run: RunInfo) -> pd.DataFrame:
    """The periodic evaluations of a training run's ``metrics.csv``, long: one row per
    evaluated update, ``measure`` (:data:`EVAL_MEASURES`) and ``opponent`` (the config's
    ``eval_agents`` order), with ``decisions`` (int64: every seat's decisions so far, what
    ``total_decisions`` counts), ``value``, ``low`` and ``high`` (95% intervals). Empty when
    the run logged no evaluation."""
    metrics = pd.read_csv(run.folder / "metrics.csv")
    if "eval/evaluated" not in metrics:
        return pd.DataFrame(columns=["decisions", "measure", "opponent", "value", "low", "high"])
    evaluated = metrics[metrics["eval/evaluated"] == 1]
    columns = [c for c in metrics if _EVAL_COLUMN.match(c)]
    long = evaluated.melt(id_vars="charts/decisions", value_vars=columns, var_name="column")
    parts = long["column"].str.extract(_EVAL_COLUMN)
    long = long.assign(
        decisions=long["charts/decisions"].astype("int64"),
        measure=parts["measure"],
        opponent=parts["opponent"],
        bound=parts["bound"].fillna("value"),
    )
    long["measure"] = pd.Categorical(long["measure"], list(EVAL_MEASURES), ordered=True)
    opponents = list(dict.fromkeys([*run.config["eval_agents"], *long["opponent"]]))
    long["opponent"] = pd.Categorical(long["opponent"], opponents, ordered=True)
    out = long.pivot_table(
        index=["measure", "opponent", "decisions"], columns="bound", values="value",
        observed=True,
    ).reset_index()  # fmt: skip
    out[["measure", "opponent"]] = out[["measure", "opponent"]].astype(str)
    return out[["decisions", "measure", "opponent", "value", "low", "high"]]


def final_evaluation(run: RunInfo) -> pd.DataFrame:
    """The trained policy's rows of a training run's final evaluation
    (``final_eval/agents.parquet``): one row per ``opponent`` with ``rounds`` (int),
    ``win_rate``, ``points`` and, under match rules, ``matches``, ``match_win_rate`` and
    ``final_score``, each rate and mean with its ``_low`` / ``_high`` (95%)."""
    agents = pd.read_parquet(run.folder / "final_eval" / "agents.parquet")
    mine = agents[agents["agent"] == "ppo"]
    return mine.assign(opponent=mine["matchup"].str.split(" vs ", n=1).str[1]).reset_index(
        drop=True
    )


def trained_decisions(run: RunInfo) -> int:
    """The decisions (every seat's) a finished training run trained: its last logged row's."""
    metrics = pd.read_csv(run.folder / "metrics.csv", usecols=["charts/decisions"])
    return int(metrics["charts/decisions"].iloc[-1])
