"""Training logs: metrics.csv and TensorBoard hold the same scalars under CleanRL-style names,
the gradient norm before clipping, no NaN and no empty column, the hyperparameters in the
HPARAMS tab, and a sane speed after a resume (also of a finished run)."""

from __future__ import annotations

import csv
import math
import re
from pathlib import Path

import numpy as np
import pytest
import torch

from uno_rl.ppo.checkpoint import CheckpointError, load_checkpoint, save_checkpoint
from uno_rl.ppo.config import load_train_config
from uno_rl.ppo.logger import STEP, RunLogger, hparam_values
from uno_rl.ppo.network import PolicyNetwork, feature_columns, input_scale
from uno_rl.ppo.rollout import Rollout
from uno_rl.ppo.selfplay import Stats
from uno_rl.ppo.update import ppo_update
from uno_rl.programs import train

TINY = {
    "num_games": "32", "rollout_steps": "16", "total_decisions": "3072", "hidden": "32",
    "minibatch_size": "128", "update_epochs": "2", "eval_every": "3", "eval_rounds": "20",
    "final_eval_rounds": "0", "checkpoint_every": "2", "torch_threads": "1",
    "zoo": "random-playable,rule", "pool_size": "2", "snapshot_every": "2",
}  # fmt: skip
UPDATES = 6  # 3072 / (32 * 16)
#: What every run logs (besides the eval/ measures of each eval agent).
COLUMNS = {
    STEP, "charts/update", "charts/decisions", "charts/rounds", "charts/learning_rate",
    "charts/wall_time", "charts/elapsed_s", "charts/SPS", "charts/decisions_per_s",
    "charts/rollout_share", "charts/round_length", "charts/truncation_rate",
    "charts/episodic_return", "charts/win_rate_all_lineups", "charts/win_rate_vs_zoo",
    "losses/policy_loss", "losses/value_loss", "losses/entropy", "losses/old_approx_kl",
    "losses/approx_kl", "losses/clipfrac", "losses/explained_variance", "losses/grad_norm",
    "losses/grad_norm_max", "eval/evaluated",
}  # fmt: skip
EVAL = [f"eval/{m}_vs_{o}{s}" for m in ("win_rate", "points_per_round")
        for o in ("random-playable", "color-first") for s in ("", "_ci95_low", "_ci95_high")]  # fmt: skip


def config(**changes):
    return load_train_config(None, {**TINY, **{k: str(v) for k, v in changes.items()}})


def table(run: Path) -> tuple[list[str], list[dict[str, str]]]:
    with (run / "metrics.csv").open(newline="") as f:
        reader = csv.DictReader(f)
        return list(reader.fieldnames), list(reader)


def events(run: Path):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    accumulator = EventAccumulator(
        str(run / "tensorboard"), size_guidance={"scalars": 0, "tensors": 0}
    )
    accumulator.Reload()
    return accumulator


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("logs") / "run"
    train.train(config(name="logs"), folder, progress=False)
    return folder


def test_columns_are_named_and_grouped_as_cleanrl_and_global_step_counts_the_learner(run):
    header, rows = table(run)
    assert header[0] == STEP and len(rows) == UPDATES
    assert COLUMNS <= set(header) and set(EVAL) <= set(header)
    for column in header[1:]:
        assert re.fullmatch(r"(charts|losses|behaviour|eval)/\w[\w.\-]*", column), column
    groups = [c.split("/")[0] for c in header[1:]]
    assert groups == sorted(groups, key=groups.index)  # each group's columns side by side
    steps = [int(r[STEP]) for r in rows]
    decisions = [int(r["charts/decisions"]) for r in rows]
    assert decisions == [512 * (i + 1) for i in range(UPDATES)]  # every seat's decisions
    assert all(0 <= a < b for a, b in zip([0, *steps], steps))  # increasing
    assert all(s < d for s, d in zip(steps, decisions))  # zoo games: one learner seat of two
    data = load_checkpoint(run / "checkpoint.pt")
    assert data["learner_decisions"] == steps[-1] and data["decisions"] == decisions[-1]


