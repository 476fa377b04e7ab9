"""``--backend ray``: rollout actors on a local Ray instance (2 CPUs) started by this module.

One straight run of 3 updates (2 workers, 8 games each) is the reference: a worker killed
mid-rollout is recreated without changing it, a run stopped by a lost worker (no retries left)
resumes to it exactly, and the same seed gives it again on a cluster of two nodes.
"""

import csv
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
import torch

ray = pytest.importorskip("ray")

#: One local Ray instance at a time: both Ray test modules run on the same worker.
pytestmark = pytest.mark.xdist_group("ray")

from ray_cluster import two_node_cluster  # noqa: E402

from uno_rl.agents import make_agent  # noqa: E402
from uno_rl.core import engine, load_rules  # noqa: E402
from uno_rl.core.observe import observe  # noqa: E402
from uno_rl.eval.backends import BackendError  # noqa: E402
from uno_rl.ppo.checkpoint import load_checkpoint  # noqa: E402
from uno_rl.ppo.config import load_train_config  # noqa: E402
from uno_rl.ppo.logger import TIMING_KEYS  # noqa: E402
from uno_rl.programs import train  # noqa: E402

#: 16 games over 2 workers, 16 engine steps per rollout, 3 updates; rounds cut at 20 turns so
#: that games are re-dealt, snapshots enter the pool every update and pool games are played.
TINY = {
    "num_games": "16", "rollout_steps": "16", "total_decisions": str(16 * 16 * 3),
    "switches": "max_turns=20", "hidden": "16", "minibatch_size": "64", "update_epochs": "2",
    "eval_every": "0", "final_eval_rounds": "0", "checkpoint_every": "1", "torch_threads": "1",
    "zoo": "random-playable", "pool_size": "2", "snapshot_every": "1", "tensorboard": "false",
    "self_play": "0.4", "pool_share": "0.4", "zoo_share": "0.2",
    "backend": "ray", "workers": "2",
}  # fmt: skip
TIMING = TIMING_KEYS


def tiny_config(**changes):
    return load_train_config(None, {**TINY, **{k: str(v) for k, v in changes.items()}})


def argv(**changes) -> list[str]:
    values = {**TINY, **{k: str(v) for k, v in changes.items()}}
    flag = {"switches": "set"}  # the command line gives rule switches as --set KEY=VALUE
    return [x for k, v in values.items() for x in ("--" + flag.get(k, k).replace("_", "-"), v)]


def new_run(root: Path, config) -> Path:
    run = root / config.name
    run.mkdir(parents=True)
    (run / "config.json").write_text(json.dumps(config.to_dict()))
    return run


def metrics(run: Path) -> list[dict]:
    rows = list(csv.DictReader((run / "metrics.csv").open()))
    return [{k: v for k, v in row.items() if k not in TIMING} for row in rows]


def assert_same_model(a: Path, b: Path) -> None:
    x, y = load_checkpoint(a / "checkpoint.pt"), load_checkpoint(b / "checkpoint.pt")
    assert x["update"] == y["update"] and x["decisions"] == y["decisions"]
    for key in x["model"]:
        assert torch.equal(x["model"][key], y["model"][key]), key


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def straight(tmp_path_factory) -> Path:
    """The reference run, through the command line."""
    runs = tmp_path_factory.mktemp("runs")
    assert (
        train.main([*argv(), "--runs-dir", str(runs), "--name", "straight", "--no-progress"]) == 0
    )
    (run,) = (runs / "straight").iterdir()
    return run


def test_ray_backend_trains_end_to_end(straight):
    for name in ("config.json", "metrics.csv", "checkpoint.pt", "policy.pt"):
        assert (straight / name).is_file(), name
    rows = metrics(straight)
    assert [row["charts/update"] for row in rows] == ["1", "2", "3"]
    assert all(float(row["losses/entropy"]) > 0 for row in rows)
    data = load_checkpoint(straight / "checkpoint.pt")
    assert data["backend"] == {"name": "ray", "workers": 2}
    assert data["update"] == 3 and data["decisions"] == 16 * 16 * 3 and data["rounds"] > 0
    assert data["pool_filled"] == 2  # a snapshot after every update, two slots
    assert len(data["workers"]) == 2
    for state in data["workers"]:  # each worker holds its 8 games and its generators
        assert state["games"]["lineup"].shape == (8, 2)
        assert state["games"]["state"]["key"].shape[0] == 8
        assert {"numpy", "sample"} <= set(state["rng"])
    keys = [w["games"]["state"]["key"] for w in data["workers"]]
    assert not torch.equal(keys[0], keys[1])  # different deals on the two workers
    rules = load_rules("official", max_turns=20)
    agent = make_agent(f"ppo:checkpoint={straight / 'policy.pt'}", rules)
    state = engine.reset(rules, np.arange(16, dtype=np.uint64))
    mask = engine.legal_mask(state)
    actions = agent.act(observe(state, state.actor), mask, np.random.default_rng(0))
    assert mask[np.arange(16), actions].all()


