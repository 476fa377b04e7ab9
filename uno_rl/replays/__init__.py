"""Replays: record a game, save it as JSON, load it back and play it again exactly.

* :mod:`.format`: the file format (:class:`Replay`, :func:`save`, :func:`load`).
* :mod:`.rerun`: re-simulation on the engine (:func:`steps`, :func:`simulate`,
  :func:`verify`) and the :class:`Outcome` of a state.
* :mod:`.record`: :func:`play_game` drives one game with agents or a person and
  :class:`GameRecorder` records it.
* :mod:`.batch`: :class:`ActionLog`, the per-slot action buffers of batched play loops.

The command line viewer is ``python -m uno_rl.replay FILE``.
"""

from .format import Outcome, Replay, ReplayError, Violation, from_dict, load, save, to_dict
from .record import AgentSeat, GameRecorder, play_game
from .rerun import Decision, deal, outcome_of, simulate, steps, verify

__all__ = [
    "AgentSeat",
    "Decision",
    "GameRecorder",
    "Outcome",
    "Replay",
    "ReplayError",
    "Violation",
    "deal",
    "from_dict",
    "load",
    "outcome_of",
    "play_game",
    "save",
    "simulate",
    "steps",
    "to_dict",
    "verify",
]