def test_csv_and_tensorboard_hold_the_same_scalars(run):
    header, rows = table(run)
    tb = events(run)
    assert set(tb.Tags()["scalars"]) == set(header[1:])
    for column in header[1:]:
        want = [(int(r[STEP]), float(r[column])) for r in rows if r[column] != ""]
        got = [(e.step, e.value) for e in tb.Scalars(column)]
        assert [s for s, _ in got] == [s for s, _ in want], column
        np.testing.assert_allclose([v for _, v in got], [v for _, v in want], rtol=1e-6)


def test_no_nan_and_no_empty_column_and_eval_rows_are_marked(run):
    header, rows = table(run)
    text = (run / "metrics.csv").read_text().lower()
    assert "nan" not in text and "inf" not in text
    for column in header:
        values = [r[column] for r in rows if r[column] != ""]
        assert values, f"{column} is empty throughout"
        assert all(math.isfinite(float(v)) for v in values), column
    evaluated = [r["eval/evaluated"] for r in rows]
    assert evaluated == ["0", "0", "1", "0", "0", "1"]  # eval_every 3 (and the last update)
    for r in rows:
        filled = {c for c in EVAL if r[c] != ""}
        assert filled == (set(EVAL) if r["eval/evaluated"] == "1" else set())
        low, mid, high = (float(r[f"eval/win_rate_vs_color-first{s}"] or "nan")
                          for s in ("_ci95_low", "", "_ci95_high"))  # fmt: skip
        assert r["eval/evaluated"] == "0" or low <= mid <= high


def test_the_gradient_norm_is_logged_before_clipping(run):
    _, rows = table(run)
    for r in rows:
        norm, largest = float(r["losses/grad_norm"]), float(r["losses/grad_norm_max"])
        assert 0 < norm <= largest and math.isfinite(largest)
    # With a tiny max_grad_norm the logged norms are the gradients', far above the clip.
    cols = feature_columns(config().features)
    torch.manual_seed(0)
    network = PolicyNetwork(len(cols), [16], input_scale(config().features))
    optimizer = torch.optim.Adam(network.parameters(), lr=1e-3)
    rng = np.random.default_rng(0)
    size = 64
    mask = rng.random((size, 77)) < 0.3
    mask[:, 0] = True
    action = np.array([rng.choice(np.flatnonzero(m)) for m in mask], np.int64)
    rollout = Rollout(
        obs=rng.random((size, len(cols)), dtype=np.float32), mask=mask, action=action,
        logp=np.full(size, -1.5, np.float32), value=np.zeros(size, np.float32),
        advantages=rng.normal(size=size).astype(np.float32),
        returns=rng.normal(size=size).astype(np.float32), stats=Stats(),
    )  # fmt: skip
    clip = config(max_grad_norm="0.0001", minibatch_size="16", update_epochs="1")
    losses = ppo_update(clip, network, optimizer, rollout, torch.Generator().manual_seed(0),
                        torch.device("cpu"))  # fmt: skip
    assert losses["losses/grad_norm"] > 100 * clip.max_grad_norm
    assert losses["losses/grad_norm_max"] >= losses["losses/grad_norm"]


