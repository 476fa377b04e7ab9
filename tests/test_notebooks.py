"""The shipped notebooks run headless on a small run of their experiment."""

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

from pathlib import Path  # noqa: E402

from uno_rl import experiment  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]

SMALL_VARIANTS = """
description = "a small version of experiments/variants.toml"
rounds = 120
rating_rounds = 200
[grid]
presets = ["official", "house"]
players = [2, 3]
[agents]
specs = ["rule", "color-first", "aggressive"]
mode = "round-robin"
"""


def execute(name: str) -> str:
    """Run ``notebooks/NAME`` headless; returns its printed and Markdown outputs."""
    notebook = nbformat.read(ROOT / "notebooks" / name, as_version=4)
    client = nbclient.NotebookClient(
        notebook,
        timeout=300,
        kernel_name="python3",
        resources={"metadata": {"path": str(ROOT / "notebooks")}},
    )
    client.execute()
    return "\n".join(
        str(output.get("text", "")) + str(output.get("data", {}).get("text/markdown", ""))
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.get("outputs", [])
    )


def test_variants_notebook_runs_on_a_small_run(tmp_path, monkeypatch):
    config = tmp_path / "variants.toml"
    config.write_text(SMALL_VARIANTS)
    runs = tmp_path / "runs"
    assert (
        experiment.main([str(config), "--runs-dir", str(runs), "--workers", "1", "--no-progress"])
        == 0
    )
    (run,) = (runs / "variants").iterdir()
    monkeypatch.setenv("UNO_RL_RUN", str(run))
    text = execute("variants.ipynb")
    assert f"run {run}" in text
    assert "Best agent most often" in text
    assert (run / "advantage.png").stat().st_size > 1000
    assert (run / "by_players.png").stat().st_size > 1000


def test_bluff_notebook_runs_on_the_quick_study(bluff_quick_run, monkeypatch):
    monkeypatch.setenv("UNO_RL_RUN", str(bluff_quick_run))
    monkeypatch.setenv("UNO_RL_PPO_RUN", "")
    text = execute("bluff.ipynb")
    assert f"run {bluff_quick_run}" in text
    assert "mutual best answers" in text and "Brier score" in text
    assert (bluff_quick_run / "points_by_bluff.png").stat().st_size > 5000


def test_shipped_notebooks_have_no_outputs():
    for path in (ROOT / "notebooks").glob("*.ipynb"):
        notebook = nbformat.read(path, as_version=4)
        for cell in notebook.cells:
            if cell.cell_type == "code":
                assert not cell.outputs and cell.execution_count is None, path
