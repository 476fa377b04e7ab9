"""Hostile names never reach the terminal raw: seat names, presets and messages from a replay
file (or a command line) are printed with every control character escaped."""

from __future__ import annotations

import io
import json
import unicodedata

import numpy as np
import pytest

from uno_rl.agents import make_agent
from uno_rl.core import load_rules
from uno_rl.plumbing.safe_text import printable
from uno_rl.programs import play
from uno_rl.programs import replay as cli
from uno_rl.replays import AgentSeat, GameRecorder, play_game, simulate, to_dict
from uno_rl.replays.format import from_dict
from uno_rl.terminal.narrate import Voice
from uno_rl.terminal.table import seat_names

#: Names that would retitle, clear or scroll the terminal, forge lines or flip the text.
HOSTILE = [
    "\x1b]0;pwned\x07",  # OSC: set the window title
    "\x1b[2J\x1b[H",  # clear the screen, cursor home
    "bot\r\nseat 9 (fake) wins",  # forged line
    "\x9b31m\x7f\x00",  # C1 CSI, DEL, NUL
    "\u202egnp.exe",  # right-to-left override
    "\ud800",  # a lone surrogate (JSON "\ud800"): unprintable in UTF-8
]


def unsafe_chars(text: str) -> list[str]:
    """Characters of ``text`` that must not reach a terminal (newlines between lines allowed)."""
    bad = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}
    return [c for c in text if c != "\n" and unicodedata.category(c) in bad]


@pytest.mark.parametrize("name", HOSTILE)
def test_printable_escapes_every_control_character(name):
    shown = printable(name)
    assert not unsafe_chars(shown) and "\n" not in shown
    assert printable(shown) == shown  # idempotent
    assert shown.encode("utf-8")  # printable in UTF-8 (no lone surrogate)


def test_printable_keeps_plain_and_accented_text():
    for text in ("seat 1 (color-first)", "Zoë the bot", "ppo:checkpoint=a b.pt", "日本"):
        assert printable(text) == text
    assert printable("\x1b[2J") == "\\x1b[2J" and printable("a\x07") == "a\\x07"
    assert printable("\u202e") == "\\u202e" and printable("\x9b") == "\\x9b"


def test_names_are_escaped_where_names_are_made():
    voice = Voice(HOSTILE[:2], you=None)
    assert all(not unsafe_chars(n) for n in voice.names)
    assert all(not unsafe_chars(n) for n in seat_names(HOSTILE))


@pytest.fixture(scope="module")
def hostile_replay(tmp_path_factory):
    """A real 3-player game with hostile seat names, preset, program and violation message,
    stopped after 30 decisions (so that the violation applies)."""
    rules = load_rules("official", players=3)
    rng = np.random.default_rng(5)
    lineup = ["random-playable", "rule", "color-first"]
    players = [AgentSeat(make_agent(spec, rules), rng) for spec in lineup]
    recorder = GameRecorder(rules, 123, lineup, preset="official", source={})
    play_game(rules, players, 123, recorder)
    data = to_dict(recorder.replay())
    data["actions"] = data["actions"][:30]
    data["outcome"] = None
    data["seats"] = [HOSTILE[0] + HOSTILE[3], HOSTILE[1] + HOSTILE[4], HOSTILE[2] + HOSTILE[5]]
    data["preset"] = "official\x1b[2J"
    data["source"] = {"program": "\x1b]0;evil\x07uno_rl.play"}
    state = simulate(from_dict(data))
    data["violation"] = {"seat": int(state.actor[0]), "action": 99, "message": "\x1b[2Jboom\r"}
    path = tmp_path_factory.mktemp("hostile") / "hostile.json"
    path.write_text(json.dumps(data), encoding="utf-8")  # \ud800 is written as an escape
    return path


@pytest.mark.parametrize("view", [[], ["--seat", "0"], ["--seat", "2"]])
def test_replay_prints_hostile_names_escaped(hostile_replay, view):
    out = io.StringIO()
    code = cli.main([str(hostile_replay), "--no-color", *view], lambda: "", out)
    text = out.getvalue()
    assert code == 0
    assert not unsafe_chars(text), sorted(set(unsafe_chars(text)))
    assert "\\x1b]0;pwned\\x07" in text and "\\x1b[2J\\x1b[H" in text
    assert "bot\\r\\nseat 9 (fake) wins" in text and "\\u202egnp.exe" in text
    assert "\\ud800" in text and "\\x9b31m\\x7f\\x00" in text
    assert "official\\x1b[2J" in text and "\\x1b]0;evil\\x07uno_rl.play" in text
    if not view:  # the violation message (a seat view shows it to the offender only)
        assert "\\x1b[2Jboom\\r" in text
    text.encode("utf-8")  # the whole output can be written to a UTF-8 terminal


def test_replay_step_mode_escapes_names_too(hostile_replay):
    out = io.StringIO()
    assert cli.main([str(hostile_replay), "--no-color", "--step"], lambda: "", out) == 0
    assert not unsafe_chars(out.getvalue())


def test_play_escapes_a_hostile_preset_path(tmp_path):
    preset = tmp_path / "evil\x1b]0;pwned\x07.toml"
    preset.write_text("[rules]\nplayers = 2\n", encoding="utf-8")
    out = io.StringIO()
    code = play.main(
        ["--opponents", "rule", "--preset", str(preset), "--seed", "1", "--no-color"],
        lambda: "q",
        out,
    )
    assert code == 0
    text = out.getvalue()
    assert not unsafe_chars(text) and "evil\\x1b]0;pwned\\x07.toml" in text


def test_play_escapes_a_hostile_save_path(tmp_path):
    path = tmp_path / "game\x1b[2J.json"
    out = io.StringIO()
    code = play.main(
        ["--opponents", "rule", "--seed", "1", "--no-color", "--save", str(path)], lambda: "q", out
    )
    assert code == 0 and path.exists()
    assert not unsafe_chars(out.getvalue()) and "game\\x1b[2J.json" in out.getvalue()
