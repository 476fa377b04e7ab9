"""Output paths a program writes at its end are checked at its start: ``uno_rl play --save``
that can never be written (not a file: a device, a FIFO, a socket, a symlink loop; or in a
folder that takes no file: ``/proc``, no permission) is one ``error:`` line and exit status 2
before the game, not exit status 1 after it.

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

from bad_input.harness import assert_clean_error
from uno_rl.programs import play


def never_asked() -> str:
    raise AssertionError("the game started: the save path was not checked first")


def refused_before_the_game(save: str | os.PathLike[str], expected: str, capsys) -> str:
    argv = ["--opponents", "rule", "--seed", "1", "--save", str(save)]
    return assert_clean_error(lambda a: play.main(a, never_asked), argv, expected, capsys)


def test_a_save_path_under_proc(capsys):
    refused_before_the_game("/proc/x/y.json", "no file can be made in /proc", capsys)


def test_dev_null(no_writes_in_dev, capsys):
    line = refused_before_the_game("/dev/null", "", capsys)
    assert line == (
        "error: --save '/dev/null' is a character device, not a file: choose another output path"
    )


def test_a_fifo_a_symlink_to_it_and_a_symlink_loop(tmp_path, capsys):
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    link = tmp_path / "link.json"
    link.symlink_to(fifo)
    loop = tmp_path / "loop.json"
    loop.symlink_to(tmp_path / "loop2.json")
    (tmp_path / "loop2.json").symlink_to(loop)
    refused_before_the_game(fifo, "is a FIFO, not a file", capsys)
    refused_before_the_game(link, "is a symlink to a FIFO, not a file", capsys)
    refused_before_the_game(loop, "is a symlink loop, not a file", capsys)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_a_socket(capsys):
    folder = Path(tempfile.mkdtemp(prefix="s", dir="/tmp"))  # socket paths are short
    path = folder / "s.json"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        server.bind(str(path))
        refused_before_the_game(path, "is a socket, not a file", capsys)
    finally:
        server.close()
        shutil.rmtree(folder)


def test_a_folder_that_takes_no_file(tmp_path, temporary_files_denied, capsys):
    """A read-only folder (as root chmod denies nothing: the refusal is simulated), also when
    the save path's folders are still to be made."""
    expected = f"no file can be made in {tmp_path} (Permission denied)"
    refused_before_the_game(tmp_path / "game.json", expected, capsys)
    refused_before_the_game(tmp_path / "new" / "game.json", expected, capsys)
    assert list(tmp_path.iterdir()) == []


def test_a_good_save_path_makes_nothing_before_the_game(tmp_path, capsys):
    """The check leaves nothing behind: a game refused later (a bad seat) made no folder."""
    save = tmp_path / "new" / "game.json"
    argv = ["--opponents", "rule", "--seat", "5", "--save", str(save)]
    assert_clean_error(lambda a: play.main(a, never_asked), argv, "--seat", capsys)
    assert list(tmp_path.iterdir()) == []
