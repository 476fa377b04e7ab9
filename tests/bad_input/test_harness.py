"""The bad-input harness itself: it passes a clean error and rejects the failures it guards."""

import pytest

from bad_input.harness import assert_clean_error
from uno_rl.plumbing.cli import CliParser, count_type


def _main(argv):
    parser = CliParser(prog="demo")
    parser.add_argument("--rounds", type=count_type())
    args = parser.parse_args(argv)
    if args.rounds == 13:
        raise RuntimeError("a bug, not bad input")
    return 0


def test_clean_error_passes(capsys):
    line = assert_clean_error(_main, ["--rounds", "0"], "--rounds", capsys)
    assert line.startswith("error: argument --rounds: must be between 1")


def test_success_and_traceback_fail_the_check(capsys):
    with pytest.raises(AssertionError):
        assert_clean_error(_main, ["--rounds", "5"], "rounds", capsys)
    with pytest.raises(RuntimeError):
        assert_clean_error(_main, ["--rounds", "13"], "rounds", capsys)
