"""What a resume depends on reaches the disk: checkpoint.pt, policy.pt, config.json and
metrics.csv are written, flushed, ``fsync``-ed and (but for appends) renamed, and their
folder is ``fsync``-ed, so that a power cut never leaves half a file or a lost rename."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from uno_rl.ppo.checkpoint import save_checkpoint
from uno_rl.ppo.logger import RunLogger
from uno_rl.programs import train

TINY = [
    "--num-games", "16", "--rollout-steps", "16", "--total-decisions", "512", "--hidden", "16",
    "--minibatch-size", "128", "--update-epochs", "1", "--eval-every", "0",
    "--final-eval-rounds", "0", "--checkpoint-every", "1", "--torch-threads", "1",
    "--zoo", "random-playable", "--pool-size", "2", "--tensorboard", "false", "--no-progress",
]  # fmt: skip


@pytest.fixture
def synced(monkeypatch) -> list[Path]:
    """The paths ``os.fsync`` is called on (files and folders), in order."""
    paths: list[Path] = []
    real = os.fsync

    def fsync(fd):
        paths.append(Path(os.readlink(f"/proc/self/fd/{fd}")))
        return real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    return paths


pytestmark = pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc")


def test_a_checkpoint_is_synced_renamed_and_its_folder_synced(tmp_path, synced):
    save_checkpoint(tmp_path / "checkpoint.pt", {"update": 1})
    file, folder = synced[-2], synced[-1]
    assert file.parent == tmp_path and file.name.startswith(".checkpoint.pt.")  # the temp file
    assert folder == tmp_path
    assert sorted(p.name for p in tmp_path.iterdir()) == ["checkpoint.pt"]


def test_metrics_rows_are_synced_before_the_next_step(tmp_path, synced):
    logger = RunLogger(tmp_path, tensorboard=False)
    logger.log(10, {"a": 1})
    assert tmp_path / "metrics.csv" in synced and tmp_path in synced  # a new file: its folder
    synced.clear()
    logger.log(20, {"a": 2, "b": 3})  # a wider header: the file is rewritten durably
    assert tmp_path in synced and synced[-1] == tmp_path / "metrics.csv"
    lines = (tmp_path / "metrics.csv").read_text().splitlines()
    assert lines == ["global_step,a,b", "10,1,", "20,2,3"]


def test_a_run_syncs_everything_a_resume_reads(tmp_path, synced):
    runs = tmp_path / "runs"
    assert train.main([*TINY, "--runs-dir", str(runs), "--name", "d"]) == 0
    (run,) = (runs / "d").iterdir()
    names = {p.name for p in synced if p.parent == run}
    assert run in synced and run.parent in synced  # the new folder's entry, the renames
    assert any(n.startswith(".checkpoint.pt.") for n in names)
    assert any(n.startswith(".policy.pt.") for n in names)
    assert any(n.startswith(".config.json.") for n in names)
    assert "metrics.csv" in names
