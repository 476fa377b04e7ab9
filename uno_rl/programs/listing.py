"""The listings ``uno_rl presets``, ``uno_rl decks``, ``uno_rl agents`` and ``uno_rl experiments``.

Each prints a table of the names it knows, one line each: the name, where it comes from
(``user``: a folder of ``$UNO_RL_PRESETS`` / ``$UNO_RL_DECKS`` / ``$UNO_RL_AGENTS`` /
``$UNO_RL_EXPERIMENTS``;
``shipped``: inside the package; ``built-in``: an agent strategy without a spec file) and the
first sentence of its description, cut after a whole word to the terminal's width and ended
with "…" (``--full``: whole). A user file hides a shipped file of the same name.

Names, descriptions and paths come from the user's files: their control and format characters
are escaped (``\\x1b``, ``\\u202e``: :func:`uno_rl.plumbing.safe_text.printable`), so a file name
cannot retitle or clear the terminal. What could not be read (a user folder, a symlink loop)
is said in one ``warning:`` line each on stderr, and the rest is listed.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TextIO

from uno_rl.plumbing import resources
from uno_rl.plumbing.cli import CliParser, print_error
from uno_rl.plumbing.resources import Entry
from uno_rl.plumbing.safe_text import printable

__all__ = [
    "Entry",
    "agents_main",
    "decks_main",
    "experiments_main",
    "list_decks",
    "list_agents",
    "list_experiments",
    "list_presets",
    "presets_main",
]


def list_presets() -> list[Entry]:
    """Rule presets: user folders' (``$UNO_RL_PRESETS``) first, then the shipped, by name."""
    return resources.entries("presets")


def list_decks() -> list[Entry]:
    """Decks: user folders' (``$UNO_RL_DECKS``) first, then the shipped, by name."""
    return resources.entries("decks")


def list_experiments() -> list[Entry]:
    """Experiment and training configs (``$UNO_RL_EXPERIMENTS``, then shipped), by name."""
    return resources.entries("experiments")


def list_agents() -> list[Entry]:
    """Agent spec files (``$UNO_RL_AGENTS``, then shipped) and the built-in strategies that no
    spec file of their name covers, by name."""
    from uno_rl.agents.registry import STRATEGIES, describe, strategy_names

    found = {entry.name: entry for entry in resources.entries("agents")}
    for name, cls in STRATEGIES.items():
        if name not in found and _no_broken_file(name):
            found[name] = Entry(name, cls.summary, Path(), "built-in")
    for name in strategy_names():
        if name not in found and _no_broken_file(name):  # imported if listed (ppo: torch)
            found[name] = Entry(name, describe(name), Path(), "built-in")
    return [found[name] for name in sorted(found)]


def _no_broken_file(name: str) -> bool:
    """Whether no user file ``NAME.toml`` that cannot be followed (a symlink loop) hides the
    built-in strategy ``name``: such a name cannot be used (the listing warns of the file)."""
    try:
        resources.locate("agents", f"{name}.toml")
    except resources.ResourceError:
        return False
    return True


#: The fewest characters of a description shown, however narrow the terminal.
MIN_DESCRIPTION = 8
#: Marks a description cut short.
ELLIPSIS = "…"


def shorten(text: str, room: int, ellipsis: str = ELLIPSIS) -> str:
    """``text`` in at most ``room`` characters: whole if it fits, else cut after its last
    whole word that fits (mid-word only for one word longer than the room) and ended with
    ``ellipsis``."""
    if len(text) <= room:
        return text
    keep = max(room - len(ellipsis), 1)
    cut = text[:keep]
    if text[keep] != " " and " " in cut:
        cut = cut[: cut.rindex(" ")]
    return cut.rstrip(" ,;:") + ellipsis


