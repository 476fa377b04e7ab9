"""Run-time estimates: a request that takes hours says so before it starts, one above a week
is refused unless allowed, and a short one prints nothing (and plays nothing to find out)."""

from __future__ import annotations

import dataclasses
import math
import time

import numpy as np
import pytest

from uno_rl.core.rules import load_rules
from uno_rl.eval import calibrate
from uno_rl.eval import estimate as estimates
from uno_rl.eval.calibrate import TAIL_ROUNDS, Speed
from uno_rl.eval.estimate import Work
from uno_rl.eval.tournament import CHUNK_DEALS, Chunk, make_matchups
from uno_rl.programs import evaluate, experiment

OFFICIAL = load_rules("official")
PAIR = make_matchups(["color-first", "rule"], 2, "head-to-head")
#: A made-up speed: one step a millisecond, a decision a microsecond, 40 decisions a round.
SPEED = Speed(step_seconds=1e-3, decision_seconds=1e-6, decisions_per_round=40, rounds_per_game=1)


def test_a_chunk_costs_its_steps_and_its_decisions():
    games, width = 4096, 4096
    steps = games / width * 40 + TAIL_ROUNDS * 40
    assert SPEED.chunk_seconds(games, width) == pytest.approx(1e-3 * steps + 1e-6 * games * 40)


def _cell_seconds(rounds: int, players: int) -> float:
    """Seconds of one match-up of ``rounds`` at :data:`SPEED`: its full chunks, then the rest."""
    full, rest = divmod(math.ceil(rounds / players), CHUNK_DEALS)
    games = CHUNK_DEALS * players
    return full * SPEED.chunk_seconds(games, games) + SPEED.chunk_seconds(
        rest * players, rest * players
    )


def test_a_short_run_plays_nothing_to_say_nothing(monkeypatch):
    monkeypatch.setattr(estimates, "measure", _never)
    assert estimates.estimate([Work(OFFICIAL, PAIR, 20_000)], workers=2, seed=0) is None


def _never(*args, **kwargs):
    raise AssertionError("a short run was calibrated")


def test_a_long_run_adds_its_cells_and_spreads_each_over_the_workers(monkeypatch):
    monkeypatch.setattr(estimates, "measure", lambda *args: SPEED)
    rounds = 10_000_000
    works = [Work(OFFICIAL, PAIR, rounds), Work(OFFICIAL.replace(max_turns=999), PAIR, rounds)]
    got = estimates.estimate(works, workers=2, seed=0)
    assert got.seconds == pytest.approx(2 * _cell_seconds(rounds, 2) / 2)
    assert (got.cells, got.matchups, got.rounds, got.matches) == (2, 2, 2 * rounds, 0)


def test_a_cell_of_one_chunk_takes_that_chunk_whatever_the_workers(monkeypatch):
    monkeypatch.setattr(estimates, "measure", lambda *args: SPEED)
    monkeypatch.setattr(estimates, "NOTICE_SECONDS", 0)
    got = estimates.estimate([Work(OFFICIAL, PAIR, 4096)], workers=8, seed=0)
    assert got.seconds == pytest.approx(SPEED.chunk_seconds(4096, 4096))


def test_unmeasured_line_ups_are_scaled_from_the_measured_ones(monkeypatch):
    """Past the calibration's time, the remaining line-ups take the measured ones' ratio of
    estimate to worst case: here a 4-player line-up, whose worst case is twice a 2-player
    one's a round."""
    calls = []

    def measured(*args):
        calls.append(args[1])
        return SPEED

    monkeypatch.setattr(estimates, "measure", measured)
    monkeypatch.setattr(estimates, "CALIBRATION_SECONDS", -1.0)  # the heaviest only
    four = load_rules("official", players=4)
    works = [
        Work(OFFICIAL, PAIR, 40_000_000),
        Work(four, make_matchups(["color-first", "rule"], 4, "head-to-head"), 4_000_000),
    ]
    got = estimates.estimate(works, workers=1, seed=0)
    assert calls == [PAIR[0].lineup]
    two = _cell_seconds(40_000_000, 2)
    assert got.seconds == pytest.approx(two * (1 + 2 * 4_000_000 / 40_000_000))


def test_the_notice_says_how_long_and_refuses_beyond_a_week():
    hours = estimates.Estimate(27_000, 2_000, 2_000, 200_000_000, 0, 200_000_000, 2)
    assert estimates.notice(hours, False, "ask less") == (
        "estimate: about 7.5 hours (2,000 cells, 2,000 match-ups, 200,000,000 rounds at about "
        "7,407 rounds/s on 2 workers)"
    )
    minutes = estimates.Estimate(200, 1, 1, 1_000_000, 0, 1_000_000, 2)
    assert estimates.notice(minutes, False, "ask less") is None
    assert estimates.notice(None, False, "ask less") is None
    weeks = estimates.Estimate(8 * 86400, 1, 1, 0, 10_000, 100_000, 1)
    with pytest.raises(estimates.RunTooLong, match=r"about 8.0 days \(1 match-up, 10,000 matches"):
        estimates.notice(weeks, False, "ask less")
    assert estimates.notice(weeks, True, "ask less").startswith("estimate: about 8.0 days")


@pytest.mark.parametrize(
    "seconds,text",
    [(30, "1 minute"), (400, "7 minutes"), (7200, "2.0 hours"), (3 * 86400, "3.0 days")],
)
def test_durations(seconds, text):
    assert estimates.duration(seconds) == text


