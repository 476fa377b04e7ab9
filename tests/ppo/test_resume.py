"""Fault injection: a run killed at any point after a checkpoint and resumed logs every update
exactly once (metrics.csv and TensorBoard), as the run nobody killed does."""

from __future__ import annotations

import csv
import os
from collections import Counter
from pathlib import Path

import pytest
import torch

from uno_rl.ppo import checkpoint as checkpoint_module
from uno_rl.ppo.checkpoint import load_checkpoint, save_checkpoint
from uno_rl.ppo.config import load_train_config
from uno_rl.ppo.logger import STEP, TIMING_KEYS, RunLogger
from uno_rl.programs import train

TINY = {
    "num_games": "32", "rollout_steps": "16", "total_decisions": "4096", "hidden": "32",
    "minibatch_size": "128", "update_epochs": "2", "eval_every": "3", "eval_rounds": "20",
    "final_eval_rounds": "0", "checkpoint_every": "2", "torch_threads": "1",
    "zoo": "random-playable,rule", "pool_size": "2", "snapshot_every": "2",
}  # fmt: skip
UPDATES = 8  # 4096 / (32 * 16)
#: Columns that measure time, not what was computed.
TIMING = TIMING_KEYS


class Killed(Exception):
    """Stands for a kill -9: the run stops where it is."""


def config(**changes):
    return load_train_config(None, {**TINY, **{k: str(v) for k, v in changes.items()}})


def rows(run: Path) -> list[dict]:
    with (run / "metrics.csv").open(newline="") as f:
        return [{k: v for k, v in r.items() if k not in TIMING} for r in csv.DictReader(f)]


def lost_and_doubled(reference: list[dict], resumed: list[dict]) -> tuple[int, int]:
    """Rows of the reference run missing from the resumed run, and rows logged twice."""
    want, got = Counter(r[STEP] for r in reference), Counter(r[STEP] for r in resumed)
    lost = sum((want - got).values())
    doubled = sum(n - 1 for n in got.values() if n > 1)
    return lost, doubled


