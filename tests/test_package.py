"""Package metadata: the version, py.typed, the console script."""

from __future__ import annotations

import re
import tomllib
from importlib.metadata import version
from pathlib import Path

import uno_rl

REPO = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))


def test_version_is_semver():
    assert re.fullmatch(r"\d+\.\d+\.\d+", uno_rl.__version__)


def test_version_matches_pyproject():
    assert uno_rl.__version__ == PYPROJECT["project"]["version"] == version("uno_rl")


def test_typed_and_scripted():
    assert (Path(uno_rl.__file__).parent / "py.typed").is_file()
    assert PYPROJECT["project"]["scripts"]["uno_rl"] == "uno_rl.__main__:main"


def test_build_maps_the_data_folders():
    wheel = PYPROJECT["tool"]["hatch"]["build"]["targets"]["wheel"]
    assert wheel["force-include"] == {
        "envs": "uno_rl/data/envs",
        "agents": "uno_rl/data/agents",
        "experiments": "uno_rl/data/experiments",
        "notebooks": "uno_rl/data/notebooks",
    }
    # the links a clone resolves the data by
    for name in ("envs", "agents", "experiments", "notebooks"):
        link = REPO / "uno_rl" / "data" / name
        assert link.is_symlink() and link.resolve() == (REPO / name).resolve()