def test_a_worker_killed_mid_rollout_is_recreated_and_the_run_is_unchanged(straight, tmp_path):
    config = tiny_config(name="killed")
    run = new_run(tmp_path, config)
    killed = []

    def kill_worker_1(update, source):
        if update == 1:  # its rollout was just sent: it cannot have come back yet
            killed.append(source.actors[1])
            ray.kill(source.actors[1])

    summary = train.train(config, run, progress=False, on_rollout=kill_worker_1)
    assert killed and summary["worker_restarts"] == 1
    # Recreated from the state it reported after update 1, rerun with the same weights:
    # exactly the run nobody killed.
    assert_same_model(straight, run)
    assert metrics(straight) == metrics(run)


def test_a_lost_worker_without_retries_stops_the_run_which_resumes_exactly(
    straight, tmp_path, capsys
):
    config = tiny_config(name="stopped", worker_retries=0)
    run = new_run(tmp_path, config)

    def kill_worker_0(update, source):
        if update == 2:
            ray.kill(source.actors[0])

    message = (
        r"rollout worker 0 of 2 was lost in update 3 and recreated 0 times \(worker_retries = 0\)"
        r"; nothing of update 3 was used: ActorDiedError.*resumes from its last checkpoint "
        r"\(update 2\) with: uno_rl train --resume "
    )
    with pytest.raises(BackendError, match=message):
        train.train(config, run, progress=False, on_rollout=kill_worker_0)
    # Nothing of the lost update was merged: two updates logged, the checkpoint at update 2.
    assert len(metrics(run)) == 2
    assert load_checkpoint(run / "checkpoint.pt", ("update",))["update"] == 2
    # --address may be given again (a cluster's address can change); here Ray is already up.
    assert train.main(["--resume", str(run), "--address", "auto", "--no-progress"]) == 0
    assert "resuming" in capsys.readouterr().out
    assert_same_model(straight, run)
    assert metrics(straight) == metrics(run)


def test_resuming_with_another_backend_or_worker_count_is_refused(straight, tmp_path, capsys):
    run = tmp_path / "copy"
    shutil.copytree(straight, run)
    assert train.main(["--resume", str(run), "--workers", "3", "--no-progress"]) == 2
    assert "a run keeps its backend and number of workers" in capsys.readouterr().err
    saved = json.loads((run / "config.json").read_text())
    for changes, asked in (({"workers": 1}, "'ray' with 1"), ({"backend": "local", "workers": 1}, "'local' with 1")):  # fmt: skip
        (run / "config.json").write_text(json.dumps({**saved, **changes}))
        assert train.main(["--resume", str(run), "--no-progress"]) == 2
        err = capsys.readouterr().err
        assert "checkpoint.pt: written by backend 'ray' with 2 worker(s)" in err, err
        assert f"the config asks for backend {asked}" in err, err


def test_more_workers_than_the_cluster_has_cpus_is_a_clear_error(tmp_path, capsys):
    args = [*argv(workers=3), "--runs-dir", str(tmp_path), "--no-progress"]
    assert train.main(args) == 2
    err = capsys.readouterr().err
    assert "the Ray cluster has 2 CPUs; 3 rollout workers need one each" in err, err


def test_a_worker_that_cannot_start_stops_the_run_without_retries(tmp_path):
    config = tiny_config(name="broken", total_decisions=16 * 16 * 2)
    run = new_run(tmp_path, config)

    def break_worker_1(update, source):
        if update == 1:  # its recreation gets a state it cannot load
            source.states[1] = {"games": {}}
            ray.kill(source.actors[1])

    message = r"rollout worker 1 of 2 could not start in update 2: KeyError: 'state'"
    with pytest.raises(BackendError, match=message):
        train.train(config, run, progress=False, on_rollout=break_worker_1)
    assert len(metrics(run)) == 1


def test_a_two_node_cluster_trains_the_same_run(straight, tmp_path):
    # Last in the module: it leaves the local instance for a cluster the run connects to by
    # its address, as `--address HEAD:6379` does, with one rollout actor on each node.
    ray.shutdown()
    with two_node_cluster() as address:
        args = [*argv(), "--address", address, "--runs-dir", str(tmp_path), "--no-progress"]
        assert train.main([*args, "--name", "cluster"]) == 0
        assert sum(node["Alive"] for node in ray.nodes()) == 2
    (run,) = (tmp_path / "cluster").iterdir()
    assert_same_model(straight, run)  # the same seed, the same run, wherever it is played
    assert metrics(straight) == metrics(run)
    a, b = load_checkpoint(straight / "checkpoint.pt"), load_checkpoint(run / "checkpoint.pt")
    for x, y in zip(a["workers"], b["workers"], strict=True):
        for name, tensor in x["games"]["state"].items():
            assert torch.equal(tensor, y["games"]["state"][name]), name
        assert x["rng"]["numpy"] == y["rng"]["numpy"]
