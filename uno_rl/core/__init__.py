"""uno_rl.core: the batched UNO engine.

``load_rules`` gives a validated :class:`Rules`; :mod:`.engine` resets, masks and steps
N games at once, on the engine :mod:`.backend` picks: the compiled one (:mod:`.compiled`,
numba) where it is installed, else the NumPy one (:mod:`.numpy_engine`, whose work is split
over :mod:`.deal`, :mod:`.piles`, :mod:`.legality`, :mod:`.masks`, :mod:`.card_moves`,
:mod:`.effects`, :mod:`.turns`, :mod:`.scoring` and :mod:`.sampling`, on the tables of
:mod:`.tables` and :mod:`.layout`); :mod:`.observe` encodes observations; :mod:`.reference`
is the readable one-game oracle both engines are tested against.

Conventions of the core's functions and shapes (used, not redefined, throughout):

========  ==============================================================================
name      meaning
========  ==============================================================================
``s``     the batched :class:`State` of N games (``state`` in public signatures)
``g``     (k,) int64 index array of distinct games of ``s`` (the games a helper acts on)
``seats`` (k,) int8 absolute seats (0 .. P-1), one per game of ``g``; ``seat`` one of them
``k``     the number of games in ``g`` (rows of a helper's arrays)
``N``     the number of games in the batch (``s.num_games``)
``P``     the number of players (``rules.players``, 2 .. 10)
``D``     the number of cards in the deck (``rules.deck_cards.size``)
``K``     card kinds of the rules' layout, ``rules.layout.num_kinds``: 54 classic, 75 extended
``A``     actions of the layout, ``rules.layout.num_actions``: 77 classic, 122 extended
``O``     observation values of the layout, ``rules.layout.obs_size``: 583 classic, 877
          extended
``hand``  (k, K) int8 card counts of the seat concerned in each game of ``g``
========  ==============================================================================

The rules' layout (:class:`~uno_rl.core.layout.Layout`, from the deck) is the one source of
K, A and O. The module-level sizes exported here (``NUM_ACTIONS``, ``OBS_SIZE``,
``NUM_KINDS``) are the classic layout's, kept for code written against the classic game; a
rules' own are ``rules.layout.num_actions``, ``.obs_size`` and ``.num_kinds``.
"""

from . import actions, cards, engine, observe, phases, rng
from .actions import action_name
from .engine import StepResult, legal_mask, reset, reset_games, sample_legal_actions, step
from .layout import CLASSIC, EXTENDED, Layout
from .rules import Rules, RulesError, available_presets, load_rules
from .state import State

#: The classic layout's number of actions (77); a rules' own is ``rules.layout.num_actions``.
NUM_ACTIONS: int = CLASSIC.num_actions
#: The classic layout's observation length (583); a rules' own is ``rules.layout.obs_size``.
OBS_SIZE: int = CLASSIC.obs_size
#: The classic layout's number of card kinds (54); a rules' own is ``rules.layout.num_kinds``.
NUM_KINDS: int = CLASSIC.num_kinds

__all__ = [
    "CLASSIC",
    "EXTENDED",
    "NUM_ACTIONS",
    "NUM_KINDS",
    "OBS_SIZE",
    "Layout",
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
