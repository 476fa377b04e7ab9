"""Search agents asked for more memory, or more play-outs, than they may hold: ``uno_rl
evaluate``, ``uno_rl experiment`` and ``uno_rl play --opponents`` answer with one line
naming the number (exit status 2) before any game is played, and little memory is used to
find out (the refusal runs before any world is dealt)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from bad_input.harness import assert_clean_error
from uno_rl.agents.search_budget import LIMIT_VARIABLE
from uno_rl.programs import evaluate, experiment, play

# (agent spec, rule arguments of evaluate, expected part of the message)
SPECS = [
    ("pimc:determinizations=4096,rollouts=4096", [], "16,777,216 play-outs per legal action"),
    ("ismcts:lanes=4000000", [], "4,000,000 play-out lanes"),
    ("pimc:rollout=rule,lanes=2000000", ["--players", "4"], "the limit is 2.0 GiB"),
    ("pimc:particles=4096", ["--players", "4"], "4,096 belief particles in each of 1,024 games"),
]


@pytest.fixture(autouse=True)
def default_limit(monkeypatch):
    monkeypatch.delenv(LIMIT_VARIABLE, raising=False)


@pytest.mark.parametrize(("spec", "rules", "expected"), SPECS, ids=[s[0] for s in SPECS])
def test_evaluate_refuses_the_budget_in_one_line(spec, rules, expected, tmp_path, capsys):
    argv = [spec, "rule", "--rounds", "2", *rules, "--out", str(tmp_path / "out")]
    line = assert_clean_error(evaluate.main, argv, expected, capsys)
    assert spec in line
    assert not (tmp_path / "out").exists()


def test_evaluate_names_a_bad_limit_variable(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv(LIMIT_VARIABLE, "plenty")
    argv = ["pimc", "rule", "--rounds", "2", "--out", str(tmp_path / "out")]
    assert_clean_error(evaluate.main, argv, f"{LIMIT_VARIABLE}='plenty' is not a memory", capsys)


CONFIG = """\
description = "a search budget too large"
seed = 1
rounds = 4
[grid]
presets = ["official"]
players = [2]
[agents]
specs = ["{spec}", "rule"]
"""


@pytest.mark.parametrize(("spec", "expected"), [(s[0], s[2]) for s in SPECS[:2]])
def test_experiment_refuses_the_budget_in_one_line(spec, expected, tmp_path, capsys):
    path = tmp_path / "big.toml"
    path.write_text(CONFIG.format(spec=spec))
    runs = tmp_path / "runs"
    argv = [str(path), "--runs-dir", str(runs), "--no-progress"]
    line = assert_clean_error(experiment.main, argv, expected, capsys)
    assert "agents.specs" in line and spec in line
    assert not runs.exists()


@pytest.mark.parametrize(("spec", "expected"), [(s[0], s[2]) for s in SPECS[:2]])
def test_play_refuses_the_budget_in_one_line(spec, expected, capsys):
    assert_clean_error(play.main, ["--opponents", spec], expected, capsys)


# VmHWM: the peak resident memory of this process since it started (ru_maxrss would also count
# what the forking parent held).
REFUSE = """
import re
from uno_rl.programs.evaluate import main
status = main([{spec!r}, "rule", "--rounds", "2", "--out", {out!r}])
with open("/proc/self/status") as status_file:
    peak = re.search(r"VmHWM:\\s+(\\d+) kB", status_file.read()).group(1)
print(status, peak)
"""


@pytest.mark.skipif(sys.platform != "linux", reason="/proc/self/status")
def test_a_refused_budget_uses_little_memory_before_refusing(tmp_path):
    peaks = {}
    for spec, *_ in SPECS[:2]:
        script = REFUSE.format(spec=spec, out=str(tmp_path / "out"))
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
        status, peak = done.stdout.split()
        assert status == "2" and done.stderr.startswith("error: "), done.stderr
        peaks[spec] = int(peak) / 1024
    assert max(peaks.values()) < 400, peaks  # MiB: the interpreter and its imports
