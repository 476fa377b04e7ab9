"""``python -m uno_rl.bench`` given bad input: one ``error:`` line naming the problem, exit
status 2, no traceback, and nothing measured (validation comes before any work)."""

import pytest

from bad_input.harness import assert_clean_error
from uno_rl.programs.bench import command as bench

HUGE = "1" * 30  # a 30-digit number

CASES = [
    # --players
    (["--players", "1"], "--players"),
    (["--players", "0"], "--players"),
    (["--players", "-2"], "--players"),
    (["--players", "11"], "--players"),
    (["--players", "nan"], "--players"),
    (["--players", "2", "x"], "--players"),
    (["--players", HUGE], "--players"),
    (["--players"], "expected at least one argument"),
    # --batch
    (["--batch", "0"], "--batch"),
    (["--batch", "-1"], "--batch"),
    (["--batch", "1.5"], "--batch"),
    (["--batch", "nan"], "--batch"),
    (["--batch", "16", str(10**7)], "--batch"),
    (["--batch", HUGE], "--batch"),
    # --rows
    (["--rows", "bogus"], "--rows"),
    (["--rows", "core", "rlcard"], "invalid choice: 'rlcard'"),
    (["--rows"], "expected at least one argument"),
    # --repeats
    (["--repeats", "0"], "--repeats"),
    (["--repeats", "-1"], "--repeats"),
    (["--repeats", "nan"], "--repeats"),
    (["--repeats", "2.5"], "--repeats"),
    (["--repeats", str(10**6)], "--repeats"),
    # --seconds
    (["--seconds", "0"], "--seconds"),
    (["--seconds", "-1"], "--seconds"),
    (["--seconds", "nan"], "--seconds"),
    (["--seconds", "inf"], "--seconds"),
    (["--seconds", "1e9"], "--seconds"),
    (["--seconds", "fast"], "--seconds"),
    # --seed
    (["--seed", "-1"], "--seed"),
    (["--seed", "nan"], "--seed"),
    (["--seed", "1.5"], "--seed"),
    (["--seed", str(2**63)], "--seed"),
    (["--seed", HUGE], "--seed"),
    # --evaluate-rounds: 0 used to mean "the default" (1,000,000 rounds)
    (["--evaluate-rounds", "0"], "--evaluate-rounds"),
    (["--evaluate-rounds", "-1"], "--evaluate-rounds"),
    (["--evaluate-rounds", "nan"], "--evaluate-rounds"),
    (["--evaluate-rounds", str(10**12 + 1)], "--evaluate-rounds"),
    (["--evaluate-rounds", HUGE], "--evaluate-rounds"),
    # --train-decisions
    (["--train-decisions", "0"], "--train-decisions"),
    (["--train-decisions", "-5"], "--train-decisions"),
    (["--train-decisions", "inf"], "--train-decisions"),
    (["--train-decisions", str(10**13)], "--train-decisions"),
    (["--rows", "train", "--train-decisions", "1000"], "one rollout"),
    # unknown or misused switches
    (["--bogus"], "unrecognized arguments: --bogus"),
    (["--quick=1"], "--quick"),
    (["extra"], "unrecognized arguments: extra"),
]


@pytest.fixture(autouse=True)
def no_work(monkeypatch):
    """Fail the test if a bad input gets as far as measuring anything."""

    def boom(*args, **kwargs):
        raise AssertionError("benchmark started before the input was validated")

    monkeypatch.setattr(bench, "run_bench", boom)


@pytest.mark.parametrize(("argv", "expected"), CASES, ids=[" ".join(c[0]) for c in CASES])
def test_bad_input_is_one_clean_line(argv, expected, capsys):
    assert_clean_error(bench.main, argv, expected, capsys)
