"""Where the notebooks find their runs: ``$UNO_RL_RUNS``, else ``runs/`` here, else ``runs/``
next to here; the latest finished full run, else the quick one; one sentence when none."""

from __future__ import annotations

from pathlib import Path

from uno_rl.analysis.notebook_runs import RUNS_VARIABLE, Runs, latest_finished


def run(folder: Path, done: bool = True) -> Path:
    folder.mkdir(parents=True)
    if done:
        (folder / "DONE").write_text("done\n")
    return folder


def test_the_variable_names_the_runs_folder_even_where_runs_exist(tmp_path):
    (tmp_path / "here" / "runs").mkdir(parents=True)
    runs = Runs.find({RUNS_VARIABLE: str(tmp_path / "elsewhere")}, tmp_path / "here")
    assert runs.folder == tmp_path / "elsewhere"
    assert str(runs) == f"runs folder: {tmp_path / 'elsewhere'} ($UNO_RL_RUNS)"


def test_runs_here_come_before_runs_next_to_here(tmp_path):
    here = tmp_path / "notebooks"
    (tmp_path / "runs").mkdir()
    here.mkdir()
    runs = Runs.find({}, here)  # the repository's layout
    assert str(runs) == f"runs folder: {tmp_path / 'runs'} (next to the current folder)"
    (here / "runs").mkdir()
    runs = Runs.find({}, here)
    assert str(runs) == f"runs folder: {here / 'runs'} (in the current folder)"
    # an empty variable is no variable
    assert Runs.find({RUNS_VARIABLE: ""}, here).folder == here / "runs"


def test_no_runs_folder_says_where_it_looked(tmp_path):
    here = tmp_path / "notebooks"
    here.mkdir()
    runs = Runs.find({}, here)
    assert runs.folder is None and runs.latest("variants") is None
    assert str(runs) == (
        f"no runs folder: $UNO_RL_RUNS is not set and neither {here / 'runs'} nor "
        f"{tmp_path / 'runs'} exists"
    )
    assert runs.missing("variants").startswith("No finished variants run (no runs folder): ")


def test_the_full_run_comes_before_the_quick_one_and_unfinished_runs_do_not_count(tmp_path):
    runs = Runs.find({RUNS_VARIABLE: str(tmp_path)})
    quick = run(tmp_path / "bluff-quick" / "run-1")
    assert runs.latest("bluff") == quick
    run(tmp_path / "bluff" / "run-2", done=False)
    assert runs.latest("bluff") == quick  # the full run is not finished
    first = run(tmp_path / "bluff" / "run-3")
    assert runs.latest("bluff") == first
    later = run(tmp_path / "bluff" / "run-4")
    assert runs.latest("bluff") == later == latest_finished(tmp_path / "bluff")
    assert runs.latest("bluff-when") is None  # another experiment's runs are not its own


def test_a_run_variable_names_the_run_folder(tmp_path):
    chosen = run(tmp_path / "mine", done=False)
    run(tmp_path / "runs" / "bluff" / "run-1")
    environ = {RUNS_VARIABLE: str(tmp_path / "runs"), "UNO_RL_RUN": str(chosen)}
    runs = Runs.find(environ)
    assert runs.latest("bluff", "UNO_RL_RUN") == chosen
    environ["UNO_RL_RUN"] = str(tmp_path / "nowhere")
    runs = Runs.find(environ)
    assert runs.latest("bluff", "UNO_RL_RUN") is None
    assert runs.missing("bluff", "UNO_RL_RUN").startswith(
        f"{tmp_path / 'nowhere'} ($UNO_RL_RUN) is not a folder: `uno_rl experiment bluff --quick`"
    )


def test_the_missing_sentence_names_the_folder_and_both_commands(tmp_path):
    sentence = Runs.find({RUNS_VARIABLE: str(tmp_path)}).missing("bluff-when")
    assert sentence == (
        f"No finished bluff-when run in {tmp_path}: `uno_rl experiment bluff-when --quick` "
        "(a miniature) or `uno_rl experiment bluff-when` (the full run) produces one."
    )
