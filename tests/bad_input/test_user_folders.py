"""User folders that cannot be read, and user files that cannot be followed.

A folder of ``$UNO_RL_AGENTS`` or ``$UNO_RL_PRESETS`` that cannot be read is skipped: shipped
names and the other folders' names still resolve, a listing names the folder in one
``warning:`` line, and a name found nowhere is one ``error:`` line naming the folder. A
symlink loop (or a dangling symlink) in a user folder is an error naming it when its name is
looked up, never a silent fall back on the shipped file of the same name.

Tests may run as root, whom ``chmod 000`` does not stop: there the folder is made unreadable
by answering the file system calls on it with ``PermissionError``, as the kernel would.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from bad_input.harness import assert_clean_error
from uno_rl.agents import AgentError, available_agents, make_agent
from uno_rl.core import RulesError, decks, load_rules
from uno_rl.plumbing import resources
from uno_rl.programs import listing, simulate


def make_unreadable(folder: Path, monkeypatch, listable: bool = False) -> None:
    """``folder`` cannot be listed or searched, as after ``chmod 000`` for a user who is not
    root (for root, whom permissions do not stop, the calls on it are answered likewise);
    ``listable``: its names can be listed but not looked at (``chmod 444``)."""
    folder.chmod(0o444 if listable else 0)
    if os.geteuid() != 0:
        return
    inside = str(folder) + os.sep

    def denied(path) -> PermissionError:
        return PermissionError(errno.EACCES, "Permission denied", os.fspath(path))

    def guard(call, whole_folder: bool):
        def guarded(path, *args, **kwargs):
            text = os.fspath(path) if isinstance(path, str | os.PathLike) else ""
            if text.startswith(inside) or (whole_folder and text == str(folder)):
                raise denied(path)
            return call(path, *args, **kwargs)

        return guarded

    monkeypatch.setattr(os, "lstat", guard(os.lstat, False))
    monkeypatch.setattr(os, "stat", guard(os.stat, False))
    monkeypatch.setattr(os, "scandir", guard(os.scandir, not listable))
    monkeypatch.setattr(os, "open", guard(os.open, False))


@pytest.fixture
def unreadable(tmp_path, monkeypatch):
    """A folder holding ``mine.toml`` that cannot be read (restored for the clean-up)."""
    folder = tmp_path / "locked"
    folder.mkdir()
    (folder / "mine.toml").write_text('strategy = "rule"\n[rules]\nplayers = 3\n')
    make_unreadable(folder, monkeypatch)
    yield folder
    folder.chmod(0o755)


@pytest.fixture(autouse=True)
def fresh_decks():
    """Decks are cached by name: each test reads its own folders."""
    decks.load_deck.cache_clear()
    yield
    decks.load_deck.cache_clear()


def test_an_unreadable_agents_folder_leaves_the_shipped_and_other_names(
    unreadable, tmp_path, monkeypatch
):
    other = tmp_path / "other"
    other.mkdir()
    (other / "cautious.toml").write_text('strategy = "rule"\n[params]\nchallenge = "never"\n')
    monkeypatch.setenv("UNO_RL_AGENTS", os.pathsep.join([str(unreadable), str(other)]))
    rules = load_rules("official")
    assert make_agent("color-first", rules).name == "color-first"  # a shipped spec file
    assert make_agent("random", rules).name == "random"  # a built-in strategy
    assert make_agent("cautious", rules).params["challenge"] == "never"
    assert {"color-first", "cautious", "ppo"} <= set(available_agents())


def test_a_name_in_no_readable_agents_folder_names_the_unreadable_one(
    unreadable, monkeypatch, capsys
):
    monkeypatch.setenv("UNO_RL_AGENTS", str(unreadable))
    with pytest.raises(AgentError, match="unknown agent 'mine'.*cannot be read"):
        make_agent("mine", load_rules("official"))
    from uno_rl.programs import evaluate

    argv = ["mine", "random", "--rounds", "10", "--no-progress"]
    line = assert_clean_error(evaluate.main, argv, "unknown agent 'mine'", capsys)
    assert f"folder {unreadable} of $UNO_RL_AGENTS cannot be read (Permission denied)" in line


def test_an_unreadable_presets_folder_leaves_the_shipped_presets(unreadable, monkeypatch, capsys):
    monkeypatch.setenv("UNO_RL_PRESETS", str(unreadable))
    assert load_rules("official").players == 2
    argv = ["--preset", "mine", "--rounds", "10", "--no-progress"]
    line = assert_clean_error(simulate.main, argv, "preset 'mine' not found", capsys)
    assert f"folder {unreadable} of $UNO_RL_PRESETS cannot be read" in line


@pytest.mark.parametrize("kind", ["presets", "agents", "decks", "experiments"])
def test_listings_warn_of_an_unreadable_folder_and_list_the_rest(
    kind, unreadable, monkeypatch, capsys
):
    monkeypatch.setenv(resources.KINDS[kind][1], str(unreadable))
    main = getattr(listing, f"{kind}_main")
    assert main([]) == 0
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [
        f"warning: folder {unreadable} of ${resources.KINDS[kind][1]} cannot be read "
        "(Permission denied)"
    ]
    assert "shipped" in captured.out and "mine" not in captured.out


def test_a_symlink_loop_in_the_decks_folder_is_an_error_not_the_shipped_deck(
    tmp_path, monkeypatch, capsys
):
    loop = tmp_path / "classic.toml"
    loop.symlink_to(loop)
    monkeypatch.setenv("UNO_RL_DECKS", str(tmp_path))
    with pytest.raises((RulesError, ValueError), match="symlink loop"):
        load_rules("official").deck_cards  # noqa: B018 (the deck is loaded when asked for)
    argv = ["--rounds", "10", "--no-progress"]
    line = assert_clean_error(simulate.main, argv, "symlink loop", capsys)
    assert f"deck file {loop} cannot be read: it is a symlink loop" in line
    assert listing.decks_main([]) == 0
    captured = capsys.readouterr()
    assert captured.err == f"warning: deck file {loop} cannot be read: it is a symlink loop\n"
    names = [line.split()[0] for line in captured.out.splitlines()[1:]]
    assert "extreme" in names and "classic" not in names  # unusable until the link is fixed


def test_a_dangling_symlink_in_the_agents_folder_is_an_error(tmp_path, monkeypatch):
    (tmp_path / "rule.toml").symlink_to(tmp_path / "moved-away.toml")
    monkeypatch.setenv("UNO_RL_AGENTS", str(tmp_path))
    with pytest.raises(AgentError, match="rule.toml cannot be read: it is a symlink to nothing"):
        make_agent("rule", load_rules("official"))


def test_a_symlink_loop_for_a_preset_is_one_error_line(tmp_path, monkeypatch, capsys):
    loop = tmp_path / "official.toml"
    loop.symlink_to(loop)
    monkeypatch.setenv("UNO_RL_PRESETS", str(tmp_path))
    argv = ["--preset", "official", "--rounds", "10", "--no-progress"]
    assert_clean_error(simulate.main, argv, f"preset file {loop} cannot be read", capsys)


def test_a_folder_listed_but_not_searchable_is_one_warning(tmp_path, monkeypatch, capsys):
    folder = tmp_path / "listable"
    folder.mkdir()
    for name in ("one", "two", "three"):
        (folder / f"{name}.toml").write_text('strategy = "rule"\n')
    make_unreadable(folder, monkeypatch, listable=True)
    monkeypatch.setenv("UNO_RL_AGENTS", str(folder))
    try:
        assert listing.agents_main([]) == 0
        assert make_agent("rule", load_rules("official")).name == "rule"
    finally:
        folder.chmod(0o755)
    assert capsys.readouterr().err.splitlines() == [
        f"warning: folder {folder} of $UNO_RL_AGENTS cannot be read (Permission denied)"
    ]


def test_an_agents_listing_leaves_out_built_in_names_hidden_by_a_symlink_loop(
    tmp_path, monkeypatch, capsys
):
    for name in ("random", "ppo"):
        (tmp_path / f"{name}.toml").symlink_to(tmp_path / f"{name}.toml")
    monkeypatch.setenv("UNO_RL_AGENTS", str(tmp_path))
    assert listing.agents_main([]) == 0
    captured = capsys.readouterr()
    assert len(captured.err.splitlines()) == 2 and "ppo.toml cannot be read" in captured.err
    names = [line.split()[0] for line in captured.out.splitlines()[1:]]
    assert "rule" in names and "random" not in names and "ppo" not in names
    with pytest.raises(AgentError, match="random.toml cannot be read: it is a symlink loop"):
        make_agent("random", load_rules("official"))
