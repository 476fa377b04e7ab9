"""The +4 bluff study: the shipped config, its quick run end to end, the analysis pieces."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from uno_rl import experiment
from uno_rl.analysis.study import (
    best_responses,
    challenge_label,
    mark_equilibrium_region,
    matrix_equilibrium,
    narrative,
)
from uno_rl.eval.config import load_config

ROOT = Path(__file__).resolve().parents[2]
BLUFF = ROOT / "experiments" / "bluff.toml"


def test_shipped_study_spans_the_whole_sweep():
    config = load_config(BLUFF)
    assert config.analysis == "bluff"
    assert sorted({c.players for c in config.cells}) == [2, 3, 4, 6]
    variants = {c.variant for c in config.cells}
    assert len(variants) == 4  # caught-bluffer rule x +4 legality
    for cell in config.cells:
        assert len(cell.matchups) == 11 * 5 and cell.rounds >= 20_000
        focal = [m.lineup[0] for m in cell.matchups]
        assert [f"color-first:bluff={b / 10:.1f}" for b in range(11)] == list(dict.fromkeys(focal))
        official = cell.rules.caught_bluffer == "draws-4" and (
            cell.rules.draw_four_legal == "no-current-color"
        )
        headline = official and cell.players in (2, 4)
        assert (cell.rounds >= 200_000) == headline, cell.variant


@pytest.fixture
def quick_run(bluff_quick_run):
    return bluff_quick_run


def test_quick_study_writes_every_output(quick_run):
    for name in ("bluff", "best_responses", "equilibrium", "calibration", "calibration_scores"):
        assert (quick_run / f"{name}.parquet").is_file() and (quick_run / f"{name}.csv").is_file()
    assert (quick_run / "calibration_samples.parquet").is_file()
    heatmaps = sorted(quick_run.glob("heatmap-*.png"))
    assert len(heatmaps) == 2 and all(p.stat().st_size > 5000 for p in heatmaps)
    assert (quick_run / "calibration.png").stat().st_size > 5000
    assert (quick_run / "DONE").is_file()


def test_quick_study_table_is_sane(quick_run):
    table = pd.read_parquet(quick_run / "bluff.parquet")
    config = json.loads((quick_run / "config.json").read_text())
    assert len(table) == len(config["cells"]) * 3 * 3
    assert set(table["challenge"]) == {"never", "always", "bayes"}
    assert set(table["bluff"]) == {0.0, 0.5, 1.0}
    assert table["win_rate"].between(0, 1).all()
    assert (table["win_low"] <= table["win_rate"]).all()
    assert (table["win_rate"] <= table["win_high"]).all()
    assert (table["penalty"] >= 0).all()
    none = table[table["bluff"] == 0.0]
    assert (none["gain"] == 0).all() and (none["bluffs_per_round"] == 0).all()
    assert (none["bluff_share"] == 0).all() and none["points_per_bluff"].isna().all()
    some = table[table["bluff"] > 0]
    assert (some["bluffs_per_round"] > 0).all() and (some["bluff_share"] > 0).all()
    # Never-challengers never challenge: every +4 moves 4 cards, no challenge succeeds.
    never = table[table["challenge"] == "never"]
    assert np.allclose(never["cards_per_draw4"], 4.0)
    assert never["challenge_success"].isna().all() and (some.loc[some.challenge == "never",
                                                                  "bluff_challenged"] == 0).all()  # fmt: skip
    # Always-challengers challenge every bluff; a legal +4 challenged moves 6 cards.
    always = some[some["challenge"] == "always"]
    # (a round cut at max_turns between a bluff and its challenge leaves one unchallenged)
    assert (always["bluff_challenged"] > 0.99).all()
    assert np.allclose(always.loc[always.variant.str.contains("draws-4"), "bluff_challenged"], 1)
    assert (
        table.loc[(table.challenge == "always") & (table.bluff == 0), "cards_per_draw4"] == 6
    ).all()
    # The headline cells got their focus rounds.
    headline = table[table["variant"].str.contains("draws-4")]
    assert (headline["rounds"] >= 2000).all()
    assert (table[~table["variant"].str.contains("draws-4")]["rounds"] < 2000).all()
    assert table["equilibrium_like"].any()


def test_quick_study_best_answers_equilibrium_and_calibration(quick_run):
    best = pd.read_parquet(quick_run / "best_responses.parquet")
    assert set(best["responder"]) == {"bluffer", "challenger"}
    assert all(b in t.split(",") for b, t in zip(best["best"], best["tied"]))
    eq = pd.read_parquet(quick_run / "equilibrium.parquet")
    sums = eq.groupby(["variant", "players", "side"])["weight"].sum()
    assert np.allclose(sums, 1.0)
    scores = pd.read_parquet(quick_run / "calibration_scores.parquet")
    # Headline cells x the bluff probabilities 0.5 and 1.0 of the quick config.
    assert len(scores) == 2 * 2 and (scores["draw4s"] > 300).all()
    assert (scores["brier"] < scores["base_brier"]).all()  # the estimate carries information
    reliability = pd.read_parquet(quick_run / "calibration.parquet")
    assert reliability.groupby("setting")["count"].sum().tolist() == scores["draw4s"].tolist()


def test_same_seed_same_tables(tmp_path):
    config = tmp_path / "mini.toml"
    config.write_text(
        """
