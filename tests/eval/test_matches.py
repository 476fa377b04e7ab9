"""Rounds, points and matches: the three measures, in single rounds and in matches to 500."""

import numpy as np
import pandas as pd
import pytest
from bad_input.harness import assert_clean_error

from uno_rl.agents import make_agent
from uno_rl.core import load_rules
from uno_rl.core.rng import new_seeds
from uno_rl.eval.jobs import Outcomes, play_jobs, rotations
from uno_rl.eval.run import MAX_MATCHES, as_matches, evaluate
from uno_rl.eval.stats import wilson_interval, z_value
from uno_rl.eval.summary import COLUMNS, MATCH_COLUMNS, agent_table, seat_table
from uno_rl.eval.tournament import Matchup
from uno_rl.programs import evaluate as cli


def test_match_columns():
    assert MATCH_COLUMNS == ["matches", "match_wins", "match_win_rate", "match_win_low",
                             "match_win_high", "final_score", "final_score_low",
                             "final_score_high"]  # fmt: skip


def test_every_seating_of_a_match_is_dealt_the_same_sequence_of_deals():
    rules = load_rules("official", players=3, match=True)
    agents = [make_agent("color-first", rules), make_agent("random-playable", rules)]
    lineup = [agents[0], agents[1], agents[1]]
    deals = {}  # (slot = job, round index) -> what was dealt

    def observer(state, live, masks, positions, actions):
        for g in live[state.turn[live] == 0]:
            k = int(state.round_index[g])
            deals.setdefault((int(g), k), (state.key[g], state.hands[g].copy(), state.dealer[g]))

    seeds = new_seeds(np.random.default_rng(3), 4)
    out = play_jobs(rules, lineup, seeds, np.random.default_rng(4), slots=64, observer=observer)
    compared = 0
    for d in range(4):
        jobs = range(3 * d, 3 * d + 3)
        for k in range(int(min(out.rounds[j] for j in jobs))):
            key, hands, dealer = deals[(3 * d, k)]
            for j in jobs:
                other_key, other_hands, other_dealer = deals[(j, k)]
                assert other_key == key and other_dealer == dealer, (d, j, k)
                np.testing.assert_array_equal(other_hands, hands)
                compared += 1
        assert deals[(3 * d, 0)][0] != deals[(3 * d, 1)][0]  # each round is a new deal
    assert compared > 3 * 4 * 3
    assert (out.rounds == [max(k for (g, k) in deals if g == j) + 1 for j in range(12)]).all()


