"""Experiment configs: validation, a run end to end, kill and resume."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from uno_rl.experiments import runner
from uno_rl.experiments.config import ConfigError, load_config
from uno_rl.programs import experiment

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
    # The label names what differs from the preset (official: draws-4 already) ...
    assert cell.variant == "official" and cell.players == 2
    assert config.cells[2].variant == "official, caught_bluffer=takes-back"
    # ... and every switch the config set is kept beside it.
    assert cell.switches_label == "caught_bluffer=draws-4"
    assert config.cells[2].switches_label == "caught_bluffer=takes-back"
    assert [m.lineup for m in config.cells[1].matchups] == [("color-first", "rule", "rule")]
    resolved = config.resolved()
    assert resolved["cells"][3]["rules"]["caught_bluffer"] == "takes-back"
    assert resolved["cells"][0]["preset"] == "official"
    assert resolved["cells"][0]["switches"] == {"caught_bluffer": "draws-4"}


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
    with pytest.raises(ConfigError, match="no such file"):
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
    assert "official, caught_bluffer=takes-back" in out and "color-first" in out
    assert "official+" not in out and "caught_bluffer=draws-4" not in out
    (folder,) = (runs / "tiny").iterdir()
    for name in ("seats", "agents", "pairs", "ratings", "summary"):
        assert (folder / f"{name}.parquet").is_file() and (folder / f"{name}.csv").is_file()
    assert (folder / "DONE").is_file() and (folder / "config.toml").read_text() == TINY
    summary = pd.read_parquet(folder / "summary.parquet")
    assert len(summary) == 8 * 2
    # Short labels in the tables, the full switches in a column beside them.
    for name in ("seats", "agents", "pairs", "ratings", "summary"):
        table = pd.read_parquet(folder / f"{name}.parquet")
        assert list(table.columns[:3]) == ["variant", "preset", "switches"], name
        shown = dict(zip(table["variant"], table["switches"]))
        assert shown["official"] == "caught_bluffer=draws-4"
        assert shown["official, caught_bluffer=takes-back"] == "caught_bluffer=takes-back"
        assert set(table["preset"]) == {"official", "no-bluff"}
    # The narrative of the run: written and printed.
    assert (folder / "narrative.md").read_text().startswith("- **official, 2 players**")
    # A finished run is not resumed: the same command starts a new one.
    assert (
        experiment.main([str(path), "--runs-dir", str(runs), "--workers", "1", "--no-progress"])
        == 0
    )
    assert len(list((runs / "tiny").iterdir())) == 2
    assert experiment.main(["nope.toml", "--runs-dir", str(runs)]) == 2
    assert "no such file (an experiment config)" in capsys.readouterr().err


def _lost_and_duplicated(resumed: pd.DataFrame, reference: pd.DataFrame, keys) -> tuple[int, int]:
    """Rows of ``reference`` missing from ``resumed`` and rows ``resumed`` has twice (by key)."""
    counts = resumed.groupby(keys, sort=False).size()
    duplicated = int((counts - 1).clip(lower=0).sum())
    present = set(counts.index)
    lost = sum(1 for key in reference.set_index(keys).index if key not in present)
    return lost, duplicated


TABLE_KEYS = {
    "seats": ["variant", "players", "matchup", "agent", "seat"],
    "agents": ["variant", "players", "matchup", "agent"],
    "pairs": ["variant", "players", "matchup", "agent_a", "agent_b"],
    "ratings": ["variant", "players", "agent"],
    "summary": ["variant", "players", "agent"],
}


def test_a_run_killed_at_random_points_resumes_without_lost_or_duplicated_rows(tmp_path):
    """Fault injection: kill -9 the run at random points (before, between and inside cells),
    resume it each time, and compare every final table with an uninterrupted run."""
    import random

    text = TINY.replace("rounds = 200", "rounds = 6000")  # a cell takes a few tenths of a second
    path = write(tmp_path, text)
    runs = tmp_path / "runs"
    command = [sys.executable, "-m", "uno_rl.experiment", str(path), "--runs-dir", str(runs),
               "--workers", "1", "--no-progress"]  # fmt: skip
    rng = random.Random(15)
    # (finished cells to wait for, then seconds more before the kill)
    faults = [(0, rng.uniform(0.0, 1.2)), (2, rng.uniform(0.0, 0.2)), (5, rng.uniform(0.0, 0.2))]
    killed, logs = [], []
    for cells, delay in faults:
        logs.append(tmp_path / f"start-{len(logs)}.log")
        with logs[-1].open("w") as log:
            process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.time() + 120
        while time.time() < deadline and process.poll() is None:
            if len(list(runs.glob("tiny/*/parts/*.done"))) >= cells:
                break
            time.sleep(0.02)
        time.sleep(delay)
        if process.poll() is None:
            process.send_signal(signal.SIGKILL)
            killed.append(len(list(runs.glob("tiny/*/parts/*.done"))))
        process.wait()
    assert len(killed) == len(faults), f"the run finished before the faults: killed at {killed}"
    (folder,) = (runs / "tiny").iterdir()  # every restart resumed the same run
    if not (folder / "DONE").exists():  # the last start may finish before its kill
        result = subprocess.run(command, capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, result.stderr
        logs.append(tmp_path / "last.log")
        logs[-1].write_text(result.stdout)
    finished = logs[-1].read_text()  # the start that ran to the end resumed the killed run
    assert f"resuming tiny in {folder}" in finished, finished
    assert (folder / "DONE").exists() and len(list((runs / "tiny").iterdir())) == 1
    fresh = tmp_path / "fresh"
    subprocess.run([*command[:-5], "--runs-dir", str(fresh), "--workers", "1", "--no-progress"],
                   check=True, capture_output=True, timeout=300)  # fmt: skip
    (uninterrupted,) = (fresh / "tiny").iterdir()
    lost = duplicated = 0
    for name, keys in TABLE_KEYS.items():
        resumed = pd.read_parquet(folder / f"{name}.parquet")
        reference = pd.read_parquet(uninterrupted / f"{name}.parquet")
        table_lost, table_duplicated = _lost_and_duplicated(resumed, reference, keys)
        lost, duplicated = lost + table_lost, duplicated + table_duplicated
        pd.testing.assert_frame_equal(resumed, reference)  # the same games, the same numbers
    print(f"faults injected: {len(killed)} kills (cells done at each: {killed}); "
          f"rows lost: {lost}, rows duplicated: {duplicated}")  # fmt: skip
    assert (lost, duplicated) == (0, 0)


def _group_gone(group: int, seconds: float) -> bool:
    """Whether every process of process group ``group`` has ended within ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize(
    "name,everyone,status",
    [("SIGINT", True, 130), ("SIGTERM", False, 143), ("SIGTERM", True, 143)],
    ids=["ctrl-c", "kill", "kill-group"],
)
def test_an_interrupted_run_says_so_in_one_line_and_resumes(tmp_path, name, everyone, status):
    """Ctrl-C (SIGINT to the whole process group, workers included) or SIGTERM (to the
    runner, or to its group) mid-run: one line, the shell's exit status, no traceback, no
    leaked semaphores, no process left; the rows written stay and the run resumes."""
    path = write(tmp_path, TINY.replace("rounds = 200", "rounds = 1500"))
    runs = tmp_path / "runs"
    command = [sys.executable, "-m", "uno_rl", "experiment", str(path), "--runs-dir", str(runs),
               "--workers", "2", "--no-progress"]  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, start_new_session=True)  # fmt: skip
    deadline = time.time() + 60
    while time.time() < deadline and not list(runs.glob("tiny/*/parts/*.done")):
        assert process.poll() is None, process.communicate()[0]
        time.sleep(0.02)
    time.sleep(0.2)  # inside a later cell
    signum = getattr(signal, name)
    os.killpg(process.pid, signum) if everyone else process.send_signal(signum)
    output = process.communicate(timeout=30)[0]
    assert process.returncode == status, output
    assert "Traceback" not in output and "leaked semaphore" not in output, output
    (folder,) = (runs / "tiny").iterdir()
    done = len(list(folder.glob("parts/*.done")))
    assert 1 <= done < 8 and output.splitlines()[-1] == (
        f"interrupted: {done} of 8 cells done; run the same command to resume"
    )
    assert len([line for line in output.splitlines() if line.startswith("interrupted")]) == 1
    assert _group_gone(process.pid, 5.0), "a worker outlived the interrupted run"
    if name != "SIGINT":
        return
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert f"resuming tiny in {folder} ({done} of 8 cells done)" in result.stdout
    seats = pd.read_parquet(folder / "seats.parquet")
    assert _lost_and_duplicated(seats, seats, TABLE_KEYS["seats"]) == (0, 0)
    assert len(seats.groupby(["variant", "players"])) == 8


