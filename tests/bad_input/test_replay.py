"""``python -m uno_rl.replay`` given bad files and options: one ``error:`` line, exit status 2.

Each case writes (or names) one bad replay and checks that the single error line names the
problem: huge numbers, deep nesting, wrong types, missing keys, folders, binary and truncated
files, bad options.
"""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

from bad_input.harness import assert_clean_error
from uno_rl.agents import make_agent
from uno_rl.core import load_rules
from uno_rl.programs import replay as cli
from uno_rl.replays import AgentSeat, GameRecorder, play_game, to_dict


@pytest.fixture(scope="module")
def good() -> dict:
    """A real two-player game as replay data."""
    rules = load_rules("official")
    rng = np.random.default_rng(3)
    lineup = ["random-playable", "rule"]
    players = [AgentSeat(make_agent(spec, rules), rng) for spec in lineup]
    recorder = GameRecorder(rules, 77, lineup, preset="official", source={"program": "test"})
    state = play_game(rules, players, 77, recorder)
    return to_dict(recorder.replay(state))


def edited(good: dict, change) -> str:
    data = json.loads(json.dumps(good))
    change(data)
    return json.dumps(data)


def _set(path: str, value):
    def change(data: dict) -> None:
        *parents, last = path.split(".")
        target = data
        for key in parents:
            target = target[int(key)] if isinstance(target, list) else target[key]
        if isinstance(target, list):
            target[int(last)] = value
        else:
            target[last] = value

    return change


def _drop(key: str):
    return lambda data: data.pop(key)


HUGE = "9" * 5000

# (case id, file text built from the good replay (or raw text), expected in the error line)
FILE_CASES = [
    ("5000-digit seed", lambda g: edited(g, _set("seed", 0)).replace('"seed": 0', f'"seed": {HUGE}'),
     "4,300 or more digits"),
    ("5000-digit action", lambda g: edited(g, _set("actions.0", [0, 0])).replace(
        '"actions": [[0, 0]', f'"actions": [[0, {HUGE}]', 1), "4,300 or more digits"),
    ("200,000 nested arrays", lambda g: "[" * 200_000 + "]" * 200_000, "nested 200,000 deep"),
    ("nested arrays in source", lambda g: edited(g, _set("source", {})).replace(
        '"source": {}', '"source": {"x": ' + "[" * 5000 + "]" * 5000 + "}"), "nested"),
    ("truncated file", lambda g: json.dumps(g)[:-40], "truncated"),
    ("empty file", lambda g: "", "the file is empty"),
    ("NaN seed", lambda g: edited(g, _set("seed", 0)).replace('"seed": 0', '"seed": NaN'), "NaN"),
    ("Infinity in rules", lambda g: edited(g, _set("rules.uno_forget_prob", 0.5)).replace(
        '"uno_forget_prob": 0.5', '"uno_forget_prob": Infinity'), "Infinity"),
    ("a list, not an object", lambda g: "[1, 2, 3]", "a replay is a JSON object, got list"),
    ("a number", lambda g: "12", "a replay is a JSON object, got int"),
    ("wrong format", lambda g: edited(g, _set("format", "zip")), "not a uno_rl replay"),
    ("version 2", lambda g: edited(g, _set("version", 2)), "version 2 is not supported"),
    ("missing seats", lambda g: edited(g, _drop("seats")), "lacks the key 'seats'"),
    ("missing actions", lambda g: edited(g, _drop("actions")), "lacks the key 'actions'"),
    ("unknown key", lambda g: edited(g, _set("extra", 1)), "unknown key 'extra'"),
    ("seed as a string", lambda g: edited(g, _set("seed", "77")), "'seed' must be an integer"),
    ("negative seed", lambda g: edited(g, _set("seed", -1)), "'seed' must be an integer"),
    ("seats not strings", lambda g: edited(g, _set("seats", [1, 2])), "'seats' must be a list"),
    ("one seat too few", lambda g: edited(g, _set("seats", ["a"])), "one seat name per player"),
    ("rules a list", lambda g: edited(g, _set("rules", [])), "'rules' must be an object"),
    ("unknown rule", lambda g: edited(g, _set("rules.stackin", "any")), "unknown rules key"),
    ("bad rule value", lambda g: edited(g, _set("rules.players", "two")), "'players'"),
    ("actions a dict", lambda g: edited(g, _set("actions", {})), "'actions' must be a list"),
    ("action a float", lambda g: edited(g, _set("actions.0", [0, 1.5])), "actions[0] must be"),
    ("action out of range", lambda g: edited(g, _set("actions.0", [0, 99])),
     "action 99 is not in [0, 77)"),
    ("seat out of range", lambda g: edited(g, _set("actions.0", [5, 60])),
     "seat 5 is not in [0, 2)"),
    ("action that does not replay", lambda g: edited(g, _set("actions.0", [0, 62])), "actions[0]"),
    ("outcome a string", lambda g: edited(g, _set("outcome", "won")), "'outcome' must be"),
    ("outcome lacks winner", lambda g: edited(g, lambda d: d["outcome"].pop("winner")),
     "lacks the key 'winner'"),
    ("outcome winner wrong", lambda g: edited(g, _set("outcome.winner", 7)),
     "do not reproduce the recorded outcome"),
    ("preset a number", lambda g: edited(g, _set("preset", 5)), "'preset' must be a string"),
    ("source a list", lambda g: edited(g, _set("source", [])), "'source' must be an object"),
    ("violation bad seat", lambda g: edited(g, _set("violation", {"seat": 9, "action": 1,
                                                                   "message": "x"})),
     "violation.seat"),
]  # fmt: skip