def _one_line(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert "\n" not in err, err
    return err


@pytest.fixture(scope="module")
def single():
    return evaluate(["color-first", "random-playable"], players=3, rounds=600, seed=2, workers=1,
                    progress=False)  # fmt: skip


@pytest.fixture(scope="module")
def matches():
    return evaluate(["color-first", "random-playable"], players=3, matches=30, seed=2, workers=1,
                    progress=False)  # fmt: skip


def test_single_rounds_have_the_three_measures_and_no_match_columns(single):
    agents = single.agents
    single_columns = [c for c in COLUMNS if c not in MATCH_COLUMNS]
    assert list(agents.columns) == [c for c in single_columns if c != "seat"]
    assert list(single.seats.columns) == single_columns
    assert (agents["rounds"] == [600, 1200]).all()
    assert (agents["points"] * agents["rounds"]).sum() == pytest.approx(0.0, abs=1e-6)
    assert agents["wins"].sum() + agents["truncated"].iloc[0] == 600
    assert "match_win_difference" not in single.pairs and "matches" not in single.agents
    assert (single.ratings["rated_by"] == "rounds").all()


def test_matches_count_every_round_inside_them(matches):
    agents = matches.agents.set_index("agent")
    jobs = 30  # 10 deals x 3 seatings
    assert list(matches.agents.columns) == [c for c in COLUMNS if c != "seat"]
    assert matches.agents["variant"].iloc[0] == "official, match=true"
    assert (agents["matches"] == [jobs, 2 * jobs]).all()
    assert agents["match_wins"].sum() == jobs  # every match finishes with one winner
    rounds = agents["rounds"] / [1, 2]  # rounds played at the table
    assert rounds.iloc[0] == rounds.iloc[1] and rounds.iloc[0] > 3 * jobs
    assert (agents["points"] * agents["rounds"]).sum() == pytest.approx(0.0, abs=1e-6)  # zero-sum
    assert agents["wins"].sum() + agents["truncated"].iloc[0] == rounds.iloc[0]
    for low, mid, high in (("win_low", "win_rate", "win_high"),
                           ("points_low", "points", "points_high"),
                           ("match_win_low", "match_win_rate", "match_win_high"),
                           ("final_score_low", "final_score", "final_score_high")):  # fmt: skip
        assert (agents[low] < agents[mid]).all() and (agents[mid] < agents[high]).all()
    assert (
        agents.loc["color-first", "match_win_rate"]
        > 0.5
        > agents.loc["random-playable", "win_rate"]
    )
    assert agents.loc["color-first", "final_score"] > agents.loc["random-playable", "final_score"]
    assert (agents["draw4_plays"] < 2).all()  # per round, not per match
    assert (agents["decisions"] < 200).all()
    pairs = matches.pairs.iloc[0]
    assert pairs["deals"] == 10 and pairs["match_win_difference"] > 0
    assert pairs["match_diff_low"] < pairs["match_win_difference"] < pairs["match_diff_high"]
    assert (matches.ratings["rated_by"] == "matches").all()
    assert (matches.ratings["games"] == jobs).all()
    seats = matches.seats
    by_agent = seats.groupby("agent")["matches"].sum().to_dict()
    assert by_agent == {"color-first": 30, "random-playable": 60}


def test_points_interval_is_taken_over_matches_not_rounds():
    rules = load_rules("official", match=True)
    a, b = make_agent("color-first", rules), make_agent("random-playable", rules)
    out = play_jobs(
        rules, [a, b], new_seeds(np.random.default_rng(0), 40), np.random.default_rng(1)
    )
    matchup = Matchup(("color-first", "random-playable"))
    table = agent_table("v", 2, [matchup], [out], match=True)
    row = table.set_index("agent").loc["color-first"]
    seat = np.argmax(out.position == 0, axis=1)
    x = out.net_points[np.arange(seat.size), seat].astype(float)  # per match
    n = out.rounds.astype(float)
    ratio, se = _ratio_and_se(x, n)
    assert row["points"] == pytest.approx(ratio)
    assert row["points_high"] - row["points"] == pytest.approx(z_value() * se)
    assert row["rounds"] == n.sum() and row["matches"] == 80
    # winner-takes: net points are the points scored minus the points left in lost rounds
    np.testing.assert_array_equal(out.net_points, out.scores - out.penalty)


def _ratio_and_se(x: np.ndarray, n: np.ndarray) -> tuple[float, float]:
    """The ratio estimate sum(x) / sum(n) over matches and its delta-method standard error."""
    ratio = x.sum() / n.sum()
    return ratio, np.sqrt(((x - ratio * n) ** 2).sum() / (x.size - 1) * x.size) / n.sum()


def _correlated(jobs: int, rounds: int, seed: int = 0) -> Outcomes:
    """2-seat jobs of ``a`` (position 0) against ``b``, seatings alternating, ``rounds`` rounds
    each; in every job one seat, drawn fair, wins all but one of the rounds (the rounds of one
    match are strongly correlated). The round winner scores 20, the loser -20."""
    gen = np.random.default_rng(seed)
    out = Outcomes.empty(jobs, 2)
    out.position[:] = np.tile(rotations(2), (jobs // 2, 1))
    streak = gen.integers(0, 2, size=jobs)  # the seat that wins most rounds
    rows = np.arange(jobs)
    out.winner[:] = streak
    out.rounds[:] = rounds
    out.round_wins[rows, streak] = rounds - 1
    out.round_wins[rows, 1 - streak] = 1
    out.net_points[:] = 20 * (out.round_wins - out.round_wins[:, ::-1])
    out.scores[:] = 20 * out.round_wins
    return out


def test_win_interval_is_taken_over_matches_not_rounds():
    out = _correlated(jobs=60, rounds=10)
    matchup = Matchup(("a", "b"))
    for name, table in (("agent", agent_table("v", 2, [matchup], [out], match=True)),
                        ("seat", seat_table("v", 2, [matchup], [out], match=True))):  # fmt: skip
        for _, row in table.iterrows():
            low, high = wilson_interval(row["wins"], row["rounds"])
            assert row["win_low"] <= row["win_rate"] <= row["win_high"], (name, row)
            assert 0.0 <= row["win_low"] and row["win_high"] <= 1.0
            # rounds won in streaks: far wider than if the 600 rounds were independent
            assert row["win_high"] - row["win_low"] > 2 * (high - low), (name, row)
    row = agent_table("v", 2, [matchup], [out], match=True).set_index("agent").loc["a"]
    seat = np.argmax(out.position == 0, axis=1)
    x = out.round_wins[np.arange(seat.size), seat].astype(float)  # per match
    ratio, se = _ratio_and_se(x, out.rounds.astype(float))
    assert row["win_rate"] == pytest.approx(ratio)
    assert row["win_low"] == pytest.approx(max(ratio - z_value() * se, 0.0))
    assert row["win_high"] == pytest.approx(min(ratio + z_value() * se, 1.0))
    # a lopsided match-up: the upper bound is clipped to 1
    out.round_wins[:, 0], out.round_wins[:, 1] = 10, 0
    out.round_wins[0] = [0, 10]
    lopsided = seat_table("v", 2, [matchup], [out], match=True)
    assert (lopsided["win_high"] <= 1.0).all() and (lopsided["win_low"] >= 0.0).all()
    assert lopsided["win_high"].max() == 1.0


def test_single_round_win_interval_is_still_wilson(single):
    for table in (single.agents, single.seats):
        low, high = wilson_interval(table["wins"], table["rounds"])
        np.testing.assert_array_equal(table["win_low"].to_numpy(), low)
        np.testing.assert_array_equal(table["win_high"].to_numpy(), high)
    # the same hand-built rounds as single rounds: the Wilson interval, bit for bit
    out = _correlated(jobs=60, rounds=1)
    out.round_wins[np.arange(60), 1 - out.winner] = 0  # one round: one winner
    table = agent_table("v", 2, [Matchup(("a", "b"))], [out])
    low, high = wilson_interval(table["wins"], table["rounds"], 0.95)
    assert "matches" not in table
    np.testing.assert_array_equal(table["win_low"].to_numpy(), low)
    np.testing.assert_array_equal(table["win_high"].to_numpy(), high)


def test_set_match_true_with_rounds_is_the_same_as_matches(matches):
    again = evaluate(["color-first", "random-playable"], players=3, rounds=30, seed=2, workers=1,
                     switches={"match": True}, progress=False)  # fmt: skip
    pd.testing.assert_frame_equal(again.agents, matches.agents)
    rules, label = as_matches(load_rules("kids"), "kids")
    assert label == "kids" and rules.match_target == 3
    rules, label = as_matches(load_rules("official"), "official")
    assert rules.match and rules.match_target == 500 and label == "official, match=true"
    with pytest.raises(ValueError, match="rounds or matches, not both"):
        evaluate(["rule", "rule"], rounds=10, matches=10)


def test_command_line_matches(tmp_path, capsys):
    out = tmp_path / "ev"
    code = cli.main(["color-first", "random-playable", "--matches", "20", "--workers", "1",
                     "--out", str(out), "--no-progress"])  # fmt: skip
    assert code == 0
    text = capsys.readouterr().out
    assert "official, match=true, 2 players: 20 matches (" in text
    for header in ("rounds won", "points/round", "matches won", "final score"):
        assert header in text
    assert "OpenSkill ordinal over 20 matches" in text and "; matches won +" in text
    frame = pd.read_parquet(out / "agents.parquet")
    assert (frame["matches"] == 20).all() and frame["match_wins"].sum() == 20
    pd.testing.assert_frame_equal(frame, pd.read_csv(out / "agents.csv"), check_dtype=False)


def test_command_line_single_rounds_headline(tmp_path, capsys):
    code = cli.main(["rule", "aggressive", "--rounds", "200", "--workers", "1",
                     "--out", str(tmp_path / "ev"), "--no-progress"])  # fmt: skip
    assert code == 0
    text = capsys.readouterr().out
    assert "official, 2 players: 200 rounds" in text
    assert "rounds won" in text and "points/round" in text and "matches won" not in text
    assert "OpenSkill ordinal over 200 rounds" in text


@pytest.mark.parametrize(
    "argv,message",
    [
        (["--matches", "0"], "--matches: must be between 1 and 10,000,000, got 0"),
        (["--matches", "-3"], "--matches: must be between 1"),
        (["--matches", "10", "--rounds", "100"], "--matches and --rounds exclude each other"),
        (["--matches", str(MAX_MATCHES + 1)], f"and {MAX_MATCHES:,}, got {MAX_MATCHES + 1:,}"),
        (["--rounds", "1000000000"], "--rounds: must be between 1 and 100,000,000"),
        (["--set", "match=true", "--rounds", "20000000"], "--rounds must be at most 10,000,000"),
        (["--matches", "5", "--set", "match=false"], "cannot go with match=false"),
    ],
)
def test_bad_match_counts_fail_with_one_line(argv, message, capsys, tmp_path):
    argv = ["rule", "color-first", *argv, "--out", str(tmp_path / "x"), "--no-progress"]
    assert_clean_error(cli.main, argv, message, capsys)
    assert not (tmp_path / "x").exists()