def test_everything_a_resume_reads_is_written_durably(tmp_path, monkeypatch):
    """Parts, markers, the run's config and replay indexes are fsynced, then renamed, then
    their folder is fsynced (the old writers renamed unsynced files)."""
    from uno_rl.eval.replays import _write_index
    from uno_rl.eval.run import write_atomic

    synced = []
    real = os.fsync

    def fsync(fd):
        synced.append(os.readlink(f"/proc/self/fd/{fd}"))
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    write_atomic(pd.DataFrame({"a": [1, 2]}), str(tmp_path / "cell-0000.seats"))
    runner._write_text(tmp_path / "cell-0000.done", "")
    _write_index(tmp_path, [])
    names = {Path(p).name for p in synced}
    assert str(tmp_path) in synced  # the folder, after the renames
    for name in ("cell-0000.seats.parquet", "cell-0000.seats.csv", "cell-0000.done", "index.csv"):
        assert (tmp_path / name).is_file()
        assert any(n.startswith(f".{name}.") and n.endswith(".tmp") for n in names), name
    assert not list(tmp_path.glob("*.tmp")) and not list(tmp_path.glob(".*.tmp"))


def test_a_run_folder_becomes_resumable_only_once_config_toml_is_saved(tmp_path, monkeypatch):
    """config.json marks a folder as a run to resume: it is written after config.toml, so a
    crash between the two never leaves a resumable run without its config file; the next
    start reuses that folder."""

    def crash(*args):
        raise OSError("disk full")

    monkeypatch.setattr(runner, "write_bytes_durably", crash)
    with pytest.raises(OSError, match="disk full"):
        runner.run_experiment(load_config(write(tmp_path, TINY)), str(tmp_path / "runs"),
                                  workers=1, progress=False, log=lambda *a: None)  # fmt: skip
    (folder,) = (tmp_path / "runs" / "tiny").iterdir()
    assert not (folder / "config.json").exists()
    # The restart starts again in that folder rather than leaving it beside a new one.
    monkeypatch.undo()
    config = load_config(write(tmp_path, TINY))
    assert runner.choose_run_dir(config, str(tmp_path / "runs"), None, False) == (folder, False)


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
    root = Path(experiment.__file__).resolve().parents[2]
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
    assert os.path.basename(runner.resolve_config_path("variants")) == "variants.toml"