@pytest.mark.parametrize("text, expected", [c[1:] for c in FILE_CASES],
                         ids=[c[0] for c in FILE_CASES])  # fmt: skip
def test_bad_replay_files_give_one_error_line(tmp_path, capsys, good, text, expected):
    path = tmp_path / "bad.json"
    path.write_text(text(good), encoding="utf-8")
    line = assert_clean_error(cli.main, [str(path), "--no-color"], expected, capsys)
    assert str(path) in line  # the file is named too


def test_a_binary_file_is_named_not_utf8(tmp_path, capsys):
    path = tmp_path / "game.json"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\xff\xfe" * 50)
    assert_clean_error(cli.main, [str(path)], "not UTF-8 text", capsys)


def test_a_folder_is_named(tmp_path, capsys):
    assert_clean_error(cli.main, [str(tmp_path)], "is a folder", capsys)


def test_a_missing_file_is_named(tmp_path, capsys):
    path = tmp_path / "nowhere.json"
    line = assert_clean_error(cli.main, [str(path)], "does not exist", capsys)
    assert "nowhere.json" in line


def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path, capsys):
    fifo = tmp_path / "game.json"
    os.mkfifo(fifo)
    line = assert_clean_error(cli.main, [str(fifo)], "it is a FIFO, not a file", capsys)
    assert line.count("cannot read replay") == 1


def test_a_device_and_a_symlink_loop_are_named_for_what_they_are(tmp_path, capsys):
    loop = tmp_path / "loop.json"
    loop.symlink_to(loop)
    assert_clean_error(cli.main, [str(loop)], "it is a symlink loop", capsys)
    assert_clean_error(cli.main, ["/dev/zero"], "it is a character device, not a file", capsys)


def test_a_file_over_the_size_limit_is_refused_unread(tmp_path, capsys, monkeypatch, good):
    from uno_rl.replays import format as replay_format

    path = tmp_path / "big.json"
    path.write_text(json.dumps(good), encoding="utf-8")
    monkeypatch.setattr(replay_format, "MAX_FILE_BYTES", 1000)
    assert_clean_error(cli.main, [str(path)], "larger than 1,000 bytes", capsys)


def test_a_nul_byte_in_the_path_is_named(capsys):
    assert_clean_error(cli.main, ["game\x00.json"], "embedded null byte", capsys)


def test_a_hostile_file_name_is_escaped_in_the_error(tmp_path, capsys):
    path = tmp_path / "evil\x1b]0;owned\x07.json"
    line = assert_clean_error(cli.main, [str(path)], "cannot read replay", capsys)
    assert "\x1b" not in line and "\x07" not in line and "\\x1b]0;owned\\x07" in line


@pytest.fixture
def good_file(tmp_path, good):
    path = tmp_path / "good.json"
    path.write_text(json.dumps(good), encoding="utf-8")
    return path


OPTION_CASES = [
    (["--seat", "2"], "--seat must be in [0, 1], got 2"),
    (["--seat", "x"], "argument --seat: 'x' is not a whole number"),
    (["--seat", "-1"], "argument --seat: must be between 0 and 9, got -1"),
    (["--seat", HUGE], "argument --seat: 99999"),
    (["--seat", "0", "--open"], "not allowed with argument"),
    (["--speed"], "unrecognized arguments: --speed"),
]


@pytest.mark.parametrize("options, expected", OPTION_CASES, ids=[c[1] for c in OPTION_CASES])
def test_bad_options_give_one_error_line(good_file, capsys, options, expected):
    assert_clean_error(cli.main, [str(good_file), *options], expected, capsys)


def test_no_file_is_a_usage_error(capsys):
    assert_clean_error(cli.main, [], "the following arguments are required: file", capsys)
