"""One game played with one compiled call a decision: the kernel behind
:class:`uno_rl.envs.game.SingleGame`.

At one game a call's fixed cost outweighs the rules' work: the batched API makes three calls
a decision (the mask, the step, the observation), each with Python around it and a dispatch
that checks the type of every argument (about half a microsecond for each structure).
:func:`step_at` makes one call: it applies the action to game 0, closes the step, and writes
the next actor's legal mask and observation, which is what a PettingZoo or Gymnasium loop
reads next. Its arguments are the addresses of three structures (:func:`addresses`): the
game's arrays, the rule tables and the session's :class:`SessionBuffers`; an integer costs a
tenth of a structure or an array to pass.

:class:`SessionBuffers` holds the step's result arrays, those of
:class:`~uno_rl.core.scoring.StepResult` with one row (:mod:`.nb_play`): ``rewards`` (1, P)
float32, ``flags`` (3, 1) bool, ``winner`` (1,) int8, ``ints`` (2, 1) int32, ``net_points``
(1, P) int32, ``stats`` (6, 1, P) int32; the actor's legal mask ``mask`` (1, A) bool (the
batched engine's mask of one game: :func:`~.nb_masks.legal_masks` writes it) and observation
``obs`` (O,) float32; and ``games`` (1,) int64, the game's index 0.
"""

from __future__ import annotations

import numba
import numpy as np
from numba.experimental import structref

from ..phases import OVER
from ..rules import load_rules
from ..scoring import result_rows
from ..state import State
from .nb_jit import batch
from .nb_masks import legal_masks
from .nb_observe import observe_into
from .nb_play import apply_action, close_step
from .nb_rules import build_rule_tables
from .nb_state import game_arrays
from .nb_struct import FieldsProxy, FieldsType, borrow, borrowed_at, data_address, register, unowned

__all__ = [
    "SessionBuffers",
    "addresses",
    "session_buffers",
    "step_at",
    "view_at",
]

#: SessionBuffers' fields, in order.
BUFFER_FIELDS = (
    "rewards", "flags", "winner", "ints", "net_points", "stats", "mask", "obs", "games",
)  # fmt: skip


@register
class SessionBuffersType(FieldsType):
    """The numba type of :class:`SessionBuffers`."""


class SessionBuffers(FieldsProxy):
    """One game's result arrays, legal mask and observation, as the kernel sees them; Python
    reads them as attributes (the same arrays)."""


structref.define_proxy(SessionBuffers, SessionBuffersType, list(BUFFER_FIELDS))


@numba.njit(cache=True)
def _new_buffers(*fields):
    # Compiled once and cached on disk, unlike the proxy's own constructor.
    return SessionBuffers(*fields)


def session_buffers(results: tuple, mask: np.ndarray, obs: np.ndarray) -> SessionBuffers:
    """:class:`SessionBuffers` holding these arrays (the same arrays: the kernel's writes land
    in them): ``results`` the six result arrays in :data:`BUFFER_FIELDS` order, ``mask``
    (1, A) bool, ``obs`` (O,) float32."""
    games = np.zeros(1, np.int64)
    fields = dict(zip(BUFFER_FIELDS, (*results, mask, obs, games), strict=True))
    buffers = _new_buffers(*fields.values())
    buffers.fields = fields
    return buffers


#: The game's index, an int64: a literal 0 would make numba compile every function it reaches
#: once more, for that constant (seconds of a first compilation).
_GAME = np.int64(0)

_RULES = load_rules("official")
#: The structure types every game's arrays, rule set's tables and game's buffers have.
ARRAYS_TYPE = numba.typeof(game_arrays(State.empty(_RULES, 1)))
TABLES_TYPE = numba.typeof(build_rule_tables(_RULES))
BUFFERS_TYPE = numba.typeof(
    session_buffers(result_rows(2), np.zeros((1, 1), np.bool_), np.zeros(1, np.float32))
)
_arrays_at = borrowed_at(ARRAYS_TYPE)
_tables_at = borrowed_at(TABLES_TYPE)
_buffers_at = borrowed_at(BUFFERS_TYPE)


@numba.njit(cache=True)
def _address(struct):
    return data_address(struct)


def addresses(arrays, tables, buffers) -> tuple[int, int, int] | None:
    """The addresses of ``arrays`` (:func:`~.nb_state.game_arrays`), ``tables``
    (:func:`~.threads.thread_tables`) and ``buffers`` (:func:`session_buffers`) for
    :func:`step_at` and :func:`view_at`, or None where one is not of the type those kernels
    read. The caller keeps the three structures alive for as long as it uses the addresses."""
    types_now = (numba.typeof(arrays), numba.typeof(tables), numba.typeof(buffers))
    if types_now != (ARRAYS_TYPE, TABLES_TYPE, BUFFERS_TYPE):
        return None
    return _address(arrays), _address(tables), _address(buffers)


@batch
def session_view(a, t, mask, obs, games):
    """Write the legal mask ((1, A) bool, all False once over) of the player to act in game 0
    into ``mask`` and its observation ((O,) float32) into ``obs`` (``games``: (1,) int64
    zero); returns that seat (int64), or -1 once the game is over (``obs`` is then left as it
    was)."""
    a, t = borrow(a), borrow(t)
    if a.phase[0] == OVER:
        mask[0, :] = False
        return -1
    legal_masks(a, t, games, mask)
    seat = np.int64(a.actor[0])
    observe_into(a, t, _GAME, seat, obs)
    return seat


@batch
def session_step(a, t, action, rewards, flags, winner, ints, net_points, stats, mask, obs, games):
    """Apply ``action`` (int64, legal: not checked here) in game 0 and close the step into the
    result arrays (cleared first), then :func:`session_view` into ``mask`` and ``obs``.

    Returns the seat whose mask and observation were written (-1 once the game is over),
    as ``2 * seat + ended`` (``ended``: 1 if a round ended in this step, else 0)."""
    rewards, flags, winner = unowned(rewards), unowned(flags), unowned(winner)
    ints, net_points, stats = unowned(ints), unowned(net_points), unowned(stats)
    rewards[:] = 0.0
    flags[:] = False
    winner[0] = -1
    ints[:] = 0
    net_points[:] = 0
    stats[:] = 0
    b, u = borrow(a), borrow(t)
    apply_action(b, u, _GAME, action)
    close_step(b, u, _GAME, _GAME, rewards, flags, winner, ints, net_points, stats)
    seat = session_view(b, u, mask, obs, games)
    return 2 * seat + (1 if flags[0, 0] else 0)


@batch
def view_at(a_address, t_address, b_address):
    """:func:`session_view` of the structures at these :func:`addresses`, into the buffers'
    ``mask`` and ``obs``."""
    b = _buffers_at(b_address)
    return session_view(_arrays_at(a_address), _tables_at(t_address), b.mask, b.obs, b.games)


@batch
def step_at(a_address, t_address, b_address, action):
    """:func:`session_step` of the structures at these :func:`addresses`, into the
    buffers."""
    b = _buffers_at(b_address)
    return session_step(_arrays_at(a_address), _tables_at(t_address), action, b.rewards,
                        b.flags, b.winner, b.ints, b.net_points, b.stats, b.mask, b.obs,
                        b.games)  # fmt: skip
