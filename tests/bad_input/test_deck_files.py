"""Deck paths (``--set deck=PATH``) that are not deck files: each is one ``error:`` line that
says what the path really is (a folder, a FIFO, a symlink loop, a character device, a file
over 1 MB with its size) rather than "does not exist", and nothing is opened that might never
end: a FIFO waits for a writer forever and ``/dev/zero`` has no end, so neither is read.

Then a fuzz-ish set of bad deck files (bad bytes, bad TOML, bad entries, seeded mutations of a
shipped deck): each is a deck or one line naming the file, never a traceback. The same reader
serves the TOML configs (``uno_rl train --config``): those get the same answers.
"""

from __future__ import annotations

import builtins
import io
import os
import shutil
import socket
import stat
import tempfile
from pathlib import Path

import numpy as np
import pytest

from bad_input.harness import assert_clean_error
from uno_rl.core.decks import DeckError, load_deck
from uno_rl.plumbing.resources import shipped_dir
from uno_rl.plumbing.tomlfile import MAX_TOML_BYTES
from uno_rl.programs import play, simulate, train

SHIPPED_DECK = shipped_dir("decks") / "modern-112.toml"


@pytest.fixture(autouse=True)
def never_open_what_never_ends(monkeypatch):
    """Fail the test at once, rather than hang or fill the memory, should a FIFO or
    ``/dev/zero`` be opened (the code under test must only look at them)."""

    def endless(path) -> bool:
        try:
            return os.path.realpath(path) == "/dev/zero" or stat.S_ISFIFO(os.stat(path).st_mode)
        except (OSError, TypeError, ValueError):
            return False

    def guard(real):
        def opener(path, *args, **kwargs):
            if not isinstance(path, int) and endless(path):
                raise AssertionError(f"{path} was opened")
            return real(path, *args, **kwargs)

        return opener

    monkeypatch.setattr(os, "open", guard(os.open))
    monkeypatch.setattr(io, "open", guard(io.open))
    monkeypatch.setattr(builtins, "open", guard(builtins.open))


def never_asked() -> str:
    raise AssertionError("the game started")


#: program -> (main taking argv, argv before --set deck=PATH)
PROGRAMS = {
    "play": (lambda argv: play.main(argv, never_asked), ["--opponents", "rule"]),
    "simulate": (simulate.main, ["--rounds", "10"]),
}


def refused(program: str, deck: str | os.PathLike[str], expected: str, capsys) -> str:
    main, argv = PROGRAMS[program]
    return assert_clean_error(main, [*argv, "--set", f"deck={deck}"], expected, capsys)


@pytest.fixture
def odd_paths(tmp_path) -> dict[str, tuple[Path, str]]:
    """name -> (a deck path that is not a deck file, what its error line says it is)."""
    folder = tmp_path / "folder.toml"
    folder.mkdir()
    fifo = tmp_path / "pipe.toml"
    os.mkfifo(fifo)
    loop = tmp_path / "loop.toml"
    loop.symlink_to(tmp_path / "loop2.toml")
    (tmp_path / "loop2.toml").symlink_to(loop)
    zero = tmp_path / "zero.toml"
    zero.symlink_to("/dev/zero")
    big = tmp_path / "big.toml"
    with open(big, "wb") as file:  # sparse: no megabytes are written
        file.truncate(2_000_000)
    return {
        "folder": (folder, f"deck file {folder} is a folder, not a file"),
        "fifo": (fifo, f"deck file {fifo} is a FIFO, not a file"),
        "loop": (loop, f"deck file {loop} is a symlink loop"),
        "device": (Path("/dev/zero"), "deck file /dev/zero is a character device, not a file"),
        "symlink": (zero, f"deck file {zero} is a symlink to a character device, not a file"),
        "too-large": (big, f"deck file {big} is too large (2,000,000 bytes; at most 1,000,000)"),
        "missing": (tmp_path / "none.toml", f"deck file {tmp_path / 'none.toml'} does not exist"),
    }


@pytest.mark.timeout(60)  # a FIFO opened for reading would wait forever
@pytest.mark.parametrize("program", list(PROGRAMS))
@pytest.mark.parametrize(
    "name", ["folder", "fifo", "loop", "device", "symlink", "too-large", "missing"]
)
def test_a_deck_path_is_named_for_what_it_is(odd_paths, program, name, capsys):
    path, expected = odd_paths[name]
    refused(program, path, expected, capsys)


def test_a_socket_deck_path(capsys):
    folder = Path(tempfile.mkdtemp(prefix="s", dir="/tmp"))  # socket paths are short
    path = folder / "s.toml"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        server.bind(str(path))
        refused("simulate", path, f"deck file {path} is a socket, not a file", capsys)
    finally:
        server.close()
        shutil.rmtree(folder)


def test_a_fifo_in_the_user_decks_is_named(tmp_path, monkeypatch, capsys):
    """``$UNO_RL_DECKS/NAME.toml`` that is a FIFO: named, not "unknown deck"."""
    os.mkfifo(tmp_path / "piped.toml")
    monkeypatch.setenv("UNO_RL_DECKS", str(tmp_path))
    refused("simulate", "piped", "piped.toml is a FIFO, not a file", capsys)


