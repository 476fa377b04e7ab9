"""The rule options (``--preset``, ``--players``, ``--set``) are one set of options: the programs
that play add them and read them the same way, and a bad one is the same error line in each."""

from __future__ import annotations

import argparse

import pytest

from bad_input.harness import assert_clean_error
from uno_rl.programs import evaluate, play, rules_options, simulate

#: Each program's main, with what it needs besides the rule options (a bad one stops it first).
PROGRAMS = {
    "simulate": (simulate.main, ["--games", "2", "--rounds", "2", "--no-progress"]),
    "evaluate": (evaluate.main, ["rule", "random-playable", "--rounds", "4", "--no-progress"]),
    "play": (lambda argv: play.main(argv, lambda: "q"), ["--opponents", "rule"]),
}

#: (the rule options, the whole error line after ``error: ``): the same in every program.
SAME_LINE = [
    (["--set", "stacking"], "--set a rule switch must be KEY=VALUE, got 'stacking'"),
    (["--set", "=3"], "--set a rule switch must be KEY=VALUE, got '=3'"),
    (
        ["--set", "max_turns=" + "[" * 900],
        "--set max_turns: value [[[[[[[[[[[[[[[[[[[[... cannot be read (nested too deeply)",
    ),
]


@pytest.mark.parametrize("name", PROGRAMS)
@pytest.mark.parametrize("argv, line", SAME_LINE, ids=["no-equals", "no-key", "nested"])
def test_a_bad_switch_is_the_same_line_in_every_program(name, argv, line, capsys):
    main, rest = PROGRAMS[name]
    shown = assert_clean_error(main, [*rest, *argv], line, capsys)
    assert shown == f"error: {line}"


@pytest.mark.parametrize("name", PROGRAMS)
def test_a_bad_preset_or_count_fails_in_every_program(name, capsys):
    main, rest = PROGRAMS[name]
    assert_clean_error(main, [*rest, "--preset", "offcial"], "unknown preset 'offcial'", capsys)
    assert_clean_error(
        main, [*rest, "--players", "11"], "argument --players: must be between 2 and 10", capsys
    )
    assert_clean_error(main, [*rest, "--set", "stackng=any"], "unknown rules key 'stackng'", capsys)


@pytest.mark.parametrize("name", PROGRAMS)
def test_every_program_adds_the_shared_options(name):
    module = {"simulate": simulate, "evaluate": evaluate, "play": play}[name]
    parser = module.build_parser()
    by_flag = {flag: action for action in parser._actions for flag in action.option_strings}
    assert by_flag["--set"].dest == "switches" and by_flag["--set"].metavar == "KEY=VALUE"
    assert isinstance(by_flag["--set"], argparse._AppendAction)
    assert by_flag["--preset"].default == "official"
    args = parser.parse_args([*PROGRAMS[name][1], "--set", "stacking=any", "--players", "3"])
    rules = rules_options.rules_from_args(args, module.RULES_OPTIONS)
    assert rules.stacking == "any" and rules.players == 3


def test_the_player_count_as_a_switch_is_each_programs_call():
    """``--set players=N``: evaluate takes it (a table of N), simulate and play refuse it."""
    read = rules_options.read_switches
    assert read(["players=3"], evaluate.RULES_OPTIONS) == {"players": 3}
    with pytest.raises(ValueError, match="--players"):
        read(["players=3"], simulate.RULES_OPTIONS)
    with pytest.raises(ValueError, match="do not --set players"):
        read(["players=3"], play.RULES_OPTIONS)


def test_an_unreadable_preset_file_names_the_option(monkeypatch):
    def unreadable(preset, **overrides):
        raise RecursionError("deep")

    monkeypatch.setattr(rules_options, "load_rules", unreadable)
    with pytest.raises(ValueError, match=r"--preset 'deep.toml' cannot be read: nested too deep"):
        rules_options.load_preset_rules("deep.toml", None, {})
