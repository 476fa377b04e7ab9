"""The evaluator names agents by short labels in what it prints, and keeps the full specs in
its tables beside the labels."""

from __future__ import annotations

import re
import shutil

import pandas as pd
import pytest

from uno_rl.agents import AGENTS_DIR
from uno_rl.eval.run import evaluate
from uno_rl.programs import evaluate as cli

#: The widest line of a printed table the report may have.
WIDTH = 120
#: The label of the checkpoint of :func:`long_checkpoint`: its run's name.
LABEL = "ppo:official-2p-schedule-b"


@pytest.fixture(scope="module")
def long_checkpoint(tmp_path_factory):
    """``ppo:checkpoint=...`` of a shipped policy copied deep into a run folder, as training
    writes it (``runs/NAME/<timestamp>/policy.pt``), under a long path."""
    deep = tmp_path_factory.mktemp("deep") / ("experiments-" * 6) / "runs"
    run = deep / "official-2p-schedule-b" / "11111111-111111"
    run.mkdir(parents=True)
    shutil.copy(AGENTS_DIR / "ppo-official-2p.pt", run / "policy.pt")
    spec = f"ppo:checkpoint={run / 'policy.pt'}"
    assert len(spec) > 150
    return spec


def table_lines(text: str) -> list[str]:
    """The lines of the printed tables: the column headers and the agents' rows (a row holds
    the interval of its rounds won, ``[44.12%, 57.84%]``; the paired differences are signed)."""
    row = re.compile(r"\[\d+\.\d\d%, \d+\.\d\d%\]")
    return [line for line in text.splitlines() if "rounds won 95%" in line or row.search(line)]


def test_a_checkpoint_with_a_long_path_prints_a_narrow_table(long_checkpoint, tmp_path, capsys):
    out = tmp_path / "ev"
    code = cli.main([long_checkpoint, "color-first", "--rounds", "40", "--workers", "1",
                     "--out", str(out), "--no-progress"])  # fmt: skip
    assert code == 0
    text = capsys.readouterr().out
    lines = table_lines(text)
    assert len(lines) == 3, text  # the header and a row per agent
    assert max(len(line) for line in lines) < WIDTH, "\n".join(lines)
    label = LABEL  # the run's name
    assert any(line.lstrip().startswith(label) for line in lines[1:])
    assert f"match-up: {label} vs color-first" in text
    assert f"{label} minus color-first" in text
    assert re.search(rf"OpenSkill ordinal over 40 rounds: (.*, )?{re.escape(label)} -?\d", text)
    assert f"agent {label} = {long_checkpoint}" in text  # the full spec, said once
    assert text.count(long_checkpoint) == 1


def test_the_tables_keep_the_full_spec_beside_the_label(long_checkpoint, tmp_path):
    out = tmp_path / "ev"
    assert cli.main([long_checkpoint, "color-first", "--rounds", "40", "--workers", "1",
                     "--out", str(out), "--no-progress"]) == 0  # fmt: skip
    for name in ("seats", "agents", "ratings"):
        frame = pd.read_parquet(out / f"{name}.parquet")
        pd.testing.assert_frame_equal(frame, pd.read_csv(out / f"{name}.csv"), check_dtype=False)
        labels = dict(zip(frame["agent"], frame["label"]))
        assert labels == {long_checkpoint: LABEL, "color-first": "color-first"}, name
    pairs = pd.read_parquet(out / "pairs.parquet").iloc[0]
    assert (pairs["agent_a"], pairs["agent_b"]) == (long_checkpoint, "color-first")
    assert (pairs["label_a"], pairs["label_b"]) == (LABEL, "color-first")
    assert pairs["matchup"] == f"{long_checkpoint} vs color-first"
    assert pairs["matchup_label"] == f"{LABEL} vs color-first"


def test_agents_of_one_name_keep_the_parameter_that_tells_them_apart(capsys, tmp_path):
    specs = ["color-first:bluff=1", "color-first", "rule:bluff=1"]
    result = evaluate(specs, players=3, rounds=30, seed=4, workers=1, progress=False)
    labels = dict(zip(result.agents["agent"], result.agents["label"]))
    assert labels == {"color-first:bluff=1": "color-first:bluff=1", "color-first": "color-first",
                      "rule:bluff=1": "rule"}  # fmt: skip
    seats = result.seats
    assert set(seats["matchup_label"]) == {"color-first:bluff=1 | color-first | rule"}
    assert set(seats["matchup"]) == {"color-first:bluff=1 | color-first | rule:bluff=1"}
    ratings = dict(zip(result.ratings["agent"], result.ratings["label"]))
    assert ratings == labels
    text = cli.format_report(result)
    assert "agent rule = rule:bluff=1" in text and "agent color-first =" not in text
    rows = [line.split()[0] for line in table_lines(text)[1:]]
    assert sorted(rows) == ["color-first", "color-first:bluff=1", "rule"]


def test_labels_keep_the_tables_the_same_for_any_number_of_workers(long_checkpoint):
    kwargs = dict(rounds=40, seed=3, progress=False)
    one = evaluate([long_checkpoint, "color-first:bluff=1", "color-first"], workers=1, **kwargs)
    two = evaluate([long_checkpoint, "color-first:bluff=1", "color-first"], workers=2, **kwargs)
    for name in ("seats", "agents", "pairs", "ratings"):
        pd.testing.assert_frame_equal(getattr(one, name), getattr(two, name))
    assert one.agents["label"].nunique() == 3