def scalars(run: Path) -> dict[str, list[tuple[int, float]]]:
    """Every TensorBoard scalar as TensorBoard shows it (orphaned events purged)."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(run / "tensorboard"), size_guidance={"scalars": 0})
    events.Reload()
    return {
        tag: [(e.step, e.value) for e in events.Scalars(tag)]
        for tag in events.Tags()["scalars"]
        if tag not in TIMING
    }


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> Path:
    run = tmp_path_factory.mktemp("reference") / "run"
    train.train(config(name="ref"), run, progress=False)
    return run


def kill_in_rollout(at: int):
    """A hook killing the run while the rollout of update ``at`` (0-based) is being played."""

    def hook(update, source):
        if update == at:
            raise Killed(f"rollout of update {at}")

    return hook


def kill_in_checkpoint(monkeypatch, at: int, partial: bool) -> None:
    """Kill the run at the checkpoint of update ``at`` (its row is logged): before the
    checkpoint is written, or (``partial``) half-way through writing it."""
    real = torch.save

    def save(obj, path, *args, **kwargs):
        if isinstance(obj, dict) and obj.get("update") == at:
            if partial:
                Path(path).write_bytes(b"PK\x03\x04 half a checkpoint")
            raise Killed(f"checkpoint of update {at}")  # the temporary file, not checkpoint.pt
        return real(obj, path, *args, **kwargs)

    monkeypatch.setattr(checkpoint_module.torch, "save", save)


def resume_and_compare(reference: Path, run: Path) -> None:
    cfg = config(name="ref")
    train.train(cfg, run, resume=True, progress=False)
    expected, got = rows(reference), rows(run)
    assert lost_and_doubled(expected, got) == (0, 0)
    assert len(got) == UPDATES
    assert got == expected
    a, b = load_checkpoint(reference / "checkpoint.pt"), load_checkpoint(run / "checkpoint.pt")
    assert a["update"] == b["update"] == UPDATES
    for key in a["model"]:
        assert torch.equal(a["model"][key], b["model"][key]), key
    assert not [p for p in os.listdir(run) if p.endswith(".tmp")]  # no half-written files


@pytest.mark.parametrize("at", [2, 3, 5, 7])
def test_killed_in_a_rollout_resumes_without_lost_or_doubled_rows(reference, tmp_path, at):
    run = tmp_path / "run"
    with pytest.raises(Killed):
        train.train(config(name="ref"), run, progress=False, on_rollout=kill_in_rollout(at))
    saved = load_checkpoint(run / "checkpoint.pt", ("update",))["update"]
    assert saved == at - at % 2  # the last checkpoint before the kill
    assert len(rows(run)) == at  # the rows of updates 1..at, some past the checkpoint
    resume_and_compare(reference, run)


@pytest.mark.parametrize("at,partial", [(4, False), (6, True)])
def test_killed_at_a_checkpoint_resumes_without_lost_or_doubled_rows(
    reference, tmp_path, monkeypatch, at, partial
):
    run = tmp_path / "run"
    with monkeypatch.context() as patch:
        kill_in_checkpoint(patch, at, partial)
        with pytest.raises(Killed):
            train.train(config(name="ref"), run, progress=False)
    # The row of update `at` was written; its checkpoint was not: the resume logs it again.
    assert len(rows(run)) == at
    assert load_checkpoint(run / "checkpoint.pt", ("update",))["update"] == at - 2
    if partial:  # what a kill -9 half-way through the write leaves (no cleanup runs)
        (run / ".checkpoint.pt.k9x3.tmp").write_bytes(b"PK\x03\x04 half a checkpoint")
    resume_and_compare(reference, run)


def test_killed_twice_and_tensorboard_shows_each_update_once(reference, tmp_path):
    run = tmp_path / "run"
    with pytest.raises(Killed):
        train.train(config(name="ref"), run, progress=False, on_rollout=kill_in_rollout(3))
    with pytest.raises(Killed):
        train.train(config(name="ref"), run, resume=True, progress=False,
                    on_rollout=kill_in_rollout(7))  # fmt: skip
    resume_and_compare(reference, run)
    expected, got = scalars(reference), scalars(run)
    assert set(got) == set(expected) and "losses/value_loss" in got
    for tag, points in expected.items():
        assert got[tag] == points, tag  # each step once, the same values


def test_a_resume_trains_the_updates_its_run_planned(tmp_path):
    """The checkpoint keeps the run's number of updates; one without it (written when budgets
    were rounded down to whole updates) resumes to the number its run planned then."""
    cfg = config(name="plan", total_decisions=4096 + 300, eval_every=0, tensorboard="false")
    assert cfg.num_updates == 9  # 8.6 updates of 512 decisions
    for legacy, planned in ((False, 9), (True, 8)):
        run = tmp_path / f"legacy-{legacy}"
        with pytest.raises(Killed):
            train.train(cfg, run, progress=False, on_rollout=kill_in_rollout(4))
        data = load_checkpoint(run / "checkpoint.pt")
        assert (data["update"], data["num_updates"]) == (4, 9)
        if legacy:
            del data["num_updates"]
            save_checkpoint(run / "checkpoint.pt", data)
        summary = train.train(cfg, run, resume=True, progress=False)
        assert summary["updates_run"] == planned - 4
        assert load_checkpoint(run / "checkpoint.pt")["update"] == planned
        assert len(rows(run)) == planned


def test_truncation_drops_rows_past_the_checkpoint_and_a_cut_last_row(tmp_path):
    logger = RunLogger(tmp_path, tensorboard=False)
    for step in range(1, 6):
        logger.log(step * 10, {"a": step})
    logger.close()
    with (tmp_path / "metrics.csv").open("a") as f:
        f.write("60,")  # a row cut short
    assert RunLogger(tmp_path, tensorboard=False, keep_rows=3).header == [STEP, "a"]
    text = (tmp_path / "metrics.csv").read_text()
    assert text.splitlines() == ["global_step,a", "10,1", "20,2", "30,3"]
    RunLogger(tmp_path, tensorboard=False, keep_rows=10)  # fewer rows than kept: unchanged
    assert (tmp_path / "metrics.csv").read_text() == text
