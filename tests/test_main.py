"""``uno_rl SUBCOMMAND`` (and ``python -m uno_rl SUBCOMMAND``): dispatch, --version, --help,
unknown commands, the listings, one real evaluation in a subprocess."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import uno_rl
from uno_rl.__main__ import COMMANDS, main

ROOT = Path(__file__).resolve().parents[1]
NAMES = [
    "train", "exploit", "distill", "evaluate", "scorecard", "experiment", "play", "replay", "simulate", "bench", "average",
    "presets", "decks", "agents", "experiments", "notebooks",
]  # fmt: skip


def _has_listing() -> bool:
    try:
        importlib.import_module("uno_rl.programs.listing")
    except ImportError:
        return False
    return True


def test_every_subcommand_is_there():
    assert list(COMMANDS) == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_dispatch_passes_the_rest_of_the_command_line(name, monkeypatch):
    module, function, _ = COMMANDS[name]
    if module == "uno_rl.programs.listing" and not _has_listing():
        pytest.skip("uno_rl.programs.listing is not there yet")
    seen = []

    def fake(argv):
        seen.append(list(argv))
        return 3

    monkeypatch.setattr(importlib.import_module(module), function, fake)
    assert main([name, "--x", "1", "y"]) == 3
    assert seen == [["--x", "1", "y"]]


@pytest.mark.parametrize("name", ["simulate", "bench"])
def test_ctrl_c_in_a_program_is_one_line_and_status_130(name, monkeypatch, capsys):
    module, function, _ = COMMANDS[name]

    def interrupted(argv):
        raise KeyboardInterrupt

    monkeypatch.setattr(importlib.import_module(module), function, interrupted)
    assert main([name]) == 130
    assert capsys.readouterr().err == f"interrupted: uno_rl {name} stopped\n"


@pytest.mark.parametrize("name", NAMES)
def test_help_of_every_subcommand(name, capsys):
    if COMMANDS[name][0] == "uno_rl.programs.listing" and not _has_listing():
        pytest.skip("uno_rl.programs.listing is not there yet")
    assert main([name, "--help"]) == 0
    assert capsys.readouterr().out.startswith(f"usage: uno_rl {name}")


def test_programs_returning_tables_give_status_0(capsys):
    # simulate and bench return their tables; as a command their status is 0
    argv = ["simulate", "--games", "4", "--rounds", "8", "--set", "max_turns=60", "--no-progress"]
    assert main(argv) == 0
    assert "rounds=" in capsys.readouterr().out


def test_bad_options_give_status_2_not_an_exception(capsys):
    assert main(["simulate", "--rounds", "nan"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "uno_rl simulate --help" in err


def test_version(capsys):
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"uno_rl {uno_rl.__version__}"


@pytest.mark.parametrize("argv", [[], ["--help"], ["-h"]])
def test_no_command_or_help_lists_every_subcommand(argv, capsys):
    assert main(argv) == 0
    text = capsys.readouterr().out
    for name, (_, _, line) in COMMANDS.items():
        assert f"  {name}" in text and line in text


def test_unknown_command_is_one_line_and_status_2(capsys):
    assert main(["frobnicate"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == f"error: unknown command 'frobnicate'; commands: {', '.join(COMMANDS)}\n"


def test_unknown_command_close_to_one_suggests_it(capsys):
    assert main(["trian"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("error: unknown command 'trian' (did you mean 'train'?); commands: ")


TYPOS = [
    (["evaluate", "color-frist", "random"], "unknown agent 'color-frist'", "color-first"),
    (["experiment", "bluff-whn"], "unknown experiment 'bluff-whn'", "bluff-when"),
]


@pytest.mark.parametrize("argv,unknown,near", TYPOS, ids=[a[0] for a, _, _ in TYPOS])
def test_a_misspelt_name_suggests_the_near_one(argv, unknown, near, capsys, monkeypatch, tmp_path):
    monkeypatch.delenv("UNO_RL_EXPERIMENTS", raising=False)
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == f"error: {unknown} (did you mean {near!r}?)\n"


def test_evaluate_one_agent_says_what_is_needed(capsys):
    assert main(["evaluate", "color-first"]) == 2
    err = capsys.readouterr().err
    assert "at least two" in err and "round-robin" not in err and err.count("\n") == 1


@pytest.mark.parametrize("name", ["presets", "decks", "agents", "experiments"])
def test_listings(name, capsys):
    if not _has_listing():
        pytest.skip("uno_rl.programs.listing is not there yet")
    assert main([name]) == 0
    text = capsys.readouterr().out
    expected = {
        "presets": "official", "decks": "extreme", "agents": "color-first", "experiments": "strength"
    }  # fmt: skip
    assert expected[name] in text


def _env() -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    return env


def test_help_does_not_import_the_programs():
    code = (
        "import sys; from uno_rl.__main__ import main; main(['--help']); "
        "assert 'torch' not in sys.modules and 'pandas' not in sys.modules, sorted(sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], env=_env(), capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_python_m_uno_rl_evaluate_runs_for_real(tmp_path):
    out = tmp_path / "eval"
    done = subprocess.run(
        [sys.executable, "-m", "uno_rl", "evaluate", "color-first", "random-playable",
         "--rounds", "200", "--no-progress", "--out", str(out)],
        env=_env(), capture_output=True, text=True, cwd=tmp_path, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "rounds won" in done.stdout
    agents = pd.read_parquet(out / "agents.parquet")
    assert set(agents["agent"]) == {"color-first", "random-playable"}


def test_python_m_uno_rl_x_keeps_working(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "uno_rl.simulate", "--games", "4", "--rounds", "8", "--no-progress"],
        env=_env(), capture_output=True, text=True, cwd=tmp_path, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "rounds=" in done.stdout
