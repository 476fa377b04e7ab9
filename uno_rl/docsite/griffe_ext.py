"""The Griffe extension of the site (``mkdocs.yml``: ``extensions: [uno_rl.docsite.griffe_ext]``).

Two things, both for mkdocstrings' static reading of the package (nothing is imported):

* a folder of modules without an ``__init__.py`` inside the package (``uno_rl/ppo``, which
  Python imports as a namespace package) is loaded as a subpackage: Griffe skips such
  folders, and ``::: uno_rl.ppo.config`` would not be found. Once the folder has an
  ``__init__.py`` this does nothing;
* every docstring of the package goes through :func:`uno_rl.docsite.rst.rst_to_markdown`,
  so reST roles, ``::`` blocks and simple tables render as Markdown. A role becomes a link
  when its target, resolved like Sphinx does (absolute, ``.relative`` to the package, or a
  name in the enclosing class or module, imports included), is a class, function or
  attribute that the API pages render (public, with a docstring, inside rendered classes);
  any other role stays plain code, so no link can dangle and ``--strict`` stays quiet.

Needs the ``docs`` extra (Griffe comes with mkdocstrings-python).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import griffe

from .rst import rst_to_markdown

__all__ = ["UnoDocstrings"]


def _objects(obj: griffe.Object) -> Iterator[griffe.Object]:
    """``obj`` and every object defined under it (aliases, i.e. imports, left out)."""
    yield obj
    for member in obj.members.values():
        if not member.is_alias:
            yield from _objects(member)


def _module(obj: griffe.Object) -> griffe.Module:
    while not obj.is_module:
        obj = obj.parent
    return obj


def _rendered(obj: griffe.Object) -> bool:
    """The API pages show ``obj`` with an anchor of its own (not a module: a module's anchor
    may be on two pages, its topic page and the reference)."""
    if obj.is_module or not obj.path.startswith("uno_rl."):
        return False
    while not obj.is_module:
        if obj.name.startswith("_") or obj.docstring is None:
            return False
        obj = obj.parent
    return not any(part.startswith("_") for part in obj.path.split("."))


def _linker(pkg: griffe.Module, scope: griffe.Object):
    """A ``link`` for :func:`rst_to_markdown` that resolves targets seen from ``scope``."""
    module = _module(scope)
    package = module if module.is_init_module or module.is_namespace_subpackage else module.parent

    def link(target: str) -> str | None:
        target = target.strip()
        if target.startswith("uno_rl."):
            candidates = [target]
        elif target.startswith("."):
            candidates = [f"{package.path}{target}"]
        else:
            scopes, here = [], scope
            while here is not None and here.path.startswith("uno_rl"):
                scopes.append(here.path)
                here = here.parent
            candidates = [f"{path}.{target}" for path in scopes]
        for path in candidates:
            try:
                found = pkg.modules_collection.get_member(path)
                final = found.final_target if found.is_alias else found
            except (KeyError, ValueError, griffe.AliasResolutionError, griffe.CyclicAliasError):
                continue
            return final.path if _rendered(final) else None
        return None

    return link


class UnoDocstrings(griffe.Extension):
    """Markdown docstrings and namespace subpackages for ``uno_rl``'s API pages."""

    def on_package(self, *, pkg: griffe.Module, loader: griffe.GriffeLoader, **kwargs: Any) -> None:
        """Load the module folders that lack an ``__init__.py``, then rewrite every docstring."""
        if pkg.name != "uno_rl" or not isinstance(pkg.filepath, Path):
            return
        for folder in sorted(pkg.filepath.parent.iterdir()):
            files = sorted(folder.glob("*.py")) if folder.is_dir() else []
            if not files or (folder / "__init__.py").exists() or folder.name in pkg.members:
                continue
            sub = griffe.Module(
                folder.name,
                filepath=[folder],
                parent=pkg,
                lines_collection=loader.lines_collection,
                modules_collection=loader.modules_collection,
            )
            pkg.set_member(folder.name, sub)
            for path in files:
                module = griffe.visit(
                    path.stem,
                    filepath=path,
                    code=path.read_text(encoding="utf-8"),
                    extensions=loader.extensions,
                    parent=sub,
                    docstring_parser=loader.docstring_parser,
                    docstring_options=loader.docstring_options,
                    lines_collection=loader.lines_collection,
                    modules_collection=loader.modules_collection,
                )
                sub.set_member(path.stem, module)
        for obj in _objects(pkg):
            if obj.docstring is not None:
                obj.docstring.value = rst_to_markdown(obj.docstring.value, _linker(pkg, obj))
