"""Outcomes to tidy tables: per agent and seat, per agent, paired tests, ratings.

Columns of the per-seat table (:func:`seat_table`, one row per variant, player count,
match-up, agent and seat) and of the per-agent table (:func:`agent_table`, the same over all
seats):

================  ===========================================================================
column            meaning
================  ===========================================================================
variant           rule variant label (preset and switches)
players           seats at the table
matchup           the line-up (``a vs b``, ``a vs 3 x b``, or ``a | b | c``)
agent             agent spec as given
seat              seat 0 .. P-1 (per-seat table only)
rounds            rounds the agent played in that seat (each copy counts)
wins              rounds it won
win_rate          wins / rounds, with ``win_low`` and ``win_high``, its Wilson interval
truncated         rounds cut at ``max_turns`` (draws: no winner; counted in ``rounds``)
points            mean zero-sum points per round (winner: points left in the other hands;
                  loser: minus its own), with ``points_low`` and ``points_high``
penalty           the other scoring school (each loser adds its own points, lowest total
                  wins): mean points left in the agent's own hand at the end of a round (0 when
                  it wins; truncated rounds count 0), with ``penalty_low`` and ``penalty_high``
decisions         mean decisions per round (all players)
draw4_plays ...   per round: +4 plays, bluffs, challenges, successful challenges, own +4s
                  challenged, own bluffs caught (:data:`~uno_rl.core.state.STAT_NAMES`)
================  ===========================================================================
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np
import pandas as pd

from uno_rl.core.state import STAT_NAMES

from .play import Outcomes
from .stats import mean_interval, paired_test, wilson_interval
from .tournament import Matchup

__all__ = ["agent_table", "pair_table", "rating_table", "seat_table"]

_COUNTS = STAT_NAMES


def _raw_rows(outcomes: Outcomes, matchup: Matchup, by_seat: bool) -> list[dict]:
    """Raw sums per agent (and seat) for one match-up."""
    rows = []
    players = outcomes.position.shape[1]
    seat_groups = [[s] for s in range(players)] if by_seat else [list(range(players))]
    for seats in seat_groups:
        for agent in matchup.agents:
            positions = [i for i, a in enumerate(matchup.lineup) if a == agent]
            sel = np.isin(outcomes.position[:, seats], positions)  # (J, len(seats))
            n = int(sel.sum())
            if not n:
                continue
            seat_index = np.asarray(seats)[None, :]
            points = outcomes.points[:, seats][sel].astype(np.float64)
            penalty = np.maximum(-points, 0.0)
            row = {
                "agent": agent,
                "rounds": n,
                "wins": int(((outcomes.winner[:, None] == seat_index) & sel).sum()),
                "truncated": int((outcomes.truncated[:, None] & sel).sum()),
                "points_sum": points.sum(),
                "points_sq": (points * points).sum(),
                "penalty_sum": penalty.sum(),
                "penalty_sq": (penalty * penalty).sum(),
                "decisions_sum": float((outcomes.decisions[:, None] * sel).sum()),
            }
            if by_seat:
                row["seat"] = seats[0]
            for name in _COUNTS:
                row[name] = int(getattr(outcomes, name)[:, seats][sel].sum())
            rows.append(row)
    return rows


def _finish(raw: pd.DataFrame, confidence: float) -> pd.DataFrame:
    """Rates and intervals from raw sums."""
    out = raw.copy()
    out["win_rate"] = out["wins"] / out["rounds"]
    out["win_low"], out["win_high"] = wilson_interval(out["wins"], out["rounds"], confidence)
    mean, low, high = mean_interval(out["points_sum"], out["points_sq"], out["rounds"], confidence)
    out["points"], out["points_low"], out["points_high"] = mean, low, high
    mean, low, high = mean_interval(
        out["penalty_sum"], out["penalty_sq"], out["rounds"], confidence
    )
    out["penalty"], out["penalty_low"], out["penalty_high"] = mean, low, high
    out["decisions"] = out["decisions_sum"] / out["rounds"]
    for name in _COUNTS:
        out[name] = out[name] / out["rounds"]
    return out.drop(
        columns=["points_sum", "points_sq", "penalty_sum", "penalty_sq", "decisions_sum"]
    )


_ORDER = [
    "variant", "players", "matchup", "agent", "seat", "rounds", "wins", "win_rate", "win_low",
    "win_high", "truncated", "points", "points_low", "points_high", "penalty", "penalty_low",
    "penalty_high", "decisions", *_COUNTS,
]  # fmt: skip


def _table(variant, players, matchups, outcomes, confidence, by_seat) -> pd.DataFrame:
    rows = []
    for matchup, out in zip(matchups, outcomes):
        for row in _raw_rows(out, matchup, by_seat):
            rows.append({"variant": variant, "players": players, "matchup": matchup.label, **row})
    table = _finish(pd.DataFrame(rows), confidence)
    return table[[c for c in _ORDER if by_seat or c != "seat"]]


def seat_table(
    variant: str,
    players: int,
    matchups: Sequence[Matchup],
    outcomes: Sequence[Outcomes],
    confidence: float = 0.95,
) -> pd.DataFrame:
    """The tidy per-seat table of one variant and player count (see the module docstring)."""
    return _table(variant, players, matchups, outcomes, confidence, by_seat=True)


def agent_table(
    variant: str,
    players: int,
    matchups: Sequence[Matchup],
    outcomes: Sequence[Outcomes],
    confidence: float = 0.95,
) -> pd.DataFrame:
    """The same per agent, over all its seats."""
    return _table(variant, players, matchups, outcomes, confidence, by_seat=False)


def _deal_scores(outcomes: Outcomes, matchup: Matchup, agent: str, players: int):
    """(deals,) mean win and points of ``agent``'s seats over each deal's rotations."""
    positions = [i for i, a in enumerate(matchup.lineup) if a == agent]
    mine = np.isin(outcomes.position, positions)  # (J, P)
    seats = np.arange(players)[None, :]
    won = (outcomes.winner[:, None] == seats) & mine
    per_job_wins = won.sum(axis=1) / mine.sum(axis=1)
    per_job_points = (outcomes.points * mine).sum(axis=1) / mine.sum(axis=1)
    rotations = players
    return (
        per_job_wins.reshape(-1, rotations).mean(axis=1),
        per_job_points.reshape(-1, rotations).mean(axis=1),
    )


def pair_table(
    variant: str,
    players: int,
    matchups: Sequence[Matchup],
    outcomes: Sequence[Outcomes],
    confidence: float = 0.95,
) -> pd.DataFrame:
    """Paired tests between the agents of each match-up over the same deals.

    One row per match-up and pair ``(a, b)``: ``deals``, ``win_difference`` (a's win rate per
    copy minus b's, per deal) with its interval and two-sided ``win_p_value``, and the same for
    points.
    """
    rows = []
    for matchup, out in zip(matchups, outcomes):
        for a, b in itertools.combinations(matchup.agents, 2):
            wins_a, points_a = _deal_scores(out, matchup, a, players)
            wins_b, points_b = _deal_scores(out, matchup, b, players)
            w = paired_test(wins_a, wins_b, confidence)
            p = paired_test(points_a, points_b, confidence)
            rows.append({
                "variant": variant, "players": players, "matchup": matchup.label,
                "agent_a": a, "agent_b": b, "deals": w.n,
                "win_difference": w.mean_difference, "win_diff_low": w.low,
                "win_diff_high": w.high, "win_p_value": w.p_value,
                "points_difference": p.mean_difference, "points_diff_low": p.low,
                "points_diff_high": p.high, "points_p_value": p.p_value,
            })  # fmt: skip
    return pd.DataFrame(rows)


def rating_table(
    variant: str,
    players: int,
    matchups: Sequence[Matchup],
    outcomes: Sequence[Outcomes],
    max_rounds: int = 50_000,
) -> pd.DataFrame:
    """OpenSkill (Plackett-Luce) ratings of the agents from up to ``max_rounds`` rounds.

    Rounds are taken in order, interleaving match-ups deal by deal. In each round the seats are
    ranked by points (the winner first, ties shared); an agent with several copies at the table
    takes its best-placed copy's rank. Truncated rounds are skipped. Columns: ``variant``,
    ``players``, ``agent``, ``mu``, ``sigma``, ``ordinal`` (``mu - 3 sigma``), ``rounds``.
    """
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    agents = list(dict.fromkeys(a for m in matchups for a in m.agents))
    ratings = {a: model.rating(name=a) for a in agents}
    counts = dict.fromkeys(agents, 0)
    streams = []
    for matchup, out in zip(matchups, outcomes):
        order = np.argsort(-out.points, axis=1, kind="stable")
        labels = np.array(matchup.lineup, dtype=object)[out.position]
        streams.append((labels, out.points, out.truncated, order))
    used = 0
    longest = max((s[0].shape[0] for s in streams), default=0)
    for j in range(longest):
        for labels, points, truncated, _ in streams:
            if used >= max_rounds:
                break
            if j >= labels.shape[0] or truncated[j]:
                continue
            best: dict[str, float] = {}
            for seat in range(labels.shape[1]):
                best[labels[j, seat]] = max(best.get(labels[j, seat], -np.inf), points[j, seat])
            if len(best) < 2:
                continue
            names = list(best)
            values = np.array([best[n] for n in names])
            ranks = [int((values > v).sum()) for v in values]
            new = model.rate([[ratings[n]] for n in names], ranks=ranks)
            for n, team in zip(names, new):
                ratings[n] = team[0]
                counts[n] += 1
            used += 1
    return pd.DataFrame(
        [
            {
                "variant": variant,
                "players": players,
                "agent": a,
                "mu": r.mu,
                "sigma": r.sigma,
                "ordinal": r.ordinal(),
                "rounds": counts[a],
            }  # fmt: skip
            for a, r in ratings.items()
        ]
    ).sort_values("ordinal", ascending=False, ignore_index=True)
