"""Worker start methods, and workers that never outlive their parent."""

import multiprocessing
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from uno_rl.plumbing.processes import process_context, worker_pool


def test_default_and_explicit_start_methods(monkeypatch):
    monkeypatch.delenv("UNO_RL_START_METHOD", raising=False)
    monkeypatch.delitem(sys.modules, "torch", raising=False)
    expected = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    assert process_context().get_start_method() == expected
    monkeypatch.setitem(sys.modules, "torch", object())  # torch loaded: never fork
    assert process_context().get_start_method() == "spawn"
    assert process_context("spawn").get_start_method() == "spawn"
    monkeypatch.setenv("UNO_RL_START_METHOD", "spawn")
    assert process_context().get_start_method() == "spawn"
    with pytest.raises(ValueError, match="start method must be one of"):
        process_context("threads")


# ------------------------------------------------------------------ no orphans
linux_only = pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc (Linux)")
ROOT = Path(__file__).resolve().parents[1]


def _stat(pid: int) -> tuple[str, int] | None:
    """(state, parent pid) of a live process, None once it is gone (or a zombie: done)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    state, ppid = text.rsplit(")", 1)[1].split()[:2]
    return None if state in ("Z", "X") else (state, int(ppid))


def _children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (stat := _stat(int(entry))) is not None and stat[1] == pid:
            found.append(int(entry))
    return found


def _wait_gone(pids, seconds: float) -> list[int]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        alive = [p for p in pids if _stat(p) is not None]
        if not alive:
            return []
        time.sleep(0.05)
    return alive


def _kill_parent_and_check_workers(command: list[str], workers: int, cwd: Path) -> None:
    """Start ``command``, wait for its ``workers`` worker processes, kill -9 the parent and
    assert that every worker is gone within a few seconds."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    parent = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        found: list[int] = []
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and len(found) < workers:
            assert parent.poll() is None, "the run ended before its workers were seen"
            found = _children(parent.pid)
            time.sleep(0.1)
        assert len(found) >= workers, f"saw {found} of {workers} workers"
        time.sleep(0.5)  # the workers are set up (their initializer ran) and computing
        busy = [p for p in found if _stat(p) is not None]
        assert busy
    finally:
        parent.kill()
        parent.wait()
    alive = _wait_gone(found, 5.0)
    for pid in alive:  # leave nothing behind, whatever the assertion says
        os.kill(pid, signal.SIGKILL)
    assert alive == [], f"workers {alive} outlived their killed parent"


@linux_only
def test_evaluate_workers_die_with_their_parent(tmp_path):
    command = [sys.executable, "-m", "uno_rl.evaluate", "rule", "random", "--rounds", "2000000",
               "--workers", "2", "--out", str(tmp_path / "out"), "--no-progress"]  # fmt: skip
    _kill_parent_and_check_workers(command, 2, tmp_path)


@linux_only
def test_experiment_workers_die_with_their_parent(tmp_path):
    config = tmp_path / "orphans.toml"
    config.write_text(
        'rounds = 2000000\n[grid]\npresets = ["official"]\nplayers = [2]\n'
        '[agents]\nspecs = ["rule", "random"]\n'
    )
    command = [sys.executable, "-m", "uno_rl.experiment", str(config), "--runs-dir",
               str(tmp_path / "runs"), "--workers", "2", "--no-progress"]  # fmt: skip
    _kill_parent_and_check_workers(command, 2, tmp_path)


_ORPHAN_SCRIPT = """
import os, sys, time
from uno_rl.plumbing.processes import guard_parent
pid = os.fork()
if pid == 0:
    guard_parent(os.getppid(), death_signal={death_signal}, interval=0.05)
    time.sleep(60)
    os._exit(0)
print(pid, flush=True)
time.sleep(0.5)  # the child has set its guard
os._exit(0)
"""


@linux_only
@pytest.mark.parametrize("death_signal", [True, False], ids=["pdeathsig", "polling-fallback"])
def test_a_guarded_worker_ends_with_its_parent(death_signal):
    script = _ORPHAN_SCRIPT.format(death_signal=death_signal)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env=env, timeout=60, check=True)  # fmt: skip
    child = int(out.stdout.split()[0])
    alive = _wait_gone([child], 3.0)
    for pid in alive:
        os.kill(pid, signal.SIGKILL)
    assert alive == []


def test_a_worker_whose_parent_is_already_gone_exits_at_once():
    script = "from uno_rl.plumbing.processes import guard_parent\nguard_parent(-7)\nprint('alive')"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env=env, timeout=60)  # fmt: skip
    assert out.returncode == 1 and "alive" not in out.stdout


def test_worker_pool_bounds_its_size():
    with pytest.raises(ValueError, match="at least 1"):
        worker_pool(0)
    with pytest.raises(ValueError, match="at most 1,024"):
        worker_pool(10**6)


STUCK_POOL = """
import sys, threading
from uno_rl.plumbing import processes

class Pool:  # a pool whose bookkeeping thread never ends (non-daemon: Python joins it at exit)
    _processes = {}
    _executor_manager_thread = threading.Thread(target=threading.Event().wait)

    def shutdown(self, wait, cancel_futures):
        pass

pool = Pool()
pool._executor_manager_thread.start()
processes.STOP_SECONDS = 0.1
processes.stop_pool(pool)
print("stuck:", processes.exit_would_hang(), flush=True)
from uno_rl.__main__ import main
sys.exit(main(["--version"], leaving=LEAVING))
"""


def test_a_command_leaves_when_a_stopped_pool_left_a_thread_behind():
    """A pool's bookkeeping thread that ``stop_pool`` could not end would hold the process at
    exit forever; a command line leaves at once with its status, a caller in Python returns."""
    done = subprocess.run(
        [sys.executable, "-c", STUCK_POOL.replace("LEAVING", "True")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "stuck: True"
    assert done.stdout.splitlines()[1].startswith("uno_rl ")
    hung = subprocess.Popen(
        [sys.executable, "-c", STUCK_POOL.replace("LEAVING", "False")],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        with pytest.raises(subprocess.TimeoutExpired):  # what the leaving saves a command from
            hung.wait(timeout=5)
    finally:
        hung.kill()
        hung.communicate()
