"""The Ray backend of the evaluator and the experiment runner, on a Ray cluster of two nodes
(Ray's own cluster utilities on this host; one CPU each): the tables equal a local run's."""

import os
import sys

import pandas as pd
import pytest

ray = pytest.importorskip("ray")

#: One local Ray instance at a time: both Ray test modules run on the same worker.
pytestmark = pytest.mark.xdist_group("ray")

from ray_cluster import engine_threads_of_a_task, node_of_a_task, two_node_cluster  # noqa: E402

from uno_rl.eval.backends import BackendError, RayExecutor, make_executor  # noqa: E402
from uno_rl.eval.run import evaluate  # noqa: E402
from uno_rl.programs import evaluate as evaluate_cli  # noqa: E402
from uno_rl.programs import experiment  # noqa: E402


@pytest.fixture(scope="module", autouse=True)
def cluster() -> str:
    # Ray's workers cannot import the test modules: ship their helper functions by value.
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    ray.cloudpickle.register_pickle_by_value(sys.modules[node_of_a_task.__module__])
    with two_node_cluster() as address:
        ray.init(address=address, log_to_driver=False)
        yield address


def test_the_cluster_spreads_tasks_over_both_nodes():
    assert sum(node["Alive"] for node in ray.nodes()) == 2
    executor = RayExecutor()
    futures = [executor.submit(node_of_a_task, 1.0) for _ in range(2)]
    assert len({future.result(timeout=120) for future in futures}) == 2


def test_a_task_splits_no_batch_over_threads():
    # A worker holds one CPU: two engine threads in each would crowd the cores.
    if os.environ.get("UNO_RL_THREADS"):
        pytest.skip("UNO_RL_THREADS is set for the whole cluster")
    executor = RayExecutor()
    assert executor.submit(engine_threads_of_a_task).result(timeout=120) == (1, "1")


def _frames(result):
    return [result.seats, result.agents, result.pairs, result.ratings]


def test_ray_evaluation_equals_a_local_one():
    # 5000 rounds: two chunks per match-up, so chunks really are spread and merged.
    kwargs = dict(rounds=5000, seed=4, rating_rounds=300, progress=False)
    agents = ["color-first", "random-playable"]
    local = evaluate(agents, workers=1, **kwargs)
    remote = evaluate(agents, workers=2, backend="ray", **kwargs)
    for a, b in zip(_frames(local), _frames(remote)):
        pd.testing.assert_frame_equal(a, b)


def test_experiment_on_ray_equals_local_and_resumes(cluster, tmp_path, capsys):
    config = tmp_path / "mini.toml"
    config.write_text(
        """
seed = 1
rounds = 300
rating_rounds = 100
[grid]
presets = ["official"]
players = [2, 3]
[agents]
specs = ["color-first", "rule"]
"""
    )
    args = ["--workers", "1", "--no-progress"]
    assert experiment.main([str(config), "--runs-dir", str(tmp_path / "a"), *args]) == 0
    ray_args = [str(config), "--runs-dir", str(tmp_path / "b"), "--backend", "ray", *args]
    ray_args += ["--address", cluster, "--workers", "2"]  # both nodes
    assert experiment.main(ray_args) == 0
    (local,) = (tmp_path / "a" / "mini").iterdir()
    (remote,) = (tmp_path / "b" / "mini").iterdir()
    for name in ("seats", "agents", "pairs", "summary"):
        pd.testing.assert_frame_equal(
            pd.read_parquet(local / f"{name}.parquet"), pd.read_parquet(remote / f"{name}.parquet")
        )
    # Resumable on Ray too: forget one finished cell, and the same command plays only it.
    (remote / "parts" / "cell-0001.done").unlink()
    (remote / "DONE").unlink()
    capsys.readouterr()
    assert experiment.main(ray_args) == 0
    assert "(1 of 2 cells done)" in capsys.readouterr().out
    pd.testing.assert_frame_equal(
        pd.read_parquet(local / "seats.parquet"), pd.read_parquet(remote / "seats.parquet")
    )


def _die_once(marker: str, value: int) -> int:
    """Kill the worker process the first time (a lost node or an OOM kill), then work."""
    if not os.path.exists(marker):
        open(marker, "w").close()
        os._exit(1)
    return value * 2


def _fail(value: int) -> int:
    raise ValueError(f"chunk {value} is broken")


def test_a_killed_worker_is_retried(tmp_path):
    executor = RayExecutor()
    future = executor.submit(_die_once, str(tmp_path / "died"), 21)
    assert future.result(timeout=120) == 42
    assert (tmp_path / "died").exists()


def test_a_worker_killed_every_time_stops_the_run_with_a_clear_error(tmp_path):
    executor = RayExecutor(retries=0)
    future = executor.submit(_die_once, str(tmp_path / "never"), 1)
    with pytest.raises(BackendError, match="Ray worker was lost"):
        future.result(timeout=120)


def test_a_chunk_error_comes_back_as_itself():
    future = RayExecutor().submit(_fail, 7)
    with pytest.raises(ValueError, match="chunk 7 is broken"):
        future.result(timeout=120)


def test_bad_agents_fail_the_same_on_ray(capsys):
    code = evaluate_cli.main(
        ["color-first", "nobody", "--backend", "ray", "--rounds", "10", "--no-progress"]
    )
    assert code == 2 and "unknown agent 'nobody'" in capsys.readouterr().err


def test_backend_errors(monkeypatch):
    with pytest.raises(BackendError, match="backend must be one of local, ray"):
        make_executor("spark", 2)
    with pytest.raises(BackendError, match="--address is only for --backend ray"):
        make_executor("local", 2, "10.0.0.1:6379")
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(BackendError, match=r"pip install -e '\.\[ray\]'"):
        RayExecutor()
