"""The shipped notebooks run headless on quick runs of their experiments, show every figure
inline and write nothing; with only some runs, or none, every section without its run names
the command that produces it and the notebook goes on."""

import json
import tomllib

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

from pathlib import Path  # noqa: E402

from uno_rl.programs import experiment  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
#: Agents of the variants run the notebook test plays (the quick table plays all four: every
#: agent only adds match-ups, not columns, and doubles the test's time).
VARIANTS_TEST_AGENTS = ["rule", "color-first"]


@pytest.fixture(scope="module")
def variants_quick_run(tmp_path_factory):
    """A finished run of ``experiments/variants.toml``'s ``[quick]`` table (every preset and
    player count of the full run, its rounds and ratings) with two of its agents (about 15 s)."""
    shipped = tomllib.loads((ROOT / "experiments" / "variants.toml").read_text())
    quick = shipped["quick"]  # its keys replace the top-level ones, tables key by key
    settings = {**shipped, **quick}
    grid = {**shipped["grid"], **quick.get("grid", {})}
    agents = {**shipped["agents"], **quick.get("agents", {})}
    assert set(VARIANTS_TEST_AGENTS) < set(agents["specs"])
    folder = tmp_path_factory.mktemp("variants")
    config = folder / "variants.toml"
    lines = [
        f"seed = {settings.get('seed', 0)}",
        f"rounds = {settings['rounds']}",
        f"rating_rounds = {settings.get('rating_rounds', 20_000)}",
        "[grid]",
        f"presets = {json.dumps(grid['presets'])}",
        f"players = {json.dumps(grid['players'])}",
        "[agents]",
        f"specs = {json.dumps(VARIANTS_TEST_AGENTS)}",
        f"mode = {json.dumps(agents['mode'])}",
    ]
    config.write_text("\n".join(lines) + "\n")
    runs = folder / "runs"
    assert experiment.main([str(config), "--runs-dir", str(runs), "--no-progress"]) == 0
    (run,) = (runs / "variants").iterdir()
    return run


def files(*folders: Path) -> dict[Path, tuple[int, int]]:
    """Every file below ``folders`` with its size and modification time."""
    return {
        p: (p.stat().st_size, p.stat().st_mtime_ns)
        for folder in folders
        for p in folder.rglob("*")
        if p.is_file() and ".ipynb_checkpoints" not in p.parts
    }


def execute(name: str, *watched: Path) -> nbformat.NotebookNode:
    """Run ``notebooks/NAME`` headless as Jupyter does (its folder as the working directory);
    returns the executed notebook. Fails if it changes a file below ``watched`` or the
    notebooks folder, or if a cell fails."""
    notebook = nbformat.read(ROOT / "notebooks" / name, as_version=4)
    folders = (ROOT / "notebooks", *watched)
    before = files(*folders)
    client = nbclient.NotebookClient(
        notebook,
        timeout=300,
        kernel_name="python3",
        resources={"metadata": {"path": str(ROOT / "notebooks")}},
    )
    client.execute()
    assert files(*folders) == before, f"{name} wrote files"
    for cell in notebook.cells:
        for output in cell.get("outputs", []) if cell.cell_type == "code" else []:
            assert output.output_type != "error", (name, cell.source)
    return notebook


def text(notebook) -> str:
    """The printed and Markdown outputs of ``notebook``."""
    return "\n".join(
        str(output.get("text", "")) + str(output.get("data", {}).get("text/markdown", ""))
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.get("outputs", [])
    )


def figure_counts(notebook, markers: dict[str, int]) -> dict[str, int]:
    """The images of the cells whose source contains each marker (each in one cell), and
    under ``""`` those of every other cell."""
    counts = dict.fromkeys([*markers, ""], 0)
    for cell in (c for c in notebook.cells if c.cell_type == "code"):
        shown = sum("image/png" in output.get("data", {}) for output in cell.outputs)
        found = [m for m in markers if m in cell.source]
        assert len(found) <= 1, cell.source
        counts[found[0] if found else ""] += shown
    return counts


@pytest.fixture
def no_runs(tmp_path, monkeypatch):
    """An empty runs folder as ``$UNO_RL_RUNS`` (so that no run of the working tree is read),
    and no run variable set."""
    runs = tmp_path / "runs"
    runs.mkdir()
    monkeypatch.setenv("UNO_RL_RUNS", str(runs))
    for name in ("UNO_RL_RUN", "UNO_RL_WHEN_RUN", "UNO_RL_PPO_RUN"):
        monkeypatch.delenv(name, raising=False)
    return runs


def missing(runs: Path, name: str) -> str:
    """The sentence a section prints without a run of experiment ``name``."""
    return f"No finished {name} run in {runs}: `uno_rl experiment {name} --quick` (a miniature)"


def test_variants_notebook_shows_its_figures_on_the_quick_run(
    variants_quick_run, no_runs, monkeypatch
):
    monkeypatch.setenv("UNO_RL_RUN", str(variants_quick_run))
    notebook = execute("variants.ipynb", variants_quick_run)
    shown = text(notebook)
    assert f"run {variants_quick_run}: 6 variants x 4 player counts" in shown
    # the run's narrative: leaders only where separable
    assert "not separable" in shown and "kids, 6 players" in shown
    assert "Best agent most often" not in shown
    # One figure each: the advantage heatmaps and the win rate by table size.
    markers = {"ax.imshow(": 1, 'ax.set_xlabel("players")': 1}
    assert figure_counts(notebook, markers) == {**markers, "": 0}


