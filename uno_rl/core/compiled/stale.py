"""Cached kernels older than a source they read, found and dropped.

numba invalidates a cached kernel when the file defining it changes, but not when a kernel it
calls, or a constant it reads, changes in another file (its caching notes: cache invalidation
fails to recognize changes in symbols defined in a different file). After such an edit the
caller's cached machine code still runs the callee as it was. :func:`drop_stale_caches` deletes
every cached kernel of a package that is older than the newest of the files its kernels can
read (the package's kernel modules and the ``uno_rl`` modules they import, transitively), so
the next call compiles them anew. An installed package's files do not change after their
kernels are cached; a working copy's do.
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Iterable
from pathlib import Path

__all__ = ["drop_stale_caches", "kernel_sources"]

#: The folder holding the ``uno_rl`` package.
_ROOT = Path(__file__).resolve().parents[3]


def _module_file(module: str) -> Path | None:
    """The source file of ``uno_rl`` module ``module`` (dotted), or None."""
    base = _ROOT.joinpath(*module.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def _imports(path: Path) -> set[Path]:
    """The ``uno_rl`` modules ``path`` imports (absolute or relative), as files."""
    parts = path.resolve().relative_to(_ROOT).with_suffix("").parts
    package = parts[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = list(package[: len(package) - node.level + 1]) if node.level else []
            stem = ".".join([*base, node.module] if node.module else base)
            # a name is a submodule, or else read from the module itself
            names = [
                f"{stem}.{alias.name}" if _module_file(f"{stem}.{alias.name}") else stem
                for alias in node.names
            ]
        else:
            continue
        for name in names:
            if name.split(".")[0] == "uno_rl" and (file := _module_file(name)) is not None:
                found.add(file)
    return found


def kernel_sources(folders: Iterable[Path]) -> set[Path]:
    """Every kernel module (``nb_*.py``) of ``folders`` and every ``uno_rl`` module they
    import, transitively."""
    todo = [path.resolve() for folder in folders for path in Path(folder).glob("nb_*.py")]
    seen: set[Path] = set()
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        todo.extend(_imports(path) - seen)
    return seen


def drop_stale_caches(dispatchers: Iterable) -> int:
    """Delete the cached kernels (``*.nbi``, ``*.nbc``) in the cache folder of each of
    ``dispatchers`` (numba dispatchers compiled with ``cache=True``) that are older than the
    newest source the kernels of its package read; returns how many files were deleted."""
    packages = {}  # cache folder: the package whose kernels it holds
    for dispatcher in dispatchers:
        package = Path(inspect.getfile(dispatcher.py_func)).resolve().parent
        packages[Path(dispatcher._cache._cache_path)] = package
    dropped = 0
    for folder, package in packages.items():
        newest = max(path.stat().st_mtime for path in kernel_sources([package]))
        for path in [*folder.glob("*.nbi"), *folder.glob("*.nbc")]:
            try:
                if path.stat().st_mtime < newest:
                    path.unlink()
                    dropped += 1
            except FileNotFoundError:  # another process dropped it first
                continue
    return dropped
