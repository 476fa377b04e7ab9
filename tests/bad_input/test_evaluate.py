"""``python -m uno_rl.evaluate`` given bad input: one line naming the problem, exit status 2,
no traceback, and no game played (every check comes before the first chunk)."""

from __future__ import annotations

import os

import pytest

from bad_input.harness import assert_clean_error
from uno_rl.eval import run
from uno_rl.programs import evaluate

BIG = "9" * 30

# (argv after the two agents, expected part of the message)
OPTIONS = [
    (["--rounds", BIG], "--rounds: must be between 1 and 100,000,000"),
    (["--set", "match_target=" + "9" * 5000], "is too long (5,000 characters"),
    (["--set", "stacking=" + "[" * 900], "nested too deeply"),
    (["--rounds", "0"], "--rounds: must be between 1"),
    (["--rounds", "-5"], "got -5"),
    (["--rounds", "lots"], "'lots' is not a whole number"),
    (["--rounds", "1.5"], "'1.5' is not a whole number"),
    (["--rounds", "9" * 40], "is not a usable number"),
    (["--matches", "0"], "--matches: must be between 1"),
    (["--matches", BIG], "--matches: must be between 1 and 10,000,000"),
    (["--matches", "10", "--rounds", "10"], "--matches and --rounds exclude each other"),
    (["--set", "match=true", "--rounds", "20000000"], "--rounds must be at most 10,000,000"),
    (["--matches", "5", "--set", "match=false"], "cannot go with match=false"),
    (["--rating-rounds", "-5"], "--rating-rounds: must be between 0"),
    (["--rating-rounds", BIG], "--rating-rounds: must be between 0 and 1,000,000,000,000"),
    (["--confidence", "nan"], "--confidence: must be a finite number, got nan"),
    (["--confidence", "inf"], "--confidence: must be a finite number"),
    (["--confidence", "1"], "--confidence: must be in (0, 1)"),
    (["--confidence", "0"], "--confidence: must be in (0, 1)"),
    (["--confidence", "high"], "'high' is not a number"),
    (["--seed", "-1"], "--seed: a seed must be between 0 and 2^63 - 1, got -1"),
    (["--seed", str(2**63)], "--seed: a seed must be between 0 and 2^63 - 1"),
    (["--seed", BIG + "9"], "--seed: 9999"),
    (["--workers", "0"], "--workers: must be between 1 and 1,024"),
    (["--workers", "100000"], "--workers: must be between 1 and 1,024, got 100,000"),
    (["--workers", "two"], "'two' is not a whole number"),
    (["--players", "1"], "--players: must be between 2 and 10"),
    (["--players", "11"], "--players: must be between 2 and 10, got 11"),
    (["--preset", "offcial"], "unknown preset 'offcial'"),
    (["--set", "stackng=any"], "unknown rules key 'stackng'"),
    (["--set", "stacking=all"], "'stacking' must be one of"),
    (["--set", "max_turns=nan"], "'max_turns' must be an integer"),
    (["--set", "max_turns=5"], "'max_turns' must be in [10, 1000000]"),
    (["--set", "stacking"], "a rule switch must be key=value"),
    (["--set", "players=3", "--mode", "table"], "3 players need 3 agents"),
    (["--mode", "everyone"], "--mode: invalid choice: 'everyone'"),
    (["--backend", "spark"], "--backend: invalid choice: 'spark'"),
    (["--address", "10.0.0.1:6379"], "--address is only for --backend ray"),
    (["--replay-sample", "longest:3"], "--replay-sample needs --save-replays DIR"),
    (["--frobnicate"], "unrecognized arguments: --frobnicate"),
]

AGENTS = [
    ("color-first:bluff=nan", "parameter 'bluff' must be a finite number, got nan"),
    ("color-first:bluff=inf", "parameter 'bluff' must be a finite number, got inf"),
    ("color-first:bluff=-inf", "parameter 'bluff' must be a finite number"),
    ("color-first:bluff=1.5", "parameter 'bluff' must be in [0, 1], got 1.5"),
    ("color-first:bluff=-0.1", "parameter 'bluff' must be in [0, 1]"),
    ("color-first:bluff=often", "parameter 'bluff' must be float, got 'often'"),
    ("color-first:challenge=sometimes", "parameter 'challenge' must be one of"),
    ("color-first:challenge_hand=4.5", "parameter 'challenge_hand' must be int"),
    ("color-first:challenge_hand=200", "parameter 'challenge_hand' must be in [0, 108]"),
    ("color-first:challenge_hand=" + "9" * 50, "parameter 'challenge_hand' must be in"),
    ("color-first:stack=maybe", "parameter 'stack' must be bool, got 'maybe'"),
    ("color-first:colour=red", "has no parameter 'colour'"),
    ("color-first:bluff", "expected key=value, got 'bluff'"),
    ("color-first:bluff=0.1,bluff=0.2", "parameter 'bluff' given twice"),
    ("colour-first", "unknown agent 'colour-first'"),
    ("random:bluff=0.5", "agent 'random' has no parameter 'bluff'"),
    (":bluff=0.5", "unknown agent ''"),
]


@pytest.mark.parametrize("argv,expected", OPTIONS, ids=[" ".join(a)[:40] for a, _ in OPTIONS])
def test_bad_options(argv, expected, tmp_path, capsys):
    out = tmp_path / "out"
    argv = ["rule", "color-first", *argv, "--out", str(out), "--no-progress"]
    assert_clean_error(evaluate.main, argv, expected, capsys)
    assert not out.exists()


