"""The tidy rows of ``python -m uno_rl.eval.openspiel_versus`` and the table made of them.

A run's ``rounds.csv`` holds one row per (round, seat), columns :data:`COLUMNS` (types
:data:`COLUMN_TYPES`): the round's index (from 0), its deal seed, the seat IS-MCTS played
(``ismcts_position``), the seat, its side (``ismcts`` or ``pimc``), its net card points and
reward, whether it won, the round's winner (a seat, -1 where none: a truncated round), the
decisions that seat made and the seconds it thought over them, and whether the round was cut
short. A round of P players is P rows. :func:`format_table` reads such rows back into the
match's Markdown table.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from .formats import with_interval
from .stats import wilson_interval, z_value

__all__ = [
    "COLUMNS",
    "COLUMN_TYPES",
    "SIDES",
    "empty_rows",
    "format_table",
    "read_rows",
    "round_line",
    "round_rows",
]

#: The two sides, and the name the table gives each.
SIDES = {"ismcts": "IS-MCTS", "pimc": "pimc"}
#: The columns of ``rounds.csv`` and the pandas type of each.
COLUMN_TYPES = {
    "round": "int64",
    "deal_seed": "uint64",
    "ismcts_position": "int64",
    "seat": "int64",
    "side": "object",
    "net_points": "int64",
    "reward": "float64",
    "won": "bool",
    "winner": "int64",
    "decisions": "int64",
    "seconds": "float64",
    "truncated": "bool",
}
COLUMNS = tuple(COLUMN_TYPES)


def empty_rows() -> pd.DataFrame:
    """No rows: a frame of :data:`COLUMNS` and :data:`COLUMN_TYPES`, 0 long."""
    return pd.DataFrame({c: pd.Series(dtype=t) for c, t in COLUMN_TYPES.items()})


def round_line(rows: pd.DataFrame) -> str:
    """One round's result in a few words (``IS-MCTS seat 1: +23 won``), from its P rows."""
    mine = rows[rows["side"] == "ismcts"].iloc[0]
    won = " won" if mine["won"] else (" truncated" if mine["truncated"] else "")
    return f"IS-MCTS seat {mine['seat']}: {int(mine['net_points']):+d}{won}"


def round_rows(index: int, played: Mapping[str, Any]) -> pd.DataFrame:
    """The P rows (:data:`COLUMNS`) of round ``index``, from what
    :func:`uno_rl.eval.openspiel_versus.play_round` returns for it."""
    seats = list(played["seats"])
    winner = -1 if played["winner"] is None else int(played["winner"])
    frame = pd.DataFrame(
        {
            "round": index,
            "deal_seed": played["seed"],
            "ismcts_position": seats.index("ismcts"),
            "seat": range(len(seats)),
            "side": seats,
            "net_points": [int(v) for v in played["net_points"]],
            "reward": [float(v) for v in played["rewards"]],
            "won": [winner == s for s in range(len(seats))],
            "winner": winner,
            "decisions": [int(v) for v in played["decisions"]],
            "seconds": [float(v) for v in played["seconds"]],
            "truncated": bool(played["truncated"]),
        }
    )
    return frame.astype(COLUMN_TYPES)


def read_rows(path) -> pd.DataFrame:
    """``rounds.csv`` at ``path`` as a frame of :data:`COLUMNS` and :data:`COLUMN_TYPES`;
    ``ValueError`` (one line) for a file without those columns or with values of other
    types."""
    try:
        frame = pd.read_csv(path, dtype={"side": "object"}, keep_default_na=False)
        missing = [c for c in COLUMNS if c not in frame.columns]
        if missing:
            raise ValueError(f"no column {missing[0]!r}")
        frame = frame[list(COLUMNS)]
        for column in ("won", "truncated"):  # read back as text where the file is empty
            if frame[column].dtype == object:
                frame[column] = frame[column].map({"True": True, "False": False})
        if frame[["won", "truncated"]].isna().any().any():
            raise ValueError("won and truncated must be True or False")
        return frame.astype(COLUMN_TYPES)
    except (ValueError, TypeError, OverflowError, pd.errors.ParserError) as error:
        raise ValueError(f"{path} cannot be read ({str(error).splitlines()[0]})") from None


def _side_numbers(rows: pd.DataFrame, side: str, confidence: float):
    """(mean net points a round of one seat of ``side``, its interval, rounds won,
    seat-rounds): the interval normal, over the deals' means."""
    mine = rows[rows["side"] == side]
    means = mine.groupby("deal_seed")["net_points"].mean().to_numpy(float)
    mean = float(means.mean())
    half = math.nan
    if means.size >= 2:
        half = z_value(confidence) * float(means.std(ddof=1)) / math.sqrt(means.size)
    return mean, (mean - half, mean + half), int(mine["won"].sum()), len(mine)


def format_table(settings: Mapping[str, Any], rows: pd.DataFrame, confidence: float = 0.95) -> str:
    """The match's Markdown table: a title line of the ``settings`` (the run's
    ``settings.json``), then each side's net points a round (one seat) and rounds won, with
    intervals (net points: normal, over the deals' means; rounds won: Wilson), the truncated
    rounds and the seconds a decision took. ``rows``: the tidy rows (:data:`COLUMNS`) of one
    or more whole rounds."""
    s = settings
    p = int(s["players"])
    rounds = int(rows["round"].nunique())
    switches = f" {';'.join(s['switches'])}" if s["switches"] else ""
    lines = [
        f"IS-MCTS ({s['simulations']} simulations, uct_c {s['uct_c']}, {s['rollout']} play-outs "
        f"x{s['rollouts']}) against {s['pimc']}: preset {s['preset']}{switches}, {p} players, "
        f"{rounds} rounds ({rows['deal_seed'].nunique()} deals x {p} seatings), seed {s['seed']}",
        "",
        "| side | seats a round | net points a round (one seat) | rounds won |",
        "|---|---:|---:|---:|",
    ]
    for side, name in SIDES.items():
        mean, (low, high), wins, seat_rounds = _side_numbers(rows, side, confidence)
        lo, hi = wilson_interval(wins, rounds, confidence)
        points = with_interval(mean, low, high, lambda v: f"{float(v):+.2f}")
        won = with_interval(wins / rounds, float(lo), float(hi))
        lines.append(f"| {name} | {seat_rounds // rounds} | {points} | {won} |")
    sides = rows.groupby("side")[["seconds", "decisions"]].sum()
    took = ", ".join(
        f"{name} {sides.loc[side, 'seconds'] / max(int(sides.loc[side, 'decisions']), 1):.2f} s"
        for side, name in SIDES.items()
    )
    truncated = int(rows.groupby("round")["truncated"].first().sum())
    thought = float(np.sum(rows["seconds"]))
    lines += [
        "",
        f"{truncated} rounds truncated; {thought:.0f} s of decisions in all; a decision took "
        f"{took} on average",
    ]
    return "\n".join(lines)
