"""The batched :class:`~uno_rl.core.state.State` as the structure the compiled kernel reads
and mutates in place: :func:`game_arrays` makes a :class:`GameArrays` holding the same
array objects (no copy; field names and dtypes as in ``State``, each indexed by game first).

A structure reference (numba's ``StructRef``) is passed to kernel functions as one pointer:
a named tuple of ~50 arrays is passed by value, which costs hundreds of nanoseconds in every
function that calls another one.
"""

from __future__ import annotations

import dataclasses

from numba.core import types
from numba.experimental import structref

from ..state import State
from .nb_struct import register

#: State's per-game array fields, in declaration order.
FIELDS = tuple(
    f.name for f in dataclasses.fields(State) if f.name not in ("rules", "_mask", "_rows_mask")
)


@register
class GameArraysType(types.StructRef):
    """The numba type of :class:`GameArrays`."""

    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(kind)) for name, kind in fields)


class GameArrays(structref.StructRefProxy):
    """The arrays of a batch of games, as the kernel sees them; Python reads them as
    attributes too."""

    def __getattr__(self, name):
        try:
            return self.__dict__["fields"][name]
        except KeyError:
            raise AttributeError(name) from None


structref.define_proxy(GameArrays, GameArraysType, list(FIELDS))


def game_arrays(state: State) -> GameArrays:
    """The arrays of ``state`` (the same objects: the kernel's writes land in ``state``)."""
    fields = {name: getattr(state, name) for name in FIELDS}
    arrays = GameArrays(*fields.values())
    arrays.fields = fields
    return arrays
