"""Experiment configs: validation, a run end to end, kill and resume."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from uno_rl import experiment
from uno_rl.eval.config import ConfigError, load_config

TINY = """
description = "tiny"
seed = 2
rounds = 200
rating_rounds = 500
[grid]
presets = ["official", "no-bluff"]
players = [2, 3]
[grid.switches]
caught_bluffer = ["draws-4", "takes-back"]
[agents]
specs = ["color-first", "rule"]
"""


def write(tmp_path, text, name="tiny.toml"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_config_cells_and_resolution(tmp_path):
    config = load_config(write(tmp_path, TINY))
    assert config.name == "tiny" and len(config.cells) == 2 * 2 * 2
    cell = config.cells[0]
    assert cell.variant == "official+caught_bluffer=draws-4" and cell.players == 2
    assert [m.lineup for m in config.cells[1].matchups] == [("color-first", "rule", "rule")]
    resolved = config.resolved()
    assert resolved["cells"][3]["rules"]["caught_bluffer"] == "takes-back"


@pytest.mark.parametrize(
    "change,message",
    [
        (("rounds = 200", "rounds = 200\ncolour = 1"), "colour: unknown key"),
        (("rounds = 200", "rounds = 0"), "rounds: must be an integer"),
        (("rounds = 200", ""), "rounds: is required"),
        (("seed = 2", "seed = -1"), "seed: must be an integer"),
        (("players = [2, 3]", "players = [2, 11]"), "grid.players: must be an integer [2, 10]"),
        (("players = [2, 3]", "player = [2]"), "grid.player: unknown key"),
        (('"official", ', '"offical", '), "grid.presets: unknown preset 'offical'"),
        (
            ("caught_bluffer = ", "caught_bluffr = "),
            "grid.switches: unknown rules key 'caught_bluffr'",
        ),
        (
            ('"takes-back"', '"takes-all"'),
            "grid.switches: rules key 'caught_bluffer' must be one of",
        ),
        (('"rule"]', '"rulez"]'), "agents.specs: unknown agent 'rulez'"),
        (('"rule"]', '"rule:bluff=3"]'), "agents.specs: agent 'rule': parameter 'bluff'"),
        (
            ('specs = ["color-first", "rule"]', 'specs = ["color-first", "rule"]\nmode = "table"'),
            "agents.mode: mode 'table' seats one agent per seat: 3 players need 3 agents",
        ),
        (('specs = ["color-first", "rule"]', 'spec = ["rule"]'), "agents.spec: unknown key"),
    ],
)
def test_bad_configs_fail_naming_the_key(tmp_path, change, message):
    text = TINY.replace(*change)
    with pytest.raises(ConfigError) as info:
        load_config(write(tmp_path, text, "bad.toml"))
    assert message in str(info.value) and "bad.toml" in str(info.value)


def test_missing_and_broken_files(tmp_path):
    with pytest.raises(ConfigError, match="no such experiment config"):
        load_config(tmp_path / "none.toml")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(write(tmp_path, "rounds = ", "broken.toml"))


def test_command_line_runs_and_reports(tmp_path, capsys):
    path = write(tmp_path, TINY)
    runs = tmp_path / "runs"
    assert (
        experiment.main([str(path), "--runs-dir", str(runs), "--workers", "1", "--no-progress"])
        == 0
    )
    out = capsys.readouterr().out
    assert "official+caught_bluffer=draws-4" in out and "color-first" in out
    (folder,) = (runs / "tiny").iterdir()
    for name in ("seats", "agents", "pairs", "ratings", "summary"):
        assert (folder / f"{name}.parquet").is_file() and (folder / f"{name}.csv").is_file()
    assert (folder / "DONE").is_file() and (folder / "config.toml").read_text() == TINY
    summary = pd.read_parquet(folder / "summary.parquet")
    assert len(summary) == 8 * 2
    # A finished run is not resumed: the same command starts a new one.
    assert (
        experiment.main([str(path), "--runs-dir", str(runs), "--workers", "1", "--no-progress"])
        == 0
    )
    assert len(list((runs / "tiny").iterdir())) == 2
    assert experiment.main(["nope.toml", "--runs-dir", str(runs)]) == 2
    assert "no such experiment config" in capsys.readouterr().err


def test_a_killed_run_resumes_without_lost_or_duplicated_rows(tmp_path):
    text = TINY.replace("rounds = 200", "rounds = 1500")
    path = write(tmp_path, text)
    runs = tmp_path / "runs"
    command = [sys.executable, "-m", "uno_rl.experiment", str(path), "--runs-dir", str(runs),
               "--workers", "1", "--no-progress"]  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    parts = None
    deadline = time.time() + 120
    while time.time() < deadline:
        found = list(runs.glob("tiny/*/parts/*.done"))
        if len(found) >= 2:
            parts = found[0].parent
            break
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert parts is not None, "the run did not get going"
    folder = parts.parent
    assert not (folder / "DONE").exists()
    done_before = len(list(parts.glob("*.done")))
    assert done_before < 8
    result = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert f"resuming tiny in {folder}" in result.stdout
    assert (folder / "DONE").exists() and len(list((runs / "tiny").iterdir())) == 1
    fresh = tmp_path / "fresh"
    subprocess.run([*command[:-5], "--runs-dir", str(fresh), "--workers", "1", "--no-progress"],
                   check=True, capture_output=True, timeout=300)  # fmt: skip
    (uninterrupted,) = (fresh / "tiny").iterdir()
    for name in ("seats", "pairs", "summary"):
        resumed = pd.read_parquet(folder / f"{name}.parquet")
        pd.testing.assert_frame_equal(resumed, pd.read_parquet(uninterrupted / f"{name}.parquet"))


def test_resume_refuses_a_changed_config(tmp_path, capsys):
    path = write(tmp_path, TINY)
    runs = tmp_path / "runs"
    assert (
        experiment.main([str(path), "--runs-dir", str(runs), "--workers", "1", "--no-progress"])
        == 0
    )
    (folder,) = (runs / "tiny").iterdir()
    write(tmp_path, TINY.replace("seed = 2", "seed = 3"))
    code = experiment.main(
        [str(path), "--runs-dir", str(runs), "--resume", str(folder), "--no-progress"]
    )
    assert code == 2 and "config changed" in capsys.readouterr().err
    assert experiment.main([str(path), "--resume", str(folder), "--fresh"]) == 2


def test_shipped_experiment_config_is_valid():
    root = Path(experiment.__file__).resolve().parents[1]
    config = load_config(root / "experiments" / "variants.toml")
    assert {c.preset for c in config.cells} == {
        "official",
        "house",
        "seven-zero",
        "party",
        "no-bluff",
        "kids",
    }
    assert {c.players for c in config.cells} == {2, 3, 4, 6}
    assert os.path.basename(experiment.resolve_config_path("variants")) == "variants.toml"


def test_every_shipped_experiment_config_is_valid_with_and_without_quick():
    root = Path(experiment.__file__).resolve().parents[1] / "experiments"
    paths = [p for p in sorted(root.glob("*.toml")) if not p.name.startswith("train-")]
    assert {p.stem for p in paths} >= {"variants", "bluff", "bluff-ppo"}
    for path in paths:
        config = load_config(path)
        assert config.cells, path
        if "[quick]" in path.read_text():
            quick = load_config(path, quick=True)
            assert sum(c.rounds for c in quick.cells) < sum(c.rounds for c in config.cells)


CROSSED = """
description = "crossed"
seed = 3
rounds = 120
rating_rounds = 0
[grid]
presets = ["official"]
players = [2, 3]
[grid.switches]
caught_bluffer = ["draws-4", "takes-back"]
[agents]
focal = ["color-first:bluff=0.0", "color-first:bluff=1.0"]
opponents = ["color-first:challenge=never", "color-first:challenge=always"]
[[focus]]
players = [3]
switches = { caught_bluffer = "takes-back" }
rounds = 300
[quick]
rounds = 30
grid = { players = [2] }
agents = { focal = ["color-first:bluff=1.0"] }
focus = []
"""


def test_crossed_agents_focus_cells_and_quick(tmp_path):
    config = load_config(write(tmp_path, CROSSED))
    assert config.agents == (
        "color-first:bluff=0.0",
        "color-first:bluff=1.0",
        "color-first:challenge=never",
        "color-first:challenge=always",
    )
    cell = config.cells[1]  # draws-4, 3 players
    assert [m.lineup[:2] for m in cell.matchups] == [
        ("color-first:bluff=0.0", "color-first:challenge=never"),
        ("color-first:bluff=0.0", "color-first:challenge=always"),
        ("color-first:bluff=1.0", "color-first:challenge=never"),
        ("color-first:bluff=1.0", "color-first:challenge=always"),
    ]
    assert cell.matchups[0].lineup[2] == "color-first:challenge=never"
    # Only the takes-back, 3-player cell is in focus.
    assert [c.rounds for c in config.cells] == [120, 120, 120, 300]
    assert config.resolved()["cells"][3]["rounds"] == 300
    quick = load_config(write(tmp_path, CROSSED), quick=True)
    assert quick.name == "tiny-quick" and [c.rounds for c in quick.cells] == [30, 30]
    assert [c.players for c in quick.cells] == [2, 2]
    assert [m.lineup[0] for m in quick.cells[0].matchups] == ["color-first:bluff=1.0"] * 2


def test_focus_matches_default_rule_values(tmp_path):
    text = CROSSED.replace('switches = { caught_bluffer = "takes-back" }',
                           'switches = { draw_four_legal = "no-current-color" }')  # fmt: skip
    config = load_config(write(tmp_path, text))
    assert [c.rounds for c in config.cells] == [120, 300, 120, 300]


@pytest.mark.parametrize(
    "change,message",
    [
        (('opponents = ["color-first:challenge=never"', 'rivals = ["color-first:challenge=never"'),
         "agents.rivals: unknown key"),
        (('focal = ["color-first:bluff=0.0"', 'specs = ["rule"]\nfocal = ["color-first:bluff=0.0"'),
         "agents.specs: give either specs or"),
        (('[agents]', '[agents]\nmode = "round-robin"'), "agents.mode: must be 'cross'"),
        (('"color-first:challenge=always"]', '"color-first:challenge=sometimes"]'),
         "agents.opponents: agent 'color-first': parameter 'challenge'"),
        (('focal = ["color-first:bluff=0.0", ', 'focal = ["color-first:bluff=0.0", "color-first:bluff=0.0", '),
         "agents.focal: names an agent twice"),
        (('rounds = 300', 'rounds = 0'), "focus[0].rounds: must be an integer"),
        (('rounds = 300', 'rounds = 300\nseats = 2'), "focus[0].seats: unknown key"),
        (('rating_rounds = 0', 'rating_rounds = 0\nanalysis = "poker"'), "analysis: must be one of"),
        (('grid = { players = [2] }', 'grid = { players = [2] }\nquick = 1'), "quick.quick: unknown key"),
    ],
)  # fmt: skip
def test_bad_crossed_configs_fail_naming_the_key(tmp_path, change, message):
    text = CROSSED.replace(*change)
    with pytest.raises(ConfigError) as info:
        load_config(write(tmp_path, text, "bad.toml"), quick="quick.quick" in message)
    assert message in str(info.value) and "bad.toml" in str(info.value)


def test_quick_needs_a_quick_table(tmp_path):
    with pytest.raises(ConfigError, match=r"quick: this config has no \[quick\] table"):
        load_config(write(tmp_path, TINY), quick=True)
