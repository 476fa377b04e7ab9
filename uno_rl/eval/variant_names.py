"""Readable names of rule variants, shared by ``evaluate`` and the experiments.

A variant is named by what differs from its preset (``official`` when nothing does, else
``official, stacking=any``), and by its deck when it is not ``classic`` (``official,
deck=extreme``); the full switches stay in the data (the tables' ``switches``
column, :func:`switches_label`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from uno_rl.core.rules import Rules


def value_text(value: Any) -> str:
    """A switch value as written in labels: ``true``/``false`` for booleans, else ``str``."""
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def switches_label(switches: Sequence[tuple[str, Any]]) -> str:
    """Every switch, in the order given: ``caught_bluffer=draws-4, match=true`` (``""`` for
    none)."""
    return ", ".join(f"{name}={value_text(value)}" for name, value in switches)


def variant_name(preset: str, switches: Sequence[tuple[str, Any]], base: Rules) -> str:
    """The short label of a variant: ``preset`` and the switches whose value differs from the
    preset's own (``base``, its rules at the cell's player count), in the order given:
    ``official`` or ``official, caught_bluffer=takes-back``. A deck other than ``classic``
    is always named (``official, deck=extreme``), even when the preset itself sets it."""
    changed = [(n, v) for n, v in switches if getattr(base, n, None) != v]
    deck = getattr(base, "deck", "classic")
    if deck != "classic" and all(n != "deck" for n, _ in changed):  # the preset's own deck
        changed.insert(0, ("deck", deck))
    return ", ".join([str(preset)] + ([switches_label(changed)] if changed else []))
