"""No text of the project dates or speaks of how it was made.

The README, the docs, the code's docstrings and comments, the listings' descriptions, the
experiment, agent and preset files, the notebooks and the tests describe what the toolkit is
and does, never when or how it came about: no work sessions, no "this machine", no earlier
code, no issue numbers, no throwaway scripts, no dates. Measurement diaries belong in the
project's issue tracker, not in its text.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: What the project ships or shows: text files below these paths (relative to the root).
SCANNED = [
    "README.md", "Makefile", "mkdocs.yml", "pyproject.toml", ".ci",
    "uno_rl", "docs", "envs", "agents", "experiments", "notebooks", "examples", "tests",
]  # fmt: skip
SUFFIXES = {".py", ".md", ".toml", ".ipynb", ".yml", ".yaml", ".txt", ""}

#: Each pattern, with what it catches. "session" alone stays allowed: pytest's session scope and
#: TensorBoard's hparams sessions are technical terms.
FORBIDDEN = {
    r"\b(?:this|that|an? earlier|earlier|previous|last|next|one|each|every|other) sessions?\b": (
        "a work session"
    ),
    r"\bsession's (?:machine|code|run)\b": "a work session",
    r"\bthis (?:shared )?(?:\d-core )?machine\b": "the machine it was measured on",
    r"\b(?:earlier|older|previous|the old) code\b|\bthe code before\b": "earlier code",
    r"\bthrowaway\b": "a throwaway script",
    r"\bissues? #?\d+\b": "an issue number",
    r"\bprevious commit\b": "a commit",
}

#: Dates, forbidden everywhere but in the tests, whose run folders need timestamps.
DATES = {
    r"\b20[2-3]\d-[01]\d-[0-3]\d\b": "a date",
    r"\b20[2-3]\d[01]\d[0-3]\d-\d{6}\b": "a run's timestamp (a date)",
}

#: This file names the patterns it forbids.
SELF = Path(__file__).resolve()


def _text_files() -> list[Path]:
    files = []
    for name in SCANNED:
        path = ROOT / name
        if path.is_file():
            files.append(path)
        elif path.is_dir():
            files += [
                p
                for p in sorted(path.rglob("*"))
                if p.is_file()
                and not p.is_symlink()
                and p.suffix in SUFFIXES
                and "__pycache__" not in p.parts
                and p.resolve() != SELF
            ]
    return files


def _hits(text: str, dates: bool = True) -> list[str]:
    found = []
    patterns = {**FORBIDDEN, **(DATES if dates else {})}
    for number, line in enumerate(text.splitlines(), 1):
        for pattern, what in patterns.items():
            match = re.search(pattern, line, re.IGNORECASE)
            if match:
                found.append(f"line {number}: {what}: {match[0]!r}")
    return found


def test_the_scan_covers_the_project():
    names = {p.relative_to(ROOT).as_posix() for p in _text_files()}
    assert "README.md" in names
    assert any(n.startswith("docs/results/") for n in names)
    assert any(n.startswith("uno_rl/core/") for n in names)
    assert any(n.endswith(".ipynb") for n in names)
    assert any(n.startswith("experiments/") for n in names)


@pytest.mark.parametrize(
    "line",
    [
        "measured on this machine in an earlier session",
        "a throwaway script gave 12%",
        "see issue 19",
        "the code before the speed work; an earlier session's code",
        "runs/editions/20261201-191610",
        "run on 2026-12-01",
    ],
)
def test_the_patterns_catch_dating_text(line):
    assert _hits(line), line


@pytest.mark.parametrize(
    "line",
    [
        "a session-scoped fixture of this suite",
        "TensorBoard's experiment and session summaries",
        "the code path of the engine",
        "seed 20000 rounds",
    ],
)
def test_the_patterns_leave_technical_text_alone(line):
    assert not _hits(line), line


def test_no_project_text_dates_or_tells_how_it_was_made():
    problems = []
    for path in _text_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        name = path.relative_to(ROOT)
        problems += [f"{name} {hit}" for hit in _hits(text, dates=name.parts[0] != "tests")]
    assert not problems, "text that dates the project:\n" + "\n".join(problems)
