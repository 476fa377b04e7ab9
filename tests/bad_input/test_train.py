"""Bad input to ``python -m uno_rl.train``: one ``error:`` line naming the problem, exit
status 2, no traceback, and nothing left behind (no run folder; a resumed run untouched)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
import torch

from bad_input.harness import assert_clean_error
from uno_rl.ppo.checkpoint import load_checkpoint, save_checkpoint
from uno_rl.ppo.config import ALL_FEATURES
from uno_rl.ppo.network import PolicyNetwork, feature_columns, input_scale
from uno_rl.programs import train

TINY = [
    "--num-games", "16", "--rollout-steps", "16", "--total-decisions", "256", "--hidden", "32",
    "--minibatch-size", "128", "--update-epochs", "1", "--eval-every", "0",
    "--final-eval-rounds", "0", "--checkpoint-every", "1", "--torch-threads", "1",
    "--zoo", "random-playable", "--pool-size", "2", "--snapshot-every", "1",
    "--tensorboard", "false", "--no-progress",
]  # fmt: skip

# ------------------------------------------------------------- config fields, names
FIELDS = [
    (["--clip-coef", "nan"], "--clip-coef: must be a finite number"),
    (["--gamma", "nan"], "gamma: must be a finite number"),
    (["--gamma", "1.5"], "gamma: must be in [0, 1]"),
    (["--learning-rate", "nan"], "--learning-rate: must be a finite number"),
    (["--learning-rate", "inf"], "--learning-rate: must be a finite number"),
    (["--learning-rate", "-0.1"], "--learning-rate: must be in [0, 1]"),
    (["--gae-lambda", "-1"], "--gae-lambda: must be in [0, 1]"),
    (["--ent-coef", "inf"], "--ent-coef: must be a finite number"),
    (["--vf-coef", "nan"], "--vf-coef: must be a finite number"),
    (["--max-grad-norm", "nan"], "--max-grad-norm: must be a finite number"),
    (["--max-grad-norm", "-1"], "--max-grad-norm: must be in"),
    (["--target-kl", "nan"], "--target-kl: must be a finite number"),
    (["--self-play", "nan"], "--self-play: must be a finite number"),
    (["--zoo-share", "1e999"], "--zoo-share: must be a finite number"),
    (["--truncation-penalty", "inf"], "--truncation-penalty: must be a finite number"),
    (["--reward-scale", "nan"], "--reward-scale: must be a finite number"),
    (["--win-bonus", "-1"], "--win-bonus: must be in [0, 100]"),
    (["--clip-coef", "zero"], "--clip-coef: cannot read 'zero' as float"),
    (["--seed", "-1"], "seed: must be in [0, 9223372036854775807], got -1"),
    (["--seed", "99999999999999999999"], "seed: must be in [0, 9223372036854775807]"),
    (["--seed", "1.5"], "seed: cannot read '1.5' as int"),
    (["--seed", "nan"], "seed: cannot read 'nan' as int"),
    (["--num-games", "9" * 40], "--num-games: cannot read"),
    (["--num-games", "0"], "--num-games: must be in [1, 65536]"),
    (["--total-decisions", "0"], "--total-decisions: must be in [1, "),
    (["--total-decisions", "10000000000000"], "--total-decisions: must be in [1, 1000000000000]"),
    (["--rollout-steps", "-3"], "--rollout-steps: must be in [1, 4096]"),
    (["--update-epochs", "0"], "--update-epochs: must be in [1, 100]"),
    (["--minibatch-size", "0"], "--minibatch-size: must be in [1, "),
    (["--eval-rounds", "1"], "--eval-rounds: must be in [2, "),
    (["--checkpoint-every", "0"], "--checkpoint-every: must be in [1, "),
    (["--snapshot-every", "0"], "--snapshot-every: must be in [1, "),
    (["--pool-size", "0"], "--pool-size: must be in [1, 256]"),
    (["--torch-threads", "999"], "--torch-threads: must be in [0, 256]"),
    (["--players", "1"], "players: must be in [2, 10]"),
    (["--hidden", "32,abc"], "hidden: must be a list of 1 to 16 layer sizes"),
    (["--hidden", "100000"], "hidden: must be a list of 1 to 16 layer sizes"),
    (["--features", ""], "features: name at least one observation piece"),
    (["--features", "hand,nose"], "features: unknown observation piece 'nose'"),
    (["--tensorboard", "maybe"], "tensorboard: cannot read 'maybe' as bool"),
    (["--device", "tpu"], "device: must be one of cpu, cuda, auto"),
    (["--objective", "points"], "objective: must be one of rules, match"),
    (["--precision", "fp8"], "precision: must be one of auto, bf16, fp32"),
    (["--eval-every", "5", "--eval-agents", ""], "--eval-agents: name at least one agent"),
    (["--zoo", ""], "zoo: name at least one agent when zoo_share > 0"),
    (["--zoo", "random-playable,nobody"], "unknown agent 'nobody'"),
    (["--eval-every", "5", "--eval-agents", "nobody"], "unknown agent 'nobody'"),
    (["--preset", "nope"], "unknown preset 'nope'"),
    (["--set", "stacking=most"], "'stacking' must be one of"),
    (["--set", "match_target=" + "9" * 5000], "is too long (5,000 characters"),
    (["--set", "stacking=" + "[" * 900], "nested too deeply"),
    (["--self-play", "0.9"], "must sum to 1"),
    (["--workers", "2"], "workers: the local backend plays every game in this process"),
    (["--bogus", "1"], "unrecognized arguments: --bogus"),
    (["--name", "../../escaped_run"], "name: '../../escaped_run' is not a safe run name"),
    (["--name", "/tmp/absolute_run"], "name: '/tmp/absolute_run' is not a safe run name"),
    (["--name", ".hidden"], "name: '.hidden' is not a safe run name"),
    (["--name", "a/b"], "name: 'a/b' is not a safe run name"),
    (["--name", "a..b"], "is not a safe run name"),
    (["--name", ""], "name: '' is not a safe run name"),
    (["--name", "x" * 101], "is not a safe run name"),
    (["--name", "tab\there"], "is not a safe run name"),
]
if not torch.cuda.is_available():
    FIELDS.append((["--device", "cuda"], "device: cuda was asked for but torch sees no CUDA"))


@pytest.mark.parametrize("argv,message", FIELDS, ids=[" ".join(a)[:40] for a, _ in FIELDS])
def test_bad_fields_fail_cleanly_and_make_no_run_folder(tmp_path, capsys, argv, message):
    runs = tmp_path / "runs"
    assert_clean_error(train.main, [*TINY, *argv, "--runs-dir", str(runs)], message, capsys)
    assert not runs.exists()
    assert not (tmp_path.parent / "escaped_run").exists()


# ------------------------------------------------------------------- config files
TOML = [
    ("learning_rate = nan\n", "learning_rate: must be a finite number"),
    ('num_games = "many"\n', "num_games: must be int, got 'many'"),
    ("num_games = 2.5\n", "num_games: must be int, got 2.5"),
    ("hidden = [true]\n", "hidden: must be a list of 1 to 16 layer sizes"),
    ("zoo = [1, 2]\n", "zoo: must be a list of non-empty names"),
    ('name = "../x"\n', "name: '../x' is not a safe run name"),
    ("anneal_lr = 1\n", "anneal_lr: must be bool, got 1"),
    ("gamma = 1e400\n", "gamma: must be a finite number"),
    ("seed = 123456789012345678901234567890\n", "seed: must be in [0, 9223372036854775807]"),
    ("switches = {stacking = {a = 1}}\n", "switches: stacking must be a string, number"),
    ("nme = 'x'\n", "nme: unknown key"),
    ("num_games = \n", "not valid TOML"),
]


@pytest.mark.parametrize("text,message", TOML, ids=[t.strip()[:30] for t, _ in TOML])
def test_bad_config_files_fail_cleanly(tmp_path, capsys, text, message):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    runs = tmp_path / "runs"
    argv = [*without(TINY, text.split("=")[0].strip()), "--config", str(path)]
    assert_clean_error(train.main, [*argv, "--runs-dir", str(runs)], message, capsys)
    assert not runs.exists()


def without(argv: list[str], field: str) -> list[str]:
    """``argv`` less the option of config field ``field`` (so that the file's value counts)."""
    option = "--" + field.replace("_", "-")
    if option not in argv:
        return argv
    at = argv.index(option)
    return argv[:at] + argv[at + 2 :]


def test_a_bad_name_on_the_command_line_names_the_option(tmp_path, capsys):
    runs = tmp_path / "runs"
    for config in ([], ["--config", str(tmp_path / "good.toml")]):
        (tmp_path / "good.toml").write_text('name = "good"\n')
        argv = [*TINY, *config, "--name", "x/y", "--runs-dir", str(runs)]
        line = assert_clean_error(train.main, argv, "error: --name: 'x/y' is not a safe", capsys)
        assert ".toml" not in line
    assert not runs.exists()


def test_a_bad_name_in_the_config_file_names_the_file(tmp_path, capsys):
    path = tmp_path / "mine.toml"
    path.write_text('name = "x/y"\n')
    runs = tmp_path / "runs"
    argv = [*TINY, "--config", str(path), "--runs-dir", str(runs)]
    line = assert_clean_error(train.main, argv, f"error: {path}: name: 'x/y' is not a", capsys)
    assert "--name" not in line
    assert not runs.exists()


def test_config_paths_that_are_not_config_files(tmp_path, capsys):
    runs = tmp_path / "runs"
    binary = tmp_path / "binary.toml"
    binary.write_bytes(b"\xff\xfe\x00\x01\x89PNG")
    for config, message in [
        (tmp_path, "is a folder, not a TOML config file"),
        (binary, "not a text file"),
        (tmp_path / "missing.toml", "no such file (a TOML config file)"),
    ]:
        argv = [*TINY, "--config", str(config), "--runs-dir", str(runs)]
        assert_clean_error(train.main, argv, message, capsys)
    assert not runs.exists()


def test_runs_dir_that_is_a_file(tmp_path, capsys):
    runs = tmp_path / "runs"
    runs.write_text("not a folder")
    assert_clean_error(train.main, [*TINY, "--runs-dir", str(runs)], "not a folder", capsys)
    assert runs.read_text() == "not a folder"


# ------------------------------------------------------------ checkpoint files
def network(hidden: list[int]) -> PolicyNetwork:
    return PolicyNetwork(len(feature_columns(ALL_FEATURES)), hidden, input_scale(ALL_FEATURES))


def policy_file(path: Path, **changes) -> Path:
    spec = {"features": list(ALL_FEATURES), "hidden": [32], "scaled": True}
    payload = {"network": spec, "model": network([32]).state_dict(), **changes}
    save_checkpoint(path, payload)
    return path


def bad_init(tmp_path: Path, kind: str) -> Path:
    path = tmp_path / f"{kind}.pt"
    if kind == "missing":
        return path
    if kind == "device":
        return Path("/dev/zero")  # only looked at: read, it would never end
    if kind == "folder":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "corrupt":
        path.write_bytes(b"PK\x03\x04 not really a checkpoint")
    elif kind == "foreign":
        torch.save({"weights": torch.zeros(2)}, path)
    elif kind == "string-network":
        policy_file(path, network="mlp 32")
    elif kind == "other-hidden":
        policy_file(path, network={"features": list(ALL_FEATURES), "hidden": [64], "scaled": True})
    elif kind == "mismatched-weights":
        policy_file(path, model=network([64]).state_dict())
    elif kind == "unscaled":
        policy_file(path, network={"features": list(ALL_FEATURES), "hidden": [32]})
    elif kind == "huge-hidden":
        policy_file(path, network={"features": list(ALL_FEATURES), "hidden": [10**9]})
    return path


INIT = [
    ("missing", "init_from: checkpoint"),
    ("folder", "is a folder, not a checkpoint file"),
    ("fifo", "is a FIFO, not a checkpoint file"),
    ("device", "checkpoint /dev/zero: is a character device, not a checkpoint file"),
    ("corrupt", "is truncated or corrupt"),
    ("foreign", "not a uno_rl-ppo-1 checkpoint"),
    ("string-network", "its network entry must be a table"),
    ("other-hidden", "has hidden sizes [64]"),
    ("mismatched-weights", "cannot load its weights: Error(s) in loading state_dict"),
    ("unscaled", "was trained without input scaling"),
    ("huge-hidden", "hidden sizes in [1, 8192]"),
]


@pytest.mark.timeout(120)  # a FIFO opened for reading would wait forever
@pytest.mark.parametrize("kind,message", INIT, ids=[k for k, _ in INIT])
def test_bad_init_from_files(tmp_path, capsys, kind, message):
    runs = tmp_path / "runs"
    argv = [*TINY, "--init-from", str(bad_init(tmp_path, kind)), "--runs-dir", str(runs)]
    assert_clean_error(train.main, argv, message, capsys)
    assert not runs.exists()


def test_an_unreadable_checkpoint_is_not_called_corrupt(tmp_path, monkeypatch, capsys):
    """chmod 000 denies nothing to root: the reader's refusal is simulated."""
    path = policy_file(tmp_path / "policy.pt")

    def denied(file, *args, **kwargs):
        raise PermissionError(13, "Permission denied", str(file))

    monkeypatch.setattr(torch, "load", denied)
    runs = tmp_path / "runs"
    argv = [*TINY, "--init-from", str(path), "--runs-dir", str(runs)]
    line = assert_clean_error(train.main, argv, f"{path} cannot be read: Permission denied", capsys)
    assert "corrupt" not in line
    assert not runs.exists()


def test_a_zoo_agent_with_a_string_network_entry(tmp_path, capsys):
    path = bad_init(tmp_path, "string-network")
    runs = tmp_path / "runs"
    argv = [*TINY, "--zoo", f"ppo:checkpoint={path}", "--runs-dir", str(runs)]
    assert_clean_error(train.main, argv, "its network entry must be a table", capsys)
    assert not runs.exists()


# ------------------------------------------------------------------------ resume
@pytest.fixture(scope="module")
def good_run(tmp_path_factory) -> Path:
    runs = tmp_path_factory.mktemp("good")
    assert train.main([*TINY, "--runs-dir", str(runs), "--name", "good"]) == 0
    (run,) = (runs / "good").iterdir()
    return run


def edit_config(run: Path, change) -> None:
    path = run / "config.json"
    path.write_text(json.dumps(change(json.loads(path.read_text()))))


def edit_checkpoint(run: Path, change) -> None:
    path = run / "checkpoint.pt"
    data = load_checkpoint(path)
    data.pop("format")
    change(data)
    save_checkpoint(path, data)


def _set(key, value):
    def change(data):
        data[key] = value
        return data

    return change


def _cut_stats(data):
    data["games"]["state"]["stats"] = data["games"]["state"]["stats"][:, :4]


def _fifo(name: str):
    """Replace the run's file ``name`` with a FIFO (read, it would wait for a writer forever)."""

    def change(run: Path) -> None:
        (run / name).unlink()
        os.mkfifo(run / name)

    return change


RESUME = [
    ("config-list", lambda r: (r / "config.json").write_text("[1, 2]"),
     "must be a table of config fields, got list"),
    ("config-extra-key", lambda r: edit_config(r, _set("colour", "red")), "colour: unknown key"),
    ("config-binary", lambda r: (r / "config.json").write_bytes(b"\xff\xfe\x00"), "not a text file"),
    ("config-not-json", lambda r: (r / "config.json").write_text("{name:"), "not valid JSON"),
    ("config-missing", lambda r: (r / "config.json").unlink(), "no config.json"),
    ("config-fifo", _fifo("config.json"), "config.json is a FIFO, not a file"),
    ("config-deep", lambda r: (r / "config.json").write_text("[" * 100_000),
     "not usable JSON: nested too deeply"),
    ("config-digits", lambda r: (r / "config.json").write_text("[" + "9" * 5000 + "]"),
     "not usable JSON: a number with 4,300 or more digits"),
    ("config-gamma-nan", lambda r: edit_config(r, _set("gamma", float("nan"))),
     "gamma: must be a finite number"),
    ("config-name-escape", lambda r: edit_config(r, _set("name", "../../x")),
     "is not a safe run name"),
    ("config-other-hidden", lambda r: edit_config(r, _set("hidden", [64])),
     "its network has hidden sizes [32]"),
    ("checkpoint-missing", lambda r: (r / "checkpoint.pt").unlink(), "no such file"),
    ("checkpoint-corrupt", lambda r: (r / "checkpoint.pt").write_bytes(b"junk"),
     "is truncated or corrupt"),
    ("checkpoint-fifo", _fifo("checkpoint.pt"), "is a FIFO, not a checkpoint file"),
    ("checkpoint-string-network", lambda r: edit_checkpoint(r, _set("network", "mlp")),
     "its network entry must be a table"),
    ("checkpoint-other-weights",
     lambda r: edit_checkpoint(r, _set("model", network([64]).state_dict())),
     "cannot load its network weights: Error(s) in loading state_dict"),
    ("checkpoint-optimizer-string", lambda r: edit_checkpoint(r, _set("optimizer", "adam")),
     "cannot load its optimizer state"),
    ("checkpoint-update-negative", lambda r: edit_checkpoint(r, _set("update", -1)),
     "update must be a whole number >= 0"),
    ("checkpoint-pool-short", lambda r: edit_checkpoint(r, _set("pool", [])),
     "its opponent pool does not hold pool_size snapshots"),
    ("checkpoint-rng-string", lambda r: edit_checkpoint(r, _set("rng", "seed 0")),
     "its generator states are missing"),
    ("checkpoint-old-game-state", lambda r: edit_checkpoint(r, _cut_stats),
     "its game state does not fit"),
    ("checkpoint-other-backend",
     lambda r: edit_checkpoint(r, _set("backend", {"name": "ray", "workers": 2})),
     "written by backend 'ray' with 2 worker(s)"),
]  # fmt: skip


@pytest.mark.timeout(120)  # a FIFO opened for reading would wait forever
@pytest.mark.parametrize("name,corrupt,message", RESUME, ids=[n for n, _, _ in RESUME])
def test_bad_run_folders_fail_cleanly_and_are_left_as_they_were(
    good_run, tmp_path, capsys, name, corrupt, message
):
    run = tmp_path / "run"
    shutil.copytree(good_run, run)
    corrupt(run)
    before = {p: p.read_bytes() for p in sorted(run.rglob("*")) if p.is_file()}
    assert_clean_error(train.main, ["--resume", str(run), "--no-progress"], message, capsys)
    after = {p: p.read_bytes() for p in sorted(run.rglob("*")) if p.is_file()}
    assert after == before  # nothing written, cut or removed


@pytest.mark.parametrize(
    "extra,message",
    [
        (["--num-games", "8"], "--resume continues a run with its own config"),
        (["--config", "x.toml"], "--resume continues a run with its own config"),
        (["--workers", "2"], "a run keeps its backend and number of workers"),
        (["--address", "nan"], "address: only for backend = 'ray'"),
    ],
)
def test_resume_with_other_settings(good_run, capsys, extra, message):
    argv = ["--resume", str(good_run), *extra, "--no-progress"]
    assert_clean_error(train.main, argv, message, capsys)


def test_resume_of_what_is_not_a_run_folder(tmp_path, capsys):
    for target in (tmp_path / "nowhere", tmp_path / "file.txt"):
        if target.suffix:
            target.write_text("x")
        assert_clean_error(train.main, ["--resume", str(target)], "no such run folder", capsys)
