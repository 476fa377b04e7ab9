"""The reST-isms of this repository's docstrings, rewritten as Markdown for mkdocstrings.

The docstrings are read in a terminal and by ``help()`` as much as on the site, so they keep
their reST habits. :func:`rst_to_markdown` rewrites the three that Markdown would show wrongly
(double-backtick literals are already valid Markdown code spans):

* cross-reference roles (class, func, meth, mod, attr, data, obj, exc, const) become code
  spans of their target (only its last part when the target starts with a tilde), links
  where the caller's ``link`` resolves the target (:mod:`uno_rl.docsite.griffe_ext` does,
  for targets that are rendered on the site);
* a paragraph ending in a double colon before an indented block keeps one colon (the
  indented block is already a Markdown code block);
* simple tables (columns under rules of ``=`` signs, a row continued on lines whose first
  column is blank) become pipe tables; one without a header row becomes a list, one item
  per row (the first column in bold, then the rest).

Lines inside fenced code blocks are left alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable

__all__ = ["rst_to_markdown"]

_ROLE = re.compile(r":(?:py:)?(?:class|func|meth|mod|attr|data|obj|exc|const):`(~?)([^`]+)`")
_RULE = re.compile(r"^( *)=+( +=+)+ *$")


#: Role target (as written, without ``~``) -> the identifier to link to, or None for no link.
Linker = Callable[[str], "str | None"]


def _roles(line: str, link: Linker | None) -> str:
    def replace(match: re.Match[str]) -> str:
        tilde, target = match[1], match[2]
        shown = f"`{target.rsplit('.', 1)[-1] if tilde else target}`"
        identifier = link(target) if link else None
        return f"[{shown}][{identifier}]" if identifier else shown

    return _ROLE.sub(replace, line)


def _escape_pipes(cell: str) -> str:
    """``|`` outside code spans escaped (a pipe inside a code span does not split a cell)."""
    parts = re.split(r"(`+[^`]*`+)", cell)
    return "".join(part if part.startswith("`") else part.replace("|", "\\|") for part in parts)


def _spans(rule: str) -> list[tuple[int, int | None]]:
    """Column (start, end) offsets of a ``====  ====`` rule; the last column runs to the end."""
    spans: list[tuple[int, int | None]] = [(m.start(), m.end()) for m in re.finditer(r"=+", rule)]
    spans[-1] = (spans[-1][0], None)
    return spans


def _cells(line: str, spans: list[tuple[int, int | None]]) -> list[str]:
    return [line[start:end].strip() for start, end in spans]


def _table(lines: list[str], spans: list[tuple[int, int | None]]) -> list[str]:
    """A simple table's body lines (between its outer rules) as Markdown table lines."""
    header: list[str] | None = None
    rows: list[list[str]] = []
    for line in lines:
        if _RULE.match(line):  # the rule under the header
            header, rows = (rows[0] if rows else None), []
            continue
        if not line.strip():
            continue
        cells = _cells(line, spans)
        if cells[0] or not rows:
            rows.append(cells)
        else:  # a continuation line: the first column is blank
            rows[-1] = [f"{old} {new}".strip() for old, new in zip(rows[-1], cells)]
    if header is None:  # no header row: a list of "first column: the rest" items
        return [f"- **{row[0]}**: " + " ".join(row[1:]) for row in rows]
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(spans)]
    out += ["| " + " | ".join(_escape_pipes(cell) for cell in row) + " |" for row in rows]
    return out


def rst_to_markdown(text: str, link: Linker | None = None) -> str:
    """``text`` (a docstring, dedented) with reST roles, ``::`` and simple tables as Markdown.

    ``link`` maps a role's target to the identifier of a cross-reference (mkdocs-autorefs'
    ``[text][identifier]``); where it is None or returns None the role is plain code.
    """
    lines = text.splitlines()
    out: list[str] = []
    fenced = False
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith("```"):
            fenced = not fenced
        if fenced or line.lstrip().startswith("```"):
            out.append(line)
            i += 1
            continue
        rule = _RULE.match(line)
        if rule:
            # The table ends at the rule that is followed by a blank line or the end.
            end = next(
                (
                    j
                    for j in range(i + 1, len(lines))
                    if _RULE.match(lines[j]) and (j + 1 == len(lines) or not lines[j + 1].strip())
                ),
                None,
            )
            if end is not None:
                body = [_roles(row, link) for row in lines[i + 1 : end]]
                if out and out[-1].strip():
                    out.append("")
                out += _table(body, _spans(line))
                i = end + 1
                continue
        line = _roles(line, link)
        if line.rstrip().endswith("::") and i + 1 < len(lines) and not lines[i + 1].strip():
            stripped = line.rstrip()[:-2].rstrip()
            line = stripped + ":" if stripped else ""
        out.append(line)
        i += 1
    return "\n".join(out)
