"""OpenSkill ratings rate every copy of an agent as a player: they follow the per-copy rates."""

import numpy as np
import pytest

from uno_rl.eval.jobs import Outcomes, rotations
from uno_rl.eval.summary import agent_table, pair_table, rating_table
from uno_rl.eval.tournament import Matchup

ONE_VS_THREE = Matchup(("solo", "team", "team", "team"))


def hand_built(solo_wins: float, deals: int = 400, seed: int = 0, match: bool = False) -> Outcomes:
    """4-seat jobs of ``solo`` against 3 copies of ``team``: ``solo`` (line-up position 0) wins a
    job with probability ``solo_wins``, each ``team`` copy with ``(1 - solo_wins) / 3``. The
    winner scores 30, every loser -10 (losers tie); in matches the winner ends on 500."""
    gen = np.random.default_rng(seed)
    jobs, p = deals * 4, 4
    out = Outcomes.empty(jobs, p)
    out.position[:] = np.tile(rotations(p), (deals, 1))
    position = gen.choice(p, size=jobs, p=[solo_wins] + [(1 - solo_wins) / 3] * 3)
    winner = np.argmax(out.position == position[:, None], axis=1)  # the seat of that position
    out.winner[:] = winner
    out.rounds[:] = 1
    rows = np.arange(jobs)
    out.round_wins[rows, winner] = 1
    out.net_points[:] = -10
    out.net_points[rows, winner] = 30
    out.penalty[:] = 10
    out.penalty[rows, winner] = 0
    if match:
        out.scores[:] = gen.integers(0, 400, size=(jobs, p))
        out.scores[rows, winner] = 500
    return out


@pytest.mark.parametrize("solo_wins,solo_first", [(0.34, True), (0.17, False)])
def test_one_agent_against_three_copies_is_rated_by_its_per_copy_results(solo_wins, solo_first):
    out = hand_built(solo_wins)
    agents = agent_table("v", 4, [ONE_VS_THREE], [out]).set_index("agent")
    # per copy: solo wins about solo_wins, each team copy about (1 - solo_wins) / 3
    assert (agents.loc["solo", "win_rate"] > agents.loc["team", "win_rate"]) == solo_first
    pairs = pair_table("v", 4, [ONE_VS_THREE], [out]).iloc[0]
    assert (pairs["win_difference"] > 0) == solo_first and pairs["win_p_value"] < 0.01
    ratings = rating_table("v", 4, [ONE_VS_THREE], [out])
    assert list(ratings["agent"]) == (["solo", "team"] if solo_first else ["team", "solo"])
    assert (ratings["rated_by"] == "rounds").all() and (ratings["games"] == out.winner.size).all()
    # A team copy wins 2/3 (or 5/6) of the rounds: rated by its best copy, team would lead.
    gap = ratings.set_index("agent")["mu"]
    assert abs(gap["solo"] - gap["team"]) > 1.0


def test_equal_per_copy_rates_give_close_ratings():
    ratings = rating_table("v", 4, [ONE_VS_THREE], [hand_built(0.25, deals=600)])
    mu = ratings.set_index("agent")["mu"]
    assert abs(mu["solo"] - mu["team"]) < 1.0


def test_matches_are_rated_by_their_results():
    out = hand_built(0.4, match=True)
    ratings = rating_table("v", 4, [ONE_VS_THREE], [out], match=True)
    assert list(ratings["agent"]) == ["solo", "team"]
    assert (ratings["rated_by"] == "matches").all()
    # losers-add: the lowest score wins; the same results with the scores turned around
    low = hand_built(0.4, match=True)
    low.scores[:] = 600 - low.scores
    ratings = rating_table("v", 4, [ONE_VS_THREE], [low], match=True, lowest_wins=True)
    assert list(ratings["agent"]) == ["solo", "team"]


def test_truncated_rounds_and_single_agent_tables_are_not_rated():
    out = hand_built(0.3, deals=50)
    out.winner[:10] = -1
    assert rating_table("v", 4, [ONE_VS_THREE], [out])["games"].iloc[0] == out.winner.size - 10
    alone = rating_table("v", 4, [Matchup(("x",) * 4)], [out])
    assert list(alone["games"]) == [0] and list(alone["mu"]) == [pytest.approx(25.0)]


def test_the_paired_intervals_of_rates_stay_within_one():
    # solo wins nearly every round and match: the t intervals of the rate differences would
    # pass +1 (+100 percentage points).
    out = hand_built(0.995, deals=120, match=True)
    pairs = pair_table("v", 4, [ONE_VS_THREE], [out], confidence=0.99, match=True).iloc[0]
    for low, mid, high in (("win_diff_low", "win_difference", "win_diff_high"),
                           ("match_diff_low", "match_win_difference", "match_diff_high")):  # fmt: skip
        assert -1.0 <= pairs[low] < pairs[mid] <= pairs[high] <= 1.0
    assert pairs["win_diff_high"] == 1.0 or pairs["match_diff_high"] == 1.0


def openskill_by_hand(lineup, out):
    """The ratings of one match-up's rounds, each copy its own player and each agent the mean
    of its copies, straight from openskill's objects (what rating_table computes faster)."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = {a: model.rating() for a in dict.fromkeys(lineup)}
    for j in range(out.winner.size):
        names = [lineup[i] for i in out.position[j]]
        key = out.net_points[j].astype(np.float64)
        ranks = (key[None, :] > key[:, None]).sum(axis=1)
        teams = [[model.rating(mu=ratings[n].mu, sigma=ratings[n].sigma)] for n in names]
        new = model.rate(teams, ranks=ranks.tolist())
        for agent in dict.fromkeys(names):
            mine = [team[0] for n, team in zip(names, new) if n == agent]
            ratings[agent] = model.rating(mu=float(np.mean([r.mu for r in mine])),
                                          sigma=float(np.mean([r.sigma for r in mine])))  # fmt: skip
    return {a: (r.mu, r.sigma) for a, r in ratings.items()}


@pytest.mark.parametrize("players", [4, 10])  # 3 copies of an agent, and 9 (NumPy's blocks)
def test_ratings_are_openskills_to_the_last_bit(players):
    gen = np.random.default_rng(players)
    deals = 30
    lineup = ("solo",) + ("team",) * (players - 1)
    out = Outcomes.empty(deals * players, players)
    out.position[:] = np.tile(rotations(players), (deals, 1))
    out.winner[:] = gen.integers(0, players, size=out.winner.size)
    out.net_points[:] = -gen.integers(0, 40, size=out.net_points.shape)
    rows = np.arange(out.winner.size)
    out.net_points[rows, out.winner] = 0
    out.net_points[rows, out.winner] = -out.net_points.sum(axis=1)
    table = rating_table("v", players, [Matchup(lineup)], [out]).set_index("agent")
    for agent, (mu, sigma) in openskill_by_hand(lineup, out).items():
        assert (table.loc[agent, "mu"], table.loc[agent, "sigma"]) == (mu, sigma)
