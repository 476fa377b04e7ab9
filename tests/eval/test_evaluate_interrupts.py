"""A stop of ``uno_rl evaluate`` is one line and the shell's status, with no traceback: Ctrl-C
or SIGTERM while it plays (a real signal to a real process, workers included) and a
KeyboardInterrupt raised inside it."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time

import pytest

from uno_rl.eval import run
from uno_rl.programs import evaluate as cli

LINE = "interrupted: the evaluation stopped, no tables were written"


def test_a_keyboard_interrupt_while_playing_is_one_line(tmp_path, monkeypatch, capsys):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(run, "play_chunks", interrupted)
    argv = ["rule", "color-first", "--rounds", "100", "--out", str(tmp_path / "out")]
    argv += ["--save-replays", str(tmp_path / "replays"), "--no-progress"]
    assert cli.main(argv) == 130
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"{LINE}; the replays saved so far are in {tmp_path / 'replays'}"]
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(("signum", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_while_playing_is_one_line(tmp_path, signum, status):
    argv = [sys.executable, "-m", "uno_rl", "evaluate", "rule", "color-first"]
    argv += ["--rounds", "50000000", "--workers", "2", "--out", str(tmp_path / "out")]
    process = subprocess.Popen(argv, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    seen = ""
    deadline = time.monotonic() + 60
    while "%|" not in seen and time.monotonic() < deadline:  # the progress bar has started
        seen += process.stderr.read(1)
    time.sleep(1.0)  # past the bar's first drawing, which its constructor does
    process.send_signal(signum)
    # Read on while waiting: a process whose stderr pipe is full would block writing to it.
    rest: list[str] = []
    reader = threading.Thread(target=lambda: rest.append(process.stderr.read()), daemon=True)
    reader.start()  # what the buffered reader holds, then the rest
    try:
        process.wait(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()
        reader.join(10)
        pytest.fail(f"still running 60 s after the signal; it wrote:\n{seen + ''.join(rest)}")
    reader.join(10)
    err = seen + "".join(rest)
    assert process.returncode == status, err
    assert "Traceback" not in err, err
    assert err.rstrip().splitlines()[-1].split("\r")[-1] == LINE, err
    assert not (tmp_path / "out").exists()
