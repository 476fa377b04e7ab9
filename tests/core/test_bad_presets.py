"""Preset files of the wrong shape: every one raises RulesError with one message that names
the file and the problem (never a TypeError, AttributeError, UnicodeDecodeError or
IsADirectoryError), through load_rules and read_preset alike, by path and by name."""

from __future__ import annotations

import pytest

from uno_rl.core import RulesError, load_rules
from uno_rl.core.rules import read_preset

# (file content, words the message must hold)
BAD_CONTENT = {
    "rules-integer": (b"rules = 3\n", ["rules must be a table", "got an integer", "rules = 3"]),
    "rules-string": (b'rules = "house"\n', ["rules must be a table", "got a string"]),
    "rules-boolean": (b"rules = true\n", ["rules must be a table", "got a boolean"]),
    "rules-list": (b"rules = [1, 2]\n", ["rules must be a table", "got an array"]),
    "rules-pairs": (b'rules = [["players", 3]]\n', ["rules must be a table", "got an array"]),
    "rules-array-of-tables": (
        b"[[rules]]\nplayers = 3\n",
        ["rules must be a table", "got an array of tables"],
    ),
    "rules-date": (b"rules = 1979-05-27\n", ["rules must be a table", "got a date or time"]),
    "nested-table-for-a-number": (
        b"[rules.players]\ncount = 3\n",
        ["rules key 'players'", "must be an integer", "{'count': 3}"],
    ),
    "inline-table-for-a-choice": (
        b"[rules]\nstacking = {kind = 'any'}\n",
        ["rules key 'stacking'", "'none', 'same', 'any'"],
    ),
    "array-for-a-switch": (
        b"[rules]\njump_in = [true]\n",
        ["rules key 'jump_in'", "must be true or false"],
    ),
    "unknown-key": (
        b"[rules]\nplayerz = 3\n",
        ["unknown rules key 'playerz'", "did you mean 'players'"],
    ),
    "unknown-nested-table": (b"[rules.house]\nstacking = 'any'\n", ["unknown rules key 'house'"]),
    "unknown-top-level-key": (b"players = 3\n", ["unknown top-level keys ['players']"]),
    "description-table": (
        b"[description]\ntext = 'x'\n",
        ["description must be a string", "got a table"],
    ),
    "binary": (b"\x89PNG\r\n\x1a\n\x00\x00\xff\xfe", ["is not a text file", "not UTF-8"]),
    "latin-1": ('description = "é"\n'.encode("latin-1"), ["is not a text file", "byte 15"]),
    "nul-bytes": (b"[rules]\nplayers = 3\x00\n", ["is not valid TOML"]),
    "contradiction": (b"[rules]\ndealer = 'rotate'\n", ["dealer='rotate'", "match=true"]),
}


def check_message(error: RulesError, path, words) -> None:
    message = str(error)
    assert str(path) in message, message
    for word in words:
        assert word in message, (word, message)
    assert "\n" not in message


@pytest.mark.parametrize("case", sorted(BAD_CONTENT))
def test_bad_preset_file_raises_one_clear_rules_error(tmp_path, case):
    content, words = BAD_CONTENT[case]
    path = tmp_path / f"{case}.toml"
    path.write_bytes(content)
    for read in (load_rules, read_preset, lambda p: load_rules(str(p), players=3)):
        with pytest.raises(RulesError) as info:
            read(path)
        check_message(info.value, path, words)


@pytest.mark.parametrize("case", ["rules-integer", "binary", "unknown-key"])
def test_bad_preset_by_name_names_its_file(tmp_path, monkeypatch, case):
    content, words = BAD_CONTENT[case]
    (tmp_path / "mine.toml").write_bytes(content)
    monkeypatch.setenv("UNO_RL_PRESETS", str(tmp_path))
    with pytest.raises(RulesError) as info:
        load_rules("mine")
    check_message(info.value, tmp_path / "mine.toml", words)


@pytest.mark.parametrize("suffix", ["", ".toml"])
@pytest.mark.parametrize("as_path", [True, False])
def test_directory_as_preset_path(tmp_path, suffix, as_path):
    folder = tmp_path / f"presets{suffix}"
    folder.mkdir()
    with pytest.raises(RulesError) as info:
        load_rules(folder if as_path else str(folder))
    check_message(info.value, folder, ["is a folder", "not a preset file"])


def test_directory_named_like_a_preset(tmp_path, monkeypatch):
    (tmp_path / "odd.toml").mkdir()
    monkeypatch.setenv("UNO_RL_PRESETS", str(tmp_path))
    with pytest.raises(RulesError) as info:
        load_rules("odd")
    check_message(info.value, tmp_path / "odd.toml", ["is a folder"])


def test_unreadable_preset_file(tmp_path):
    path = tmp_path / "locked.toml"
    path.write_text("[rules]\n", encoding="utf-8")
    path.chmod(0)
    try:
        try:
            path.read_bytes()
        except PermissionError:
            pass
        else:
            pytest.skip("running as a user who reads any file")
        with pytest.raises(RulesError) as info:
            load_rules(path)
        check_message(info.value, path, ["cannot be read"])
    finally:
        path.chmod(0o600)


def test_byte_order_mark_and_empty_preset_are_fine(tmp_path):
    path = tmp_path / "bom.toml"
    path.write_bytes(b'\xef\xbb\xbfdescription = "x"\n[rules]\nplayers = 3\n')
    assert load_rules(path).players == 3
    empty = tmp_path / "empty.toml"
    empty.write_bytes(b"")
    assert load_rules(empty) == load_rules("official")


def test_override_errors_are_not_blamed_on_the_preset():
    with pytest.raises(RulesError) as info:
        load_rules("official", players=11)
    assert "'players'" in str(info.value) and "preset file" not in str(info.value)


def test_fifo_device_loop_and_huge_presets_are_named_for_what_they_are(tmp_path, monkeypatch):
    # Nothing here may be opened for reading: a FIFO would wait forever, /dev/zero never ends.
    import os

    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)
    loop = tmp_path / "loop.toml"
    loop.symlink_to(loop)
    huge = tmp_path / "huge.toml"
    huge.write_bytes(b"# " + b"x" * 1_200_000 + b"\n[rules]\n")
    cases = [
        (fifo, ["is a FIFO, not a file"]),
        (loop, ["is a symlink loop"]),
        ("/dev/zero", ["is a character device, not a file"]),
        (huge, ["is too large", "1,200,011 bytes", "at most 1,000,000"]),
    ]
    for path, words in cases:
        with pytest.raises(RulesError) as info:
            load_rules(str(path))
        check_message(info.value, path, words)
    # a symlink loop named like a preset in a user folder is reported, not skipped
    named = tmp_path / "presets"
    named.mkdir()
    (named / "official.toml").symlink_to(named / "official.toml")
    monkeypatch.setenv("UNO_RL_PRESETS", str(named))
    with pytest.raises(RulesError, match="symlink loop"):
        load_rules("official")
