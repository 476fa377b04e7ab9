"""The wheel works without the repository: built, installed into a fresh virtual environment
and run from an empty folder.

The fresh environment reuses the project environment's third-party packages (torch, numpy, ...)
through a ``.pth`` line naming its site-packages folder: a plain line adds the folder to
``sys.path`` without running the ``.pth`` files inside it, so the project's editable install of
uno_rl stays out, and nothing is downloaded (pip never resolves torch here: ``--no-deps``).
"""

from __future__ import annotations

import importlib.util
import os
import shlex
import subprocess
import sys
import sysconfig
import time
import zipfile
from pathlib import Path

import pytest
from readme_text import quick_commands

REPO = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("hatchling") is None,
    reason="hatchling (the dev extra) builds the wheel offline",
)


def run(args, cwd, env, timeout=300):
    result = subprocess.run(
        [str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
    )
    assert result.returncode == 0, (
        f"{' '.join(map(str, args))} exited {result.returncode}\n"
        f"stdout:\n{result.stdout[-3000:]}\nstderr:\n{result.stderr[-3000:]}"
    )
    return result.stdout


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(venv folder, environment, empty working folder) with the wheel installed."""
    root = tmp_path_factory.mktemp("wheel")
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV"} and not key.startswith("UNO_RL_")
    }
    env["PYTHONNOUSERSITE"] = "1"
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env["PIP_NO_INDEX"] = "1"  # offline: everything needed is the wheel itself
    dist = root / "dist"
    run(
        [sys.executable, "-m", "pip", "wheel", REPO, "--no-deps", "--no-build-isolation",
         "-w", dist],
        root, env,
    )  # fmt: skip
    (wheel,) = dist.glob("uno_rl-*.whl")
    venv = root / "venv"
    run([sys.executable, "-m", "venv", "--without-pip", venv], root, env)
    python = venv / "bin" / "python"
    purelib = Path(
        run(
            [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], root, env
        ).strip()
    )
    (purelib / "_project_packages.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    run(
        [sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--no-index",
         wheel],
        root, env,
    )  # fmt: skip
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["OMP_NUM_THREADS"] = "1"
    # The NumPy path, forced: a compiled engine would compile afresh in this environment (a
    # minute); test_the_wheel_picks_the_compiled_engine_where_numba_imports checks that path.
    env["UNO_RL_ENGINE"] = "numpy"
    empty = root / "empty"
    empty.mkdir()
    return venv, env, empty, wheel


def test_wheel_carries_the_data(installed):
    *_, wheel = installed
    names = set(zipfile.ZipFile(wheel).namelist())
    for folder, pattern in (("envs", "*.toml"), ("agents", "*.toml"), ("agents", "*.pt"),
                            ("experiments", "*.toml"), ("notebooks", "*.ipynb")):  # fmt: skip
        for path in (REPO / folder).glob(pattern):
            assert f"uno_rl/data/{folder}/{path.name}" in names, path
    assert "uno_rl/data/agents/README.md" in names
    assert "uno_rl/data/agents/exploitability.csv" in names  # what uno_rl scorecard reads
    assert "uno_rl/py.typed" in names


def test_imports_from_the_wheel(installed):
    venv, env, empty, _ = installed
    code = (
        "import sys, uno_rl\n"
        "from pathlib import Path\n"
        f"assert Path(uno_rl.__file__).resolve().is_relative_to({str(venv.resolve())!r}), uno_rl.__file__\n"
        f"assert not any(p and Path(p).resolve() == Path({str(REPO)!r}) for p in sys.path)\n"
        "from uno_rl.core import engine, load_rules\n"
        "from uno_rl.agents import make_agent\n"
        "rules = load_rules('official')\n"
        "agent = make_agent('ppo-official-2p', rules)\n"
        "from uno_rl.programs import train\n"
        "assert train.QUICKSTART.is_file(), train.QUICKSTART\n"
        "from uno_rl.core.backend import engine_name\n"
        "engine.reset(rules, [1])\n"
        "assert engine_name() == 'numpy', engine_name()\n"
        "print(uno_rl.__version__, agent)\n"
    )
    out = run([venv / "bin" / "python", "-c", code], empty, env)
    assert "ppo" in out
    assert not any(empty.iterdir())


def test_the_wheel_picks_the_compiled_engine_where_numba_imports(installed):
    """Without UNO_RL_ENGINE the wheel's uno_rl uses the compiled engine (numba is in the
    environment), whose kernels live in the wheel (only the dispatch is checked here: compiling
    them is what test_backend's processes do from the source tree)."""
    venv, env, empty, _ = installed
    code = (
        "from uno_rl.core import backend\n"
        "from uno_rl.core.compiled import warm\n"
        "from pathlib import Path\n"
        f"assert Path(warm.__file__).resolve().is_relative_to({str(venv.resolve())!r})\n"
        "print(backend.select_engine(None))\n"
    )
    clean = {k: v for k, v in env.items() if k != "UNO_RL_ENGINE"}
    assert run([venv / "bin" / "python", "-c", code], empty, clean).strip() == "compiled"


#: Run in the wheel's environment: execute a notebook as Jupyter does (its folder as the
#: working folder), print its printed outputs.
EXECUTE = """
import sys
import nbclient, nbformat
path = sys.argv[1]
notebook = nbformat.read(path, as_version=4)
nbclient.NotebookClient(notebook, timeout=120, kernel_name="python3",
                        resources={"metadata": {"path": sys.argv[2]}}).execute()
print("".join(o.get("text", "") for c in notebook.cells if c.cell_type == "code" for o in c.outputs))
"""


def test_notebooks_command(installed, tmp_path):
    """uno_rl notebooks copies the shipped notebooks, refuses to overwrite a changed one, and a
    copied notebook runs on the wheel's uno_rl without any run, naming the command."""
    venv, env, _, _ = installed
    out = run([venv / "bin" / "uno_rl", "notebooks"], tmp_path, env, timeout=120)
    folder = tmp_path / "notebooks"
    names = sorted(p.name for p in (REPO / "notebooks").glob("*.ipynb"))
    assert sorted(p.name for p in folder.iterdir()) == names
    for name in names:
        assert (folder / name).read_bytes() == (REPO / "notebooks" / name).read_bytes(), name
    assert "pip install 'uno_rl[notebooks]'" in out and "jupyter lab notebooks" in out
    (folder / "variants.ipynb").write_text("{}")
    refused = subprocess.run([venv / "bin" / "uno_rl", "notebooks"], cwd=tmp_path, env=env,
                             capture_output=True, text=True, timeout=120)  # fmt: skip
    assert refused.returncode == 2 and refused.stderr.startswith("error: variants.ipynb in ")
    run([venv / "bin" / "uno_rl", "notebooks", "--force"], tmp_path, env, timeout=120)
    if importlib.util.find_spec("nbclient") is None:
        return  # the dev extra runs the notebook too
    runs = tmp_path / "runs"  # where the notebooks look: next to their folder
    runs.mkdir()
    shown = run([venv / "bin" / "python", "-c", EXECUTE, folder / "variants.ipynb", folder],
                tmp_path, env)  # fmt: skip
    assert f"runs folder: {runs} (next to the current folder)" in shown
    assert f"No finished variants run in {runs}: `uno_rl experiment variants --quick`" in shown


def test_listings(installed):
    venv, env, empty, _ = installed
    out = run([venv / "bin" / "uno_rl", "presets"], empty, env, timeout=120)
    assert "official" in out and "shipped" in out


def test_evaluate(installed):
    venv, env, empty, _ = installed
    args = ["color-first", "random-playable", "--rounds", "2000", "--no-progress"]
    out = run([venv / "bin" / "python", "-m", "uno_rl.evaluate", *args], empty, env)
    assert "color-first" in out
    out = run([venv / "bin" / "uno_rl", "evaluate", *args], empty, env)
    assert "color-first" in out


def test_train(installed):
    venv, env, empty, _ = installed
    out = run(
        [venv / "bin" / "uno_rl", "train", "--total-decisions", "50000", "--num-games", "64",
         "--minibatch-size", "512", "--eval-rounds", "200", "--final-eval-rounds", "200",
         "--tensorboard", "false", "--torch-threads", "1", "--no-progress"],
        empty, env,
    )  # fmt: skip
    assert list((empty / "runs").rglob("*.pt")), out


@pytest.mark.parametrize("index", range(len(quick_commands())))
def test_the_readme_quick_commands_run_in_the_time_they_state(installed, index):
    """Each of the README's quick commands, parsed from the README, runs as written from the
    installed wheel in an empty folder within the time its comment states."""
    venv, env, empty, _ = installed
    command, seconds = quick_commands()[index]
    words = shlex.split(command)
    folder = empty.parent / f"readme-{index}"
    folder.mkdir(exist_ok=True)
    start = time.perf_counter()
    run([venv / "bin" / words[0], *words[1:]], folder, env, timeout=seconds)
    elapsed = time.perf_counter() - start
    assert elapsed <= seconds, f"{command!r} took {elapsed:.0f} s; the README says {seconds:.0f} s"
