"""The API reference pages, generated from the package tree at every build.

:func:`reference_pages` gives one Markdown page per layer of ``uno_rl`` (each sub-package, and
the top-level programs), each a ``::: module`` directive per public module (names without a
leading underscore; the package's ``__init__`` first, then by name), which mkdocstrings renders
from the docstrings. A module added to the package is on the site at the next build; a new
sub-package must be given a title in :data:`PAGES` first (the build fails naming it).
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["PAGES", "public_modules", "reference_pages"]

#: Page (sub-package, or "" for the top-level modules) -> (title, one-line introduction).
PAGES: dict[str, tuple[str, str]] = {
    "core": (
        "The core",
        "The batched engine, NumPy only: cards, rules, actions, state, engine, "
        "observations, randomness and the reference oracle.",
    ),
    "render": (
        "Rendering",
        "What the environments and the terminal both draw: the text view, the RGB frames, "
        "printable text.",
    ),
    "envs": ("Environments", "Adapters from the batched core to PettingZoo and Gymnasium."),
    "agents": (
        "Agents",
        "Batched agents: the protocol, names, heuristics, bluffing and challenging.",
    ),
    "eval": (
        "Evaluation",
        "Duplicate-deal tournaments, statistics, ratings, tables, time estimates and limits.",
    ),
    "experiments": (
        "Experiments",
        "Experiment configs (a grid of rules, player counts and agents) and the runner that "
        "plays and resumes them.",
    ),
    "replays": ("Replays", "The JSON replay format: record, save, load, play again."),
    "analysis": (
        "Analysis",
        "The +4 bluff, its calibration, the bluff study, variants and the comparison with RLCard.",
    ),
    "ppo": ("PPO", "The pieces of PPO self-play training (PyTorch)."),
    "terminal": ("Terminal", "The text-mode pieces of `uno_rl play` and `uno_rl replay`."),
    "docsite": (
        "Documentation site",
        "What builds this site: generated tables, markers, docstrings as Markdown.",
    ),
    "plumbing": (
        "Plumbing",
        "What every layer shares: command-line parsing and error lines, durable writes, worker "
        "processes, the data folders, small TOML files.",
    ),
    "programs": (
        "Programs",
        "One module per `uno_rl` subcommand, and the benchmark.",
    ),
    "": (
        "The front door",
        "The `uno_rl` command and the `python -m uno_rl.X` entry points that hand over to it.",
    ),
}


def public_modules(package_dir: Path, sub: str) -> list[str]:
    """Dotted names of the public modules of sub-package ``sub`` ("" for the top level), its
    own sub-packages' after its modules (``uno_rl.programs.bench``)."""
    folder = package_dir / sub if sub else package_dir
    base = ".".join(["uno_rl", sub]) if sub else "uno_rl"
    names = [base] if (folder / "__init__.py").exists() else []
    names += [
        f"{base}.{path.stem}"
        for path in sorted(folder.glob("*.py"))
        if path.stem != "__init__" and (not path.stem.startswith("_") or path.stem == "__main__")
    ]
    if sub:
        for inner in sorted(folder.iterdir()):
            if inner.is_dir() and (inner / "__init__.py").exists():
                names += public_modules(package_dir, f"{sub}/{inner.name}")
    return [name.replace("/", ".") for name in names]


def reference_pages(package_dir: Path) -> dict[str, str]:
    """``reference/NAME.md`` -> its Markdown, for every page of :data:`PAGES`.

    Raises ``ValueError`` naming a sub-package (a folder of modules) that has no page.
    """
    subs = sorted(
        folder.name
        for folder in package_dir.iterdir()
        if folder.is_dir() and any(folder.glob("*.py")) and not folder.name.startswith("_")
    )
    missing = [sub for sub in subs if sub not in PAGES]
    if missing:
        raise ValueError(
            f"sub-packages without an API page: {', '.join(missing)}; add them to PAGES in "
            "uno_rl/docsite/reference.py and to the nav in mkdocs.yml"
        )
    pages = {}
    for sub, (title, intro) in PAGES.items():
        lines = [f"# {title}", "", intro, ""]
        for name in public_modules(package_dir, sub):
            lines.append(f"::: {name}")
            if (
                name == "uno_rl"
                or (package_dir.parent / name.replace(".", "/") / "__init__.py").exists()
            ):
                # A package's own page lists its modules below; its members are theirs.
                lines += ["    options:", "      members: false"]
            lines.append("")
        pages[f"reference/{sub or 'front-door'}.md"] = "\n".join(lines).rstrip() + "\n"
    return pages
