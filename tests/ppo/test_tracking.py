"""Experiment tracking (``uno_rl train --track``): a run's scalars and config go to a Weights &
Biases run as well, here offline (written under the test's folder; nothing is sent), a resumed
run continues the same W&B run, a missing wandb is one error line, and without tracking wandb is
never imported."""

from __future__ import annotations

import contextlib
import csv
import json
import sys
from pathlib import Path

import pandas as pd
import pytest
from tiny_training import TINY_TRAINING_ARGS

from uno_rl.ppo.config import load_train_config
from uno_rl.ppo.tracking import ID_FILE, PROJECT, init_settings
from uno_rl.programs import train

TINY = TINY_TRAINING_ARGS
#: The same settings as config fields (for train.train).
FIELDS = {name[2:].replace("-", "_"): value for name, value in zip(TINY[:-1:2], TINY[1:-1:2])}
#: The W&B variables a developer's shell may hold that would change where a test run goes.
WANDB_VARIABLES = (
    "WANDB_PROJECT", "WANDB_ENTITY", "WANDB_NAME", "WANDB_RUN_ID", "WANDB_RESUME",
    "WANDB_API_KEY", "WANDB_BASE_URL", "WANDB_RUN_GROUP", "WANDB_JOB_TYPE",
)  # fmt: skip
#: The size of a block of a W&B transaction log (a LevelDB-style log).
BLOCK = 32768


class Killed(Exception):
    """Stands for a kill -9: the run stops where it is."""


@pytest.fixture
def offline(tmp_path, monkeypatch) -> Path:
    """W&B offline and quiet, its files, settings and caches under ``tmp_path`` (the folder
    returned: ``WANDB_DIR``); no variable of the shell sends the run anywhere."""
    for name in WANDB_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("WANDB_MODE", "offline")
    monkeypatch.setenv("WANDB_SILENT", "true")
    monkeypatch.setenv("WANDB_ERROR_REPORTING", "false")
    for name in ("WANDB_CONFIG_DIR", "WANDB_CACHE_DIR", "WANDB_DATA_DIR", "WANDB_ARTIFACT_DIR"):
        monkeypatch.setenv(name, str(tmp_path / name.lower()))
    folder = tmp_path / "wandb-dir"
    folder.mkdir()
    monkeypatch.setenv("WANDB_DIR", str(folder))
    monkeypatch.chdir(tmp_path)
    with contextlib.suppress(ImportError):  # wandb keeps the first settings it read: forget them
        import wandb

        wandb.teardown()
    return folder


def records(path: Path):
    """The records of a W&B transaction log (``run-ID.wandb``): after a 7-byte header, blocks
    of 32 KiB holding chunks (4-byte checksum, 2-byte length, 1-byte type: 1 full, 2 first,
    3 middle, 4 last) of serialized ``Record`` protobufs."""
    from wandb.proto.wandb_internal_pb2 import Record

    data = path.read_bytes()
    assert data[:4] == b":W&B"
    at, pending = 7, b""
    while at + 7 <= len(data):
        room = BLOCK - at % BLOCK
        if room < 7:  # a block's tail too short for a chunk header is padding
            at += room
            continue
        length, kind = int.from_bytes(data[at + 4 : at + 6], "little"), data[at + 6]
        pending += data[at + 7 : at + 7 + length]
        at += 7 + length
        if kind in (1, 4):
            yield Record.FromString(pending)
            pending = b""


def offline_run(folder: Path) -> dict:
    """What an offline W&B run folder holds: its ``run`` record (id, project, name, group,
    config) and its history (step -> the scalars logged at it)."""
    (log,) = folder.glob("run-*.wandb")
    run, history = None, {}
    for record in records(log):
        kind = record.WhichOneof("record_type")
        if kind == "run":
            run = record.run
        elif kind == "history":
            items = {i.key or "/".join(i.nested_key): i.value_json for i in record.history.item}
            history[record.history.step.num] = {
                k: json.loads(v) for k, v in items.items() if not k.startswith("_")
            }
    assert run is not None, folder
    config = {i.key: json.loads(i.value_json) for i in run.config.update if i.key != "_wandb"}
    return {"id": run.run_id, "project": run.project, "name": run.display_name,
            "group": run.run_group, "config": config, "history": history}  # fmt: skip


def csv_rows(run: Path) -> tuple[list[str], list[dict[str, str]]]:
    with (run / "metrics.csv").open(newline="") as f:
        reader = csv.DictReader(f)
        return list(reader.fieldnames or []), list(reader)


def test_a_tracked_run_logs_its_scalars_and_config_and_its_resume_continues_it(offline):
    pytest.importorskip("wandb")
    run = offline.parent / "runs" / "tracked" / "20260101-000000"
    config = load_train_config(None, {**FIELDS, "name": "tracked", "track": "true"})

    def kill(update, source):  # after the checkpoint of update 4, six updates logged
        if update == 6:
            raise Killed

    with pytest.raises(Killed):
        train.train(config, run, progress=False, on_rollout=kill)
    ident = (run / ID_FILE).read_text().strip()
    assert train.main(["--resume", str(run), "--no-progress"]) == 0
    assert (run / ID_FILE).read_text().strip() == ident

    killed, resumed = (offline_run(f) for f in sorted((offline / "wandb").glob("offline-run-*")))
    header, rows = csv_rows(run)
    steps = [int(r["global_step"]) for r in rows]
    assert len(steps) == 8
    for part in (killed, resumed):  # the same W&B run, twice
        assert part["id"] == ident and part["project"] == PROJECT
        assert part["name"] == "tracked/20260101-000000" and part["group"] == "tracked"
        assert part["config"]["track"] is True and part["config"]["hidden"] == [16]
        assert set(part["config"]) == set(config.to_dict())
    # The killed run logged updates 1-6; the resumed one 5-8, at the same global steps: the
    # steps before the checkpoint are not logged again.
    assert sorted(killed["history"]) == steps[:6]
    assert sorted(resumed["history"]) == steps[4:]
    # The scalars of metrics.csv, under its names, with its values (timing columns aside).
    logged = {k for part in (killed, resumed) for row in part["history"].values() for k in row}
    assert logged == set(header) - {"global_step"}
    for row in rows[4:]:
        tracked = resumed["history"][int(row["global_step"])]
        assert set(tracked) == {k for k, v in row.items() if v != ""} - {"global_step"}
        for key in ("charts/update", "charts/decisions", "losses/entropy"):
            assert tracked[key] == pytest.approx(float(row[key]))


