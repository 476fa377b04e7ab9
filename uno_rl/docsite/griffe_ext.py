"""The Griffe extension of the site (``mkdocs.yml``: ``extensions: [uno_rl.docsite.griffe_ext]``).

For mkdocstrings' static reading of the package (nothing is imported), every docstring of
the package goes through :func:`uno_rl.docsite.rst.rst_to_markdown`, so reST roles, ``::``
blocks and simple tables render as Markdown. A role becomes a link when its target, resolved
like Sphinx does (absolute, ``.relative`` to the package, or a name in the enclosing class or
module, imports included), is a class, function or attribute that the API pages render
(public, with a docstring, inside rendered classes); any other role stays plain code, so no
link can dangle and ``--strict`` stays quiet.

Needs the ``docs`` extra (Griffe comes with mkdocstrings-python).
"""

from __future__ import annotations

from collections.abc import Iterator
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
    """Markdown docstrings for ``uno_rl``'s API pages."""

    def on_package(self, *, pkg: griffe.Module, loader: griffe.GriffeLoader, **kwargs: Any) -> None:
        """Rewrite every docstring of ``uno_rl`` as Markdown."""
        if pkg.name != "uno_rl":
            return
        for obj in _objects(pkg):
            if obj.docstring is not None:
                obj.docstring.value = rst_to_markdown(obj.docstring.value, _linker(pkg, obj))
