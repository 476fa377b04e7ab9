"""The +4 bluff study: the shipped config, its quick run end to end, the analysis pieces."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from uno_rl.analysis.equilibrium import (
    best_responses,
    mark_equilibrium_region,
    matrix_equilibrium,
)
from uno_rl.analysis.study import challenge_label, narrative, study_summary
from uno_rl.analysis.study_plots import heatmap_figure
from uno_rl.experiments.config import load_config
from uno_rl.programs import experiment

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


def test_shipped_quick_study_spans_every_player_count_and_rule():
    """``--quick`` keeps the grid (the suite's quick run is a smaller one: small_bluff)."""
    config = load_config(BLUFF, quick=True)
    assert config.name == "bluff-quick"
    assert sorted({c.players for c in config.cells}) == [2, 3, 4, 6]
    assert len({c.variant for c in config.cells}) == 4
    for cell in config.cells:
        assert len(cell.matchups) == 3 * 3
        headline = cell.variant == "official" and cell.players in (2, 4)
        assert cell.rounds == (2000 if headline else 600), cell.variant


@pytest.fixture
def quick_run(bluff_quick_run):
    return bluff_quick_run


def test_quick_study_writes_every_output(quick_run):
    for name in ("bluff", "best_responses", "equilibrium", "calibration", "calibration_scores"):
        assert (quick_run / f"{name}.parquet").is_file() and (quick_run / f"{name}.csv").is_file()
    assert (quick_run / "calibration_samples.parquet").is_file()
    heatmaps = sorted(quick_run.glob("heatmap-*.png"))  # one per rule variant
    assert len(heatmaps) == 4 and all(p.stat().st_size > 5000 for p in heatmaps)
    assert (quick_run / "calibration.png").stat().st_size > 5000
    assert (quick_run / "DONE").is_file()


def test_quick_study_says_so_in_its_summary_and_plots(quick_run):
    from PIL import Image

    summary = study_summary(quick_run).splitlines()
    assert summary[0].startswith("Quick run (300 to 2,000 rounds a cell): too small for findings")
    gains = [line for line in summary if "always bluffing changes the win rate" in line]
    assert gains and all("(95% interval)" in line for line in gains)
    for path in [*quick_run.glob("heatmap-*.png"), quick_run / "calibration.png"]:
        with Image.open(path) as image:
            assert image.text["Title"].startswith("QUICK RUN, not a finding:\n"), path.name


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
    assert np.allclose(always.loc[always.caught_bluffer == "draws-4", "bluff_challenged"], 1)
    assert (
        table.loc[(table.challenge == "always") & (table.bluff == 0), "cards_per_draw4"] == 6
    ).all()
    # The headline cells got their focus rounds.
    official = (table["caught_bluffer"] == "draws-4") & (
        table["draw_four_legal"] == "no-current-color"
    )
    headline = official & table["players"].isin([2, 4])
    assert (table.loc[headline, "rounds"] >= 2000).all()
    assert (table.loc[~headline, "rounds"] < 2000).all()
    # Short labels: what differs from the preset (official already has draws-4).
    assert set(table.loc[official, "variant"]) == {"official"}
    assert set(table.loc[~official, "variant"]) == {
        "official, caught_bluffer=takes-back",
        "official, draw_four_legal=no-playable-card",
        "official, caught_bluffer=takes-back, draw_four_legal=no-playable-card",
    }
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
    # Rock-paper-scissors (as win rates: 0.5 plus the antisymmetric game): uniform, value 0.5.
    rps = 0.5 + 0.5 * np.array([[0, -1, 1], [1, 0, -1], [-1, 1, 0]], float)
    rows, cols, value = matrix_equilibrium(rps)
    assert np.allclose(rows, 1 / 3, atol=1e-9) and np.allclose(cols, 1 / 3, atol=1e-9)
    assert value == pytest.approx(0.5, abs=1e-9)
    # A dominant row and a dominant column: a pure equilibrium, weight exactly 1.
    game = np.array([[0.6, 0.7], [0.4, 0.5]])
    rows, cols, value = matrix_equilibrium(game)
    assert rows == pytest.approx([1.0, 0.0], abs=1e-9) and cols == pytest.approx([1.0, 0.0])
    assert value == pytest.approx(0.6, abs=1e-9)
    # 2 x 2 without a saddle point: x = (d - c) / (a - b - c + d), value (ad - bc) / (...).
    (a, b), (c, d) = game = np.array([[0.7, 0.3], [0.4, 0.6]])
    rows, cols, value = matrix_equilibrium(game)
    denominator = a - b - c + d
    assert rows == pytest.approx([(d - c) / denominator, (a - b) / denominator], abs=1e-9)
    assert cols == pytest.approx([(d - b) / denominator, (a - c) / denominator], abs=1e-9)
    assert value == pytest.approx((a * d - b * c) / denominator, abs=1e-9)
    # Rectangular (3 bluff probabilities x 2 policies): the outer rows mixed 0.6 / 0.4 hold
    # 0.5 against both columns; the middle row (0.45 either way) gets no weight.
    game = np.array([[0.7, 0.3], [0.45, 0.45], [0.2, 0.8]])
    rows, cols, value = matrix_equilibrium(game)
    assert rows == pytest.approx([0.6, 0.0, 0.4], abs=1e-9) and value == pytest.approx(0.5)
    assert cols == pytest.approx([0.5, 0.5], abs=1e-9)
    for bad in (np.zeros((0, 2)), np.zeros(3), np.array([[0.5, np.nan]])):
        with pytest.raises(ValueError, match="payoff matrix"):
            matrix_equilibrium(bad)


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
    assert any(
        "against `never`: best bluff probability 1 (win rate 60.0%)" in line for line in lines
    )


def test_narrative_names_no_best_where_the_cells_are_not_separable():
    table = _synthetic_table()
    wide = table["challenge"] == "never"  # 0.50 and 0.60 with intervals that overlap
    table.loc[wide, "win_low"] = table.loc[wide, "win_rate"] - 0.08
    table.loc[wide, "win_high"] = table.loc[wide, "win_rate"] + 0.08
    best = best_responses(table)
    tied = best.set_index(["responder", "against"]).loc[("bluffer", "never"), "tied"]
    assert sorted(tied.split(",")) == ["0", "1"]
    region = mark_equilibrium_region(table, best)
    eq = pd.DataFrame(columns=["variant", "players", "side", "strategy", "weight", "value"])
    lines = narrative(region, best, eq)
    (never,) = [line for line in lines if "against `never`" in line]
    assert "best bluff probability 1" not in never
    assert "no single best bluff probability: 0, 1 are not separable" in never
    assert "(win rates 50.0% to 60.0%)" in never
    (always,) = [line for line in lines if "against `always`" in line]
    assert "best bluff probability 0 (win rate 55.0%)" in always  # that one is separable


def test_heatmap_colorbar_and_cells_are_in_percentage_points():
    import matplotlib.pyplot as plt

    rows = []
    for players in (2, 3, 4):
        for policy in ("never", "hand>=4|color"):
            for bluff, gain in ((0.0, 0.0), (0.5, 0.031), (1.0, -0.124)):
                rows.append((players, policy, bluff, gain))
    part = pd.DataFrame(rows, columns=["players", "challenge", "bluff", "gain"])
    fig = heatmap_figure(part, "official, caught_bluffer=takes-back")
    try:
        panels = [ax for ax in fig.axes if ax.get_visible() and ax.images]
        bar_ax = next(ax for ax in fig.axes if ax.get_label() == "<colorbar>")
        assert len(panels) == 3 and sum(not ax.get_visible() for ax in fig.axes) == 1
        image = panels[0].images[0]
        # The colour scale is in percentage points, symmetric about 0: the largest |gain|.
        assert (image.norm.vmin, image.norm.vmax) == pytest.approx((-12.4, 12.4))
        fig.canvas.draw()
        ticks = [t.get_text() for t in bar_ax.get_yticklabels() if t.get_text()]
        assert "0 pp" in ticks and all(t.endswith(" pp") for t in ticks)
        assert "+10 pp" in ticks and "-10 pp" in ticks
        assert "percentage points" in bar_ax.get_ylabel()
        # Cells: the same unit; text colour by the cell's luminance (white on dark red).
        texts = {t.get_text(): t.get_color() for t in panels[0].texts}
        assert set(texts) == {"0.0", "+3.1", "-12.4"}
        assert texts["-12.4"] == "white" and texts["0.0"] == "black" and texts["+3.1"] == "black"
        # Row labels only on the first panel of each row: none spill into the next panel.
        labelled = [any(t.get_visible() and t.get_text() for t in ax.get_yticklabels())
                    for ax in panels]  # fmt: skip
        assert labelled == [True, False, True]
        assert "official, caught_bluffer=takes-back" in fig._suptitle.get_text()
        # No panel overlaps another once drawn (constrained layout).
        boxes = [ax.get_tightbbox() for ax in panels]
        for i, first in enumerate(boxes):
            for second in boxes[i + 1 :]:
                assert not first.overlaps(second)
    finally:
        plt.close(fig)