def test_bluff_notebook_shows_its_figures_on_the_quick_study(
    bluff_quick_run, bluff_when_quick_run, no_runs, monkeypatch
):
    monkeypatch.setenv("UNO_RL_RUN", str(bluff_quick_run))
    monkeypatch.setenv("UNO_RL_WHEN_RUN", str(bluff_when_quick_run))
    notebook = execute("bluff.ipynb", bluff_quick_run, bluff_when_quick_run)
    shown = text(notebook)
    assert missing(no_runs, "bluff-ppo") in shown  # the last section, without its run
    assert f"run {bluff_quick_run}" in shown and f"when run {bluff_when_quick_run}" in shown
    assert "np.int64(" not in shown and "players [2, 4]" in shown
    assert "Quick run (" in shown  # the rule of thumb of a quick run says so
    assert "mutual best answers" in shown and "Brier score" in shown
    # the rule of thumb, computed from the when run's tables, and the learned players
    assert "## Challenging a +4" in shown and "- **official, 4 players** (rounds)" in shown
    assert "`ppo-official-2p-v1` (2 players, given): bluffs" in shown
    situations = len(list(bluff_when_quick_run.glob("situations-*.png")))
    # The study's heatmaps (one per rule variant), the points by bluff probability (drawn
    # here) and the calibration diagram.
    heatmaps = len(list(bluff_quick_run.glob("heatmap-*.png")))
    study = json.loads((bluff_quick_run / "config.json").read_text())
    assert heatmaps == len({c["variant"] for c in study["cells"]}) >= 2
    markers = {'RUN.glob("heatmap-*.png")': heatmaps, 'ax.set_xlabel("bluff probability")': 1,
               'RUN / "calibration.png"': 1, 'WHEN_RUN.glob("situations-*.png")': situations,
               'WHEN_RUN / "behaviour.png"': 1}  # fmt: skip
    assert figure_counts(notebook, markers) == {**markers, "": 0}


def test_bluff_notebook_with_only_a_quick_bluff_when_run(bluff_when_quick_run, monkeypatch):
    """The partial case: only ``uno_rl experiment bluff-when --quick`` has run, in the runs
    folder ``$UNO_RL_RUNS`` names. The bluff-when sections show its figures; the sweep's and
    the learned bots' sections each name the command of their study; nothing fails."""
    runs = bluff_when_quick_run.parents[1]
    assert sorted(p.name for p in runs.iterdir()) == ["bluff-when-quick"]
    monkeypatch.setenv("UNO_RL_RUNS", str(runs))
    for name in ("UNO_RL_RUN", "UNO_RL_WHEN_RUN", "UNO_RL_PPO_RUN"):
        monkeypatch.delenv(name, raising=False)
    notebook = execute("bluff.ipynb", runs)
    shown = text(notebook)
    assert f"runs folder: {runs} ($UNO_RL_RUNS)" in shown
    assert f"when run {bluff_when_quick_run}: " in shown
    assert (
        "## Challenging a +4" in shown
        and "`ppo-official-2p-v1` (2 players, given): bluffs" in shown
    )
    # The first cell and every section of the sweep (its six and the calibration) name it.
    assert shown.count(missing(runs, "bluff")) == 8
    assert shown.count(missing(runs, "bluff-ppo")) == 1
    situations = len(list(bluff_when_quick_run.glob("situations-*.png")))
    markers = {'WHEN_RUN.glob("situations-*.png")': situations, 'WHEN_RUN / "behaviour.png"': 1,
               'RUN.glob("heatmap-*.png")': 0, 'ax.set_xlabel("bluff probability")': 0,
               'RUN / "calibration.png"': 0}  # fmt: skip
    assert situations >= 1 and figure_counts(notebook, markers) == {**markers, "": 0}


@pytest.mark.parametrize(
    "name,experiments",
    [
        ("variants.ipynb", ["variants"]),
        ("editions.ipynb", ["editions"]),
        ("bluff.ipynb", ["bluff-when", "bluff", "bluff-ppo"]),
    ],
)
def test_every_notebook_runs_without_any_run(name, experiments, no_runs):
    notebook = execute(name, no_runs)
    shown = text(notebook)
    assert f"runs folder: {no_runs} ($UNO_RL_RUNS)" in shown
    for experiment_name in experiments:
        assert missing(no_runs, experiment_name) in shown, experiment_name
    assert figure_counts(notebook, {}) == {"": 0}
    assert "Traceback" not in shown and not list(no_runs.iterdir())


def test_editions_notebook_shows_its_figure_on_a_quick_run(
    editions_quick_run, no_runs, monkeypatch
):
    monkeypatch.setenv("UNO_RL_RUN", str(editions_quick_run))
    notebook = execute("editions.ipynb", editions_quick_run)
    shown = text(notebook)
    assert f"run {editions_quick_run}: 5 decks x 2 player counts" in shown
    assert "**extreme, 4 players**: best by points" in shown
    assert "gains most against the classic deck" in shown and "ppo-official-2p" in shown
    markers = {'ax.set_title(f"{n} players: points/round vs classic")': 1}
    assert figure_counts(notebook, markers) == {**markers, "": 0}


def test_shipped_notebooks_have_no_outputs_and_do_not_switch_the_backend():
    paths = sorted((ROOT / "notebooks").glob("*.ipynb"))
    assert [p.name for p in paths] == ["bluff.ipynb", "editions.ipynb", "variants.ipynb"]
    for path in paths:
        notebook = nbformat.read(path, as_version=4)
        nbformat.validate(notebook)
        source = "\n".join(c.source for c in notebook.cells if c.cell_type == "code")
        assert "%matplotlib inline" in source and "matplotlib.use" not in source, path
        assert "savefig" not in source and "to_parquet" not in source, path
        for cell in notebook.cells:
            if cell.cell_type == "code":
                assert not cell.outputs and cell.execution_count is None, path
