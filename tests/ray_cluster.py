"""A Ray cluster of two nodes on this host, made with Ray's own cluster utilities.

Each node is a separate raylet with one CPU, so two one-CPU tasks or actors that run at the
same time sit on different nodes: what a program does on it, it does across machines.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def two_node_cluster() -> Iterator[str]:
    """Start a head node and one worker node (one CPU each); yield the head's address.

    Whatever connected to the cluster is disconnected, and both nodes stopped, on the way out.
    """
    import ray
    from ray.cluster_utils import Cluster

    cluster = Cluster(
        initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False}
    )
    try:
        cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()
        yield cluster.address
    finally:
        ray.shutdown()
        cluster.shutdown()


def node_of_a_task(seconds: float) -> str:
    """The id of the node that ran this task, after holding its CPU for ``seconds``."""
    import time

    import ray

    time.sleep(seconds)
    return ray.get_runtime_context().get_node_id()


def engine_threads_of_a_task() -> tuple[int, str | None]:
    """The compiled engine's thread count in the worker that ran this task, and what
    ``UNO_RL_THREADS`` says there."""
    import os

    from uno_rl.core.compiled import threads

    return threads.threads(), os.environ.get("UNO_RL_THREADS")
