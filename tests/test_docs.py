"""The documentation site builds with ``mkdocs build --strict`` (no warning) and has its pages.

Needs the ``docs`` extra (the Makefile installs it); skipped when MkDocs is not installed.
The site goes to a temporary folder: the build writes nothing into the repository.
"""

from __future__ import annotations

import dataclasses
import html
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from uno_rl.core.rules import Rules
from uno_rl.docsite import code_tables

ROOT = Path(__file__).resolve().parents[1]

PAGES = [
    "index.html",
    "getting-started/index.html",
    "rules/index.html",
    "specification/index.html",
    "envs/pettingzoo/index.html",
    "envs/gymnasium/index.html",
    "envs/vector/index.html",
    "agents/index.html",
    "own-agents/index.html",
    "evaluation/index.html",
    "experiments/index.html",
    "training/index.html",
    "bluff-study/index.html",
    "replays/index.html",
    "development/index.html",
    "reference/core/index.html",
    "reference/ppo/index.html",
    "reference/programs/index.html",
    "reference/front-door/index.html",
]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The built site's folder and the build's output (one strict build for every test)."""
    for module in ("mkdocs", "mkdocstrings_handlers.python", "material"):
        pytest.importorskip(module)
    out = tmp_path_factory.mktemp("docs") / "site"
    had_site = (ROOT / "site").exists()
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}  # Material's banner about MkDocs 2
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mkdocs",
            "build",
            "--strict",
            "--quiet",
            "-f",
            str(ROOT / "mkdocs.yml"),
            "-d",
            str(out),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert (ROOT / "site").exists() == had_site  # -d: nothing written into the repository
    return out, done.stdout + done.stderr


def text(site_dir: Path, page: str) -> str:
    """A page's article, tags stripped."""
    raw = (site_dir / page).read_text("utf-8")
    article = raw[raw.find("<article") : raw.find("</article>")]
    return html.unescape(re.sub(r"<[^>]+>", "", article))


def test_strict_build_has_no_warning(site):
    _, output = site
    assert "WARNING" not in output and "ERROR" not in output, output


@pytest.mark.parametrize("page", PAGES)
def test_page_exists(site, page):
    site_dir, _ = site
    assert (site_dir / page).is_file()


def test_rules_page_lists_every_switch_with_its_default(site):
    site_dir, _ = site
    page = text(site_dir, "rules/index.html")
    for field in dataclasses.fields(Rules):
        if isinstance(field.default, bool):
            default = str(field.default).lower()
        elif isinstance(field.default, tuple):  # the dispenser's tables, rounded as shown
            default = code_tables.toml_value([round(p, 4) for p in field.default])
        else:
            default = str(field.default)
        assert re.search(rf"\n{field.name}\n{re.escape(default)}\n", page), field.name
    assert "stacking=any" in page  # the presets table


def test_module_docstrings_are_the_environment_pages(site):
    site_dir, _ = site
    assert "Observation space" in text(site_dir, "envs/pettingzoo/index.html")
    gym = text(site_dir, "envs/gymnasium/index.html")
    assert "TerminateIllegalWrapper" in gym and ":class:" not in gym
    assert "NEXT_STEP" in text(site_dir, "envs/vector/index.html")


def test_roles_link_to_the_reference(site):
    site_dir, _ = site
    raw = (site_dir / "envs" / "gymnasium" / "index.html").read_text("utf-8")
    assert 'href="../../reference/envs/#uno_rl.envs.gym_env.UnoEnv"' in raw
    assert 'href="../../reference/envs/#uno_rl.envs.game.SingleGame"' in raw


def test_readmes_are_pulled_in(site):
    site_dir, _ = site
    assert "Strength of the shipped bots" in text(site_dir, "agents/index.html")
    assert "rounds, matches and parts" in text(site_dir, "experiments/index.html")


def test_reference_has_the_ppo_package_and_markdown_tables(site):
    site_dir, _ = site
    ppo = text(site_dir, "reference/ppo/index.html")
    assert "TrainConfig" in ppo and "TurnBuffer" in ppo
    evaluation = (site_dir / "evaluation" / "index.html").read_text("utf-8")
    assert "<table>" in evaluation and "=====" not in evaluation


def test_specification_page_has_its_twelve_sections_with_stable_anchors(site):
    site_dir, _ = site
    raw = (site_dir / "specification" / "index.html").read_text("utf-8")
    for anchor in (
        "1-cards-108",
        "5-the-4-bluffing-and-the-challenge",
        "10-presets",
        "11-extension-cards-editions-as-data",
        "12-seed-rules-not-yet-covered",
    ):
        assert f'id="{anchor}"' in raw, anchor
    assert len(re.findall(r'<h2 id="(\d+)-', raw)) == 12
    assert 'href="../rules/#every-switch"' in raw and 'href="../rules/#presets"' in raw
