"""Fixtures shared across test folders."""

import pytest

from uno_rl import experiment


@pytest.fixture(scope="session")
def bluff_quick_run(tmp_path_factory):
    """A finished ``python -m uno_rl.experiment bluff --quick`` run folder (about 25 s)."""
    runs = tmp_path_factory.mktemp("runs")
    code = experiment.main(["bluff", "--quick", "--runs-dir", str(runs), "--no-progress"])
    assert code == 0
    (run,) = (runs / "bluff-quick").iterdir()
    return run


@pytest.fixture(scope="session")
def bluff_when_quick_run(tmp_path_factory):
    """A finished ``uno_rl experiment bluff-when --quick`` run folder (about a minute)."""
    runs = tmp_path_factory.mktemp("runs")
    code = experiment.main(["bluff-when", "--quick", "--runs-dir", str(runs), "--no-progress"])
    assert code == 0
    (run,) = (runs / "bluff-when-quick").iterdir()
    return run