def test_every_shipped_experiment_config_is_valid_with_and_without_quick():
    root = Path(experiment.__file__).resolve().parents[2] / "experiments"
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


ROUNDS_AND_MATCHES = """
description = "rounds and matches"
seed = 1
rounds = 60
matches = 6
rating_rounds = 50
[grid]
presets = ["official", "kids"]
players = [2]
[agents]
specs = ["color-first", "random-playable"]
[[focus]]
presets = ["official"]
switches = { match = true }
matches = 8
"""


def test_rounds_and_matches_make_a_cell_each(tmp_path):
    config = load_config(write(tmp_path, ROUNDS_AND_MATCHES))
    cells = [(c.variant, c.unit, c.rounds) for c in config.cells]
    # official: single rounds and matches (focus raises the matches); kids plays matches already
    assert cells == [
        ("official", "rounds", 60),
        ("official, match=true", "matches", 8),
        ("kids", "matches", 6),
    ]
    assert config.cells[1].rules.match and config.cells[1].rules.match_target == 500
    resolved = config.resolved()
    assert resolved["matches"] == 6 and resolved["cells"][1]["unit"] == "matches"
    only = load_config(write(tmp_path, ROUNDS_AND_MATCHES.replace("rounds = 60\n", "")))
    assert [c.unit for c in only.cells] == ["matches", "matches"]


