"""``python -m uno_rl.experiment`` given bad input: one line naming the problem, exit status 2,
no traceback, no game played and no run folder made."""

from __future__ import annotations

import os

import pytest

from bad_input.harness import assert_clean_error
from uno_rl.programs import experiment

GOOD = """\
description = "tiny"
seed = 2
rounds = 200
rating_rounds = 500
[grid]
presets = ["official", "no-bluff"]
players = [2, 3]
[grid.switches]
caught_bluffer = ["draws-4", "takes-back"]
[agents]
specs = ["color-first", "rule"]
[[focus]]
presets = ["official"]
switches = {caught_bluffer = "draws-4"}
rounds = 400
[quick]
rounds = 100
"""

# (text replaced in GOOD, its replacement, expected part of the message)
CONFIGS = [
    ("seed = 2", "seed = 2\ncolour = 1", "colour: unknown key"),
    ("rounds = 200", "rounds = 0", "rounds: must be an integer [1, 100000000], got 0"),
    ("rounds = 200", "rounds = 1000000000000", "rounds: must be an integer [1, 100000000]"),
    ("rounds = 200", 'rounds = "many"', "rounds: must be an integer"),
    ("rounds = 200", "rounds = 2.5", "rounds: must be an integer"),
    ("rounds = 200", "rounds = 200\nmatches = -1", "matches: must be an integer [1, 10000000]"),
    ("rounds = 200", "", "rounds: is required"),
    ("seed = 2", "seed = -1", "seed: must be an integer [0, 9223372036854775807]"),
    ("seed = 2", "seed = 1.5", "seed: must be an integer"),
    ("rating_rounds = 500", "rating_rounds = -5", "rating_rounds: must be an integer [0,"),
    ("rating_rounds = 500", "rating_rounds = 10000000000000", "rating_rounds: must be an"),
    ("seed = 2", "seed = 2\nconfidence = nan", "confidence: must be a number in (0, 1)"),
    ("seed = 2", "seed = 2\nconfidence = 1.0", "confidence: must be a number in (0, 1)"),
    ("seed = 2", "seed = 2\nworkers = 0", "workers: must be an integer [1, 1024]"),
    ("seed = 2", "seed = 2\nworkers = 5000", "workers: must be an integer [1, 1024]"),
    ("seed = 2", 'seed = 2\nanalysis = "nope"', "analysis: must be one of bluff"),
    (
        'switches = {caught_bluffer = "draws-4"}',
        'switches = {caught_blufer = "draws-4"}',
        "focus[0].switches: unknown rule switch 'caught_blufer' (did you mean "
        "'caught_bluffer'?); valid switches: players,",
    ),
    (
        'switches = {caught_bluffer = "draws-4"}',
        'switches = {caught_bluffer = "draw-4"}',
        "focus[0]: matches no rounds cell of the grid",
    ),
    ('presets = ["official"]\nswitches', 'presets = ["offical"]\nswitches', "focus[0]: matches no"),
    ('presets = ["official"]\nswitches', "players = [4]\nswitches", "focus[0]: matches no"),
    ('presets = ["official"]\nswitches', "players = [11]\nswitches", "focus[0].players: must be"),
    ('presets = ["official"]\nswitches', 'preset = ["official"]\nswitches', "focus[0].preset: unk"),
    ("rounds = 400", "", "focus[0].rounds: is required (or matches, or both)"),
    ("rounds = 400", "rounds = 0", "focus[0].rounds: must be an integer"),
    ("rounds = 400", "matches = 10", "focus[0]: matches no matches cell"),
    ("players = [2, 3]", "players = [2, 2]", "grid.players: names 2 twice"),
    ('"official", "no-bluff"', '"official", "official"', "grid.presets: names 'official' twice"),
    ('"draws-4", "takes-back"', '"draws-4", "draws-4"', "grid.switches.caught_bluffer: names"),
    ("players = [2, 3]", "players = [2, 11]", "grid.players: must be an integer [2, 10]"),
    ('"rule"]', '"rule:bluff=nan"]', "agents.specs: agent 'rule': parameter 'bluff' must be a fin"),
    ('"rule"]', '"rulez"]', "agents.specs: unknown agent 'rulez'"),
    ('"official", "no', '"offical", "no', "grid.presets: unknown preset 'offical'"),
    ("caught_bluffer = [", "caught_bluffr = [", "grid.switches: unknown rules key 'caught_bluffr'"),
    ("[quick]\nrounds = 100", "[quick]\nrounds = -1", "rounds: must be an integer"),
    ("[quick]\nrounds = 100", "[quick]\nround = 100", "quick.round: unknown key"),
]


def _write(tmp_path, text):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    return path


@pytest.mark.parametrize("old,new,expected", CONFIGS, ids=[c[2][:40] for c in CONFIGS])
def test_bad_configs(old, new, expected, tmp_path, capsys):
    assert old in GOOD
    path = _write(tmp_path, GOOD.replace(old, new, 1))
    runs = tmp_path / "runs"
    argv = [str(path), "--runs-dir", str(runs), "--no-progress"]
    if "[quick]" in old:
        argv.append("--quick")
    line = assert_clean_error(experiment.main, argv, expected, capsys)
    assert "bad.toml" in line
    assert not runs.exists()