seed = 5
rounds = 200
rating_rounds = 0
analysis = "bluff"
[grid]
presets = ["official"]
players = [2]
[agents]
focal = ["color-first:bluff=0.0", "color-first:bluff=1.0"]
opponents = ["color-first:challenge=never", "color-first:challenge=bayes"]
"""
    )
    tables = []
    for runs in ("a", "b"):
        args = [str(config), "--runs-dir", str(tmp_path / runs), "--workers", "1", "--no-progress"]
        assert experiment.main(args) == 0
        (run,) = (tmp_path / runs / "mini").iterdir()
        tables.append([pd.read_parquet(run / f"{n}.parquet") for n in ("bluff", "calibration")])
    for first, second in zip(*tables):
        pd.testing.assert_frame_equal(first, second)


def test_challenge_labels():
    base = {"challenge": "threshold", "challenge_hand": 4, "challenge_color": False}
    assert challenge_label(base) == "hand>=4"
    assert challenge_label({**base, "challenge_hand": 0, "challenge_color": True}) == "color"
    assert challenge_label({**base, "challenge_color": True}) == "hand>=4|color"
    assert challenge_label({**base, "challenge": "bayes"}) == "bayes"


def test_matrix_equilibrium_of_known_games():
    rps = np.array([[0, -1, 1], [1, 0, -1], [-1, 1, 0]], float)
    rows, cols, value = matrix_equilibrium(rps, iterations=30_000)
    assert np.allclose(rows, 1 / 3, atol=0.02) and np.allclose(cols, 1 / 3, atol=0.02)
    assert abs(value) < 0.01
    # A dominant row and a dominant column: a pure equilibrium.
    game = np.array([[0.6, 0.7], [0.4, 0.5]])
    rows, cols, value = matrix_equilibrium(game, iterations=2000)
    assert rows[0] > 0.99 and cols[0] > 0.99 and value == pytest.approx(0.6, abs=1e-3)


def _synthetic_table():
    rows = []
    win = {(0.0, "never"): 0.50, (0.0, "always"): 0.55, (1.0, "never"): 0.60, (1.0, "always"): 0.40}
    for (bluff, policy), rate in win.items():
        rows.append({
            "variant": "official", "players": 2, "bluff": bluff, "challenge": policy,
            "win_rate": rate, "win_low": rate - 0.01, "win_high": rate + 0.01, "rounds": 1000,
            "gain": rate - win[(0.0, policy)], "gain_low": 0.0, "gain_high": 0.0,
            "points_per_bluff": np.nan,
        })  # fmt: skip
    return pd.DataFrame(rows)


def test_best_responses_and_region_on_a_known_matrix():
    table = _synthetic_table()
    best = best_responses(table).set_index(["responder", "against"])
    assert best.loc[("bluffer", "never"), "best"] == "1"  # bluff against a never-challenger
    assert best.loc[("bluffer", "always"), "best"] == "0"
    assert best.loc[("challenger", "1"), "best"] == "always"
    assert best.loc[("challenger", "0"), "best"] == "never"
    region = mark_equilibrium_region(table, best_responses(table))
    # A cycle (like matching pennies): no pair answers each other.
    assert not region["equilibrium_like"].any()
    eq = pd.DataFrame(
        [
            ("official", 2, "bluffer", "0", 0.5, 0.5),
            ("official", 2, "challenger", "never", 1.0, 0.5),
        ],
        columns=["variant", "players", "side", "strategy", "weight", "value"],
    )
    lines = narrative(region, best_responses(table), eq)
    assert any("mutual best answers (bluff, policy): none" in line for line in lines)
    assert any("against `never`: best bluff probability 1" in line for line in lines)
