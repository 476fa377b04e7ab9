"""Reading the README's marked parts: the tests of its examples, commands and wheel share it."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def readme() -> str:
    return README.read_text(encoding="utf-8")


def marked_block(marker: str) -> str:
    """The fenced block or table right after the line ``<!-- commands: MARKER -->``."""
    text = readme()
    head = f"<!-- commands: {marker} -->\n"
    assert head in text, f"README.md has no {head.strip()}"
    rest = text.split(head, 1)[1]
    return rest.split("\n\n", 1)[0]


def quick_commands() -> list[tuple[str, float]]:
    """(command, seconds it states) for each line of the README's quick commands.

    Each line is ``uno_rl ...  # what it does: N s`` (or ``N min``).
    """
    block = marked_block("quick")
    assert block.startswith("```sh\n"), "the quick commands are a sh block"
    commands = []
    for line in block.splitlines()[1:-1]:
        command, _, comment = line.partition("#")
        time = re.search(r"(\d+) (s|min)\s*$", comment)
        assert time, f"README quick command states no time ('... : N s'): {line!r}"
        seconds = float(time[1]) * (60 if time[2] == "min" else 1)
        commands.append((command.strip(), seconds))
    return commands
