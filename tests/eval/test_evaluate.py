"""The evaluator: tables, determinism across workers, the command line, bad input."""

import json

import numpy as np
import pandas as pd
import pytest
from bad_input.harness import assert_clean_error

from uno_rl.core.rules import load_rules
from uno_rl.eval.run import evaluate, variant_label
from uno_rl.plumbing.cli import parse_switch
from uno_rl.programs import evaluate as cli


@pytest.fixture(scope="module")
def head_to_head():
    return evaluate(
        ["color-first", "random-playable"], rounds=3000, seed=1, workers=1, progress=False
    )


def test_tables_have_one_row_per_agent_and_seat(head_to_head):
    seats, agents = head_to_head.seats, head_to_head.agents
    assert len(seats) == 4 and sorted(seats["seat"].unique()) == [0, 1]
    assert set(agents["agent"]) == {"color-first", "random-playable"}
    assert (agents["rounds"] == 3000).all()
    assert agents["wins"].sum() + agents["truncated"].iloc[0] == 3000
    assert (agents["win_low"] <= agents["win_rate"]).all()
    assert (agents["win_rate"] <= agents["win_high"]).all()
    assert agents["points"].sum() == pytest.approx(0.0, abs=1e-9)  # zero-sum
    first = agents.set_index("agent").loc["color-first"]
    assert first["win_rate"] > 0.55  # a heuristic beats random play
    pairs = head_to_head.pairs
    assert len(pairs) == 1 and pairs["deals"].iloc[0] == 1500
    assert pairs["win_difference"].iloc[0] > 0 and pairs["win_p_value"].iloc[0] < 0.001
    ratings = head_to_head.ratings
    assert list(ratings["agent"]) == ["color-first", "random-playable"]


def test_same_seed_same_tables_for_any_number_of_workers():
    kwargs = dict(rounds=4200, seed=7, progress=False)  # 2100 deals: two chunks
    one = evaluate(["rule", "points-dumper"], workers=1, **kwargs)
    two = evaluate(["rule", "points-dumper"], workers=2, **kwargs)
    pd.testing.assert_frame_equal(one.seats, two.seats)
    pd.testing.assert_frame_equal(one.pairs, two.pairs)
    pd.testing.assert_frame_equal(one.ratings, two.ratings)


def test_multiplayer_modes():
    table = evaluate(
        ["rule", "color-first", "aggressive"], players=3, rounds=300, workers=1, progress=False
    )
    assert set(table.agents["matchup"]) == {"rule | color-first | aggressive"}
    assert table.agents["win_rate"].sum() + table.agents["truncated"].iloc[
        0
    ] / 300 == pytest.approx(1.0)
    robin = evaluate(["rule", "color-first", "aggressive"], players=4, mode="round-robin",
                     rounds=200, workers=1, progress=False)  # fmt: skip
    assert robin.agents["matchup"].nunique() == 6
    one_vs_three = robin.seats[robin.seats["matchup"] == "rule vs 3 x color-first"]
    assert set(one_vs_three["agent"]) == {"rule", "color-first"}


def test_switches_and_labels():
    assert parse_switch("stacking=any") == ("stacking", "any")
    assert parse_switch("jump_in=true") == ("jump_in", True)
    assert parse_switch("max_turns=50") == ("max_turns", 50)
    assert variant_label("official", {"stacking": "any", "jump_in": True}) == (
        "official, jump_in=true, stacking=any"
    )
    base = load_rules("official")
    # only what differs from the preset is named
    assert variant_label("official", {"stacking": "any", "jump_in": False}, base) == (
        "official, stacking=any"
    )
    assert variant_label("official", {"stacking": "none"}, base) == "official"
    with pytest.raises(ValueError, match="KEY=VALUE"):
        parse_switch("stacking")


def test_command_line_writes_tables(tmp_path, capsys):
    out = tmp_path / "ev"
    code = cli.main(["rule", "aggressive", "--rounds", "400", "--workers", "1", "--seed", "3",
                     "--set", "caught_bluffer=takes-back", "--out", str(out), "--no-progress"])  # fmt: skip
    assert code == 0
    text = capsys.readouterr().out
    assert (
        "official, caught_bluffer=takes-back, 2 players" in text and "paired over 200 deals" in text
    )
    for name in ("seats", "agents", "pairs", "ratings"):
        frame = pd.read_parquet(out / f"{name}.parquet")
        pd.testing.assert_frame_equal(frame, pd.read_csv(out / f"{name}.csv"), check_dtype=False)
    config = json.loads((out / "config.json").read_text())
    assert config["switches"] == {"caught_bluffer": "takes-back"} and config["seed"] == 3


@pytest.mark.parametrize(
    "argv,message",
    [
        (["nope", "rule"], "unknown agent 'nope'"),
        (["rule", "color-first:bluf=1"], "no parameter 'bluf'"),
        (["rule", "rule", "--preset", "offcial"], "unknown preset 'offcial'"),
        (["rule", "color-first", "--set", "stackng=any"], "unknown rules key 'stackng'"),
        (["rule", "color-first", "--set", "stacking=all"], "'stacking' must be one of"),
        (["rule", "color-first", "--players", "11"], "players"),
        (["rule", "color-first", "--rounds", "0"], "--rounds: must be between 1"),
        (["rule", "color-first", "--workers", "0"], "--workers: must be between 1"),
        (["rule", "color-first", "aggressive", "--mode", "table"], "2 players need 2 agents"),
    ],
)
def test_bad_input_fails_before_playing(argv, message, capsys, tmp_path):
    assert_clean_error(cli.main, [*argv, "--out", str(tmp_path / "x"), "--no-progress"],
                       message, capsys)  # fmt: skip
    assert not (tmp_path / "x").exists()


def test_bench_evaluate_row_runs_quick():
    from uno_rl.programs.bench.program_rows import evaluate_row

    row = evaluate_row(rounds=2000, workers=1)
    assert (
        row["name"] == "evaluate"
        and row["rounds_per_s"] > 0
        and np.isfinite(row["decisions_per_s"])
    )


def test_a_difference_the_same_on_every_deal_is_said_in_words(tmp_path, capsys):
    # color-first wins every match against random on these deals: no spread, no interval.
    code = cli.main(["color-first", "random", "--matches", "6", "--workers", "1", "--seed", "1",
                     "--out", str(tmp_path / "ev"), "--no-progress"])  # fmt: skip
    assert code == 0
    text = capsys.readouterr().out
    assert "matches won +100.00% (the same on every deal: no interval), p = -" in text
    assert "nan" not in text
    pairs = pd.read_parquet(tmp_path / "ev" / "pairs.parquet")
    assert pairs["match_diff_low"].isna().all() and (pairs["match_win_difference"] == 1).all()


def test_a_single_deal_says_there_is_no_paired_test(tmp_path, capsys):
    # 4 rounds at 4 players in table mode: one deal, played from every seat.
    code = cli.main(["color-first", "random", "random", "random", "--players", "4", "--rounds",
                     "4", "--workers", "1", "--out", str(tmp_path / "ev"), "--no-progress"])  # fmt: skip
    assert code == 0
    text = capsys.readouterr().out
    assert "paired over 1 deal (" in text and "fewer than 2 deals: no paired test" in text
    assert "nan" not in text
