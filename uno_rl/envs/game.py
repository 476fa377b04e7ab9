"""One game for the single-game envs: the thin facade shared by the AEC and Gymnasium envs.

:class:`SingleGame` holds one :class:`~uno_rl.core.scalar.ScalarGame` (the reference rules
with fast queries: at one game plain Python beats the batched engine's per-call NumPy
overhead, about 15 µs a decision against 100) and exposes who acts
(:attr:`SingleGame.actor`), the legal mask as a ``(77,) int8`` vector, one seat's
``(OBS_SIZE,) float32`` observation, and ``step(action)`` for one integer action. The
scalar game is held to the reference and the reference to the batched engine decision by
decision (``tests/core/test_scalar.py``, ``tests/core/test_differential.py``), so all three
play the same rules. The native vector env talks to the batched core directly.

Episodes:

* Without ``rules.match`` an episode is one round: once it is won (or truncated at
  ``max_turns``) :attr:`SingleGame.over` is true until the next :meth:`SingleGame.reset`.
* With ``rules.match`` an episode is a whole match: the engine deals each next round itself
  (a round's rewards still arrive in the :class:`~uno_rl.core.engine.StepResult` of the
  step that ended it) and :attr:`SingleGame.over` becomes true once the match is decided.

Randomness: :meth:`SingleGame.reset` draws the round's deal seed from an explicit
``numpy.random.Generator`` (the env's, seeded from ``reset(seed=...)``); everything random
inside the round is a pure function of that deal seed (see :mod:`uno_rl.core.rng`).

Bad input: :func:`check_action` rejects anything but one integer in ``[0, 77)`` with a
``TypeError`` / ``ValueError`` naming the value, and :meth:`SingleGame.step` rejects an
illegal action with a ``ValueError`` naming it, its meaning and the legal actions; the game
is left untouched.

This is the hot path of the AEC env: the legal mask is computed once per decision and
cached, and arrays handed out (mask, observation) are fresh or read-only, never a buffer
that a later step overwrites.
"""

from __future__ import annotations

import numpy as np

from uno_rl.core.actions import NUM_ACTIONS, action_name
from uno_rl.core.convert import to_state
from uno_rl.core.observe_layout import OBS_SIZE
from uno_rl.core.phases import OVER, PHASE_NAMES
from uno_rl.core.reference import StepOutcome
from uno_rl.core.rng import new_seeds
from uno_rl.core.rules import Rules
from uno_rl.core.scalar import ScalarGame
from uno_rl.core.state import State

__all__ = ["OBS_SIZE", "SingleGame", "check_action"]

#: (77,) int8 all-zero mask, read-only: the mask of anyone who is not to act.
NO_ACTIONS = np.zeros(NUM_ACTIONS, dtype=np.int8)
NO_ACTIONS.flags.writeable = False


def check_action(action) -> int:
    """The action as a Python ``int``, or a clear error.

    Accepted: a Python ``int`` (not ``bool``), a NumPy integer scalar, or a 0-d NumPy
    integer array, in ``[0, 77)``.

    Raises:
        TypeError: not an integer (``None``, ``bool``, ``float``, ``str``, float arrays, ...).
        ValueError: an array that is not 0-d, or an integer out of range.
    """
    if type(action) is int:  # the common case first
        a = action
    elif isinstance(action, np.integer):
        a = int(action)
    elif isinstance(action, np.ndarray):
        if action.shape != ():
            raise ValueError(
                f"action must be a single integer in [0, {NUM_ACTIONS}), got an array of "
                f"shape {action.shape}"
            )
        if not np.issubdtype(action.dtype, np.integer):
            raise TypeError(
                f"action must be an integer in [0, {NUM_ACTIONS}), got a 0-d array of "
                f"dtype {action.dtype}: {action!r}"
            )
        a = int(action)
    elif isinstance(action, int) and not isinstance(action, bool):
        a = int(action)  # an int subclass
    else:
        raise TypeError(
            f"action must be an integer in [0, {NUM_ACTIONS}), got "
            f"{type(action).__name__} {action!r}"
        )
    if not 0 <= a < NUM_ACTIONS:
        raise ValueError(f"action {a} is out of range [0, {NUM_ACTIONS})")
    return a


