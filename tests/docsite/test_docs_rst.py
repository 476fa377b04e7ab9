"""reST-isms of the docstrings rewritten as Markdown (what the API pages render)."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

import uno_rl
from uno_rl.docsite.rst import rst_to_markdown

PACKAGE = Path(uno_rl.__file__).parent


def test_roles_become_code_spans():
    text = (
        ":class:`~uno_rl.envs.game.SingleGame` and :func:`uno_rl.agents.make_agent`, :mod:`.bluff`"
    )
    assert rst_to_markdown(text) == "`SingleGame` and `uno_rl.agents.make_agent`, `.bluff`"
    assert rst_to_markdown(":py:meth:`~UnoEnv.step`") == "`step`"
    assert rst_to_markdown(":data:`STAT_NAMES`") == "`STAT_NAMES`"


def test_roles_become_links_where_the_linker_resolves_them():
    def link(target):
        return {"a.b.C": "a.b.C", "C": "a.b.C"}.get(target)

    text = ":class:`~a.b.C`, :class:`C`, :func:`nowhere`"
    assert rst_to_markdown(text, link) == "[`C`][a.b.C], [`C`][a.b.C], `nowhere`"
    table = "===  ===\nx    :class:`C`\n===  ===\n"
    assert rst_to_markdown(table, link) == "- **x**: [`C`][a.b.C]"


def test_literal_block_marker_keeps_one_colon():
    text = "The episode ends::\n\n    env.step(0)\n\nAfter."
    assert rst_to_markdown(text) == "The episode ends:\n\n    env.step(0)\n\nAfter."
    assert rst_to_markdown("Text.\n\n::\n\n    code") == "Text.\n\n\n\n    code"
    # a double colon mid-paragraph, or not before a blank line, is text
    assert rst_to_markdown("a::b") == "a::b"
    assert rst_to_markdown("x ::\ny") == "x ::\ny"


def test_simple_table_with_header_becomes_a_pipe_table():
    text = (
        "Columns:\n"
        "=======  =====================\n"
        "column   meaning\n"
        "=======  =====================\n"
        "wins     rounds it won, with a\n"
        "         long meaning\n"
        "pipe     ``a | b`` or c | d\n"
        "=======  =====================\n"
        "\n"
        "After."
    )
    assert rst_to_markdown(text).splitlines() == [
        "Columns:",
        "",
        "| column | meaning |",
        "|---|---|",
        "| wins | rounds it won, with a long meaning |",
        "| pipe | ``a | b`` or c \\| d |",
        "",
        "After.",
    ]


def test_simple_table_without_header_becomes_a_list():
    text = "=====  ====\ncore   the engine\n       per step\nvec    vector\n=====  ====\n"
    assert rst_to_markdown(text).splitlines() == [
        "- **core**: the engine per step",
        "- **vec**: vector",
    ]


def test_fenced_code_is_left_alone():
    text = "```python\nx = ':class:`A`'  # ::\n\n===  ===\n```"
    assert rst_to_markdown(text) == text


def test_plain_markdown_is_unchanged():
    doc = ast.get_docstring(ast.parse((PACKAGE / "envs" / "uno_v1.py").read_text("utf-8")))
    assert doc is not None and doc.startswith("# UNO")
    assert rst_to_markdown(doc) == doc


@pytest.mark.parametrize(
    "relative", ["eval/summary.py", "programs/bench/command.py", "agents/__init__.py"]
)
def test_real_docstrings_render_their_tables(relative):
    markdown = pytest.importorskip("markdown")
    doc = inspect.cleandoc(ast.get_docstring(ast.parse((PACKAGE / relative).read_text("utf-8"))))
    converted = rst_to_markdown(doc)
    assert "====" not in converted and ":class:`" not in converted
    html = markdown.markdown(converted, extensions=["tables"])
    assert "<table>" in html or "<li><strong>" in html
    assert "====" not in html
