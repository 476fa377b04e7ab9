"""Durable writes make files as ``open()`` would: readable by whom the user's umask lets read
them (a teammate, a Jupyter server running as another user), not private to the writer; and
they refuse, in one line and before anything is made, a target that is not a file (a folder, a
FIFO, a socket, a device, a symlink to one, a symlink loop) or a folder that takes no file."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from uno_rl.agents import make_agent
from uno_rl.core import load_rules
from uno_rl.eval.run import write_atomic
from uno_rl.plumbing.durable import (
    DurableWriteError,
    append_durably,
    check_writable,
    replace_durably,
    write_bytes_durably,
    write_text_durably,
)
from uno_rl.replays import AgentSeat, GameRecorder, play_game, save

#: (umask, the mode of a file made under it)
MASKS = [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)]


@pytest.fixture(params=MASKS, ids=[f"umask-{m:03o}" for m, _ in MASKS])
def expected_mode(request) -> int:
    """Run the test under a umask; the mode it gives a new file. The umask is restored."""
    umask, mode = request.param
    old = os.umask(umask)
    yield mode
    os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_every_durable_helper_honours_the_umask(tmp_path, expected_mode):
    write_text_durably(tmp_path / "config.json", "{}")
    write_bytes_durably(tmp_path / "DONE", b"")
    with replace_durably(tmp_path / "table.csv") as tmp:
        with open(tmp, "w") as f:
            f.write("a\n1\n")
    append_durably(tmp_path / "metrics.csv", "a\n")
    for name in ("config.json", "DONE", "table.csv", "metrics.csv"):
        assert mode(tmp_path / name) == expected_mode, name


def test_result_tables_honour_the_umask(tmp_path, expected_mode):
    write_atomic(pd.DataFrame({"a": [1, 2]}), str(tmp_path / "seats"))
    for name in ("seats.parquet", "seats.csv"):
        assert mode(tmp_path / name) == expected_mode, name


def test_saved_replays_honour_the_umask(tmp_path, expected_mode):
    rules = load_rules("official")
    lineup = ["rule", "rule"]
    recorder = GameRecorder(rules, 1, lineup, preset="official")
    seats = [AgentSeat(make_agent(s, rules), np.random.default_rng(1)) for s in lineup]
    state = play_game(rules, seats, 1, recorder)
    path = save(recorder.replay(state), tmp_path / "replays" / "game.json")
    assert mode(path) == expected_mode


# ---------------------------------------------------------------- targets that are not files
#
# As root, renaming the temporary file onto a device node replaced the node (/dev/full became
# a regular file). The tests never write to a real device: they use a FIFO, a folder and a
# socket made in tmp_path, and /dev/null only where the refusal comes before any temporary
# file or rename, which `no_writes_in_dev` makes sure of even if the refusal were missing.


def _short_socket():
    """A unix socket in a short folder (socket paths are limited to about 100 bytes)."""
    import socket
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="s", dir="/tmp"))
    path = folder / "s.sock"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    return server, path


def _targets(tmp_path):
    """(path, what the refusal says it is, st_mode test or None) for each non-file target."""
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    folder = tmp_path / "folder.json"
    folder.mkdir()
    to_fifo = tmp_path / "to-pipe.json"
    to_fifo.symlink_to(fifo)
    loop = tmp_path / "loop.json"
    loop.symlink_to(tmp_path / "loop2.json")
    (tmp_path / "loop2.json").symlink_to(loop)
    return [
        (fifo, "a FIFO", stat.S_ISFIFO),
        (folder, "a folder", stat.S_ISDIR),
        (to_fifo, "a symlink to a FIFO", stat.S_ISFIFO),
        (loop, "a symlink loop", None),
    ]


WRITERS = {
    "text": lambda path: write_text_durably(path, "{}"),
    "bytes": lambda path: write_bytes_durably(path, b"x"),
    "append": lambda path: append_durably(path, "a\n"),
    "check": check_writable,
}


def _replace(path):
    with replace_durably(path) as tmp:
        tmp.write_text("x")


WRITERS["replace"] = _replace


@pytest.mark.timeout(60)  # appending to a FIFO waits for a reader forever
@pytest.mark.parametrize("writer", list(WRITERS))
def test_a_target_that_is_not_a_file_is_refused_and_kept(tmp_path, writer):
    for path, kind, is_kind in _targets(tmp_path):
        with pytest.raises(DurableWriteError) as refused:
            WRITERS[writer](path)
        assert str(refused.value) == f"{path} is {kind}, not a file: choose another output path"
        if is_kind is not None:
            assert is_kind(os.stat(path).st_mode), path  # still what it was
        assert not list(tmp_path.glob(".*.tmp")), "a temporary file was left"


@pytest.mark.parametrize("writer", list(WRITERS))
def test_a_socket_is_refused(writer):
    server, path = _short_socket()
    try:
        with pytest.raises(DurableWriteError, match="is a socket, not a file"):
            WRITERS[writer](path)
        assert stat.S_ISSOCK(os.stat(path).st_mode)
    finally:
        server.close()
        path.unlink()
        path.parent.rmdir()


@pytest.mark.parametrize("writer", list(WRITERS))
def test_dev_null_is_refused_before_any_file_is_made(no_writes_in_dev, writer):
    with pytest.raises(DurableWriteError) as refused:
        WRITERS[writer]("/dev/null")
    assert str(refused.value) == (
        "/dev/null is a character device, not a file: choose another output path"
    )


def test_a_folder_that_takes_no_new_file_is_one_line(tmp_path, temporary_files_denied):
    """As root a read-only folder still takes files: the refusal of the system is simulated."""
    target = tmp_path / "out.json"
    for writer in ("text", "replace", "check"):
        with pytest.raises(DurableWriteError) as refused:
            WRITERS[writer](target)
        assert str(refused.value) == (
            f"{target} cannot be written: no file can be made in {tmp_path} (Permission denied)"
        )
    assert not target.exists()


def test_a_file_where_a_folder_should_be_is_named(tmp_path):
    (tmp_path / "a-file").write_text("x")
    for target in (tmp_path / "a-file" / "out.json", tmp_path / "a-file" / "sub" / "out.json"):
        for writer in ("text", "check"):
            with pytest.raises(DurableWriteError) as refused:
                WRITERS[writer](target)
            assert str(refused.value) == (
                f"{target} cannot be written: {tmp_path / 'a-file'} is not a folder"
            )


def test_check_writable_makes_nothing(tmp_path):
    target = tmp_path / "new" / "deeper" / "out.json"
    check_writable(target)
    assert list(tmp_path.iterdir()) == []


def test_a_symlink_to_a_file_is_still_written(tmp_path):
    real = tmp_path / "real.json"
    real.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    write_text_durably(link, "new")
    assert link.read_text() == "new"