def test_an_experiment_with_matches_reports_the_three_measures(tmp_path, capsys):
    path = write(tmp_path, ROUNDS_AND_MATCHES)
    runs = tmp_path / "runs"
    assert experiment.main([str(path), "--runs-dir", str(runs), "--workers", "1",
                            "--no-progress"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    for header in ("rounds won", "points/round", "matches won", "final score"):
        assert header in out
    (folder,) = (runs / "tiny").iterdir()
    summary = pd.read_parquet(folder / "summary.parquet").set_index(["variant", "agent"])
    assert summary.loc[("official", "color-first"), "rounds"] == 60
    assert pd.isna(summary.loc[("official", "color-first"), "match_win_rate"])
    matches = summary.loc["official, match=true"]
    assert (matches["matches"] == 8).all() and matches["match_wins"].sum() == 8
    assert (matches["rounds"] > 8).all()
    assert matches["final_score_low"].lt(matches["final_score"]).all()
    agents = pd.read_parquet(folder / "agents.parquet")
    assert set(agents["variant"]) == {"official", "official, match=true", "kids"}


PARTS = """
description = "parts"
rounds = 40
[grid]
presets = ["official"]
players = [2]
[agents]
focal = ["color-first"]
opponents = ["rule", "random-playable"]
[[part]]
grid = { players = [2] }
[[part]]
grid = { players = [3] }
matches = 3
agents = { focal = ["aggressive"], opponents = ["color-first"] }
"""


def test_parts_play_different_agents_at_different_player_counts(tmp_path):
    config = load_config(write(tmp_path, PARTS))
    cells = [(c.index, c.variant, c.players, c.unit, [m.label for m in c.matchups])
             for c in config.cells]  # fmt: skip
    assert cells == [
        (0, "official", 2, "rounds", ["color-first vs rule", "color-first vs random-playable"]),
        (1, "official", 3, "rounds", ["aggressive vs 2 x color-first"]),
        (2, "official, match=true", 3, "matches", ["aggressive vs 2 x color-first"]),
    ]
    assert config.agents == ("color-first", "rule", "random-playable", "aggressive")


@pytest.mark.parametrize(
    "change,message",
    [
        (("matches = 3", "matches = 0"), "part[1].matches: must be an integer [1, 10000000]"),
        (("matches = 3", "matches = 3\nseed = 1"), "part[1].seed: unknown key"),
        (('focal = ["aggressive"]', 'focal = ["agressive"]'),
         "part[1].agents.focal: unknown agent 'agressive'"),
        (("players = [3]", "players = [11]"), "part[1].grid.players: must be an integer [2, 10]"),
        (("rounds = 40", "rounds = 40\nmatches = 20000000"), "matches: must be an integer"),
        (("rounds = 40", ""), "part[0].rounds: is required (or matches, or both)"),
    ],
)  # fmt: skip
def test_bad_parts_and_matches_fail_naming_the_key(tmp_path, change, message):
    text = PARTS.replace(*change)
    with pytest.raises(ConfigError) as info:
        load_config(write(tmp_path, text, "bad.toml"))
    assert message in str(info.value) and "bad.toml" in str(info.value)


def test_a_part_must_be_a_table(tmp_path):
    text = PARTS[: PARTS.index("[[part]]")].replace("rounds = 40", "rounds = 40\npart = [3]")
    with pytest.raises(ConfigError, match=r"part: must be a non-empty array of tables"):
        load_config(write(tmp_path, text, "bad.toml"))


@pytest.fixture
def one_torch_thread():
    """PPO agents play in this process: one torch thread, as the command line has it (a
    thread pool fighting for the CPUs with other processes is many times slower)."""
    torch = pytest.importorskip("torch")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def test_strength_config_and_its_quick_run(tmp_path, capsys, one_torch_thread):
    root = Path(experiment.__file__).resolve().parents[2] / "experiments"
    config = load_config(root / "strength.toml")
    heuristics = ["color-first", "points-dumper", "aggressive", "rule", "random-playable",
                  "bluffer", "suspicious", "bayes-challenger"]  # fmt: skip
    shape = [(c.players, c.unit, c.rounds, [m.lineup for m in c.matchups]) for c in config.cells]
    two = [("ppo-official-2p", h) for h in heuristics]
    four = [("ppo-official-4p",) + (h,) * 3 for h in ("color-first", "random-playable")]
    others = [
        "ppo-official-2p-v1",
        "ppo-bluff-allowed-2p",
        "ppo-bluff-forbidden-2p",
        "ppo-official-2p-rounds",
    ]
    two_more = [(bot, h) for bot in others for h in heuristics]
    bots_4p = ("ppo-official-4p", "ppo-official-4p-v1", "ppo-official-4p-rounds")
    four_more = [(bot,) + (h,) * 3 for bot in bots_4p for h in heuristics]
    assert shape == [
        (2, "rounds", 200_000, two),
        (2, "matches", 20_000, two),
        (4, "rounds", 200_000, four),
        (4, "matches", 20_000, four),
        (2, "rounds", 20_000, two_more),
        (2, "matches", 2_000, two_more),
        (4, "rounds", 20_000, four_more),
        (4, "matches", 2_000, four_more),
    ]
    assert all(c.rules.match_target == 500 for c in config.cells)
    runs = tmp_path / "runs"
    code = experiment.main(["strength", "--quick", "--runs-dir", str(runs), "--workers", "1",
                            "--no-progress"])  # fmt: skip
    assert code == 0
    out = capsys.readouterr().out
    assert "per match-up, the focal agents:" in out and "ppo-official-4p vs 3 x color-first" in out
    for header in ("rounds won", "points/round", "matches won", "final score", "99%"):
        assert header in out
    (folder,) = (runs / "strength-quick").iterdir()
    agents = pd.read_parquet(folder / "agents.parquet")
    focal = agents[agents["agent"].str.startswith("ppo-")]
    assert len(focal) == 2 * 2 + 2 + 2 and focal["win_rate"].notna().all()
    assert focal.groupby("variant")["matches"].sum().to_dict()["official, match=true"] > 0


def test_summary_takes_round_intervals_over_matches_in_match_cells():
    from uno_rl.eval.stats import wilson_interval
    from uno_rl.experiments.overview import summarize

    base = {"players": 2, "agent": "a", "rounds": 1000, "wins": 600, "truncated": 0,
            "win_rate": 0.6, "points": 3.0, "points_low": 1.0, "points_high": 5.0}  # fmt: skip
    rounds_row = {**base, "variant": "official", "win_low": 0.569, "win_high": 0.630}
    match_row = {**base, "variant": "official+match=true", "win_low": 0.50, "win_high": 0.70,
                 "matches": 60, "match_wins": 40, "match_win_rate": 40 / 60,
                 "match_win_low": 0.54, "match_win_high": 0.77, "final_score": 450.0,
                 "final_score_low": 430.0, "final_score_high": 470.0}  # fmt: skip
    table = pd.DataFrame([rounds_row, match_row, {**match_row}])
    table["matches"] = table["matches"].astype("Int64")
    table["match_wins"] = table["match_wins"].astype("Int64")
    summary = summarize(table).set_index("variant")
    low, high = wilson_interval(pd.Series([600]), pd.Series([1000]), 0.95)
    assert summary.loc["official", "win_low"] == pytest.approx(low[0])  # single rounds: Wilson
    assert summary.loc["official", "win_high"] == pytest.approx(high[0])
    # Two match-ups of half-width 0.10 each, combined: 0.10 / sqrt(2), far wider than Wilson.
    match = summary.loc["official+match=true"]
    assert match["rounds"] == 2000 and match["matches"] == 120
    assert match["win_high"] - match["win_rate"] == pytest.approx(0.1 / 2**0.5, rel=1e-3)
    assert match["win_rate"] - match["win_low"] == pytest.approx(0.1 / 2**0.5, rel=1e-3)
