"""Names and descriptions from the user's folders never reach the terminal raw.

A file in ``$UNO_RL_DECKS``, ``$UNO_RL_AGENTS``, ``$UNO_RL_EXPERIMENTS`` or ``$UNO_RL_PRESETS``
whose name and description hold an OSC window title (``ESC]0;...BEL``), a clear screen
(``ESC[2J``) and a right-to-left override (U+202E) is listed, and named in "unknown ...;
available: ..." errors, with those characters escaped (``\\x1b`` shown as four characters).
"""

from __future__ import annotations

import pytest

from bad_input.harness import assert_clean_error
from uno_rl.core import decks
from uno_rl.plumbing import cli
from uno_rl.programs import evaluate, listing, simulate

#: What a terminal takes as commands: escape, bell, the right-to-left override.
RAW = ("\x1b", "\x07", "\u202e")
EVIL = "evil\x1b]0;pwn\x07\x1b[2J\u202e"
DESCRIPTION = r"described \u001b]0;pwn\u0007 \u001b[2J \u202e as harmless"

#: kind -> (environment variable, the file's TOML).
KINDS = {
    "presets": ("UNO_RL_PRESETS", f'description = "{DESCRIPTION}"\n[rules]\nplayers = 3\n'),
    "decks": ("UNO_RL_DECKS", f'description = "{DESCRIPTION}"\n'),
    "agents": ("UNO_RL_AGENTS", f'description = "{DESCRIPTION}"\nstrategy = "rule"\n'),
    "experiments": ("UNO_RL_EXPERIMENTS", f'description = "{DESCRIPTION}"\n'),
}
MAINS = {
    "presets": listing.presets_main,
    "decks": listing.decks_main,
    "agents": listing.agents_main,
    "experiments": listing.experiments_main,
}


@pytest.fixture
def evil_folders(tmp_path, monkeypatch):
    """A user folder of every kind holding a file named :data:`EVIL` described the same way."""
    for kind, (variable, text) in KINDS.items():
        folder = tmp_path / kind
        folder.mkdir()
        (folder / f"{EVIL}.toml").write_text(text, encoding="utf-8")
        monkeypatch.setenv(variable, str(folder))
    decks.load_deck.cache_clear()
    yield tmp_path
    decks.load_deck.cache_clear()


def assert_escaped(text: str) -> None:
    """No raw escape, bell or override in ``text``, and the escape shown as ``\\x1b``."""
    for char in RAW:
        assert char not in text, f"raw {char!r} in {text!r}"
    assert "\\x1b" in text, text


@pytest.mark.parametrize("options", [[], ["--full"], ["--paths"]], ids=["plain", "full", "paths"])
@pytest.mark.parametrize("kind", KINDS)
def test_listings_escape_names_and_descriptions(kind, options, evil_folders, capsys):
    assert MAINS[kind](options) == 0
    captured = capsys.readouterr()
    assert_escaped(captured.out + captured.err)
    line = next(line for line in captured.out.splitlines() if line.startswith("evil"))
    assert line.startswith("evil\\x1b]0;pwn\\x07\\x1b[2J\\u202e")
    assert "described \\x1b]0;pwn\\x07" in line


def test_a_listing_keeps_its_columns_aligned_with_escaped_names(evil_folders, capsys):
    assert listing.decks_main(["--full"]) == 0
    lines = capsys.readouterr().out.splitlines()
    starts = {line.index("shipped" if "shipped" in line else "user") for line in lines[1:]}
    assert len(starts) == 1, lines


@pytest.mark.parametrize("kind", KINDS)
def test_listings_escape_the_folders_they_cannot_read(kind, tmp_path, monkeypatch, capsys):
    variable, _ = KINDS[kind]
    monkeypatch.setenv(variable, str(tmp_path / f"gone{EVIL}"))
    assert MAINS[kind]([]) == 0
    err = capsys.readouterr().err
    assert err.startswith("warning: folder ") and "does not exist" in err
    assert_escaped(err)


UNKNOWN = [
    ("agent", evaluate.main, ["nosuch", "random", "--rounds", "10", "--no-progress"]),
    ("preset", simulate.main, ["--preset", "nosuch", "--rounds", "10", "--no-progress"]),
    ("deck", simulate.main, ["--set", "deck=nosuch", "--rounds", "10", "--no-progress"]),
]


@pytest.mark.parametrize("what,main,argv", UNKNOWN, ids=[u[0] for u in UNKNOWN])
def test_unknown_names_list_the_available_escaped(what, main, argv, evil_folders, capsys):
    line = assert_clean_error(main, argv, f"unknown {what} 'nosuch'", capsys)
    assert_escaped(line)
    assert "evil\\x1b]0;pwn\\x07\\x1b[2J\\u202e" in line


def test_a_name_typed_with_control_characters_is_shown_escaped(evil_folders, capsys):
    argv = [f"{EVIL}x", "random", "--rounds", "10", "--no-progress"]  # near the evil name
    assert_escaped(assert_clean_error(evaluate.main, argv, "unknown agent", capsys))


def test_did_you_mean_shows_the_near_name_escaped(evil_folders, capsys):
    argv = ["--preset", "evi", "--rounds", "10", "--no-progress"]
    line = assert_clean_error(simulate.main, argv, "unknown preset 'evi'", capsys)
    assert_escaped(line)


def test_bad_options_of_a_listing_are_shown_escaped(capsys):
    line = assert_clean_error(listing.decks_main, [EVIL], "unrecognized arguments", capsys)
    assert_escaped(line)


def test_every_error_line_is_escaped_once(capsys):
    """``fail``, ``print_error`` and the parser escape; text escaped before stays as it is."""
    with pytest.raises(SystemExit):
        cli.fail(f"bad {EVIL}")
    cli.print_error(f"bad {EVIL!r}")  # repr() escaped it already: not escaped twice
    with pytest.raises(SystemExit):
        cli.CliParser(prog=f"uno_rl {EVIL}").error(f"bad {EVIL}")
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "error: bad evil\\x1b]0;pwn\\x07\\x1b[2J\\u202e"
    assert lines[1] == "error: bad 'evil\\x1b]0;pwn\\x07\\x1b[2J\\u202e'"
    assert_escaped(lines[2])