@pytest.mark.parametrize("spec,expected", AGENTS, ids=[s for s, _ in AGENTS])
def test_bad_agent_specs(spec, expected, tmp_path, capsys):
    argv = ["rule", spec, "--out", str(tmp_path / "out"), "--no-progress"]
    assert_clean_error(evaluate.main, argv, expected, capsys)


SPEC_FILES = [
    (b"\x89PNG\r\n\x1a\n\x00\xff\xfe binary", "not a text file"),
    (b'strategy = "color-first"\ncolour = 1\n', "unknown key 'colour'"),
    (b'strategy = "color-first"\n[params]\nbluff = nan\n', "'bluff' must be a finite number"),
    (b'strategy = "color-first"\n[params]\nbluff = true\n', "'bluff' must be float, got bool"),
    (b'strategy = "color-first"\n[params]\nbluff = [0.1]\n', "'bluff' must be float, got list"),
    (b'description = "no strategy"\n', "'strategy' (a string) is required"),
    (b"strategy = ", "not valid TOML"),
]


@pytest.mark.parametrize("data,expected", SPEC_FILES, ids=[e for _, e in SPEC_FILES])
def test_bad_agent_spec_files(data, expected, tmp_path, capsys):
    spec = tmp_path / "bot.toml"
    spec.write_bytes(data)
    argv = ["rule", str(spec), "--out", str(tmp_path / "out"), "--no-progress"]
    assert_clean_error(evaluate.main, argv, expected, capsys)


def _file(tmp_path):
    path = tmp_path / "a-file"
    path.write_text("not a folder")
    return path


def _table_folder(tmp_path):
    folder = tmp_path / "tables"
    (folder / "seats.parquet").mkdir(parents=True)
    return folder


OUTPUTS = [
    ("--out", lambda t: _file(t), "--out", "exists and is a file, not a folder"),
    ("--out below a file", lambda t: _file(t) / "sub", "--out", "is a file, so no folder"),
    ("--out table is a folder", _table_folder, "--out", "seats.parquet there is a folder"),
    ("--save-replays", lambda t: _file(t), "--save-replays", "exists and is a file"),
    ("--save-replays below", lambda t: _file(t) / "r", "--save-replays", "is a file, so no"),
    ("--out empty", lambda t: "", "--out", "--out must name a folder"),
    ("--out a device", lambda t: "/dev/null", "--out", "is a character device, not a folder"),
    ("--out a FIFO", lambda t: _fifo(t), "--out", "exists and is a FIFO, not a folder"),
]


def _fifo(tmp_path):
    os.mkfifo(tmp_path / "fifo")
    return tmp_path / "fifo"


@pytest.mark.parametrize("name,make,option,expected", OUTPUTS, ids=[o[0] for o in OUTPUTS])
def test_bad_output_paths_fail_before_any_game(name, make, option, expected, tmp_path, capsys,
                                               monkeypatch):  # fmt: skip
    played = []
    monkeypatch.setattr(run, "play_chunks", lambda *a, **k: played.append(1))
    target = str(make(tmp_path))
    argv = ["rule", "color-first", "--rounds", "10", option, target, "--no-progress"]
    if option != "--out":
        argv += ["--out", str(tmp_path / "out")]
    assert_clean_error(evaluate.main, argv, expected, capsys)
    assert played == []


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs a folder no one can write")
@pytest.mark.parametrize("option", ["--out", "--save-replays"])
def test_an_unwritable_output_fails_before_any_game(option, tmp_path, capsys):
    argv = ["rule", "color-first", option, "/proc/uno-rl-out", "--no-progress"]
    if option != "--out":
        argv += ["--out", str(tmp_path / "out")]
    assert_clean_error(evaluate.main, argv, f"{option} /proc/uno-rl-out: cannot write", capsys)


REPLAY_SAMPLES = [
    ("longest:0", "'longest' needs a count from 1 to 10,000"),
    ("longest:" + "9" * 20, "'longest' needs a count from 1 to 10,000"),
    ("random:20000", "'random' needs a count from 1 to 10,000"),
    ("shortest:3", "unknown selector 'shortest'"),
    ("violations:2", "'violations' takes no count"),
    ("", "selects nothing"),
    ("longest:2,longest:3", "'longest' given twice"),
]


@pytest.mark.parametrize(
    "sample,expected", REPLAY_SAMPLES, ids=[s or "empty" for s, _ in REPLAY_SAMPLES]
)
def test_bad_replay_samples(sample, expected, tmp_path, capsys):
    argv = ["rule", "color-first", "--save-replays", str(tmp_path / "r"), "--replay-sample",
            sample, "--out", str(tmp_path / "out"), "--no-progress"]  # fmt: skip
    assert_clean_error(evaluate.main, argv, expected, capsys)
    assert not (tmp_path / "r").exists()


def test_no_agent_at_all(capsys):
    assert_clean_error(evaluate.main, [], "the following arguments are required: agents", capsys)


def test_a_misspelt_agent_gets_a_suggestion_not_the_list(tmp_path, capsys):
    argv = ["color-frist", "random", "--out", str(tmp_path / "out"), "--no-progress"]
    expected = "error: unknown agent 'color-frist' (did you mean 'color-first'?)"
    assert assert_clean_error(evaluate.main, argv, expected, capsys) == expected


def test_an_agent_like_no_other_gets_the_list(tmp_path, capsys):
    argv = ["qqqq", "random", "--out", str(tmp_path / "out"), "--no-progress"]
    line = assert_clean_error(evaluate.main, argv, "unknown agent 'qqqq'; available: ", capsys)
    assert "color-first" in line and "did you mean" not in line