def test_track_is_an_option_alone_or_with_a_value():
    parser = train.build_parser()
    assert parser.parse_args(["--track"]).track == "true"
    assert parser.parse_args(["--track", "false", "--no-progress"]).track == "false"
    assert parser.parse_args([]).track is None
    assert load_train_config(None, {"track": "true"}).track is True
    assert load_train_config(None, {}).track is False  # nothing is sent unless asked


def test_track_without_wandb_is_one_error_line_before_anything(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "wandb", None)  # import wandb fails
    monkeypatch.setenv("WANDB_MODE", "offline")
    runs = tmp_path / "runs"
    assert train.main([*TINY, "--runs-dir", str(runs), "--track"]) == 2
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("error: track:")
    assert "pip install 'uno_rl[track]'" in err
    assert not runs.exists() and "training" not in captured.out


def test_without_track_wandb_is_never_imported_and_nothing_written(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "wandb", None)  # an import of wandb would raise
    monkeypatch.setenv("WANDB_MODE", "offline")
    monkeypatch.delenv("WANDB_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    runs = tmp_path / "runs"
    assert train.main([*TINY, "--runs-dir", str(runs), "--name", "plain"]) == 0
    assert sys.modules["wandb"] is None
    (run,) = (runs / "plain").iterdir()
    assert (run / "metrics.csv").is_file()
    assert not list(tmp_path.rglob("*wandb*"))


def test_wandb_settings_follow_the_wandb_variables(tmp_path):
    config = load_train_config(None, {"name": "demo", "track": "true"})
    run = tmp_path / "runs" / "demo" / "20260101-000000"
    default = init_settings(run, config, "abc", environ={})
    assert default["project"] == "uno_rl" and default["name"] == "demo/20260101-000000"
    assert default["dir"] == str(run)  # the run folder: RUN/wandb/
    assert (default["id"], default["resume"]) == ("abc", "allow")
    assert default["config"] == config.to_dict() and default["group"] == "demo"
    environ = {"WANDB_PROJECT": "mine", "WANDB_NAME": "first", "WANDB_DIR": "/elsewhere"}
    given = init_settings(run, config, "abc", environ=environ)
    assert given["project"] == "mine" and given["name"] == "first" and "dir" not in given


def test_the_final_evaluation_tables_join_the_tracked_run(offline):
    """After training, the final evaluation's tables go to the same W&B run (opened again),
    as tables ``final_eval/NAME`` at the run's last step."""
    pytest.importorskip("wandb")
    from uno_rl.ppo.tracking import FINAL_TABLES

    argv = list(TINY)
    argv[argv.index("--final-eval-rounds") + 1] = "8"
    argv += ["--eval-agents", "random"]
    runs = offline.parent / "runs"
    assert train.main([*argv, "--runs-dir", str(runs), "--name", "final", "--track",
                       "--no-progress"]) == 0  # fmt: skip
    (run,) = (runs / "final").iterdir()
    ident = (run / ID_FILE).read_text().strip()
    training, final = (offline_run(f) for f in sorted((offline / "wandb").glob("offline-run-*")))
    assert training["id"] == final["id"] == ident  # the training's own run
    last = max(int(r["global_step"]) for r in csv_rows(run)[1])
    (logged,) = final["history"].items()
    step, items = logged
    assert step == last
    assert {key.rsplit("/", 1)[0] for key in items} == {f"final_eval/{n}" for n in FINAL_TABLES}
    for name in FINAL_TABLES:  # each a W&B table of the run folder's table
        assert items[f"final_eval/{name}/_type"] == "table-file"
        rows = len(pd.read_csv(run / "final_eval" / f"{name}.csv"))
        assert items[f"final_eval/{name}/nrows"] == rows


def test_a_run_opened_again_opens_in_a_later_second(tmp_path, monkeypatch):
    """An offline W&B run's folder is named by its id and the second it opened: the same run
    opened again within that second (a run of under a second, then its final tables) would
    write over the first log; the tracker waits for the next second."""
    import time
    import types

    from uno_rl.ppo import tracking

    opened = []

    class Run:
        def finish(self):
            pass

    def init(**settings):
        opened.append(time.time())
        return Run()

    fake = types.SimpleNamespace(init=init, errors=types.SimpleNamespace(Error=RuntimeError))
    monkeypatch.setattr(tracking, "init_settings", lambda folder, config, ident: {})
    monkeypatch.setattr(tracking, "run_id", lambda folder: "abc")
    tracker = tracking.Tracker(load_train_config(None))
    tracker.wandb = fake
    for _ in range(3):
        tracker.start(tmp_path)
        tracker.finish()
    seconds = [int(t) for t in opened]
    assert seconds[0] < seconds[1] < seconds[2]