def format_table(
    entries: Sequence[Entry],
    width: int | None = None,
    paths: bool = False,
    ellipsis: str = ELLIPSIS,
) -> str:
    """Columns name, source and description (cut at a word to ``width`` characters, ended
    with ``ellipsis``; None: whole); with ``paths`` a fourth column, the file. Every field
    is escaped (:func:`~uno_rl.plumbing.safe_text.printable`)."""
    names = max([len("name"), *(len(printable(e.name)) for e in entries)])
    sources = max([len("source"), *(len(e.source) for e in entries)])
    lines = [f"{'name':<{names}}  {'source':<{sources}}  description"]
    for entry in entries:
        text = printable(entry.description) or "-"
        if paths:
            text = f"{text}  [{printable(entry.path)}]" if entry.source != "built-in" else text
        prefix = f"{printable(entry.name):<{names}}  {printable(entry.source):<{sources}}  "
        if width is not None:
            text = shorten(text, max(width - len(prefix), MIN_DESCRIPTION), ellipsis)
        lines.append(prefix + text)
    return "\n".join(lines)


def ellipsis_for(stream: TextIO) -> str:
    """``…`` where ``stream`` can write it, ``...`` elsewhere (an ASCII-only output)."""
    try:
        ELLIPSIS.encode(getattr(stream, "encoding", None) or "utf-8")
    except (UnicodeEncodeError, LookupError):
        return "..."
    return ELLIPSIS


#: What ``uno_rl agents --help`` adds: the agents named by their class or model file.
AGENT_FORMS = (
    "Besides these names, an agent made elsewhere is named by its class or model file: "
    "MODULE:Class or FILE.py:Class (an Agent subclass, or any class with act(observations, "
    "masks, rng)), then :key=value,... for its parameters; sb3:MODEL.zip (a Stable-Baselines3 "
    "model); torch:MODULE.pt (a PyTorch module from observations to action logits). See "
    "docs/own-agents.md."
)


def _main(
    argv: Sequence[str] | None, kind: str, what: str, lister: Callable, epilog: str | None = None
) -> int:
    """``uno_rl KIND``: the table of ``lister()``, after a warning for each thing of ``kind``
    that could not be read; 0, or 2 for bad options."""
    variable = resources.KINDS[kind][1]
    parser = CliParser(
        prog=f"uno_rl {kind}",
        description=f"List the {what}: the folders of ${variable} (separated by "
        f"'{os.pathsep}') first, then those shipped with uno_rl.",
        epilog=epilog,
    )
    parser.add_argument(
        "--full", action="store_true", help="whole descriptions (default: cut to the terminal)"
    )
    parser.add_argument("--paths", action="store_true", help="also show each file's path")
    try:
        args = parser.parse_args(argv)
    except SystemExit as stop:  # --help (0) or bad input (2, one line already printed)
        return stop.code if isinstance(stop.code, int) else 2
    try:
        entries = lister()
        problems = resources.problems(kind)
    except Exception as error:  # a broken user folder must not end in a traceback
        print_error(error)
        return 2
    for problem in problems:  # what could not be read: said, and the rest listed
        print(f"warning: {printable(problem)}", file=sys.stderr)
    width = None if args.full or args.paths else shutil.get_terminal_size((100, 24)).columns
    print(format_table(entries, width, paths=args.paths, ellipsis=ellipsis_for(sys.stdout)))
    return 0


def presets_main(argv: Sequence[str] | None = None) -> int:
    """``uno_rl presets``: the rule presets."""
    return _main(argv, "presets", "rule presets", list_presets)


def decks_main(argv: Sequence[str] | None = None) -> int:
    """``uno_rl decks``: the decks (``--set deck=NAME``)."""
    return _main(argv, "decks", "decks", list_decks)


def agents_main(argv: Sequence[str] | None = None) -> int:
    """``uno_rl agents``: agent specs and built-in strategies."""
    return _main(argv, "agents", "agents", list_agents, epilog=AGENT_FORMS)


def experiments_main(argv: Sequence[str] | None = None) -> int:
    """``uno_rl experiments``: experiment and training configs."""
    return _main(argv, "experiments", "experiment configs", list_experiments)
