"""``python -m uno_rl.play`` given bad options: one ``error:`` line naming it, exit status 2.

Bad presets (unknown, a folder, a binary or truncated TOML file, a 5,000-digit number), bad
switches, seat counts, seats, seeds, agent specs and save paths. ``{tmp}`` in a case is a
folder holding the bad files of :func:`files`.
"""

from __future__ import annotations

import pytest

from bad_input.harness import assert_clean_error
from uno_rl.programs import play

HUGE = "9" * 5000


@pytest.fixture
def files(tmp_path):
    (tmp_path / "binary.toml").write_bytes(b"\x00\xff\xfe\x89PNG" * 20)
    (tmp_path / "huge.toml").write_text(f"[rules]\nplayers = {HUGE}\n")
    (tmp_path / "truncated.toml").write_text("[rules]\nplayers = [[[")
    (tmp_path / "folder.toml").mkdir()
    (tmp_path / "a-file").write_text("not a folder")
    return tmp_path


CASES = [
    # presets
    (["--preset", "nowhere"], "unknown preset 'nowhere'"),
    (["--preset", ""], "unknown preset ''"),
    (["--preset", "{tmp}/folder.toml"], ("folder.toml", "is a folder", "not a preset file")),
    (["--preset", "{tmp}/binary.toml"], ("binary.toml", "UTF-8", "text")),
    (["--preset", "{tmp}/huge.toml"], ("huge.toml", "4,300", "4300", "digits")),
    (["--preset", "{tmp}/truncated.toml"], "is not valid TOML"),
    (["--preset", "{tmp}/missing.toml"], "missing.toml does not exist"),
    (["--preset", "\x1b[2J"], "unknown preset '\\x1b[2J'"),
    # switches
    (["--set", "stacking=maybe"], "'stacking' must be one of"),
    (["--set", "stackin=any"], "did you mean 'stacking'"),
    (["--set", "stacking"], "a rule switch must be key=value"),
    (["--set", "=any"], "a rule switch must be key=value"),
    (["--set", "players=3"], "do not --set players"),
    (["--set", f"hand_size={HUGE}"], "is too long (5,000 characters"),
    (["--set", "hand_size=" + "[" * 5000], "is too long (5,000 characters"),
    (["--set", "hand_size=" + "[" * 900], "nested too deeply"),
    (["--set", "hand_size=nan"], "'hand_size' must be an integer"),
    (["--set", "uno_forget_prob=inf"], "'uno_forget_prob' must be in [0.0, 1.0]"),
    # seat counts and seats
    (["--opponents-count"], "unrecognized arguments"),
    ("10 opponents", "1 to 9 agents (2 to 10 players), got 10"),
    (["--seat", "2"], "--seat must be in [0, 1], got 2"),
    (["--seat", "-1"], "argument --seat: must be between 0 and 9, got -1"),
    (["--seat", "one"], "argument --seat: 'one' is not a whole number"),
    (["--seat", HUGE], "argument --seat: 99999"),
    # seeds
    (["--seed", "-3"], "argument --seed: a seed must be between 0 and 2^63 - 1"),
    (["--seed", str(2**63)], "a seed must be between 0 and 2^63 - 1"),
    (["--seed", "1e5"], "argument --seed: '1e5' is not a whole number"),
    (["--seed", "nan"], "argument --seed: 'nan' is not a whole number"),
    (["--seed", HUGE], "argument --seed: 99999"),
    # agent specs
    ("agent nobody", "unknown agent 'nobody'"),
    ("agent ", "an agent spec must be a non-empty string"),
    ("agent rule:bluff=2", "'bluff' must be in"),
    ("agent rule:bluff=inf", ("'bluff' must be", "inf")),
    ("agent rule:bluff", "expected key=value"),
    ("agent {tmp}/binary.toml", ("binary.toml", "UTF-8", "text")),
    ("agent ppo:checkpoint={tmp}/missing.pt", "no such file"),
    ("agent ppo:checkpoint={tmp}", "is a folder"),
    ("agent rule\x1b]0;pwned\x07", "unknown agent 'rule\\x1b]0;pwned\\x07'"),
    # save paths: refused before the game, not after it
    (["--save", "{tmp}"], "is a folder"),
    (["--save", "{tmp}/a-file/game.json"], "is a file, not a folder"),
    (["--save", ""], "--save needs a file name"),
    (["--save", "/proc/x/y.json"], "--save '/proc/x/y.json' cannot be written: no file can be"),
    (["--save", "/proc/y.json"], "--save '/proc/y.json' cannot be written: no file can be made"),
    # the command line itself
    (["--no-colour"], "unrecognized arguments: --no-colour"),
]


def command_line(case, tmp) -> list[str]:
    if case == "10 opponents":
        return ["--opponents"] + ["rule"] * 10
    if isinstance(case, str):  # "agent SPEC"
        return ["--opponents", case.removeprefix("agent ").replace("{tmp}", str(tmp))]
    return ["--opponents", "rule", *(arg.replace("{tmp}", str(tmp)) for arg in case)]


def case_id(expected) -> str:
    return (expected if isinstance(expected, str) else expected[0])[:50]


@pytest.mark.parametrize("case, expected", CASES, ids=[case_id(c[1]) for c in CASES])
def test_bad_command_lines_give_one_error_line(files, capsys, case, expected):
    """``expected``: a substring of the error line, or (a substring, then words of which the
    line holds at least one: the wording of errors raised by rules and agent loading)."""
    argv = command_line(case, files)
    first, *any_of = (expected,) if isinstance(expected, str) else expected
    line = assert_clean_error(lambda a: play.main(a, lambda: "q"), argv, first, capsys)
    assert not any_of or any(word.lower() in line.lower() for word in any_of), line
    assert "\x1b" not in line and "\x07" not in line


@pytest.mark.parametrize(
    "argv, expected",
    [
        (["--players", "3", "--opponents", "rule"], "--players 3 needs 2 --opponents, got 1"),
        (["--players", "1"], "argument --players: must be between 2 and 10, got 1"),
        (["--players", "many"], "argument --players: 'many' is not a whole number"),
        (["--players", "2", "--seat", "2"], "--seat must be in [0, 1], got 2"),
        (["--set", "players=3"], "do not --set players"),
    ],
)
def test_players_without_or_against_opponents_is_one_error_line(capsys, argv, expected):
    assert_clean_error(lambda a: play.main(a, lambda: "q"), argv, expected, capsys)
