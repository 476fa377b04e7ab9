"""The MkDocs hook of the site (``mkdocs.yml``: ``hooks: [uno_rl/docsite/hooks.py]``).

A page in ``docs/`` may hold markers, HTML comments on a line of their own, that the hook
replaces before the page is rendered:

=============================================  ==============================================
marker                                         replaced by
=============================================  ==============================================
``<!-- uno_rl table rules -->``                :func:`uno_rl.docsite.code_tables.rules_table`
``<!-- uno_rl table presets -->``              :func:`uno_rl.docsite.code_tables.presets_table`
``<!-- uno_rl table commands -->``             :func:`uno_rl.docsite.code_tables.commands_table`
``<!-- uno_rl table train-config -->``         :func:`uno_rl.docsite.code_tables.train_config_table`
``<!-- uno_rl include PATH -->``               the file ``PATH`` (relative to ``mkdocs.yml``)
                                               without its first ``# `` title line
``<!-- uno_rl section PATH -->``               the file ``PATH`` one heading level down: its
                                               ``# `` title a section (``## ``) of the page
=============================================  ==============================================

So the rule switches come from the code and the READMEs of ``agents/`` and ``experiments/``
are shown as they are, never copied. An unknown marker, an unknown table or a missing file
fails the build with an error naming the page and the marker.

The hook also adds the API reference pages (``reference/*.md``, from
:func:`uno_rl.docsite.api_pages.reference_pages`): they are generated, not kept in ``docs/``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import uno_rl
from uno_rl.docsite import api_pages, code_tables

__all__ = ["TABLES", "expand", "on_files", "on_page_markdown"]

#: Table name -> the function rendering it.
TABLES: dict[str, Callable[[], str]] = {
    "rules": code_tables.rules_table,
    "presets": code_tables.presets_table,
    "commands": code_tables.commands_table,
    "train-config": code_tables.train_config_table,
}

_MARKER = re.compile(r"^<!-- uno_rl (?P<what>\S+)(?: (?P<arg>.*?))? -->[ \t]*$", re.MULTILINE)


def _read(root: Path, what: str, name: str) -> list[str]:
    path = (root / name).resolve()
    if not path.is_relative_to(root.resolve()) or not path.is_file():
        raise ValueError(f"{what} {name!r}: no such file in the repository ({root})")
    return path.read_text(encoding="utf-8").splitlines()


def _include(root: Path, name: str) -> str:
    lines = _read(root, "include", name)
    if lines and lines[0].startswith("# "):
        lines = lines[1:]
    return "\n".join(lines).strip("\n")


def _section(root: Path, name: str) -> str:
    """The file one heading level down (outside fenced code, where ``#`` is a comment)."""
    out, fence = [], None
    for line in _read(root, "section", name):
        mark = re.match(r"^(`{3,}|~{3,})", line)
        if mark and (fence is None or mark[1].startswith(fence)):
            fence = None if fence is not None else mark[1]
        elif fence is None and re.match(r"^#{1,5} ", line):
            line = "#" + line
        out.append(line)
    return "\n".join(out).strip("\n")


def expand(markdown: str, root: Path) -> str:
    """``markdown`` with every ``<!-- uno_rl ... -->`` marker replaced (``root``: the repository).

    Raises ``ValueError`` naming the marker when it is unknown or its file is missing.
    """

    def replace(match: re.Match[str]) -> str:
        what, arg = match["what"], (match["arg"] or "").strip()
        if what == "table" and arg in TABLES:
            return TABLES[arg]().rstrip("\n")
        if what == "include" and arg:
            return _include(root, arg)
        if what == "section" and arg:
            return _section(root, arg)
        raise ValueError(
            f"unknown marker {match[0].strip()!r}: use 'table NAME' ({', '.join(TABLES)}), "
            "'include PATH' or 'section PATH'"
        )

    return _MARKER.sub(replace, markdown)


def on_page_markdown(markdown: str, *, page: Any, config: Any, **kwargs: Any) -> str:
    """MkDocs event: expand the markers of one page."""
    from mkdocs.exceptions import PluginError

    root = Path(config["config_file_path"]).parent
    try:
        return expand(markdown, root)
    except ValueError as error:
        raise PluginError(f"docs/{page.file.src_path}: {error}") from None


def on_files(files: Any, *, config: Any) -> Any:
    """MkDocs event: add the generated API reference pages."""
    from mkdocs.exceptions import PluginError
    from mkdocs.structure.files import File

    try:
        pages = api_pages.reference_pages(Path(uno_rl.__file__).parent)
    except ValueError as error:
        raise PluginError(str(error)) from None
    for src_uri, content in pages.items():
        files.append(File.generated(config, src_uri, content=content))
    return files
