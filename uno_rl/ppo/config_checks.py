"""How one training config field's value is checked, whichever way it came (a TOML file, the
command line, a resumed run's ``config.json``): its type (``true`` is not a number, ``2.5`` not
a count), finite numbers only, its range or choices. Each failure is a
:class:`TrainConfigError` whose message starts with the field's name.

A field is declared with :func:`config_field`: its default, its ``doc`` (what ``--help`` and
the docs site show) and its checks: ``low``, ``high`` (counts default to at most
:data:`uno_rl.plumbing.cli.MAX_COUNT`), ``choices``, or ``auto`` (a count that may also be the text
``"auto"``, resolved by :meth:`uno_rl.ppo.config.TrainConfig.eval_size`).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from uno_rl.plumbing.cli import MAX_COUNT

__all__ = ["TrainConfigError", "check_field", "config_field", "field_kind", "is_int", "shown"]


class TrainConfigError(ValueError):
    """An unknown config key or a bad value (the message names the key)."""


def config_field(default: Any, doc: str, **checks: Any):
    """A config field: ``default``, its ``doc`` and ``checks`` in its metadata."""
    if isinstance(default, list | dict):
        return dataclasses.field(
            default_factory=lambda d=default: type(d)(d), metadata={"doc": doc, **checks}
        )
    return dataclasses.field(default=default, metadata={"doc": doc, **checks})


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def shown(value: Any) -> str:
    """``repr(value)``, cut to a readable length (a 5,000-digit number is a typo)."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def field_kind(f: dataclasses.Field) -> type:
    """The type of field ``f``'s values (``int`` for a count that may be ``"auto"``)."""
    if "auto" in f.metadata:
        return int
    return type(f.default if f.default is not dataclasses.MISSING else f.default_factory())


def check_field(f: dataclasses.Field, value: Any) -> Any:
    """``value`` of field ``f`` checked (type, finite, range, choices); ints become floats
    where the field is a float."""
    kind = field_kind(f)
    if "auto" in f.metadata and not is_int(value):
        if value == "auto":
            return value
        raise TrainConfigError(f"{f.name}: must be int or 'auto', got {shown(value)}")
    if kind is float and is_int(value):
        try:
            value = float(value)
        except OverflowError:
            raise TrainConfigError(
                f"{f.name}: must be a finite number, got {shown(value)}"
            ) from None
    if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
        raise TrainConfigError(f"{f.name}: must be {kind.__name__}, got {shown(value)}")
    if kind is float and not math.isfinite(value):
        raise TrainConfigError(f"{f.name}: must be a finite number, got {value}")
    meta = f.metadata
    if "choices" in meta and value not in meta["choices"]:
        raise TrainConfigError(
            f"{f.name}: must be one of {', '.join(meta['choices'])}, got {shown(value)}"
        )
    if kind in (int, float):
        low = meta.get("low", -math.inf)
        high = meta.get("high", MAX_COUNT if kind is int else math.inf)
        if not low <= value <= high:
            raise TrainConfigError(
                f"{f.name}: must be in [{meta.get('low', '-inf')}, {high:g}], got {shown(value)}"
                if kind is float
                else f"{f.name}: must be in [{low}, {high}], got {shown(value)}"
            )
    return value
