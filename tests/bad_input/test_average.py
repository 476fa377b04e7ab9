"""``uno_rl average`` given outputs and inputs it must refuse: one ``error:`` line, exit status 2,
and nothing written. An output that is not a file (a device, a FIFO, a socket, a folder, a
symlink to one) is refused with or without ``--force`` and before any temporary file is made
(as root, the rename replaced ``/dev/full`` by a regular file); so are one policy file named
twice and an output that is one of the inputs.

No test writes to a real device: ``/dev/null`` is only named where the refusal comes first,
and ``no_writes_in_dev`` fails the test (without touching ``/dev``) should anything try.
"""

from __future__ import annotations

import os
import shutil
import socket
import stat
import tempfile
from pathlib import Path

import pytest
import torch

from bad_input.harness import assert_clean_error
from uno_rl.plumbing.resources import shipped_dir
from uno_rl.programs import average

SHIPPED = shipped_dir("agents") / "ppo-official-4p-v1.pt"


@pytest.fixture
def policies(tmp_path) -> tuple[Path, Path]:
    """Two policy files of one network (copies of a shipped policy)."""
    a, b = tmp_path / "a.pt", tmp_path / "b.pt"
    shutil.copyfile(SHIPPED, a)
    shutil.copyfile(SHIPPED, b)
    return a, b


def _run(argv, expected, capsys) -> str:
    return assert_clean_error(average.main, [str(a) for a in argv], expected, capsys)


@pytest.mark.parametrize("force", [[], ["--force"]], ids=["plain", "force"])
def test_dev_null_is_refused_before_anything_is_made(policies, force, no_writes_in_dev, capsys):
    line = _run([*force, "/dev/null", *policies], "", capsys)
    assert line == "error: /dev/null is a character device, not a file: choose another output path"


@pytest.mark.parametrize("force", [[], ["--force"]], ids=["plain", "force"])
def test_outputs_that_are_not_files(policies, tmp_path, force, capsys):
    fifo = tmp_path / "pipe.pt"
    os.mkfifo(fifo)
    link = tmp_path / "link.pt"
    link.symlink_to(fifo)
    folder = tmp_path / "folder.pt"
    folder.mkdir()
    for out, kind in [(fifo, "a FIFO"), (link, "a symlink to a FIFO"), (folder, "a folder")]:
        line = _run([*force, out, *policies], "", capsys)
        assert line == f"error: {out} is {kind}, not a file: choose another output path"
    assert stat.S_ISFIFO(os.stat(fifo).st_mode) and folder.is_dir()
    assert not list(tmp_path.glob(".*.tmp"))


def test_a_socket_output(policies, capsys):
    folder = Path(tempfile.mkdtemp(prefix="s", dir="/tmp"))  # socket paths are short
    path = folder / "s.pt"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        server.bind(str(path))
        _run(["--force", path, *policies], "is a socket, not a file", capsys)
        assert stat.S_ISSOCK(os.stat(path).st_mode)
    finally:
        server.close()
        shutil.rmtree(folder)


def test_an_output_folder_that_takes_no_file(policies, tmp_path, temporary_files_denied, capsys):
    """A read-only folder (as root chmod denies nothing: the refusal is simulated)."""
    out = tmp_path / "out.pt"
    _run([out, *policies], f"no file can be made in {tmp_path} (Permission denied)", capsys)
    assert not out.exists()


def test_an_output_under_proc(policies, capsys):
    _run(["/proc/soup.pt", *policies], "/proc/soup.pt cannot be written", capsys)


def test_one_file_named_twice(policies, tmp_path, capsys):
    a, _ = policies
    out = tmp_path / "out.pt"
    _run([out, a, a], f"policies '{a}' and '{a}' are the same file", capsys)
    run = tmp_path / "run"
    run.mkdir()
    (run / "policy.pt").symlink_to(a)
    other = tmp_path / "sub" / ".." / "a.pt"
    (tmp_path / "sub").mkdir()
    for twice in ([a, run], [a, other]):
        _run([out, *twice], "are the same file", capsys)
    _run([out, "ppo-official-4p-v1", SHIPPED], "are the same file", capsys)
    assert not out.exists()


def test_an_output_that_is_an_input(policies, capsys):
    a, b = policies
    before = b.read_bytes()
    line = _run(["--force", b, a, b], f"output {b} is also the input '{b}'", capsys)
    assert "choose another output path" in line
    assert b.read_bytes() == before


def test_an_unreadable_policy_is_not_called_corrupt(policies, tmp_path, monkeypatch, capsys):
    """chmod 000 denies nothing to root: the reader's refusal is simulated."""
    a, b = policies

    def denied(path, *args, **kwargs):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(torch, "load", denied)
    line = _run([tmp_path / "out.pt", a, b], f"checkpoint {a} cannot be read: Permission", capsys)
    assert "corrupt" not in line


def test_inputs_that_are_not_files(policies, tmp_path, capsys):
    a, _ = policies
    fifo = tmp_path / "pipe.pt"
    os.mkfifo(fifo)
    out = tmp_path / "out.pt"
    _run([out, a, fifo], f"checkpoint {fifo}: is a FIFO, not a checkpoint file", capsys)
    _run([out, a, "/dev/zero"], "/dev/zero: is a character device, not a checkpoint", capsys)
    assert not out.exists()
