"""Outcomes to tidy tables: per agent and seat, per agent, paired tests, ratings.

Strength is measured three ways, and every column says which: **rounds won**, **net points
per round** and, under match rules (``rules.match``), **matches won** (and the final match
score). A *job* is one round, or one whole match under match rules; the round measures count
every round inside each match.

Columns of the per-seat table (:func:`seat_table`, one row per variant, player count,
match-up, agent and seat) and of the per-agent table (:func:`agent_table`, the same over all
seats):

================  ===========================================================================
column            meaning
================  ===========================================================================
variant           rule variant label (an experiment's: what differs from its preset)
players           seats at the table
matchup           the line-up of agent specs (``a vs b``, ``a vs 3 x b``, or ``a | b | c``)
matchup_label     the same line-up in the agents' labels (what ``uno_rl evaluate`` prints)
agent             agent spec as given (in full: the key to join tables on)
label             the agent's short label for display, distinct among the agents of the
                  table (:func:`uno_rl.agents.labels.agent_labels`: ``color-first``,
                  ``ppo:official-2p``, ``color-first:bluff=1`` beside ``color-first``)
seat              seat 0 .. P-1 (per-seat table only)
rounds            rounds the agent played (each copy counts; in matches: every round of them)
wins              rounds it won
win_rate          rounds won per round: wins / rounds, with ``win_low`` and ``win_high``: in
                  single rounds its Wilson interval (the rounds are independent trials); under
                  match rules the ratio interval over matches (below: ``x_i`` the rounds the
                  agent's copies won in match ``i``), clipped to [0, 1], as the rounds of one
                  match are not independent
truncated         rounds cut at ``max_turns`` (draws: no winner; counted in ``rounds``)
points            net points per round, zero-sum: a round's winner gets the card points left
                  in the other hands, each loser minus its own, 0 for a truncated round; the
                  sum over the agent's rounds divided by its rounds, with ``points_low`` and
                  ``points_high``
matches           (match rules) matches the agent played (each copy counts)
match_wins        (match rules) matches it won (the rules' ``scoring`` and ``match_target``)
match_win_rate    (match rules) match_wins / matches, with ``match_win_low`` and
                  ``match_win_high``, its Wilson interval
final_score       (match rules) mean final match score (the rules' school: points scored
                  under ``winner-takes``, own points added under ``losers-add``, rounds won
                  under ``rounds``), with ``final_score_low`` and ``final_score_high``
penalty           the other scoring school (each loser adds its own points, lowest total
                  wins): points left in the agent's own hand at the end of a round (0 when it
                  wins; truncated rounds count 0), per round, with ``penalty_low`` and
                  ``penalty_high``
decisions         decisions per round (all players)
draw4_plays ...   per round: +4 plays, bluffs, challenges, successful challenges, own +4s
                  challenged, own bluffs caught (:data:`~uno_rl.core.state.STAT_NAMES`)
================  ===========================================================================

Intervals (at ``confidence``) of means are taken over independent units: the *jobs* (a round,
or a match), never over rounds inside one match nor over the copies of one agent at one table,
which are not independent. Per unit ``i`` the agent has a total ``x_i`` (its copies' net points
summed over the job's rounds) over ``n_i`` of its rounds (copies x rounds); ``points`` is the
ratio estimator ``sum x / sum n`` and its interval the delta-method one
(:func:`~uno_rl.eval.stats.ratio_interval`), the same for ``penalty``, for ``win_rate`` under
match rules (``x_i`` its rounds won; clipped to [0, 1]), and for ``final_score`` with ``n_i``
the agent's copies. For one copy in single rounds this is the plain mean interval; there
``win_rate`` keeps the Wilson interval.

The columns marked (match rules) are there only when the jobs are matches (``match=True``,
from ``rules.match``): a table of single rounds has none of them, so ``"matches" in table``
tells the two apart. Where tables of both kinds are concatenated (an experiment's merged
tables), the single-round rows hold <NA> in ``matches`` and ``match_wins`` (pandas ``Int64``)
and NaN in the rates and scores.

:func:`pair_table`, :func:`rating_table` and :func:`deal_table` document their own columns;
the labels of every table of one call come from the agents of all its match-ups
(:func:`spec_labels`), so a variant's tables label each agent alike.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np
import pandas as pd

from uno_rl.agents.labels import agent_labels
from uno_rl.core.state import STAT_NAMES

from .jobs import Outcomes
from .stats import RATE_DIFFERENCE, paired_test, ratio_interval, wilson_interval
from .tournament import Matchup

__all__ = [
    "COLUMNS", "MATCH_COLUMNS", "agent_table", "deal_table", "pair_table", "rating_table",
    "seat_table", "spec_labels",
]  # fmt: skip

_COUNTS = STAT_NAMES
#: Columns of the seat and agent tables, in order (``seat`` only in the seat table).
COLUMNS = [
    "variant", "players", "matchup", "matchup_label", "agent", "label", "seat", "rounds", "wins",
    "win_rate", "win_low", "win_high", "truncated", "points", "points_low", "points_high",
    "matches", "match_wins", "match_win_rate", "match_win_low", "match_win_high", "final_score",
    "final_score_low", "final_score_high", "penalty", "penalty_low", "penalty_high", "decisions",
    *_COUNTS,
]  # fmt: skip
#: Columns of the ratings table (:func:`rating_table`), in order.
_RATING_COLUMNS = ["variant", "players", "agent", "label", "mu", "sigma", "ordinal", "rated_by",
                   "games"]  # fmt: skip
#: The columns only tables of matches have.
MATCH_COLUMNS = COLUMNS[COLUMNS.index("matches") : COLUMNS.index("penalty")]


def spec_labels(matchups: Sequence[Matchup]) -> dict[str, str]:
    """The label of every agent spec of ``matchups`` (:func:`uno_rl.agents.labels.agent_labels`
    over all of them: distinct)."""
    return agent_labels(a for m in matchups for a in m.agents)


def _ratio_sums(prefix: str, x: np.ndarray, n: np.ndarray) -> dict[str, float]:
    """The sums :func:`ratio_interval` needs, of per-unit totals ``x`` over ``n`` (float64)."""
    return {
        f"{prefix}_x": x.sum(),
        f"{prefix}_xx": (x * x).sum(),
        f"{prefix}_n": n.sum(),
        f"{prefix}_nn": (n * n).sum(),
        f"{prefix}_xn": (x * n).sum(),
    }


def _raw_rows(outcomes: Outcomes, matchup: Matchup, by_seat: bool, match: bool) -> list[dict]:
    """Raw sums per agent (and seat) for one match-up, over its jobs (the units)."""
    rows = []
    players = outcomes.position.shape[1]
    seat_groups = [[s] for s in range(players)] if by_seat else [list(range(players))]
    rounds = outcomes.rounds.astype(np.float64)
    for seats in seat_groups:
        for agent in matchup.agents:
            positions = [i for i, a in enumerate(matchup.lineup) if a == agent]
            sel = np.isin(outcomes.position[:, seats], positions)  # (J, S) its copies
            copies = sel.sum(axis=1)  # (J,)
            units = copies > 0
            if not units.any():
                continue
            sel, copies = sel[units], copies[units].astype(np.float64)
            played = copies * rounds[units]  # (j,) its rounds per job

            def per_job(field: str, units=units, seats=seats, sel=sel) -> np.ndarray:
                """(j,) float64: the agent's copies' sum of a (J, P) field, per job."""
                values = getattr(outcomes, field)[units][:, seats]
                return (values * sel).sum(axis=1, dtype=np.float64)

            row = {
                "agent": agent,
                "rounds": int(played.sum()),
                "wins": int(per_job("round_wins").sum()),
                "truncated": int((copies * outcomes.truncated_rounds[units]).sum()),
                **_ratio_sums("points", per_job("net_points"), played),
                **_ratio_sums("penalty", per_job("penalty"), played),
                "decisions_sum": float((copies * outcomes.decisions[units]).sum()),
                "units": int(units.sum()),
            }
            if match:
                seat_index = np.asarray(seats)[None, :]
                won = (outcomes.winner[units, None] == seat_index) & sel
                row["matches"] = int(copies.sum())
                row["match_wins"] = int(won.sum())
                row.update(_ratio_sums("score", per_job("scores"), copies))
                row.update(_ratio_sums("win", per_job("round_wins"), played))
            if by_seat:
                row["seat"] = seats[0]
            for name in _COUNTS:
                row[name] = int(per_job(name).sum())
            rows.append(row)
    return rows


def _ratio(out: pd.DataFrame, prefix: str, confidence: float):
    return ratio_interval(
        *(out[f"{prefix}_{k}"] for k in ("x", "xx", "n", "nn", "xn")), out["units"], confidence
    )


def _finish(raw: pd.DataFrame, confidence: float, match: bool) -> pd.DataFrame:
    """Rates and intervals from raw sums."""
    out = raw.copy()
    out["win_rate"] = out["wins"] / out["rounds"]
    if match:  # the rounds of one match are not independent: over matches
        _, low, high = _ratio(out, "win", confidence)
        out["win_low"], out["win_high"] = np.clip(low, 0.0, 1.0), np.clip(high, 0.0, 1.0)
    else:
        out["win_low"], out["win_high"] = wilson_interval(out["wins"], out["rounds"], confidence)
    out["points"], out["points_low"], out["points_high"] = _ratio(out, "points", confidence)
    out["penalty"], out["penalty_low"], out["penalty_high"] = _ratio(out, "penalty", confidence)
    if match:
        out["match_win_rate"] = out["match_wins"] / out["matches"]
        low, high = wilson_interval(out["match_wins"], out["matches"], confidence)
        out["match_win_low"], out["match_win_high"] = low, high
        score = _ratio(out, "score", confidence)
        out["final_score"], out["final_score_low"], out["final_score_high"] = score
        for name in ("matches", "match_wins"):
            out[name] = out[name].astype("Int64")
    out["decisions"] = out["decisions_sum"] / out["rounds"]
    for name in _COUNTS:
        out[name] = out[name] / out["rounds"]
    return out


def _table(variant, players, matchups, outcomes, confidence, by_seat, match) -> pd.DataFrame:
    rows = []
    labels = spec_labels(matchups)
    for matchup, out in zip(matchups, outcomes):
        for row in _raw_rows(out, matchup, by_seat, match):
            rows.append({
                "variant": variant, "players": players, "matchup": matchup.label,
                "matchup_label": matchup.named(labels), "label": labels[row["agent"]], **row,
            })  # fmt: skip
    table = _finish(pd.DataFrame(rows), confidence, match)
    columns = [c for c in COLUMNS if (by_seat or c != "seat") and (match or c not in MATCH_COLUMNS)]
    return table[columns]


def seat_table(
    variant: str,
    players: int,
    matchups: Sequence[Matchup],
    outcomes: Sequence[Outcomes],
    confidence: float = 0.95,
    match: bool = False,
) -> pd.DataFrame:
    """The tidy per-seat table of one variant and player count (see the module docstring);
    ``match``: the jobs are matches (``rules.match``), which fills the match columns."""
    return _table(variant, players, matchups, outcomes, confidence, True, match)


def agent_table(
    variant: str,
    players: int,
    matchups: Sequence[Matchup],
    outcomes: Sequence[Outcomes],
    confidence: float = 0.95,
    match: bool = False,
) -> pd.DataFrame:
    """The same per agent, over all its seats."""
    return _table(variant, players, matchups, outcomes, confidence, False, match)


def _deal_scores(outcomes: Outcomes, matchup: Matchup, agent: str, players: int) -> dict:
    """Per deal (over its ``players`` seatings), ``agent``'s (deals,) float64 measures:
    ``wins`` rounds won per round, ``points`` net points per round, ``matches`` matches won
    per match (per copy)."""
    positions = [i for i, a in enumerate(matchup.lineup) if a == agent]
    mine = np.isin(outcomes.position, positions)  # (J, P)
    seats = np.arange(players)[None, :]

    def per_deal(values: np.ndarray) -> np.ndarray:
        return values.reshape(-1, players).sum(axis=1, dtype=np.float64)

    rounds = per_deal(mine.sum(axis=1) * outcomes.rounds)
    won = (outcomes.winner[:, None] == seats) & mine
    return {
        "wins": per_deal((outcomes.round_wins * mine).sum(axis=1)) / rounds,
        "points": per_deal((outcomes.net_points * mine).sum(axis=1)) / rounds,
        "matches": per_deal(won.sum(axis=1)) / per_deal(mine.sum(axis=1)),
    }


def deal_table(
    variant: str,
    players: int,
    matchups: Sequence[Matchup],
    outcomes: Sequence[Outcomes],
    match: bool = False,
) -> pd.DataFrame:
    """The first agent of each match-up, deal by deal: what pairs two match-ups of one cell.

    Every match-up of a cell plays the same deals
    (:meth:`~uno_rl.eval.tournament.Chunk.deal_seeds`), so deal ``d`` of two match-ups is the
    same deal: the difference of the two
    first agents' scores per deal is a paired sample (a condition-based bluffer against the
    plain one, :mod:`uno_rl.analysis.situations`). One row per match-up and deal: ``variant``,
    ``players``, ``matchup``, ``matchup_label``, ``agent``, ``label`` (as in the seat table),
    ``deal`` (int64), ``wins`` (rounds won per round over the deal's seatings, float64),
    ``points`` (net points per round) and under match rules ``matches`` (matches won per
    match).
    """
    parts = []
    labels = spec_labels(matchups)
    for matchup, out in zip(matchups, outcomes):
        agent = matchup.lineup[0]
        scores = _deal_scores(out, matchup, agent, players)
        part = pd.DataFrame({
            "variant": variant, "players": players, "matchup": matchup.label,
            "matchup_label": matchup.named(labels), "agent": agent, "label": labels[agent],
            "deal": np.arange(scores["wins"].size, dtype=np.int64),
            "wins": scores["wins"], "points": scores["points"],
        })  # fmt: skip
        if match:
            part["matches"] = scores["matches"]
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


def pair_table(
    variant: str,
    players: int,
    matchups: Sequence[Matchup],
    outcomes: Sequence[Outcomes],
    confidence: float = 0.95,
    match: bool = False,
) -> pd.DataFrame:
    """Paired tests between the agents of each match-up over the same deals.

    One row per match-up and pair ``(a, b)``: ``variant``, ``players``, ``matchup``,
    ``matchup_label``, ``agent_a``, ``agent_b`` (specs) and ``label_a``, ``label_b`` (their
    labels, as in the seat table); ``deals``; ``win_difference``: per deal (its
    rounds, or the rounds of its matches, over every seating), a's rounds won per round minus
    b's, with its interval ``win_diff_low``, ``win_diff_high``, two-sided ``win_p_value`` and
    ``win_log10_p`` (its base-10 logarithm, finite where the p-value underflows to 0); the same
    for net points per round (``points_difference``, ``points_diff_low``, ...); under match
    rules (``match``) also for matches won per match (``match_win_difference``,
    ``match_diff_low``, ``match_diff_high``, ``match_p_value``, ``match_log10_p``; absent
    without match rules). The test is the paired t-test over deals
    (:func:`~uno_rl.eval.stats.paired_test`), the intervals of the rate differences cut to
    [-1, 1]; print p-values with
    :func:`uno_rl.eval.formats.p_value`.
    """
    rows = []
    labels = spec_labels(matchups)
    for matchup, out in zip(matchups, outcomes):
        for a, b in itertools.combinations(matchup.agents, 2):
            score_a = _deal_scores(out, matchup, a, players)
            score_b = _deal_scores(out, matchup, b, players)
            w = paired_test(score_a["wins"], score_b["wins"], confidence, RATE_DIFFERENCE)
            p = paired_test(score_a["points"], score_b["points"], confidence)
            row = {
                "variant": variant, "players": players, "matchup": matchup.label,
                "matchup_label": matchup.named(labels), "agent_a": a, "agent_b": b,
                "label_a": labels[a], "label_b": labels[b], "deals": w.n,
                "win_difference": w.mean_difference, "win_diff_low": w.low,
                "win_diff_high": w.high, "win_p_value": w.p_value, "win_log10_p": w.log10_p,
                "points_difference": p.mean_difference, "points_diff_low": p.low,
                "points_diff_high": p.high, "points_p_value": p.p_value,
                "points_log10_p": p.log10_p,
            }  # fmt: skip
            if match:
                m = paired_test(score_a["matches"], score_b["matches"], confidence, RATE_DIFFERENCE)
                row.update({
                    "match_win_difference": m.mean_difference, "match_diff_low": m.low,
                    "match_diff_high": m.high, "match_p_value": m.p_value,
                    "match_log10_p": m.log10_p,
                })  # fmt: skip
            rows.append(row)
    return pd.DataFrame(rows)


def _mean(values: list[float]) -> float:
    """``float(np.mean(values))``, without NumPy's cost on a handful of floats: NumPy adds
    fewer than 8 values one after the other, as ``sum`` does; more in blocks (kept)."""
    return sum(values) / len(values) if len(values) < 8 else float(np.mean(values))


def rating_table(
    variant: str,
    players: int,
    matchups: Sequence[Matchup],
    outcomes: Sequence[Outcomes],
    max_games: int = 50_000,
    match: bool = False,
    lowest_wins: bool = False,
) -> pd.DataFrame:
    """OpenSkill (Plackett-Luce) ratings of the agents from up to ``max_games`` games.

    A game is a round, or a whole match under match rules (``match``): rounds are rated by
    their net points, matches by their result. Games are taken in order, interleaving
    match-ups deal by deal. In each game every seat is a player of its own, ranked by its
    points (net points of the round: the winner first, then the losers by the points left in
    their hands; ties shared) or, in a match, by its final score (the match winner first, then
    the others by score, the lowest first when ``lowest_wins``: the ``losers-add`` school).

    Every copy of an agent is rated as its own player: each copy enters the game holding the
    agent's current rating, and after the game the agent's ``mu`` and ``sigma`` become the
    means of its copies' updated values. So an agent is rated by how its average copy places,
    the same per-copy view as the win rates and paired tests (never by its best-placed copy,
    which would favour an agent with many copies). Truncated rounds, and games with a single
    agent at the table, are skipped.

    Columns: ``variant``, ``players``, ``agent`` (its spec), ``label`` (as in the seat
    table), ``mu``, ``sigma``, ``ordinal``
    (``mu - 3 sigma``), ``rated_by`` (``rounds`` or ``matches``) and ``games`` (how many of
    them the agent's rating took in).
    """
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    shown = spec_labels(matchups)
    agents = list(dict.fromkeys(a for m in matchups for a in m.agents))
    start = model.rating()
    ratings = {a: (start.mu, start.sigma) for a in agents}  # (mu, sigma) of each agent
    counts = dict.fromkeys(agents, 0)
    seats: list = []  # one rating object per seat, reused game after game
    streams = []
    for matchup, out in zip(matchups, outcomes):
        labels = np.array(matchup.lineup, dtype=object)[out.position]  # (J, P)
        if match:
            key = (-out.scores if lowest_wins else out.scores).astype(np.float64)
            key[np.arange(key.shape[0]), out.winner] = np.inf  # the match winner first
        else:
            key = out.net_points.astype(np.float64)
        ranks = (key[:, None, :] > key[:, :, None]).sum(axis=2)  # (J, P) 0 = best
        index = np.array([matchup.agents.index(a) for a in matchup.lineup])[out.position]
        rated = (out.winner >= 0) & (index != index[:, :1]).any(axis=1)  # a winner, 2+ agents
        streams.append((labels, ranks, rated))
    used = 0
    longest = max((s[0].shape[0] for s in streams), default=0)
    for j in range(longest):
        if used >= max_games:  # every game rated: the rest of the stream is never looked at
            break
        for labels, ranks, rated in streams:
            if used >= max_games:
                break
            if j >= labels.shape[0] or not rated[j]:
                continue
            names = list(labels[j])
            seats += [model.rating() for _ in range(len(names) - len(seats))]
            for seat, name in zip(seats, names):
                seat.mu, seat.sigma = ratings[name]
            new = model.rate([[seat] for seat in seats[: len(names)]], ranks=ranks[j].tolist())
            for agent in dict.fromkeys(names):  # one player per copy: the copies' mean
                mine = [team[0] for n, team in zip(names, new) if n == agent]
                ratings[agent] = (_mean([r.mu for r in mine]), _mean([r.sigma for r in mine]))
                counts[agent] += 1
            used += 1
    final = {a: model.rating(mu=mu, sigma=sigma, name=a) for a, (mu, sigma) in ratings.items()}
    return pd.DataFrame(
        [
            {
                "variant": variant,
                "players": players,
                "agent": a,
                "label": shown[a],
                "mu": r.mu,
                "sigma": r.sigma,
                "ordinal": r.ordinal(),
                "rated_by": "matches" if match else "rounds",
                "games": counts[a],
            }  # fmt: skip
            for a, r in final.items()
        ],
        columns=_RATING_COLUMNS,
    ).sort_values("ordinal", ascending=False, ignore_index=True)
