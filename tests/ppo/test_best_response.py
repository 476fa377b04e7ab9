"""``uno_rl exploit``: a best response trained against a frozen agent, measured on deals it
never trained on; its run resumes after a kill as if nobody had stopped it."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from uno_rl.ppo.best_response import (
    CURVE_COLUMNS,
    GAIN_COLUMNS,
    best_response_config,
    curve_interval,
    format_gain,
    run_name,
    starting_point,
)
from uno_rl.ppo.config import TrainConfigError, load_train_config
from uno_rl.programs import exploit as exploit_program
from uno_rl.programs.exploit import DEFAULT_CONFIG, ExploitSettings, exploit

TINY = {
    "num_games": "32", "rollout_steps": "16", "total_decisions": "4096", "hidden": "32",
    "minibatch_size": "128", "update_epochs": "2", "checkpoint_every": "2",
    "torch_threads": "1", "tensorboard": "false",
}  # fmt: skip
UPDATES = 8  # 4096 / (32 * 16)
SETTINGS = ExploitSettings("random-playable", curve_points=4, curve_rounds=40, rounds=300,
                           matches=6, confidence=0.99)  # fmt: skip


class Killed(Exception):
    """Stands for a kill -9: the run stops where it is."""


def tiny_config(target: str = "random-playable", **changes):
    config = load_train_config(DEFAULT_CONFIG, {**TINY, **{k: str(v) for k, v in changes.items()}})
    return best_response_config(config, target, SETTINGS.curve_points, SETTINGS.curve_rounds)


def test_the_target_sits_in_every_other_seat_and_is_the_one_eval_agent():
    config = tiny_config()
    assert config.zoo == ["random-playable"] and config.eval_agents == ["random-playable"]
    assert (config.self_play, config.pool_share, config.zoo_share) == (0.0, 0.0, 1.0)
    assert config.final_eval_rounds == 0 and config.final_eval_matches == 0
    assert config.eval_every == UPDATES // SETTINGS.curve_points
    assert config.init_from == ""  # auto: a heuristic has no weights, the network starts fresh
    assert config.switches["reward"] == "points"  # trained on the measure it is reported in


@pytest.mark.parametrize("points", [4, 10, 20])
def test_the_curve_never_ends_on_two_points_side_by_side(points):
    """The trainer evaluates every ``eval_every`` updates and after the last: the interval
    ends the periodic ones on the last update or at least half an interval before it, with
    about the asked number of points."""
    for updates in range(2 * points, 40 * points + 1, 7):
        every = curve_interval(updates, points)
        periodic = list(range(every, updates + 1, every))
        gap = updates - periodic[-1]
        assert gap == 0 or 2 * gap >= every, (updates, every)
        assert points / 2 <= len(periodic) <= 2 * points, (updates, every)
    assert curve_interval(305, 20) == 14  # 21 periodic points, the last 11 updates before the end
    assert curve_interval(304, 20) == 16  # a divisor: the last periodic point is the end
    assert curve_interval(3, 20) == 1  # a tiny run: every update


def test_auto_starts_from_a_ppo_targets_own_weights():
    config = tiny_config("ppo-official-2p")
    assert config.init_from == "ppo-official-2p"
    assert config.hidden == [128, 128]  # the target's, not the tiny config's


def test_target_init_of_a_heuristic_is_refused():
    with pytest.raises(TrainConfigError, match="init_from: 'target'.*color-first has none"):
        tiny_config("color-first", init_from="target")


def test_run_names_are_safe_folder_names():
    assert run_name("color-first") == "exploit-color-first"
    assert run_name("ppo:checkpoint=/a/b c.pt") == "exploit-ppo-checkpoint-a-b-c.pt"


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    run = tmp_path_factory.mktemp("exploit") / "run"
    gain, decisions = exploit(SETTINGS, tiny_config(), run, progress=False)
    return run, gain, decisions


def test_a_run_writes_the_gain_the_curve_and_the_plot(reference):
    run, gain, decisions = reference
    assert decisions == 4096
    assert list(gain.columns) == GAIN_COLUMNS
    assert list(gain.measure) == ["points_per_round", "rounds_won", "matches_won"]
    assert list(gain["count"]) == [300, 300, 6] and set(gain.confidence) == {0.99}
    for r in gain.itertuples():
        assert r.low <= r.value <= r.high
        assert r.gain == pytest.approx(r.value - r.fair)
    assert list(gain.fair) == [0.0, 0.5, 0.5]
    curve = pd.read_csv(run / "curve.csv")
    assert list(curve.columns) == CURVE_COLUMNS
    assert list(curve["update"]) == [2, 4, 6, 8] and set(curve["count"]) == {40}
    assert (curve.decisions.diff().dropna() > 0).all()
    assert (run / "curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert json.loads((run / "exploit.json").read_text())["target"] == "random-playable"
    pd.testing.assert_frame_equal(pd.read_csv(run / "gain.csv"), gain, check_dtype=False)


def test_the_report_gives_each_measure_and_a_bound_never_below_zero(reference):
    _, gain, _ = reference
    text = format_gain(gain, "random-playable", 4096)
    assert "after 4,096 decisions" in text and "99% intervals" in text
    assert "net points a round" in text and "matches won" in text
    bound = float(text.split("at least ")[1].split()[0])
    assert bound == max(0.0, round(gain.low.iloc[0], 2))


def test_a_killed_run_resumes_to_the_same_tables(reference, tmp_path):
    ref_run, ref_gain, _ = reference
    run = tmp_path / "run"

    def kill(update, source):
        if update == 5:
            raise Killed("rollout of update 5")

    with pytest.raises(Killed):
        exploit(SETTINGS, tiny_config(), run, progress=False, on_rollout=kill)
    assert not (run / "gain.csv").exists()
    gain, _ = exploit(SETTINGS, tiny_config(), run, resume=True, progress=False)
    pd.testing.assert_frame_equal(gain, ref_gain)
    pd.testing.assert_frame_equal(
        pd.read_csv(run / "curve.csv"), pd.read_csv(ref_run / "curve.csv")
    )


def test_the_command_resumes_a_run_and_prints_its_gain(reference, tmp_path, capsys):
    run = tmp_path / "copy"
    import shutil

    shutil.copytree(reference[0], run)
    (run / "gain.csv").unlink()
    assert exploit_program.main(["--resume", str(run), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "Best response to random-playable after 4,096 decisions" in out
    assert (run / "gain.csv").is_file()


def test_the_curve_starts_from_the_starting_weights_score():
    config = tiny_config("random-playable", init_from="ppo-official-2p", hidden="128,128")
    start = starting_point(config, "random-playable", seed=5)
    assert list(start.columns) == CURVE_COLUMNS and len(start) == 1
    row = start.iloc[0]
    assert (row["update"], row["decisions"], row["count"]) == (0, 0, SETTINGS.curve_rounds)
    assert row.points_low <= row.points_per_round <= row.points_high
    assert row.points_per_round > 0  # the shipped bot beats random-playable from the start
    assert starting_point(tiny_config(), "random-playable", seed=5) is None  # fresh: no point


def test_at_four_players_the_curve_reads_the_evaluations_against_three_copies(tmp_path):
    settings = ExploitSettings("random-playable", curve_points=2, curve_rounds=20, rounds=40,
                               matches=0)  # fmt: skip
    config = load_train_config(DEFAULT_CONFIG, {**TINY, "players": "4", "total_decisions": "1024"})
    config = best_response_config(config, "random-playable", 2, 20)
    gain, _ = exploit(settings, config, tmp_path / "run", progress=False)
    assert list(gain.measure) == ["points_per_round", "rounds_won"]
    assert list(gain.fair) == [0.0, 0.25]
    curve = pd.read_csv(tmp_path / "run" / "curve.csv")
    assert list(curve["update"]) == [1, 2] and curve.points_per_round.notna().all()