class SingleGame:
    """One UNO game (a round, or a match under ``rules.match``).

    PRIVILEGED: this object holds the whole game, hidden cards included (every hand, the
    draw pile, the deal seed). The envs keep it private and expose it only as their
    ``privileged_game``; what a seat may see is :meth:`observe` and :meth:`legal_mask`.

    Args:
        rules: the validated rule set (see :func:`uno_rl.core.load_rules`).

    Attributes:
        rules: the rule set.
        game: the :class:`~uno_rl.core.scalar.ScalarGame` being played (``None`` before the
            first :meth:`reset`). After editing it by hand call :meth:`invalidate`.
        deal_seed: the deal seed of the current round (``int``).
    """

    __slots__ = ("rules", "game", "deal_seed", "_mask")

    def __init__(self, rules: Rules):
        if not isinstance(rules, Rules):
            raise TypeError(f"rules must be a uno_rl.core.Rules, got {type(rules).__name__}")
        self.rules = rules
        self.game: ScalarGame | None = None
        self.deal_seed: int = 0
        self._mask: np.ndarray | None = None

    # ------------------------------------------------------------------ episode
    def reset(self, rng: np.random.Generator, deal_seed: int | None = None) -> None:
        """Deal a new round (a new match under ``rules.match``).

        Args:
            rng: explicit generator the deal seed is drawn from (one draw per reset).
            deal_seed: replay this deal instead (duplicate deals); ``rng`` is then unused.
        """
        if deal_seed is None:
            seed = int(new_seeds(rng, 1)[0])
        else:
            if isinstance(deal_seed, bool) or not isinstance(deal_seed, int | np.integer):
                raise TypeError(f"deal_seed must be an integer, got {deal_seed!r}")
            if not 0 <= int(deal_seed) < 2**64:
                raise ValueError(f"deal_seed must be in [0, 2**64), got {deal_seed}")
            seed = int(deal_seed)
        self.deal_seed = seed
        self.game = ScalarGame(self.rules, seed)
        self._mask = None

    def _require_game(self) -> ScalarGame:
        if self.game is None:
            raise RuntimeError("call reset() before using the game")
        return self.game

    @property
    def state(self) -> State | None:
        """A batched-core :class:`~uno_rl.core.state.State` copy of the game (N = 1), for
        rendering and reports (``None`` before the first :meth:`reset`); not a hot path."""
        return None if self.game is None else to_state([self.game])

    # ----------------------------------------------------------------- queries
    @property
    def actor(self) -> int:
        """Seat to act now (meaningless once :attr:`over`)."""
        return self._require_game().actor

    @property
    def phase(self) -> int:
        """Phase of the turn (:mod:`uno_rl.core.phases`); ``OVER`` once over."""
        return self._require_game().phase

    @property
    def phase_name(self) -> str:
        """Name of :attr:`phase`, e.g. ``'play'``."""
        return PHASE_NAMES[self.phase]

    @property
    def over(self) -> bool:
        """The episode is over: the round (single-round mode) or the match is decided."""
        return self._require_game().phase == OVER

    def legal_mask(self) -> np.ndarray:
        """(77,) int8 read-only: 1 for the actor's legal actions (all 0 once over).

        Computed once per decision; a new array after each step, so a mask you keep stays
        valid.
        """
        mask = self._mask
        if mask is None:
            game = self._require_game()
            mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
            if game.phase != OVER:
                mask[game.legal_actions()] = 1
            mask.flags.writeable = False
            self._mask = mask
        return mask

    def legal_actions(self) -> list[int]:
        """The legal actions as a sorted list of ints."""
        return np.flatnonzero(self.legal_mask()).tolist()

    def observe(self, seat: int) -> np.ndarray:
        """(OBS_SIZE,) float32: seat ``seat``'s own view (a fresh array; nothing hidden)."""
        game = self._require_game()
        if isinstance(seat, bool) or not isinstance(seat, int | np.integer):
            raise TypeError(f"seat must be an integer, got {seat!r}")
        if not 0 <= seat < self.rules.players:
            raise ValueError(f"seat must be in [0, {self.rules.players}), got {seat}")
        return game.observe(int(seat))

    def invalidate(self) -> None:
        """Forget the cached mask; call after editing :attr:`game` by hand."""
        self._mask = None

    # -------------------------------------------------------------------- step
    def step(self, action) -> StepOutcome:
        """Apply the actor's ``action``; returns what the step produced for this game.

        The :class:`~uno_rl.core.reference.StepOutcome` has ``rewards`` (a list of the ``P``
        per-seat rewards of this step, nonzero only when a round ends), ``round_over``,
        ``truncated``, ``match_over``, ``winner``, ``points``, ``decisions`` and the per-seat
        counters of a round that ended (``draw4_plays``, ``bluffs``, ``challenges``,
        ``challenges_won``, ``draw4_challenged``, ``bluffs_caught``).

        Raises:
            TypeError, ValueError: see :func:`check_action`.
            ValueError: the action is illegal now (the message names it, its meaning, the
                seat, the phase and the legal actions), or the episode is already over.
                The game is left unchanged.
        """
        a = check_action(action)
        game = self._require_game()
        phase = game.phase
        if phase == OVER:
            raise ValueError("the game is over; call reset() before stepping")
        mask = self.legal_mask()
        if not mask[a]:
            legal = ", ".join(f"{i} ({action_name(i)})" for i in np.flatnonzero(mask))
            raise ValueError(
                f"illegal action {a} ({action_name(a)}) for seat {game.actor} in "
                f"phase '{PHASE_NAMES[phase]}'; legal actions: {legal}"
            )
        self._mask = None
        return game.step(a)
