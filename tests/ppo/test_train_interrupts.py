"""A training stopped by a signal says in one line what it kept and how to go on: Ctrl-C
(SIGINT, even where the shell started it ignoring SIGINT, as a background job) and SIGTERM;
the best response and the distillation give their status for the signal too."""

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_train import TINY, run_dir

from uno_rl.plumbing.processes import Interrupted
from uno_rl.ppo.checkpoint import load_checkpoint
from uno_rl.ppo.plan import interrupted_line
from uno_rl.programs import distill as distill_program
from uno_rl.programs import exploit as exploit_program


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_stops_training_with_one_line_naming_the_resume(tmp_path, signum):
    longer = [*TINY]
    longer[longer.index("--total-decisions") + 1] = "61440"  # 120 updates: still running
    runs = tmp_path / "runs"
    command = [sys.executable, "-m", "uno_rl.train", *longer, "--eval-every", "0",
               "--final-eval-rounds", "0", "--runs-dir", str(runs), "--name", "a"]  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               text=True, preexec_fn=_ignore_sigint)  # fmt: skip
    deadline = time.time() + 120
    while time.time() < deadline and not list(runs.glob("a/*/checkpoint.pt")):
        time.sleep(0.05)
    process.send_signal(signum)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 128 + signum, err
    run = run_dir(runs, "a")
    update = load_checkpoint(run / "checkpoint.pt", ("update",))["update"]
    assert 2 <= update < 120
    assert err.strip() == (
        f"interrupted: training stopped in {run}; the run resumes from its last checkpoint "
        f"(update {update}) with: uno_rl train --resume {run}"
    )


def test_the_line_names_what_was_kept_at_each_stage(tmp_path):
    assert "nothing was written" in interrupted_line(None, None)
    assert interrupted_line(tmp_path, None) == (
        f"interrupted: training stopped in {tmp_path}; no checkpoint was written yet"
    )
    policy = tmp_path / "policy.pt"
    assert interrupted_line(tmp_path, policy) == (
        f"interrupted: the final evaluation stopped; the trained policy is {policy}"
    )


@pytest.mark.parametrize("program,function", [(exploit_program, "exploit"),
                                              (distill_program, "distill")])  # fmt: skip
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_best_response_and_distillation_exit_with_the_signals_status(
    tmp_path, monkeypatch, capsys, program, function, signum
):
    def stopped(*args, **kwargs):
        raise Interrupted(signum)

    monkeypatch.setattr(program, function, stopped)
    argv = ["random-playable"] if program is exploit_program else []
    status = program.main([*argv, "--runs-dir", str(tmp_path), "--no-progress"])
    assert status == 128 + signum
    line = capsys.readouterr().err.strip()
    assert line.startswith("interrupted:") and "--resume" in line
    assert Path(line.rsplit("--resume ", 1)[1]).parent.parent == tmp_path
