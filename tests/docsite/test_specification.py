"""The rules specification is a page of the site (``docs/specification.md``), and everything
that is shipped or shown cites it, never a file outside the repository."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SPECIFICATION = ROOT / "docs" / "specification.md"

#: What is shipped (the wheel and the sdist) or shown (the site, the README).
SHIPPED = ["uno_rl", "docs", "envs", "agents", "experiments", "notebooks", "tests", "README.md"]

#: The rules file kept outside the repository; split so that this file does not cite it.
OUTSIDE = ("RULES" + ".md").encode()

#: The headings of the twelve sections, as their citations name them ("section 5": the +4).
SECTIONS = re.compile(r"^## (\d+)\. (.+)$", re.MULTILINE)

#: A Markdown link to a page's anchor: ``](page.md#anchor)``.
LINK = re.compile(r"\]\((?P<page>[\w./-]*?)(?P<name>[\w-]+\.md)#(?P<anchor>[\w-]+)\)")


def slug(heading: str) -> str:
    """The anchor id MkDocs gives a heading (the ``toc`` extension's default slugify)."""
    text = unicodedata.normalize("NFKD", heading).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def anchors(page: Path) -> set[str]:
    """The anchor ids of a Markdown page's headings."""
    return {
        slug(match[1])
        for match in re.finditer(r"^#{1,6} (.+?)\s*$", page.read_text("utf-8"), re.MULTILINE)
    }


def shipped_files() -> list[Path]:
    files = []
    for name in SHIPPED:
        path = ROOT / name
        if path.is_file():
            files.append(path)
            continue
        for file in sorted(path.rglob("*")):
            parts = file.relative_to(ROOT).parts
            if file.is_file() and not any(p == "__pycache__" or p.startswith(".") for p in parts):
                files.append(file)
    return files


def test_nothing_shipped_or_shown_cites_the_rules_file_outside_the_repository():
    files = shipped_files()
    assert SPECIFICATION in files and len(files) > 100
    citing = [str(f.relative_to(ROOT)) for f in files if OUTSIDE in f.read_bytes()]
    assert not citing, f"cite docs/specification.md instead: {citing}"


def test_the_specification_has_its_twelve_numbered_sections():
    sections = SECTIONS.findall(SPECIFICATION.read_text("utf-8"))
    assert [int(number) for number, _ in sections] == list(range(1, 13))
    titles = dict(sections)
    assert titles["1"] == "Cards (108)"
    assert titles["5"] == "The +4, bluffing and the challenge"
    assert titles["9"].startswith("Rule switches")
    assert titles["10"] == "Presets"
    assert titles["11"].startswith("Extension cards")
    assert slug("5. " + titles["5"]) == "5-the-4-bluffing-and-the-challenge"


def test_switches_and_presets_are_the_generated_tables_not_copies():
    text = SPECIFICATION.read_text("utf-8")
    starts = [match.start() for match in SECTIONS.finditer(text)]
    nine, ten = text[starts[8] : starts[9]], text[starts[9] : starts[10]]
    for section, target in ((nine, "rules.md#every-switch"), (ten, "rules.md#presets")):
        assert target in section or "<!-- uno_rl table" in section
        assert "\n|" not in section  # no hand-kept table
    rules_page = (ROOT / "docs" / "rules.md").read_text("utf-8")
    assert "<!-- uno_rl table rules -->" in rules_page
    assert "<!-- uno_rl table presets -->" in rules_page


def test_links_to_the_specification_and_the_rules_page_name_real_anchors():
    pages = [*sorted((ROOT / "docs").rglob("*.md")), ROOT / "README.md"]
    checked = 0
    for page in pages:
        for match in LINK.finditer(page.read_text("utf-8")):
            if match["name"] not in ("specification.md", "rules.md"):
                continue
            target = (page.parent / match["page"] / match["name"]).resolve()
            assert target.is_file(), (page, match[0])
            assert match["anchor"] in anchors(target), (page, match[0])
            checked += 1
    assert checked >= 3