def _folder(tmp_path):
    return tmp_path


def _binary(tmp_path):
    path = tmp_path / "binary.toml"
    path.write_bytes(b"\x00\xff\xfe\x89PNG binary data")
    return path


def _no_quick(tmp_path):
    return _write(tmp_path, GOOD.split("[quick]")[0])


FILES = [
    ("a folder", _folder, [], "is a folder, not an experiment config"),
    ("a binary file", _binary, [], "not a text file"),
    ("missing", lambda t: t / "none.toml", [], "no such file (an experiment config)"),
    ("not TOML", lambda t: _write(t, "rounds = "), [], "not valid TOML"),
    ("no [quick]", _no_quick, ["--quick"], "this config has no [quick] table"),
]


@pytest.mark.parametrize("name,make,extra,expected", FILES, ids=[f[0] for f in FILES])
def test_bad_config_files(name, make, extra, expected, tmp_path, capsys):
    argv = [str(make(tmp_path)), "--runs-dir", str(tmp_path / "runs"), "--no-progress", *extra]
    assert_clean_error(experiment.main, argv, expected, capsys)
    assert not (tmp_path / "runs").exists()


def _a_file(tmp_path):
    path = tmp_path / "a-file"
    path.write_text("x")
    return str(path)


def _not_a_run(tmp_path):
    folder = tmp_path / "not-a-run"
    folder.mkdir()
    return str(folder)


OPTIONS = [
    ("--workers 0", lambda t: ["--workers", "0"], "--workers: must be between 1 and 1,024"),
    ("--workers big", lambda t: ["--workers", "9" * 30], "--workers: must be between 1"),
    ("--workers two", lambda t: ["--workers", "two"], "'two' is not a whole number"),
    ("--backend", lambda t: ["--backend", "spark"], "--backend: invalid choice: 'spark'"),
    ("--runs-dir file", lambda t: ["--runs-dir", _a_file(t)], "--runs-dir"),
    (
        "--runs-dir below a file",
        lambda t: ["--runs-dir", _a_file(t) + "/runs"],
        "is a file, so no folder can be made there",
    ),
    ("--resume missing", lambda t: ["--resume", str(t / "gone")], "--resume"),
    ("--resume file", lambda t: ["--resume", _a_file(t)], "is a file, not a run folder"),
    ("--resume not a run", lambda t: ["--resume", _not_a_run(t)], "not a run folder"),
    (
        "--resume and --fresh",
        lambda t: ["--resume", _not_a_run(t), "--fresh"],
        "--resume and --fresh exclude each other",
    ),
    ("--address local", lambda t: ["--address", "10.0.0.1:6379"], "only for --backend ray"),
    ("unknown flag", lambda t: ["--colour"], "unrecognized arguments: --colour"),
]


@pytest.mark.parametrize("name,make,expected", OPTIONS, ids=[o[0] for o in OPTIONS])
def test_bad_options(name, make, expected, tmp_path, capsys):
    path = _write(tmp_path, GOOD)
    extra = make(tmp_path)
    argv = [str(path), "--no-progress", *extra]
    if "--runs-dir" not in extra:
        argv += ["--runs-dir", str(tmp_path / "runs")]
    assert_clean_error(experiment.main, argv, expected, capsys)
    assert not (tmp_path / "runs").exists()


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs a folder no one can write")
def test_an_unwritable_runs_dir(tmp_path, capsys):
    argv = [str(_write(tmp_path, GOOD)), "--runs-dir", "/proc/uno-rl-runs", "--no-progress"]
    assert_clean_error(experiment.main, argv, "--runs-dir /proc/uno-rl-runs: cannot write", capsys)


def test_no_config_at_all(capsys):
    assert_clean_error(experiment.main, [], "the following arguments are required: config", capsys)


def test_a_misspelt_experiment_name_gets_a_suggestion(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("UNO_RL_EXPERIMENTS", raising=False)
    monkeypatch.chdir(tmp_path)
    argv = ["bluff-whn", "--runs-dir", str(tmp_path / "runs"), "--no-progress"]
    expected = "error: unknown experiment 'bluff-whn' (did you mean 'bluff-when'?)"
    assert assert_clean_error(experiment.main, argv, expected, capsys) == expected
    assert not (tmp_path / "runs").exists()


def test_an_experiment_name_like_no_other_gets_the_list(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("UNO_RL_EXPERIMENTS", raising=False)
    monkeypatch.chdir(tmp_path)
    argv = ["qqqq", "--runs-dir", str(tmp_path / "runs"), "--no-progress"]
    line = assert_clean_error(experiment.main, argv, "unknown experiment 'qqqq'; ", capsys)
    assert "bluff-when" in line and "did you mean" not in line
