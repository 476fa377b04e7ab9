"""The site's markers, generated API pages and Griffe extension."""

from __future__ import annotations

from pathlib import Path

import pytest

import uno_rl
from uno_rl.docsite import api_pages as reference
from uno_rl.docsite import code_tables as tables
from uno_rl.docsite import hooks

PACKAGE = Path(uno_rl.__file__).parent
ROOT = PACKAGE.parent


def test_table_markers_expand_to_the_generated_tables():
    page = "# Page\n\n<!-- uno_rl table rules -->\n\ntext\n<!-- uno_rl table presets -->\n"
    out = hooks.expand(page, ROOT)
    assert out == (
        "# Page\n\n"
        + tables.rules_table().rstrip("\n")
        + "\n\ntext\n"
        + tables.presets_table().rstrip("\n")
        + "\n"
    )


def test_include_drops_the_title_line(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "README.md").write_text("# sub/\n\nBody *here*.\n\n## Part\n", "utf-8")
    out = hooks.expand("A\n<!-- uno_rl include sub/README.md -->\nB", tmp_path)
    assert out == "A\nBody *here*.\n\n## Part\nB"


def test_section_moves_every_heading_one_level_down_but_not_in_code(tmp_path):
    text = "# Card: `x`\n\nBody.\n\n## Part\n\n```sh\n# a comment\n```\n\n#### Deep\n"
    (tmp_path / "card.md").write_text(text, "utf-8")
    out = hooks.expand("# Page\n<!-- uno_rl section card.md -->", tmp_path)
    assert out == (
        "# Page\n## Card: `x`\n\nBody.\n\n### Part\n\n```sh\n# a comment\n```\n\n##### Deep"
    )


def test_include_of_the_shipped_readmes():
    out = hooks.expand("<!-- uno_rl include agents/README.md -->", ROOT)
    readme = (ROOT / "agents" / "README.md").read_text("utf-8")
    assert not out.startswith("# ") and out.strip() in readme


@pytest.mark.parametrize(
    "marker, message",
    [
        ("<!-- uno_rl table nothing -->", "unknown marker '<!-- uno_rl table nothing -->'"),
        ("<!-- uno_rl tabel rules -->", "unknown marker"),
        ("<!-- uno_rl include -->", "unknown marker"),
        ("<!-- uno_rl include no/such.md -->", "include 'no/such.md': no such file"),
        ("<!-- uno_rl include ../outside.md -->", "include '../outside.md': no such file"),
        ("<!-- uno_rl section no/such.md -->", "section 'no/such.md': no such file"),
    ],
)
def test_bad_markers_name_themselves(tmp_path, marker, message):
    (tmp_path / "root").mkdir()
    (tmp_path / "outside.md").write_text("# x\n", "utf-8")
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        hooks.expand(f"text\n{marker}\n", tmp_path / "root")


def test_text_that_only_looks_like_a_marker_stays():
    page = "see `<!-- uno_rl table rules -->` inline\n<!-- other comment -->\n"
    assert hooks.expand(page, ROOT) == page


def test_reference_pages_cover_every_public_module_once():
    pages = reference.reference_pages(PACKAGE)
    directives = [
        line.removeprefix("::: ")
        for text in pages.values()
        for line in text.splitlines()
        if line.startswith("::: ")
    ]
    modules = set()
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if "data" in parts or any(
            p.startswith("_") and p not in ("__init__", "__main__") for p in parts
        ):
            continue
        modules.add(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    assert sorted(directives) == sorted(modules)
    assert len(directives) == len(set(directives))
    assert set(pages) == {f"reference/{sub or 'front-door'}.md" for sub in reference.PAGES}


def test_reference_pages_refuse_a_subpackage_without_a_page(tmp_path):
    package = tmp_path / "uno_rl"
    for sub in [*filter(None, reference.PAGES), "newlayer"]:
        (package / sub).mkdir(parents=True)
        (package / sub / "mod.py").write_text('"""A module."""\n', "utf-8")
    with pytest.raises(ValueError, match="sub-packages without an API page: newlayer"):
        reference.reference_pages(package)


def test_mkdocs_yml_names_every_reference_page():
    text = (ROOT / "mkdocs.yml").read_text("utf-8")
    for page in reference.reference_pages(PACKAGE):
        assert f"- {page}" in text, page


def test_griffe_extension_loads_ppo_and_rewrites_docstrings():
    griffe = pytest.importorskip("griffe")
    from uno_rl.docsite.griffe_ext import UnoDocstrings

    loader = griffe.GriffeLoader(
        search_paths=[str(ROOT)], extensions=griffe.load_extensions(UnoDocstrings())
    )
    package = loader.load("uno_rl")
    config = package["ppo.config"]
    assert config.path == "uno_rl.ppo.config"
    assert "TrainConfig" in config.members
    assert ":class:`" not in config.docstring.value  # the module docstring uses :class:

    def docstrings(obj):
        if obj.docstring is not None:
            yield obj.path, obj.docstring.value
        for member in obj.members.values():
            if not member.is_alias:
                yield from docstrings(member)

    gym = package["envs.gym_env"].docstring.value
    assert "[`UnoEnv`][uno_rl.envs.gym_env.UnoEnv]" in gym  # a class of the module
    assert "[`SingleGame`][uno_rl.envs.game.SingleGame]" in gym  # ~uno_rl.envs.game.SingleGame
    assert "[`step`][uno_rl.envs.gym_env.UnoEnv.step]" in gym  # ~UnoEnv.step
    # a module is never linked (its anchor is on its topic page and in the reference)
    assert "`uno_rl.core.observe_layout`" in gym and "][uno_rl.core.observe_layout]" not in gym

    leftovers = [
        path for path, text in docstrings(package) if ":func:`" in text or ":class:`" in text
    ]
    assert leftovers == []
