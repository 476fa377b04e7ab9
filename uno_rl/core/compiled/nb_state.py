"""The batched :class:`~uno_rl.core.state.State` as the structure the compiled kernel reads
and mutates in place: :func:`game_arrays` makes a :class:`GameArrays` holding the same
array objects (no copy; field names and dtypes as in ``State``, each indexed by game first).

A structure reference (numba's ``StructRef``) is passed to kernel functions as one pointer:
a named tuple of ~50 arrays is passed by value, which costs hundreds of nanoseconds in every
function that calls another one.
"""

from __future__ import annotations

import dataclasses

import numba
from numba.experimental import structref

from ..state import State
from .nb_struct import FieldsProxy, FieldsType, register

#: State's per-game array fields, in declaration order.
FIELDS = tuple(
    f.name for f in dataclasses.fields(State) if not f.name.startswith("_") and f.name != "rules"
)


@register
class GameArraysType(FieldsType):
    """The numba type of :class:`GameArrays`."""


class GameArrays(FieldsProxy):
    """The arrays of a batch of games, as the kernel sees them; Python reads them as
    attributes too."""


structref.define_proxy(GameArrays, GameArraysType, list(FIELDS))


@numba.njit(cache=True)
def _new_game_arrays(*fields):
    # Built in compiled code, cached on disk: the proxy's own constructor compiles afresh in
    # every process (seconds).
    return GameArrays(*fields)


def game_arrays(state: State) -> GameArrays:
    """The arrays of ``state`` (the same objects: the kernel's writes land in ``state``),
    kept on the state until one of its fields is replaced (:meth:`State.__setattr__`)."""
    arrays = state._compiled
    if arrays is None:
        fields = {name: getattr(state, name) for name in FIELDS}
        arrays = _new_game_arrays(*fields.values())
        arrays.fields = fields
        state._compiled = arrays
    return arrays