def test_a_deck_file_at_the_limit_is_read(tmp_path):
    text = SHIPPED_DECK.read_text()
    path = tmp_path / "padded.toml"
    path.write_text(text + "#" * (MAX_TOML_BYTES - len(text.encode()) - 1) + "\n")
    assert path.stat().st_size == MAX_TOML_BYTES
    assert load_deck(str(path)).size == 112


@pytest.mark.timeout(60)
@pytest.mark.parametrize("name", ["folder", "fifo", "loop", "device", "too-large"])
def test_config_files_get_the_same_answers(odd_paths, name, tmp_path, capsys):
    path, expected = odd_paths[name]
    what = expected.removeprefix(f"deck file {path} ").split(", not a file")[0]
    if name != "too-large":
        what += ", not a TOML config file"
    argv = ["--config", str(path), "--runs-dir", str(tmp_path / "runs")]
    assert_clean_error(train.main, argv, f"{path}: {what}", capsys)


# ------------------------------------------------------------------ fuzz-ish bad deck files
GOOD = SHIPPED_DECK.read_bytes()

BAD_FILES: dict[str, bytes] = {
    "empty": b"",
    "binary": b"\x89PNG\r\n\x1a\n\x00\xff\xfe" * 10,
    "nul bytes": b"[cards]\n\x00 = 1\n",
    "latin-1": '[cards]\n"é" = 1\n'.encode("latin-1"),
    "only a bom": b"\xef\xbb\xbf",
    "truncated": GOOD[: len(GOOD) // 2],
    "unclosed table": b"[cards\nwild = 4\n",
    "key twice": b'[cards]\nwild = 4\nwild = 4\n"0-9" = 8\n',
    "huge number": b'[cards]\n"0-9" = ' + b"9" * 5000 + b"\n",
    "deep nesting": b"[cards]\nwild = " + b"[" * 100_000 + b"]" * 100_000 + b"\n",
    "cards an array": b'cards = ["wild", "+4"]\n',
    "cards a string": b'cards = "all of them"\n',
    "count float": b'[cards]\n"0-9" = 8.0\n',
    "count inf": b'[cards]\n"0-9" = inf\n',
    "count nan": b'[cards]\n"0-9" = nan\n',
    "count negative": b'[cards]\n"0-9" = -1\n',
    "count boolean": b'[cards]\n"0-9" = true\n',
    "count string": b'[cards]\n"0-9" = "eight"\n',
    "count table": b'[cards]\n"0-9" = {a = 1}\n',
    "count too big": b'[cards]\n"0-9" = 128\n',
    "unknown card": b'[cards]\n"0-9" = 8\nwildcard = 4\n',
    "range backwards": b'[cards]\n"9-1" = 8\n',
    "range too far": b'[cards]\n"0-12" = 8\n',
    "colored wild": b'[cards]\n"0-9" = 8\n"red wild" = 4\n',
    "newline in key": b'[cards]\n"0-9" = 8\n"wi\\nld" = 4\n',
    "escape in key": b'[cards]\n"0-9" = 8\n"\\u001b[2J" = 4\n',
    "very long key": b'[cards]\n"0-9" = 8\n"' + b"w" * 5000 + b'" = 4\n',
    "too few cards": b"[cards]\nwild = 4\n",
    "too many cards": b'[cards]\n"0-9" = 127\nskip = 127\nreverse = 127\n',
    "unknown top key": b'colour = "red"\n[cards]\n"0-9" = 8\n',
    "description number": b'description = 5\n[cards]\n"0-9" = 8\n',
    "dispenser string": b'dispenser = "yes"\n[cards]\n"0-9" = 8\n',
}


def _write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / f"{name.replace(' ', '-')}.toml"
    path.write_bytes(data)
    return path


@pytest.mark.parametrize("name", list(BAD_FILES))
def test_a_bad_deck_file_is_one_line(tmp_path, name, capsys):
    path = _write(tmp_path, name, BAD_FILES[name])
    line = refused("simulate", path, f"deck file {path}", capsys)
    assert "\x1b" not in line
    assert len(line) < 2_000, f"{len(line):,} characters"


def test_seeded_mutations_of_a_deck_file_are_a_deck_or_one_error(tmp_path):
    """Bytes flipped, cut, doubled or dropped in a shipped deck: each mutant loads or raises
    one :class:`DeckError` line that names its file."""
    generator = np.random.default_rng(20_240_611)
    for index in range(200):
        data = bytearray(GOOD)
        for _ in range(int(generator.integers(1, 6))):
            if not data:
                break
            at = int(generator.integers(0, len(data)))
            action = int(generator.integers(0, 4))
            if action == 0:
                data[at] = int(generator.integers(0, 256))
            elif action == 1:
                del data[at:]
            elif action == 2:
                data[at:at] = data[at : at + int(generator.integers(1, 20))]
            else:
                del data[at]
        path = _write(tmp_path, f"mutant {index}", bytes(data))
        try:
            load_deck(str(path))
        except DeckError as error:
            message = str(error)
            assert "\n" not in message and str(path) in message, message
