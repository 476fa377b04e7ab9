"""Fixtures shared across test folders, the sweep profile, and how tests are spread over workers.

``make test`` runs the suite on every core (pytest-xdist, ``--dist loadgroup``). Two rules keep
that both correct and short:

- A test that uses a module- or session-scoped fixture of this suite runs on the same worker as
  the other tests of that fixture, so the fixture is built once (a quick study, a trained run, a
  built wheel): module fixtures group their module's tests, session fixtures all their tests. An
  explicit ``pytest.mark.xdist_group`` (the Ray tests share one) takes precedence.
- The long work goes first: grouped tests, then tests marked ``slow``, then the rest, each in
  collection order, so no long test is left to run alone at the end.

Each worker runs torch on one thread: the workers already fill the cores.
"""

from __future__ import annotations

import os
import stat

import pytest
import suite_profile

if int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")) > 1:
    # Before any test imports torch (read once, at import); subprocesses inherit it.
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    os.environ.setdefault("MKL_NUM_THREADS", "1")

from uno_rl.programs import experiment  # noqa: E402

#: The group of the tests that share a session-scoped fixture of this suite.
SESSION_GROUP = "session-fixtures"


def pytest_configure(config):
    problem = suite_profile.problem()
    if problem:
        raise pytest.UsageError(problem)
    if not hasattr(config, "workerinput"):  # once, before the workers start
        from uno_rl.agents.compiled.precompile import drop_stale_kernels

        drop_stale_kernels()  # callers of an edited kernel would run it as cached


def pytest_report_header(config):
    return (
        f"test profile: {suite_profile.NAME} ({suite_profile.VARIABLE}=long plays the full sweeps)"
    )


def _shared_fixture_group(item: pytest.Item) -> str | None:
    """The xdist group of a test that uses a module- or session-scoped fixture of this suite."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return None
    group = None
    for name in item.fixturenames:
        definitions = info.name2fixturedefs.get(name)
        if not definitions:
            continue
        definition = definitions[-1]
        if not definition.baseid.startswith("tests"):  # pytest's and plugins' own fixtures
            continue
        if definition.scope == "session":
            return SESSION_GROUP
        if definition.scope == "module":
            group = item.nodeid.split("::", 1)[0]
    return group


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Group the tests of shared fixtures and put the long work first (see the module's text)."""
    for item in items:
        if item.get_closest_marker("xdist_group") is None:
            group = _shared_fixture_group(item)
            if group is not None:
                item.add_marker(pytest.mark.xdist_group(group))

    def rank(item: pytest.Item) -> int:
        group = item.get_closest_marker("xdist_group")
        if group is not None:
            return 0 if group.args == (SESSION_GROUP,) else 1  # the largest group first
        return 2 if item.get_closest_marker("slow") is not None else 3

    items.sort(key=rank)  # stable: collection order within each rank


@pytest.fixture(autouse=True)
def engine_choice_kept():
    """Put the engine choice back after each test: a program run in-process with another
    engine (``uno_rl bench --engines numpy``) would otherwise leave the rest of the worker's
    tests on it."""
    from uno_rl.core import backend

    chosen, variable = backend._compiled, os.environ.get(backend.ENGINE_VARIABLE)
    yield
    backend._compiled = chosen
    if variable is None:
        os.environ.pop(backend.ENGINE_VARIABLE, None)
    else:
        os.environ[backend.ENGINE_VARIABLE] = variable


@pytest.fixture(scope="session")
def bluff_quick_run(tmp_path_factory):
    """A finished ``uno_rl experiment bluff --quick`` run folder of the shipped study with a
    smaller ``[quick]`` table (every rule variant at 2 and 4 players: :mod:`small_bluff`)."""
    from small_bluff import write_small_quick_config

    folder = tmp_path_factory.mktemp("bluff")
    config = write_small_quick_config("bluff", folder)
    args = [str(config), "--quick", "--runs-dir", str(folder / "runs"), "--no-progress"]
    assert experiment.main(args) == 0
    (run,) = (folder / "runs" / "bluff-quick").iterdir()
    return run


@pytest.fixture(scope="session")
def bluff_when_quick_run(tmp_path_factory):
    """A finished ``uno_rl experiment bluff-when --quick`` run folder of the shipped study with
    a smaller ``[quick]`` table (every rule variant at 2 and 4 players: :mod:`small_bluff`),
    alone in its runs folder."""
    from small_bluff import write_small_quick_config

    folder = tmp_path_factory.mktemp("bluff-when")
    config = write_small_quick_config("bluff-when", folder)
    args = [str(config), "--quick", "--runs-dir", str(folder / "runs"), "--no-progress"]
    assert experiment.main(args) == 0
    (run,) = (folder / "runs" / "bluff-when-quick").iterdir()
    return run


@pytest.fixture(scope="session")
def editions_quick_run(tmp_path_factory):
    """A finished run named ``editions-quick`` of the shipped ``editions`` grid in miniature
    (every shipped deck, 2 and 4 players, rounds and matches, two of its heuristics and its
    shipped-bot part, in few rounds: :mod:`small_editions`), shared by the notebook and the
    results-page tests (about 20 s)."""
    from small_editions import write_small_editions_config

    folder = tmp_path_factory.mktemp("editions")
    config = write_small_editions_config(folder / "editions-quick.toml")
    runs = folder / "runs"
    assert experiment.main([str(config), "--runs-dir", str(runs), "--no-progress"]) == 0
    (run,) = (runs / "editions-quick").iterdir()
    return run


@pytest.fixture
def no_writes_in_dev(monkeypatch):
    """Fail the test, without touching /dev, if anything creates or renames a file there."""
    real_open, real_replace = os.open, os.replace

    def guarded_open(path, flags, *args, **kwargs):
        if flags & os.O_CREAT and os.path.abspath(path).startswith("/dev/"):
            raise AssertionError(f"a file was made in /dev: {path}")
        return real_open(path, flags, *args, **kwargs)

    def guarded_replace(source, target, *args, **kwargs):
        if os.path.realpath(target).startswith("/dev/"):
            raise AssertionError(f"a rename onto {target} was attempted")
        return real_replace(source, target, *args, **kwargs)

    monkeypatch.setattr(os, "open", guarded_open)
    monkeypatch.setattr(os, "replace", guarded_replace)
    yield
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode), "/dev/null is no longer a device"


@pytest.fixture
def temporary_files_denied(monkeypatch):
    """The system refuses every new ``*.tmp`` file (``PermissionError``), as a read-only folder
    would: as root, ``chmod`` denies nothing, so the refusal is simulated."""
    real_open = os.open

    def denied(path, flags, *args, **kwargs):
        if flags & os.O_CREAT and str(path).endswith(".tmp"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", denied)
