"""The close of a step: its :class:`StepResult`, the end of a round (truncation, scoring,
rewards) and match bookkeeping (scores, the next round's deal, :func:`match_winner`).

State fields used (N games, P seats): ``turn`` (N,) int32 decisions of the round,
``winner`` (N,) int8, ``truncated`` (N,) bool, ``stats`` (N, 6, P) int32 round counters
(:data:`~uno_rl.core.state.STAT_NAMES`), ``scores`` (N, P) int32 match totals,
``round_index`` (N,) int32 and ``match_over`` (N,) bool.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from . import rng
from .deal import deal
from .phases import OVER, PLAY
from .state import STAT_NAMES, State
from .views import next_seat


@dataclasses.dataclass
class StepResult:
    """What one step produced, per game. Round fields are 0 / -1 where no round ended.

    Attributes:
        rewards: (N, P) float32 per-seat reward of this step (nonzero only when a round ends).
        round_over: (N,) bool: a round ended this step (won or truncated).
        truncated: (N,) bool: it ended at ``max_turns`` (a draw: rewards 0).
        match_over: (N,) bool: a match ended (match mode only).
        winner: (N,) int8: winning seat of the round that ended, -1 otherwise.
        points: (N,) int32: card points left in the losers' hands at the end of the round.
        net_points: (N, P) int32: zero-sum net points of the round that ended, whatever
            ``rules.reward`` says: the winner gets the card points left in the other hands,
            each loser minus its own; 0 where no round was won (truncated, or still going).
        decisions: (N,) int32: decisions the round took.
        draw4_plays, bluffs, challenges, challenges_won, draw4_challenged, bluffs_caught:
            (N, P) int32 per-seat counts over the round that ended (:data:`STAT_NAMES`).
    """

    rewards: np.ndarray
    round_over: np.ndarray
    truncated: np.ndarray
    match_over: np.ndarray
    winner: np.ndarray
    points: np.ndarray
    net_points: np.ndarray
    decisions: np.ndarray
    draw4_plays: np.ndarray
    bluffs: np.ndarray
    challenges: np.ndarray
    challenges_won: np.ndarray
    draw4_challenged: np.ndarray
    bluffs_caught: np.ndarray


def result_rows(players: int, games: int = 1) -> tuple[np.ndarray, ...]:
    """Zeroed arrays of a step's result for ``games`` games of ``players`` seats, as the
    compiled kernel writes them: ``rewards`` (k, P) float32, ``flags`` (3, k) bool (round
    over, truncated, match over), ``winner`` (k,) int8, ``ints`` (2, k) int32 (points,
    decisions), ``net_points`` (k, P) int32 and ``stats`` (6, k, P) int32."""
    k, p = games, players
    return (
        np.zeros((k, p), np.float32), np.zeros((3, k), bool), np.zeros(k, np.int8),
        np.zeros((2, k), np.int32), np.zeros((k, p), np.int32),
        np.zeros((len(STAT_NAMES), k, p), np.int32),
    )  # fmt: skip


def close_step(s: State, games: np.ndarray | None = None) -> StepResult:
    """Count the decision, truncate, score finished rounds and deal a match's next round.

    Only ``games`` were stepped (all when None); the result has one row per stepped game.
    """
    rules, p = s.rules, s.rules.players
    stepped = slice(None) if games is None else games
    k = s.num_games if games is None else games.size
    if (rules.caught_bluffer == "loses-turn" and rules.challenge_enabled) or rules.boomerangs:
        _lose_turns(s, np.arange(s.num_games) if games is None else games)
    turn = s.turn[stepped] + 1
    s.turn[stepped] = turn
    over = s.phase[stepped] == OVER
    timeout = turn >= rules.max_turns
    if timeout.any():
        timeout &= ~over
        late = np.flatnonzero(timeout) if games is None else games[timeout]
        s.truncated[late] = True
        s.phase[late] = OVER
        over |= timeout
    ints = np.zeros(k * (2 + p), np.int32)  # one allocation per dtype: this runs every step
    counts = ints[: 2 * k].reshape(2, k)
    stats = np.zeros((len(STAT_NAMES), k, p), np.int32)
    result = StepResult(
        rewards=np.zeros((k, p), np.float32),
        round_over=over,
        truncated=s.truncated[stepped] & over if timeout.any() else np.zeros(k, bool),
        match_over=np.zeros(k, bool),
        winner=np.full(k, -1, np.int8),
        points=counts[0],
        net_points=ints[2 * k :].reshape(k, p),
        decisions=counts[1],
        **{name: stats[i] for i, name in enumerate(STAT_NAMES)},
    )
    rows = np.flatnonzero(over)  # rows of the result
    if not rows.size:
        return result
    g = rows if games is None else games[rows]  # the same games in the state
    result.winner[rows] = s.winner[g]
    result.decisions[rows] = s.turn[g]
    stats[:, rows] = s.stats[g].transpose(1, 0, 2)
    has_winner = s.winner[g] >= 0
    if has_winner.any():
        won, won_rows = g[has_winner], rows[has_winner]
        w = s.winner[won].astype(np.int64)
        points = (s.hands[won].astype(np.int32) * s.rules.layout.points).sum(axis=2)
        total = points.sum(axis=1)
        result.points[won_rows] = total
        is_winner = np.arange(p)[None, :] == w[:, None]
        net = np.where(is_winner, total[:, None], -points)
        result.net_points[won_rows] = net
        if rules.reward == "win-loss":
            result.rewards[won_rows] = np.where(is_winner, 1.0, -1.0 / (p - 1))
        else:
            result.rewards[won_rows] = net
        if rules.scoring == "winner-takes":
            s.scores[won, w] += total
        elif rules.scoring == "losers-add":
            s.scores[won] += np.where(is_winner, 0, points)
        else:
            s.scores[won, w] += 1
    if rules.match:
        if rules.match_rounds:  # a fixed number of rounds, truncated ones included
            decided = s.round_index[g] + 1 >= rules.match_rounds
        else:
            decided = s.scores[g].max(axis=1) >= rules.match_target
        s.match_over[g[decided]] = True
        result.match_over[rows[decided]] = True
        go_on = g[~decided]
        if go_on.size:
            seeds = rng.bits(s.key[go_on], rng.NEXT_ROUND, 0, 0)
            dealer = None
            if rules.dealer == "rotate":
                dealer = ((s.dealer[go_on].astype(np.int64) + 1) % p).astype(np.int8)
            s.round_index[go_on] += 1
            deal(s, go_on, seeds, dealer)
    return result


def _lose_turns(s: State, g: np.ndarray) -> None:
    """``caught_bluffer='loses-turn'``: a turn that starts (the play phase) with a seat that
    owes a lost turn passes to the next seat along, as often as needed."""
    for _ in range(s.rules.players):
        g = g[s.phase[g] == PLAY]
        seats = s.actor[g]
        owes = s.skip_turn[g, seats] > 0
        if not owes.any():
            return
        g, seats = g[owes], seats[owes]
        s.skip_turn[g, seats] -= 1
        s.actor[g] = next_seat(s, g, seats)


def match_winner(state: State) -> np.ndarray:
    """(N,) int8: each game's match winner (-1 while nobody has reached the target; under
    ``match_rounds``, until the last round is over).

    ``losers-add``: the lowest total wins; otherwise the highest; ties go to the lower seat.
    """
    s = state
    if s.rules.match_rounds:
        decided = s.match_over
    else:
        decided = s.scores.max(axis=1) >= s.rules.match_target
    best = s.scores.argmin(axis=1) if s.rules.scoring == "losers-add" else s.scores.argmax(axis=1)
    return np.where(decided, best, -1).astype(np.int8)
