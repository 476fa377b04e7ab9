"""The suite's own plumbing: the sweep profiles and how tests are spread over the workers."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import conftest
import pytest
import suite_profile

ROOT = Path(__file__).resolve().parents[1]


def test_profiles_size_the_sweeps():
    assert suite_profile.NAME in suite_profile.PROFILES
    ci, long = suite_profile.PROFILES["ci"], suite_profile.PROFILES["long"]
    assert 0 < ci["rounds"] < long["rounds"] == 1.0  # long: every sweep at its full size
    assert 0 < ci["examples"] < long["examples"]
    assert suite_profile.rounds(1) >= 1 and suite_profile.examples(1) >= 1
    full = {"ci": 2000 * ci["rounds"], "long": 2000}[suite_profile.NAME]
    assert suite_profile.rounds(2000) == round(full)


def test_an_unknown_profile_is_refused_in_one_line():
    env = {**os.environ, suite_profile.VARIABLE: "forever"}
    env.pop("PYTEST_XDIST_WORKER_COUNT", None)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
         str(Path(__file__))],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == pytest.ExitCode.USAGE_ERROR, done.stdout + done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert lines == [
        "ERROR: UNO_RL_TEST_PROFILE='forever' is not a test profile (choose from ci, long)"
    ]


def _uses_shared_fixture(item: pytest.Item, scope: str) -> bool:
    info = item._fixtureinfo
    return any(
        definitions[-1].scope == scope and definitions[-1].baseid.startswith("tests")
        for name in item.fixturenames
        if (definitions := info.name2fixturedefs.get(name))
    )


def test_tests_of_a_shared_fixture_share_a_worker(request):
    items = request.session.items
    groups = {item.nodeid: item.get_closest_marker("xdist_group") for item in items}
    for item in items:
        group = groups[item.nodeid]
        if _uses_shared_fixture(item, "session"):
            assert group is not None and group.args == (conftest.SESSION_GROUP,), item.nodeid
        elif _uses_shared_fixture(item, "module"):
            assert group is not None, item.nodeid
        if "test_ray_" in item.nodeid:
            assert group is not None and group.args == ("ray",), item.nodeid


def test_long_work_runs_first(request):
    def rank(item):
        group = item.get_closest_marker("xdist_group")
        if group is not None:
            return 0 if group.args == (conftest.SESSION_GROUP,) else 1
        return 2 if item.get_closest_marker("slow") is not None else 3

    ranks = [rank(item) for item in request.session.items]
    assert ranks == sorted(ranks)


@pytest.mark.xdist_group("suite-layout")
def test_groups_take_effect_under_xdist(request):
    """pytest-xdist sends a group to one worker by a suffix on the node id: a pytest that drops
    it (9.2 with pytest-xdist 3.8) would build every shared fixture on every worker."""
    if not getattr(request.config.option, "loadgroup", False):
        pytest.skip("not run by pytest-xdist with --dist loadgroup")
    assert request.node.nodeid.endswith("@suite-layout"), (
        f"pytest {pytest.__version__} drops pytest-xdist's test groups: "
        "install the pytest that the dev extra names"
    )
