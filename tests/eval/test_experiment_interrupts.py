"""A stop of ``uno_rl experiment`` in any phase is one line and the shell's status: while its
modules import, while the config and agents load, in a cell, and once the run is done
(the stop mid-run, with workers, is tests/eval/test_experiment.py's)."""

from __future__ import annotations

import importlib
import signal
import subprocess
import sys
import textwrap

import pytest

from uno_rl.__main__ import main as uno_rl
from uno_rl.experiments import runner
from uno_rl.plumbing.processes import Interrupted
from uno_rl.programs import experiment

TINY = """
description = "tiny"
seed = 2
rounds = 50
rating_rounds = 0
[grid]
presets = ["official"]
players = [2, 3]
[agents]
specs = ["color-first", "rule"]
"""
BEFORE = "interrupted before the run started: nothing was written"


@pytest.fixture
def config(tmp_path):
    path = tmp_path / "tiny.toml"
    path.write_text(TINY)
    return path


def stop(error: BaseException):
    """A stand-in for a phase of the command that is interrupted."""

    def interrupted(*args, **kwargs):
        raise error

    return interrupted


def run(argv) -> int:
    """``uno_rl ARGV``; a KeyboardInterrupt that escapes fails the test (not the session)."""
    try:
        return uno_rl(argv)
    except KeyboardInterrupt as escaped:
        pytest.fail(f"a KeyboardInterrupt escaped uno_rl: {escaped!r}")


@pytest.mark.parametrize(
    "phase,error,status",
    [
        ("load_config", KeyboardInterrupt(), 130),
        ("load_config", Interrupted(signal.SIGTERM), 143),
        ("evaluate_variant", KeyboardInterrupt(), 130),
        ("evaluate_variant", Interrupted(signal.SIGINT), 130),
        ("report", Interrupted(signal.SIGTERM), 143),
    ],
    ids=["config-ctrl-c", "config-sigterm", "cell-ctrl-c", "cell-signal", "report-sigterm"],
)
def test_a_stop_in_any_phase_is_one_line_and_its_status(
    tmp_path, config, monkeypatch, capsys, phase, error, status
):
    monkeypatch.setattr(runner if phase == "evaluate_variant" else experiment, phase, stop(error))
    runs = tmp_path / "runs"
    argv = ["experiment", str(config), "--runs-dir", str(runs), "--workers", "1", "--no-progress"]
    assert run(argv) == status
    err = capsys.readouterr().err
    folders = list((runs / "tiny").iterdir()) if (runs / "tiny").is_dir() else []
    if phase == "load_config":
        assert err == BEFORE + "\n" and not folders
    elif phase == "evaluate_variant":  # loading the agents of the first cell
        (folder,) = folders
        assert err == "interrupted: 0 of 2 cells done; run the same command to resume\n"
        assert (folder / "config.json").is_file() and not (folder / "DONE").exists()
    else:
        (folder,) = folders
        assert err == f"interrupted: the run is finished, its tables are in {folder}\n"
        assert (folder / "DONE").is_file()


def test_a_stop_while_the_command_imports_is_one_line(monkeypatch, capsys):
    real = importlib.import_module

    def importing(name, *args, **kwargs):
        if name == "uno_rl.programs.experiment":
            raise KeyboardInterrupt
        return real(name, *args, **kwargs)

    monkeypatch.setattr(importlib, "import_module", importing)
    assert run(["experiment", "bluff"]) == 130
    assert capsys.readouterr().err == (
        "interrupted before uno_rl experiment started: nothing was written\n"
    )


#: ``uno_rl experiment ARGV`` with a config that takes 60 s to load (the window a signal hits);
#: it says ``loading`` when it is in it.
SLOW_LOADING = textwrap.dedent(
    """
    import sys, time
    from uno_rl.programs import experiment
    from uno_rl.__main__ import main

    def slow(*args, **kwargs):
        print("loading", flush=True)
        time.sleep(60)

    experiment.load_config = slow
    sys.exit(main(["experiment", *sys.argv[1:]]))
    """
)


@pytest.mark.parametrize("name,status", [("SIGINT", 130), ("SIGTERM", 143)])
def test_a_signal_while_loading_is_one_line_and_its_status(tmp_path, config, name, status):
    command = [sys.executable, "-c", SLOW_LOADING, str(config), "--runs-dir",
               str(tmp_path / "runs"), "--no-progress"]  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout.readline() == "loading\n", process.stderr.read()
        process.send_signal(getattr(signal, name))
        out, err = process.communicate(timeout=30)
    finally:
        process.kill()
    assert process.returncode == status, err
    assert err == BEFORE + "\n" and out == ""
    assert not (tmp_path / "runs").exists()
