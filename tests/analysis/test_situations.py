"""The bluff study by situation: the shipped config, its quick run, the tables on synthetic
outcomes with known answers, the behaviour recorder, the deal table, bad config input."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from uno_rl.analysis.behaviour import behaviour_samples, behaviour_table
from uno_rl.analysis.situation_plots import behaviour_figure, situations_figure
from uno_rl.analysis.situations import (
    best_answers,
    field_table,
    policy_label,
    rule_of_thumb,
    run_note,
    situation_summary,
    situation_table,
)
from uno_rl.core.rules import load_rules
from uno_rl.eval.run import evaluate_variant
from uno_rl.eval.tournament import Matchup
from uno_rl.experiments.config import ConfigError, load_config
from uno_rl.programs import experiment

ROOT = Path(__file__).resolve().parents[2]
WHEN = ROOT / "experiments" / "bluff-when.toml"
RULES = load_rules("official", players=2)


def test_shipped_study_spans_players_rules_sides_and_matches():
    config = load_config(WHEN)
    assert config.analysis == "bluff-when"
    every_rule = {
        (caught, legal)
        for caught in ("draws-4", "takes-back", "loses-turn")
        for legal in ("no-current-color", "no-playable-card")
    }
    for unit in ("rounds", "matches"):  # every player count and +4 rule, in both measures
        cells = [c for c in config.cells if c.unit == unit]
        assert sorted({c.players for c in cells}) == [2, 3, 4, 6]
        assert {(c.rules.caught_bluffer, c.rules.draw_four_legal) for c in cells} == every_rule
        assert len(cells) == 2 * 4 * len(every_rule)  # both sides
    official = {(c.unit, c.players): c.rounds for c in config.cells if c.variant == "official"}
    assert official[("rounds", 2)] == official[("rounds", 4)] == 20_000  # the focus cells
    official_matches = {
        c.players: c.rounds for c in config.cells if c.variant == "official, match=true"
    }
    assert official_matches == {2: 500, 3: 200, 4: 500, 6: 200}
    labels = set()
    for cell in config.cells:
        focal = {m.lineup[0] for m in cell.matchups}
        assert "color-first" in focal  # the plain agent every gain is paired against
        for spec in focal:
            from uno_rl.agents import make_agent

            labels.add(policy_label(dict(make_agent(spec, cell.rules).params)))
    for expected in ("bluff if next<=1", "bluff if hand>=7", "bluff if color>=3",
                     "bluff if wilds<=0", "bluff if lead<=-100", "bluff if top>=300",
                     "challenge if their>=5", "challenge if named=kept", "challenge if own<=1",
                     "challenge if lead<=-100", "challenge bayes"):  # fmt: skip
        assert expected in labels
    agents = {a for entry in config.behaviour for a in entry["agents"]}
    assert {"ppo-official-2p-v1", "ppo-bluff-allowed-2p", "ppo-official-4p-v1", "pimc"} <= agents


def test_shipped_quick_study_spans_every_player_count_rule_and_measure():
    """``--quick`` keeps the grid (the suite's quick run is a smaller one: small_bluff)."""
    config = load_config(WHEN, quick=True)
    assert config.name == "bluff-when-quick"
    for unit in ("rounds", "matches"):
        cells = [c for c in config.cells if c.unit == unit]
        assert sorted({c.players for c in cells}) == [2, 3, 4, 6]
        assert len({c.variant for c in cells}) == 6
    assert max(c.rounds for c in config.cells) <= 1000
    assert [entry["agents"] for entry in config.behaviour] == [["ppo-official-2p-v1"]]


def test_policy_labels():
    from uno_rl.agents import make_agent

    def label(spec):
        return policy_label(dict(make_agent(spec, RULES).params))

    assert label("color-first") == "plain"
    assert label("color-first:bluff=1.0") == "bluff always"
    assert label("color-first:bluff=0.5,bluff_next_max=2") == "bluff 0.5 if next<=2"
    assert label("color-first:challenge=always,challenge_own_max=1") == "challenge if own<=1"
    assert label("color-first:challenge=bayes,challenge_their_min=5") == (
        "challenge bayes if their>=5"
    )
    assert label("color-first:challenge=threshold,challenge_hand=4") == "challenge hand>=4"


# ------------------------------------------------------------------ synthetic run
def synthetic_run(folder: Path, gains: dict[tuple[str, str], float], deals: int = 400) -> Path:
    """A finished-run folder with known per-deal scores: the plain agent scores noise around
    0 against each opponent, every other focal agent the same noise plus its gain (so the
    paired difference is exactly the gain on every deal but for a small jitter)."""
    rng = np.random.default_rng(0)
    opponents = sorted({o for _, o in gains})
    focals = ["color-first", *sorted({f for f, _ in gains})]
    lineups = [(f, o) for o in opponents for f in focals]
    rows, agents = [], []
    base = {o: rng.normal(0, 30, deals) for o in opponents}
    for focal, opponent in lineups:
        label = Matchup((focal, opponent)).label
        gain = gains.get((focal, opponent), 0.0)
        points = base[opponent] + gain + (rng.normal(0, 0.5, deals) if gain else 0.0)
        wins = np.clip(0.5 + points / 200, 0, 1)
        rows.append(pd.DataFrame({"variant": "official", "players": 2, "matchup": label,
                                  "agent": focal, "deal": np.arange(deals), "wins": wins,
                                  "points": points}))  # fmt: skip
        uses = 0.0 if focal == "color-first" else 0.5
        for agent in dict.fromkeys((focal, opponent)):
            agents.append({"variant": "official", "players": 2, "matchup": label,
                           "agent": agent, "points": float(points.mean()),
                           "win_rate": float(wins.mean()), "bluffs": uses,
                           "challenges": uses})  # fmt: skip
    pd.concat(rows, ignore_index=True).to_parquet(folder / "deals.parquet")
    pd.DataFrame(agents).to_parquet(folder / "agents.parquet")
    cell = {"index": 0, "variant": "official", "players": 2, "rounds": 2 * deals,
            "unit": "rounds", "rules": RULES.to_dict(),
            "matchups": [list(m) for m in lineups]}  # fmt: skip
    config = {"seed": 0, "confidence": 0.99, "cells": [cell], "behaviour": []}
    (folder / "config.json").write_text(json.dumps(config))
    return folder


GAINS = {
    ("color-first:bluff=1.0", "color-first:challenge=never"): 3.0,
    ("color-first:bluff=1.0", "color-first:challenge=bayes"): -1.0,
    ("color-first:bluff=1.0,bluff_next_max=2", "color-first:challenge=never"): 1.0,
    ("color-first:bluff=1.0,bluff_next_max=2", "color-first:challenge=bayes"): 1.0,
    ("color-first:bluff=1.0,bluff_hand_min=7", "color-first:challenge=never"): -4.0,
    ("color-first:bluff=1.0,bluff_hand_min=7", "color-first:challenge=bayes"): -6.0,
    ("color-first:challenge=always", "color-first:challenge=never"): 0.0,
    ("color-first:challenge=always", "color-first:challenge=bayes"): 0.0,
}


def test_situation_table_recovers_known_paired_gains(tmp_path):
    table = situation_table(synthetic_run(tmp_path, GAINS)).set_index(["policy", "against"])
    for (focal, opponent), gain in GAINS.items():
        from uno_rl.agents import make_agent

        key = (policy_label(dict(make_agent(focal, RULES).params)),
               policy_label(dict(make_agent(opponent, RULES).params)))  # fmt: skip
        row = table.loc[key]
        assert row["points_gain"] == pytest.approx(gain, abs=0.1)
        assert row["points_gain_low"] <= row["points_gain"] <= row["points_gain_high"]
        # paired: the interval is as narrow as the jitter, not as wide as the 30-point noise
        assert row["points_gain_high"] - row["points_gain_low"] < 0.3
        assert row["deals"] == 400 and row["uses_per_round"] == pytest.approx(0.5)
        if gain:
            assert row["points_per_use"] == pytest.approx(gain / 0.5, abs=0.3)
    assert set(table["side"]) == {"bluff", "challenge"}
    assert "plain" not in table.index.get_level_values("policy")


def test_best_answers_of_a_cell_without_intervals_name_no_best_policy(tmp_path):
    """A cell with a single deal has no interval (nan gains): every policy there is
    unclear, none is best, and the rule of thumb is still written."""
    field = field_table(synthetic_run(tmp_path, GAINS))
    gains = [c for c in field.columns if c.startswith(("points_gain", "win_gain"))]
    field.loc[field["side"] == "bluff", gains] = np.nan
    answers = best_answers(field)
    bluff = answers[answers["side"] == "bluff"]
    assert len(bluff) and (bluff["verdict"] == "unclear").all()
    assert not bluff["best"].any() and not bluff["tied"].any()
    assert answers.loc[answers["side"] == "challenge", "best"].sum() >= 1
    assert rule_of_thumb(answers)[0] == "# The +4 bluff: a rule of thumb"


def test_field_best_answers_and_rule_of_thumb_follow_the_gains(tmp_path):
    field = field_table(synthetic_run(tmp_path, GAINS)).set_index("policy")
    assert field.loc["bluff always", "points_gain"] == pytest.approx(1.0, abs=0.1)  # (3 - 1) / 2
    assert field.loc["bluff if next<=2", "points_gain"] == pytest.approx(1.0, abs=0.1)
    assert field.loc["bluff if hand>=7", "points_gain"] == pytest.approx(-5.0, abs=0.1)
    answers = best_answers(field.reset_index()).set_index("policy")
    assert answers.loc["bluff if hand>=7", "verdict"] == "costs"
    assert answers.loc["bluff if next<=2", "verdict"] == "pays"
    assert answers.loc["challenge always", "verdict"] == "unclear"  # exactly 0 on every deal
    assert answers.loc[["bluff always", "bluff if next<=2"], "tied"].all()
    assert not answers.loc["bluff if hand>=7", "tied"]
    best = answers[answers["best"] & (answers["side"] == "bluff")].index
    assert list(best) in (["bluff always"], ["bluff if next<=2"])
    text = rule_of_thumb(answers.reset_index())
    assert text[0] == "# The +4 bluff: a rule of thumb" and "over 1 cells" in text[2]
    bluffing = text[text.index("## Bluffing a +4") + 1 : text.index("## Challenging a +4") - 1]
    assert len(bluffing) == 3  # one line per bluff policy, the paying ones first
    assert bluffing[0].startswith("- **Do** bluff ") and bluffing[1].startswith("- **Do** bluff ")
    assert "when next<=2: pays in 1, costs in 0 of 1 cells" in "".join(bluffing[:2])
    assert bluffing[2].startswith("- **Don't** bluff when hand>=7: pays in 0, costs in 1 of 1")
    assert "(official: 2 players -5.00 [" in bluffing[2]
    assert any(line.startswith("- No clear effect: challenge at every chance") for line in text)
    (cell,) = [line for line in text if line.startswith("- **official, 2 players** (rounds)")]
    assert "bluff: best `bluff " in cell and "challenge: best `challenge always`" in cell
    assert cell.endswith("pays nowhere")


def test_a_full_run_carries_no_quick_warning(tmp_path):
    folder = synthetic_run(tmp_path, GAINS)
    config = {**json.loads((folder / "config.json").read_text()), "name": "bluff-when"}
    field = field_table(folder)
    note = run_note(config, field)
    assert note == ""
    text = "\n".join(rule_of_thumb(best_answers(field), config["confidence"], note))
    assert "Quick run" not in text and "99% interval" in text
    fig = situations_figure(field, "official", "rounds", note)
    assert "QUICK" not in fig.get_suptitle()
    quick = {**config, "name": "bluff-when-quick"}
    assert run_note(quick, field).startswith("Quick run (400 paired deals a cell)")


def situations_of_two_tables(folder: Path) -> pd.DataFrame:
    """The synthetic field at 2 players and again at 4 with gains ten times as large."""
    field = field_table(synthetic_run(folder, GAINS))
    wide = field.assign(players=4)
    for column in [c for c in field.columns if c.startswith("points_gain")]:
        wide[column] = field[column] * 10
    return pd.concat([field, wide], ignore_index=True)


def test_situation_panels_share_one_x_scale(tmp_path):
    import matplotlib.pyplot as plt

    fig = situations_figure(situations_of_two_tables(tmp_path), "official", "rounds")
    limits = {ax.get_xlim() for ax in fig.axes}
    plt.close(fig)
    assert len(fig.axes) == 4 and len(limits) == 1
    (low, high) = limits.pop()
    assert low < -50 and high > 10  # the 4-player gains (-50 to +10) fit every panel


def synthetic_behaviour() -> pd.DataFrame:
    """A behaviour table of two agents at 2 and 4 players, rates spanning the whole axis."""
    rows = []
    for players in (2, 4):
        for side, feature in (("bluff", "next_hand"), ("challenge", "their_hand")):
            for agent, kind in (("ppo-official-2p", "given"), ("color-first:bluff=1.0", "best bluffer"),
                                ("color-first:challenge=always", "best challenger")):  # fmt: skip
                for order, rate in enumerate((0.02, 0.5, 0.98)):
                    rows.append({"players": players, "side": side, "feature": feature,
                                 "agent": agent, "kind": kind, "order": order, "bin": str(order),
                                 "rate": rate, "rate_low": rate - 0.02,
                                 "rate_high": rate + 0.02, "bluff_share": 0.9})  # fmt: skip
    return pd.DataFrame(rows)


def test_behaviour_legends_lie_outside_their_panels():
    import matplotlib.pyplot as plt

    fig = behaviour_figure(synthetic_behaviour())
    fig.savefig(Path("/dev/null"), format="png")
    fig.canvas.draw()
    for ax in fig.axes:
        legend = ax.get_legend()
        assert legend is not None
        box, area = legend.get_window_extent(), ax.get_window_extent()
        assert not box.overlaps(area), ax.get_title()
    plt.close(fig)


def test_behaviour_table_counts_known_samples():
    bluffs = pd.DataFrame({
        "next_hand": [1, 1, 1, 2, 6, 6], "own_hand": [5] * 6, "color_cards": [1, 1, 2, 3, 3, 3],
        "wilds": [0] * 6, "their_hand": [0] * 6, "kept_color": [0] * 6, "lead": [0] * 6,
        "top_score": [0] * 6, "turn": [10] * 6,
        "bluffed": [True, True, False, True, False, False],
        "challenged": [True, False, False, False, False, False],
    })  # fmt: skip
    challenges = pd.DataFrame({
        "next_hand": [3] * 4, "own_hand": [1, 3, 3, 9], "color_cards": [0] * 4, "wilds": [0] * 4,
        "their_hand": [2, 6, 6, 9], "kept_color": [0, 1, 1, 0], "lead": [0] * 4,
        "top_score": [0] * 4, "turn": [5] * 4, "challenged": [False, True, True, True],
        "was_bluff": [False, True, False, True],
    })  # fmt: skip
    table = behaviour_table(bluffs, challenges, RULES).set_index(["side", "feature", "bin"])
    first = table.loc[("bluff", "next_hand", "1")]
    assert (first["chances"], first["taken"], first["rate"]) == (3, 2, pytest.approx(2 / 3))
    assert first["answered"] == pytest.approx(0.5)
    assert first["rate_low"] < 2 / 3 < first["rate_high"]
    assert table.loc[("bluff", "all", "all"), "taken"] == 3
    assert ("bluff", "next_hand", "3-4") not in table.index  # no chance: no row
    kept = table.loc[("challenge", "kept_color", "kept")]
    assert (kept["chances"], kept["rate"], kept["success"]) == (2, 1.0, 0.5)
    assert table.loc[("challenge", "their_hand", "8+"), "bluff_share"] == 1.0
    assert table.loc[("challenge", "all", "all"), "break_even"] == pytest.approx(1 / 3)


# ---------------------------------------------------------------- the recorder
def test_behaviour_samples_record_exactly_what_the_policies_do():
    bluffs, challenges = behaviour_samples(
        RULES, "color-first:bluff=1.0,bluff_next_max=2,challenge=always,challenge_their_min=5",
        "color-first:bluff=0.5,challenge=always", 400, seed=3,
    )  # fmt: skip
    assert len(bluffs) > 50 and len(challenges) > 50
    assert (bluffs["bluffed"] == (bluffs["next_hand"] <= 2)).all()
    assert bluffs["bluffed"].any() and not bluffs["bluffed"].all()
    # the opponent always challenges: every recorded bluff was answered, no other chance was
    assert (bluffs["challenged"] == bluffs["bluffed"]).all()
    assert (challenges["challenged"] == (challenges["their_hand"] >= 5)).all()
    assert challenges["was_bluff"].any() and not challenges["was_bluff"].all()
    again = behaviour_samples(
        RULES, "color-first:bluff=1.0,bluff_next_max=2,challenge=always,challenge_their_min=5",
        "color-first:bluff=0.5,challenge=always", 400, seed=3,
    )  # fmt: skip
    pd.testing.assert_frame_equal(bluffs, again[0])
    pd.testing.assert_frame_equal(challenges, again[1])


def test_behaviour_samples_of_honest_players_have_no_bluffs():
    bluffs, challenges = behaviour_samples(RULES, "color-first", "color-first", 300, seed=1)
    assert len(bluffs) > 0 and not bluffs["bluffed"].any()
    assert len(challenges) > 0 and not challenges["was_bluff"].any()
    none = behaviour_samples(load_rules("official", players=2, stacking="any"), "color-first",
                             "color-first", 60)  # fmt: skip
    assert len(none[0]) == len(none[1]) == 0  # no challenge under stacking: no chance


def test_deal_table_pairs_the_match_ups_of_a_cell():
    matchups = [Matchup(("color-first", "rule")), Matchup(("color-first:bluff=1.0", "rule"))]
    result = evaluate_variant(RULES, "official", matchups, 400, seed=5, workers=1,
                              rating_rounds=0, progress=False, deal_scores=True)  # fmt: skip
    deals = result.deals
    assert list(deals.groupby("matchup", sort=False).size()) == [200, 200]
    for matchup in matchups:
        part = deals[deals["matchup"] == matchup.label]
        agent = result.agents[(result.agents["matchup"] == matchup.label)
                              & (result.agents["agent"] == matchup.lineup[0])].iloc[0]  # fmt: skip
        assert part["points"].mean() == pytest.approx(agent["points"])
        assert part["wins"].mean() == pytest.approx(agent["win_rate"])
    plain = evaluate_variant(RULES, "official", matchups, 400, seed=5, workers=1,
                             rating_rounds=0, progress=False)  # fmt: skip
    assert plain.deals is None


# ------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ('players = 2\nagents = ["rule"]\nopponent = "rule"\nrounds = 10\nfoo = 1',
         "behaviour[0].foo: unknown key"),
        ('players = 2\nagents = ["nobody"]\nopponent = "rule"\nrounds = 10',
         "behaviour[0].agents:"),
        ('players = 2\nagents = ["rule"]\nopponent = "rule"', "behaviour[0].rounds: required"),
        ('players = 2\nagents = ["rule"]\nopponent = "rule"\nrounds = 0',
         "behaviour[0].rounds: must be an integer"),
        ('players = 2\nagents = ["rule"]\nopponent = "rule:bluff=2"\nrounds = 5',
         "behaviour[0].opponent:"),
    ],
)  # fmt: skip
def test_bad_behaviour_entries_fail_in_one_line(tmp_path, entry, message, capsys):
    path = tmp_path / "bad.toml"
    path.write_text(
        'rounds = 10\nanalysis = "bluff-when"\n[grid]\npresets = ["official"]\nplayers = [2]\n'
        f'[agents]\nspecs = ["rule", "color-first"]\n[[behaviour]]\n{entry}\n'
    )
    with pytest.raises(ConfigError, match=message.replace("[", r"\[").replace("]", r"\]")):
        load_config(path)
    assert experiment.main([str(path), "--runs-dir", str(tmp_path / "runs")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message.split(":")[0] in err[0]


# -------------------------------------------------------------------- quick run
def test_quick_run_writes_every_output(bluff_when_quick_run):
    run = bluff_when_quick_run
    for name in ("situations", "field", "best_answers", "behaviour", "calibration",
                 "calibration_scores"):  # fmt: skip
        assert (run / f"{name}.parquet").is_file() and (run / f"{name}.csv").is_file(), name
    assert (run / "deals.parquet").is_file() and not (run / "deals.csv").exists()
    plots = sorted(run.glob("situations-*.png"))
    assert len(plots) == 12 and all(p.stat().st_size > 5000 for p in plots)  # 6 rules x 2 units
    for name in ("behaviour.png", "calibration.png"):
        assert (run / name).stat().st_size > 5000
    assert "# The +4 bluff: a rule of thumb" in (run / "rule_of_thumb.md").read_text()
    assert (run / "DONE").is_file()


def png_title(path: Path) -> str:
    """The title a study saved in a PNG's text."""
    from PIL import Image

    with Image.open(path) as image:
        return image.text.get("Title", "")


def test_quick_run_says_so_in_every_text_and_plot(bluff_when_quick_run):
    run = bluff_when_quick_run
    text = (run / "rule_of_thumb.md").read_text()
    first = text.splitlines()[0]
    assert first.startswith("Quick run (") and "paired deals a cell): too small" in first
    assert "run without --quick for the study" in first
    summary = situation_summary(run)
    assert summary.splitlines()[0] == first
    for shown in (text, summary):  # every interval names its level
        lines = [line for line in shown.splitlines() if "interval" in line]
        assert lines and all("99% interval" in line or "no interval" in line for line in lines)
    for path in [*run.glob("situations-*.png"), run / "behaviour.png", run / "calibration.png"]:
        assert png_title(path).startswith("QUICK RUN, not a finding:\n"), path.name


def test_quick_run_tables_are_sane(bluff_when_quick_run):
    run = bluff_when_quick_run
    config = json.loads((run / "config.json").read_text())
    table = pd.read_parquet(run / "situations.parquet")
    # every non-plain match-up of every cell has a row, paired with the plain agent
    expected = sum(sum(1 for m in c["matchups"] if m[0] != "color-first") for c in config["cells"])
    assert len(table) == expected
    for prefix in ("points_gain", "win_gain"):
        ok = table[f"{prefix}_low"] <= table[prefix]
        assert (ok & (table[prefix] <= table[f"{prefix}_high"])).all()
    assert table[table["unit"] == "matches"]["match_gain"].notna().all()
    assert table[table["unit"] == "rounds"]["match_gain"].isna().all()
    field = pd.read_parquet(run / "field.parquet")
    assert set(field["players"]) == {c["players"] for c in config["cells"]} == {2, 4}
    answers = pd.read_parquet(run / "best_answers.parquet")
    per_cell = answers.groupby(["variant", "players", "unit", "side"])["best"].sum()
    assert (per_cell == 1).all()
    behaviour = pd.read_parquet(run / "behaviour.parquet")
    assert set(behaviour["kind"]) == {"given", "best bluffer", "best challenger"}
    assert "ppo-official-2p-v1" in set(behaviour["agent"])
    scores = pd.read_parquet(run / "calibration_scores.parquet")
    pooled = scores[scores["setting"] == "pooled"].iloc[0]
    assert pooled["draw4s"] > 100 and 0 <= pooled["brier"] <= 1 and 0 < pooled["bluff_rate"] < 1
    # The quick run's one conditional bluffer bluffs only when the next player is low: the
    # hand-only Bayesian estimate overstates its bluffs (the full run quantifies it).
    assert pooled["mean_predicted"] > pooled["bluff_rate"]
    summary = situation_summary(run)
    assert "## Bluffing a +4" in summary and "`ppo-official-2p-v1`" in summary
    assert "- **official, 4 players** (rounds): bluff: best" in summary
    assert "calibration of the Bayesian bluff probability" in summary
