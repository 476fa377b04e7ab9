"""``python -m uno_rl.eval.openspiel_versus``: OpenSpiel's IS-MCTS against pimc on duplicate
deals, its tidy rows and table, a stopped run resumed to the rows of an uninterrupted one,
other settings refused, bad input in one line."""

from __future__ import annotations

import json
import os
import shutil
import signal

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("pyspiel")
pytest.importorskip("open_spiel.python.algorithms.ismcts")

from uno_rl.eval import openspiel_versus as versus  # noqa: E402
from uno_rl.eval.openspiel_versus_table import COLUMNS, read_rows  # noqa: E402

#: A cheap match: 2 players, rounds cut at 60 turns, 3 simulations, a small pimc.
CHEAP = [
    "--players", "2", "--set", "max_turns=60", "--seed", "1", "--simulations", "3",
    "--pimc", "pimc:objective=win,determinizations=2,rollouts=1", "--no-progress",
]  # fmt: skip


def run(argv: list[str]) -> int:
    """``main``'s exit status, argparse's ``SystemExit`` included."""
    try:
        return versus.main(argv)
    except SystemExit as stop:
        return stop.code


@pytest.fixture(scope="module")
def whole(tmp_path_factory):
    """The folder of an uninterrupted run of 4 rounds (2 deals)."""
    out = tmp_path_factory.mktemp("whole")
    assert run([*CHEAP, "--rounds", "4", "--out", str(out)]) == 0
    return out


def test_rounds_are_tidy_rows_of_duplicate_deals(whole):
    rows = read_rows(whole / "rounds.csv")
    assert tuple(rows.columns) == COLUMNS and len(rows) == 8
    assert rows["round"].tolist() == [0, 0, 1, 1, 2, 2, 3, 3]
    assert rows["seat"].tolist() == [0, 1] * 4
    assert rows["ismcts_position"].tolist() == [0, 0, 1, 1, 0, 0, 1, 1]
    assert rows["side"].tolist() == ["ismcts", "pimc", "pimc", "ismcts"] * 2
    seeds = rows["deal_seed"].tolist()
    assert seeds[:4] == [seeds[0]] * 4 and seeds[4:] == [seeds[4]] * 4 and seeds[0] != seeds[4]
    for _, one in rows.groupby("round"):
        assert one["net_points"].sum() == 0 and one["reward"].sum() == pytest.approx(0.0)
        winner = one["winner"].iloc[0]
        assert one["won"].tolist() == [winner == s for s in (0, 1)]
        assert winner == -1 or not one["truncated"].any()
        assert (one["decisions"] > 0).all() and (one["seconds"] > 0).all()
    settings = json.loads((whole / "settings.json").read_text())
    assert settings["rounds"] == 4 and settings["reward"] == "win-loss"
    table = (whole / "table.md").read_text()
    assert "| IS-MCTS | 1 |" in table and "| pimc | 1 |" in table
    assert "4 rounds (2 deals x 2 seatings), seed 1" in table


def test_a_stopped_run_resumes_to_the_rows_of_an_uninterrupted_one(
    whole, tmp_path, monkeypatch, capsys
):
    out = tmp_path / "run"
    played = versus.play_round

    def one_then_stop(*args, **kwargs):  # Ctrl-C in the second round
        if (out / "rounds.csv").is_file() and len(read_rows(out / "rounds.csv")):
            os.kill(os.getpid(), signal.SIGINT)
        return played(*args, **kwargs)

    monkeypatch.setattr(versus, "play_round", one_then_stop)
    assert run([*CHEAP, "--rounds", "4", "--out", str(out)]) == 130
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"interrupted: 1 of 4 rounds done in {out / 'rounds.csv'}; run the same "
                   "command to resume"]  # fmt: skip
    assert read_rows(out / "rounds.csv")["round"].tolist() == [0, 0]
    monkeypatch.undo()
    assert run([*CHEAP, "--rounds", "2", "--out", str(out)]) == 0  # the first deal
    assert "resuming the run" in capsys.readouterr().err
    assert run([*CHEAP, "--rounds", "4", "--out", str(out)]) == 0  # a second deal added
    resumed, uninterrupted = (read_rows(o / "rounds.csv") for o in (out, whole))
    pd.testing.assert_frame_equal(
        resumed.drop(columns="seconds"), uninterrupted.drop(columns="seconds")
    )
    assert (out / "table.md").read_text().splitlines()[:6] == (
        (whole / "table.md").read_text().splitlines()[:6]
    )


def test_other_settings_are_refused_and_fresh_starts_over(whole, tmp_path, capsys):
    out = tmp_path / "run"
    shutil.copytree(whole, out)
    before = (out / "rounds.csv").read_bytes()
    assert run([*CHEAP, "--rounds", "4", "--simulations", "2", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: --out") and "--fresh" in err[0]
    assert "simulations" in err[0] and (out / "rounds.csv").read_bytes() == before
    assert run([*CHEAP, "--rounds", "1", "--simulations", "2", "--fresh", "--out", str(out)]) == 0
    assert read_rows(out / "rounds.csv")["round"].tolist() == [0, 0, 1, 1]  # one whole deal
    assert json.loads((out / "settings.json").read_text())["simulations"] == 2


def test_rows_that_are_not_the_runs_are_refused(whole, tmp_path, capsys):
    out = tmp_path / "run"
    shutil.copytree(whole, out)
    rows = read_rows(out / "rounds.csv")
    rows.loc[0, "deal_seed"] = np.uint64(7)
    rows.to_csv(out / "rounds.csv", index=False)
    assert run([*CHEAP, "--rounds", "4", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "rounds.csv is not the rounds" in err[0] and "--fresh" in err[0]


@pytest.mark.parametrize(
    "bad",
    [
        ["--rounds", "0"],
        ["--simulations", "0"],
        ["--rollouts", "0"],
        ["--uct-c", "nan"],
        ["--preset", "nope"],
        ["--set", "foo"],
        ["--set", "foo=1"],
        ["--pimc", "nope"],
        ["--rollout", "pimc"],
        ["--bogus"],
    ],
)
def test_bad_input_is_one_line_and_status_2(bad, tmp_path, capsys):
    out = tmp_path / "run"
    assert run([*CHEAP, "--rounds", "2", *bad, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and not out.exists()


def test_an_unusable_out_is_one_line_and_status_2(tmp_path, capsys):
    (tmp_path / "file").write_text("")
    assert run([*CHEAP, "--rounds", "2", "--out", str(tmp_path / "file")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: --out")
