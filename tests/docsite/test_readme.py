"""The README is a one-screen front door whose every example, command and link works.

The README's quick commands are run from an installed wheel in an empty folder by
``tests/test_wheel.py``; its Gymnasium example by ``tests/envs/test_gymnasium.py``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from readme_text import marked_block, quick_commands, readme

from uno_rl.__main__ import COMMANDS

ROOT = Path(__file__).resolve().parents[2]

#: The most lines the front door may have.
MAX_LINES = 150


def blocks(language: str) -> list[str]:
    """Every fenced code block of the README in ``language``, in order."""
    return re.findall(rf"^```{language}\n(.*?)^```", readme(), re.MULTILINE | re.DOTALL)


def test_the_readme_fits_one_screen():
    lines = readme().splitlines()
    assert len(lines) <= MAX_LINES, f"README.md has {len(lines)} lines (at most {MAX_LINES})"


@pytest.mark.parametrize("index", range(len(blocks("python"))))
def test_every_python_example_runs(index):
    code = blocks("python")[index]
    names: dict = {"__name__": "__readme__"}
    exec(compile(code, f"README.md python block {index}", "exec"), names)


def test_the_command_table_lists_every_subcommand():
    table = marked_block("subcommands")
    listed = set()
    for row in table.splitlines()[2:]:
        first_cell = row.split("|")[1]
        listed |= set(re.findall(r"`(?:uno_rl )?([a-z][a-z-]*)", first_cell))
    assert listed == set(COMMANDS), (
        f"README command table: missing {sorted(set(COMMANDS) - listed)}, "
        f"unknown {sorted(listed - set(COMMANDS))}"
    )


def test_every_quick_command_states_its_time():
    commands = quick_commands()
    assert len(commands) >= 3
    assert all(command.startswith("uno_rl ") for command, _ in commands)


def test_every_link_of_the_readme_exists():
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", readme())
    assert links
    missing = [link for link in links if "://" not in link and not (ROOT / link).exists()]
    assert not missing, f"README links to missing files: {missing}"


def test_every_results_row_links_its_docs_page():
    results = readme().split("## Results", 1)[1].split("\n## ", 1)[0]
    table = [row for row in results.splitlines() if row.startswith("|")][2:]
    rows = [row for row in table if row.split("|")[1].strip()]  # a continuation row has none
    assert len(rows) >= 5
    for row in rows:
        assert re.search(r"\]\(docs/results/[a-z-]+\.md\)", row), f"no docs link: {row}"