def test_hyperparameters_are_in_the_hparams_tab_and_a_text_table(run):
    from tensorboard.plugins.hparams import plugin_data_pb2

    tb = events(run)
    content = tb.PluginTagToContent("hparams")
    parsed = {tag: plugin_data_pb2.HParamsPluginData.FromString(c) for tag, c in content.items()}
    start = next(p.session_start_info for p in parsed.values() if p.HasField("session_start_info"))
    experiment = next(p.experiment for p in parsed.values() if p.HasField("experiment"))
    cfg = config(name="logs")
    assert set(start.hparams) == set(cfg.to_dict())
    assert start.hparams["learning_rate"].number_value == pytest.approx(cfg.learning_rate)
    assert start.hparams["num_games"].number_value == 32
    assert start.hparams["zoo"].string_value == "random-playable,rule"
    assert start.hparams["hidden"].string_value == "32"
    assert start.hparams["preset"].string_value == "official"
    metrics = {m.name.tag for m in experiment.metric_infos}
    assert "eval/win_rate_vs_color-first" in metrics
    assert metrics <= set(tb.Tags()["scalars"])  # each metric column has the run's values
    text = tb.Tensors("hyperparameters/text_summary")[0].tensor_proto.string_val[0].decode()
    assert text.startswith("|param|value|") and "|learning_rate|0.00025|" in text


def test_hparam_values_flatten_lists_and_tables():
    flat = hparam_values({"a": [1, "x"], "b": {"z": True, "m": 2}, "c": None, "d": 0.5})
    assert flat == {"a": "1,x", "b": "m=2,z=True", "c": "", "d": 0.5}


def test_missing_values_are_empty_cells_and_columns_join_their_group(tmp_path):
    logger = RunLogger(tmp_path, tensorboard=False)
    logger.log(5, {"charts/a": 1, "charts/b": float("nan"), "losses/x": 2.0, "eval/e": None})
    logger.log(9, {"charts/a": 3, "charts/b": 4.5, "losses/x": float("inf"), "eval/e": 7})
    lines = (tmp_path / "metrics.csv").read_text().splitlines()
    assert lines == [
        "global_step,charts/a,charts/b,losses/x,eval/e", "5,1,,2.0,", "9,3,4.5,,7",
    ]  # fmt: skip


def test_a_resume_reports_the_speed_of_what_it_trained(tmp_path, capsys):
    """A finished run resumed trains nothing and reports no speed; an unfinished one counts
    only the decisions it trained; the seconds trained carry over."""

    class Killed(Exception):
        pass

    def kill(update, source):
        if update == 4:
            raise Killed

    folder = tmp_path / "run"
    with pytest.raises(Killed):
        train.train(config(name="r", eval_every=0), folder, progress=False, on_rollout=kill)
    saved = load_checkpoint(folder / "checkpoint.pt")
    assert saved["update"] == 4 and saved["elapsed"] > 0
    summary = train.train(config(name="r", eval_every=0), folder, resume=True, progress=False)
    assert summary["updates_run"] == 2 and summary["decisions_run"] == 2 * 512
    assert summary["decisions"] == UPDATES * 512
    _, rows = table(folder)
    elapsed = [float(r["charts/elapsed_s"]) for r in rows]
    assert elapsed[4] >= saved["elapsed"] and elapsed == sorted(elapsed)
    assert all(float(r["charts/SPS"]) < 1e7 for r in rows)
    capsys.readouterr()
    assert train.main(["--resume", str(folder), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "nothing left to train: the run had finished all 6 updates" in out
    assert "decisions/s" not in out
    again = train.train(config(name="r", eval_every=0), folder, resume=True, progress=False)
    assert again["updates_run"] == 0 and again["decisions_run"] == 0
    assert len(table(folder)[1]) == UPDATES  # nothing logged twice


def test_a_checkpoint_without_learner_decisions_resumes_only_if_finished(tmp_path):
    folder = tmp_path / "run"
    cfg = config(name="old", eval_every=0, tensorboard="false")
    train.train(cfg, folder, progress=False)
    data = load_checkpoint(folder / "checkpoint.pt")
    del data["learner_decisions"], data["elapsed"]  # as an older version wrote it
    save_checkpoint(folder / "checkpoint.pt", data)
    assert train.train(cfg, folder, resume=True, progress=False)["updates_run"] == 0
    data["update"] = 4
    save_checkpoint(folder / "checkpoint.pt", data)
    with pytest.raises(CheckpointError, match="older version of uno_rl, which did not count"):
        train.train(cfg, folder, resume=True, progress=False)