def test_a_match_s_rounds_follow_from_its_rounds_points():
    """The leader reaches the target after k rounds: mu k + c sigma sqrt(k) = target."""
    rules = load_rules("official", match=True)  # to 500
    points = [np.array([[60, 0], [0, 60]] * 10)]  # mu 30, sigma 30 a seat
    k = calibrate._rounds_per_game(rules, points)
    assert 30 * k + 0.5642 * 30 * math.sqrt(k) == pytest.approx(500)
    fixed = rules.replace(match_rounds=7, scoring="losers-add")
    assert calibrate._rounds_per_game(fixed, points) == 7
    assert calibrate._rounds_per_game(OFFICIAL, points) == 1


def test_a_real_calibration_is_short_and_sensible():
    start = time.perf_counter()
    chunk = Chunk(OFFICIAL, PAIR[0].lineup, 0, 0, 0, 0, CHUNK_DEALS)
    speed = calibrate.measure(OFFICIAL, PAIR[0].lineup, chunk, 4096, False)
    assert time.perf_counter() - start < 5
    assert 10 < speed.decisions_per_round < 200 and speed.rounds_per_game == 1
    assert 0 < speed.chunk_seconds(4096, 4096) < 60
    matches = load_rules("official", match=True)
    chunk = Chunk(matches, PAIR[0].lineup, 0, 0, 0, 0, CHUNK_DEALS)
    assert 3 < calibrate.measure(matches, PAIR[0].lineup, chunk, 4096, False).rounds_per_game < 60


# ---------------------------------------------------------------- the commands

#: So slow that 200 rounds take hours: one second a decision (and above a week: 100 s).
SLOW = Speed(step_seconds=0.0, decision_seconds=1.0, decisions_per_round=40, rounds_per_game=1)
SLOWER = dataclasses.replace(SLOW, decision_seconds=100.0)


def _measuring_as(monkeypatch, speed: Speed) -> None:
    """Every run is calibrated, and measures as ``speed`` (it still plays at full speed)."""
    monkeypatch.setattr(estimates, "PRIOR_SECONDS_PER_DECISION", dict.fromkeys(
        ("strategy", "network", "search"), 1.0))  # fmt: skip
    monkeypatch.setattr(estimates, "measure", lambda *args: speed)


@pytest.fixture
def slow(monkeypatch):
    _measuring_as(monkeypatch, SLOW)


@pytest.fixture
def slower(monkeypatch):
    _measuring_as(monkeypatch, SLOWER)


def test_evaluate_says_how_long_before_it_starts(slow, tmp_path, capsys):
    argv = ["color-first", "rule", "--rounds", "200", "--workers", "1", "--no-progress"]
    assert evaluate.main([*argv, "--out", str(tmp_path / "out")]) == 0
    captured = capsys.readouterr()
    first = captured.err.splitlines()[0]
    assert first == (
        "estimate: about 2.2 hours (1 match-up, 200 rounds at about 0.025 rounds/s on 1 worker); "
        "Ctrl-C stops it (the tables are written when it ends)"
    )
    assert "color-first" in captured.out  # and then it ran


def test_evaluate_refuses_a_run_above_a_week_unless_allowed(slower, tmp_path, capsys):
    argv = ["color-first", "rule", "--rounds", "200", "--workers", "1", "--no-progress"]
    assert evaluate.main([*argv, "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: this run would take about 9.3 days (1 match-up, 200 rounds")
    assert err.endswith(
        "runs estimated above a week are refused: ask fewer rounds (or matches) or compare fewer "
        "agents, or pass --allow-long to run it anyway"
    )
    assert "\n" not in err and not (tmp_path / "out").exists()
    assert evaluate.main([*argv, "--out", str(tmp_path / "out"), "--allow-long"]) == 0


EXPERIMENT = """\
seed = 2
rounds = 200
rating_rounds = 100
[grid]
presets = ["official"]
players = [2]
[agents]
specs = ["color-first", "rule"]
"""


def test_an_experiment_says_how_long_first(slow, tmp_path, capsys):
    path = tmp_path / "slow.toml"
    path.write_text(EXPERIMENT)
    argv = [str(path), "--runs-dir", str(tmp_path / "runs"), "--no-progress", "--workers", "1"]
    assert experiment.main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == (
        "estimate: about 2.2 hours (1 match-up, 200 rounds at about 0.025 rounds/s on 1 worker); "
        "Ctrl-C stops it, and the same command resumes it"
    )
    assert lines[1].startswith("starting slow in ")


def test_an_experiment_above_a_week_is_refused_before_its_run_folder(slower, tmp_path, capsys):
    path = tmp_path / "slow.toml"
    path.write_text(EXPERIMENT)
    argv = [str(path), "--runs-dir", str(tmp_path / "runs"), "--no-progress", "--workers", "1"]
    assert experiment.main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"error: {path}: this run would take about 9.3 days")
    assert "split the experiment into smaller ones, or pass --allow-long" in err
    assert not (tmp_path / "runs" / "slow").exists()


def test_a_speed_below_ten_keeps_two_digits():
    from uno_rl.eval.limits import rate

    assert rate(7_412.6) == "7,413"
    assert rate(12.4) == "12"
    assert rate(0.4831) == "0.48"  # a search agent's rounds a second, not "0"
    assert rate(0.025) == "0.025"
