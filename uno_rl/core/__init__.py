"""uno_rl.core: the batched UNO engine (NumPy only).

``load_rules`` gives a validated :class:`Rules`; :mod:`.engine` resets, masks and steps
N games at once (its work is split over :mod:`.deal`, :mod:`.piles`, :mod:`.legality`,
:mod:`.masks`, :mod:`.play`, :mod:`.effects`, :mod:`.turns`, :mod:`.scoring` and
:mod:`.sampling`, on the tables of :mod:`.tables`); :mod:`.observe` encodes observations;
:mod:`.reference` is the readable one-game oracle the engine is tested against.
"""

from . import actions, cards, engine, observe, phases, rng
from .actions import NUM_ACTIONS, action_name
from .engine import StepResult, legal_mask, reset, reset_games, sample_legal_actions, step
from .observe_layout import OBS_SIZE
from .rules import Rules, RulesError, available_presets, load_rules
from .state import State

__all__ = [
    "NUM_ACTIONS",
    "OBS_SIZE",
    "Rules",
    "RulesError",
    "State",
    "StepResult",
    "action_name",
    "actions",
    "available_presets",
    "cards",
    "engine",
    "legal_mask",
    "load_rules",
    "observe",
    "phases",
    "reset",
    "reset_games",
    "rng",
    "sample_legal_actions",
    "step",
]
