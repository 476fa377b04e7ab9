"""``uno_rl notebooks [DIR]``: the shipped notebooks copied into a folder with the user's umask,
same files left alone, different ones replaced only with --force, one error line for bad
input; the notebooks ship as package data (a link in the repository, a copy in the wheel:
tests/test_wheel.py)."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

import pytest

from uno_rl.__main__ import main
from uno_rl.plumbing import resources
from uno_rl.programs import notebooks

ROOT = Path(__file__).resolve().parents[1]
NAMES = ["bluff.ipynb", "editions.ipynb", "variants.ipynb"]


def contents(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


SHIPPED = {name: (ROOT / "notebooks" / name).read_bytes() for name in NAMES}


def test_the_notebooks_ship_as_package_data():
    link = ROOT / "uno_rl" / "data" / "notebooks"
    assert link.is_symlink() and link.resolve() == (ROOT / "notebooks").resolve()
    build = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["hatch"]["build"]
    assert build["targets"]["wheel"]["force-include"]["notebooks"] == "uno_rl/data/notebooks"
    assert "notebooks" in build["targets"]["sdist"]["only-include"]
    assert [p.name for p in notebooks.shipped_notebooks()] == NAMES


def test_copies_the_notebooks_with_the_users_umask_and_says_what_next(
    tmp_path, monkeypatch, capsys
):
    monkeypatch.chdir(tmp_path)
    old = os.umask(0o027)
    try:
        assert main(["notebooks"]) == 0
    finally:
        os.umask(old)
    folder = tmp_path / "notebooks"
    assert contents(folder) == SHIPPED  # and nothing else (no temporary file left)
    assert {oct(p.stat().st_mode & 0o777) for p in folder.iterdir()} == {oct(0o640)}
    out = capsys.readouterr().out
    assert [line.split() for line in out.splitlines()[:3]] == [
        ["written", f"notebooks/{name}"] for name in NAMES
    ]
    assert "pip install 'uno_rl[notebooks]'" in out and "\n  jupyter lab notebooks\n" in out
    assert "uno_rl experiment variants --quick" in out and str(tmp_path / "runs") in out


def test_same_files_stay_and_different_ones_need_force(tmp_path, capsys):
    folder = tmp_path / "mine"
    assert main(["notebooks", str(folder)]) == 0
    stamps = {p.name: p.stat().st_mtime_ns for p in folder.iterdir()}
    assert main(["notebooks", str(folder)]) == 0
    assert capsys.readouterr().out.count("unchanged") == 3
    assert {p.name: p.stat().st_mtime_ns for p in folder.iterdir()} == stamps

    (folder / "bluff.ipynb").write_text("my own notes\n")
    (folder / "editions.ipynb").unlink()
    assert main(["notebooks", str(folder)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == (
        f"error: bluff.ipynb in {folder} differs from the shipped notebook; --force replaces it\n"
    )
    # checked before anything is written: the missing notebook is not written either
    assert contents(folder) == {
        "bluff.ipynb": b"my own notes\n",
        "variants.ipynb": SHIPPED["variants.ipynb"],
    }

    assert main(["notebooks", str(folder), "--force"]) == 0
    assert contents(folder) == SHIPPED
    lines = [line.split()[0] for line in capsys.readouterr().out.splitlines()[:3]]
    assert lines == ["replaced", "written", "unchanged"]


@pytest.mark.parametrize(
    "target,message",
    [
        ("", "DIR must name a folder, got an empty path"),
        ("file", "{tmp}/file is a file, not a folder"),
        ("file/below", "cannot make the folder {tmp}/file/below: Not a directory"),
        ("taken", "{tmp}/taken/variants.ipynb is a folder, where a notebook would go"),
    ],
    ids=["empty", "a-file", "below-a-file", "a-folder-in-the-way"],
)
def test_bad_folders_get_one_error_line_and_status_2(tmp_path, capsys, target, message):
    (tmp_path / "file").write_text("x")
    (tmp_path / "taken" / "variants.ipynb").mkdir(parents=True)
    argv = ["notebooks", str(tmp_path / target) if target else ""]
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == f"error: {message.format(tmp=tmp_path)}\n"
    assert sorted(p.name for p in (tmp_path / "taken").iterdir()) == ["variants.ipynb"]


def test_a_folder_that_cannot_be_made_or_written_gets_one_error_line(tmp_path, monkeypatch, capsys):
    def refused(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(Path, "mkdir", refused)
    assert main(["notebooks", str(tmp_path / "new")]) == 2
    assert capsys.readouterr().err == (
        f"error: cannot make the folder {tmp_path / 'new'}: Permission denied\n"
    )
    monkeypatch.undo()

    def full(path, data):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(notebooks, "write_bytes_durably", full)
    assert main(["notebooks", str(tmp_path / "new")]) == 2
    assert capsys.readouterr().err == (
        f"error: cannot write {tmp_path / 'new' / 'bluff.ipynb'}: No space left on device\n"
    )


def test_an_installation_without_notebooks_says_so(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(resources, "data_dir", lambda folder: tmp_path / "data" / folder)
    assert main(["notebooks", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert err == (
        f"error: no notebooks in {tmp_path / 'data' / 'notebooks'}: the installation is "
        "incomplete\n"
    )
    assert not (tmp_path / "out").exists()
