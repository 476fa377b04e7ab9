"""One game for the single-game envs: the thin facade shared by the AEC and Gymnasium envs.

:class:`SingleGame` holds one :class:`FastGame`, a :class:`~uno_rl.core.scalar.ScalarGame`
(the reference rules with fast queries: at one game plain Python beats the batched engine's
per-call NumPy overhead, about 10 µs a decision against 100) with a faster step and
observation, and exposes who acts
(:attr:`SingleGame.actor`), the legal mask as an ``(A,) int8`` vector, one seat's
``(obs_size,) float32`` observation, and ``step(action)`` for one integer action, where
``A = rules.layout.num_actions`` and ``obs_size = rules.layout.obs_size`` follow the deck
(77 and 583 for a deck of classic cards, 122 and 877 for a deck with any card of rules
specification §11: :mod:`uno_rl.core.layout`). The fast paths below serve the classic layout; a
game of the extended layout runs the reference's own step and observation. The
scalar and fast games are held to the reference and the reference to the batched engine
decision by decision (``tests/core/test_scalar.py``, ``tests/envs/test_fast_path.py``,
``tests/core/test_differential.py``), so all of them play the same rules. The native vector env talks to the batched core directly.

Episodes:

* Without ``rules.match`` an episode is one round: once it is won (or truncated at
  ``max_turns``) :attr:`SingleGame.over` is true until the next :meth:`SingleGame.reset`.
* With ``rules.match`` an episode is a whole match: the engine deals each next round itself
  (a round's rewards still arrive in the :class:`~uno_rl.core.engine.StepResult` of the
  step that ended it) and :attr:`SingleGame.over` becomes true once the match is decided.

Randomness: :meth:`SingleGame.reset` draws the round's deal seed from an explicit
``numpy.random.Generator`` (the env's, seeded from ``reset(seed=...)``); everything random
inside the round is a pure function of that deal seed (see :mod:`uno_rl.core.rng`).

Bad input: :func:`check_action` rejects anything but one integer in ``[0, A)`` with a
``TypeError`` / ``ValueError`` naming the value and the valid range, and
:meth:`SingleGame.step` rejects an illegal action with a ``ValueError`` naming it, its
meaning (``layout.action_name``) and the legal actions; the game is left untouched.

This is the hot path of the AEC env: the legal actions are computed once per decision and
cached (:class:`FastGame`, which the step's own legality check reuses), the observation is
written as bytes and converted once (:meth:`FastGame.observe`, about 2.5 µs against 7 for
:meth:`ScalarGame.observe`), and arrays handed out (mask, observation) are fresh or
read-only, never a buffer that a later step overwrites. ``tests/envs/test_fast_path.py``
holds both to the reference game at every decision.
"""

from __future__ import annotations

import functools

import numpy as np

from uno_rl.core.actions import ACTION_CARD, ACTION_COLOR, DRAW
from uno_rl.core.cards import NUM_KINDS, WILD_DRAW_FOUR
from uno_rl.core.convert import to_state
from uno_rl.core.layout import CLASSIC
from uno_rl.core.observe_layout import OBS_SIZE, SLICES
from uno_rl.core.phases import DRAWN, OVER, PHASE_NAMES
from uno_rl.core.reference import ReferenceGame, StepOutcome
from uno_rl.core.rng import new_seeds
from uno_rl.core.rules import Rules
from uno_rl.core.scalar import ScalarGame
from uno_rl.core.state import State

__all__ = ["OBS_SIZE", "FastGame", "SingleGame", "check_action", "legal_text", "no_actions"]


@functools.cache
def no_actions(num_actions: int) -> np.ndarray:
    """(A,) int8 all-zero read-only mask, one per action count: the mask of anyone who is
    not to act."""
    mask = np.zeros(num_actions, dtype=np.int8)
    mask.flags.writeable = False
    return mask


# FastGame's observation is a classic-only fast path (the extended layout takes the
# reference's), sized by the classic layout's module constants: measured on mid-round games
# of 4 players under the official rules (median of 7 runs), 2.4x faster than the reference's
# general observation.
_NO_BYTES = bytes(OBS_SIZE)

# Start offsets of the observation pieces (see uno_rl.core.observe_layout).
_HAND = SLICES["hand"].start
_TOP = SLICES["top_card"].start
_COLOR = SLICES["color"].start
_DIRECTION = SLICES["direction"].start
_PHASE = SLICES["phase"].start
_ACTOR = SLICES["actor"].start
_PENDING = SLICES["pending_draw"].start
_SIZES = SLICES["hand_sizes"].start
_PLAYERS = SLICES["players"].start
_DISCARD = SLICES["discard"].start
_PILE = SLICES["draw_pile_size"].start
_DRAWN = SLICES["drawn_card"].start
_PREV_COLOR = SLICES["previous_color"].start
_DRAW4_PLAYER = SLICES["draw4_player"].start
_REVEALED = SLICES["revealed_hand"].start
_REVEALED_SEAT = SLICES["revealed_seat"].start
_SCORES = SLICES["scores"].start
_VOID_COLOR = SLICES["void_color"].start
_VOID_SYMBOL = SLICES["void_symbol"].start
_PLAYED = SLICES["played_colors"].start
_NAMED = SLICES["named_color"].start
#: Classic symbols are their own ``void_symbol`` slots (0 .. 12, every colored symbol).
_SYMBOLS = (SLICES["void_symbol"].stop - _VOID_SYMBOL) // 9
_PROGRESS = SLICES["progress"].start

# The action tables as Python lists: indexing a list beats indexing a NumPy array.
_ACTION_CARD: list[int] = ACTION_CARD.tolist()
_ACTION_COLOR: list[int] = ACTION_COLOR.tolist()


class FastGame(ScalarGame):
    """A :class:`ScalarGame` with a faster step and observation, for the single-game envs.

    :meth:`legal_actions` caches its list until the next :meth:`step`, so the legality check
    inside ``step`` reuses the list the env's mask was built from. Do not mutate the list;
    after editing the game by hand call :meth:`invalidate`. :meth:`step` takes the play and
    draw branches itself; :meth:`observe` writes bytes and converts them once.
    """

    _legal: list[int] | None = None

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._new_workspace()

    def _new_workspace(self) -> None:
        # Workspace of observe(): (OBS_SIZE,) bytes and a uint8 view of them.
        self._obs_bytes = bytearray(OBS_SIZE)
        self._obs_view = np.frombuffer(self._obs_bytes, np.uint8)

    # A copy (copy.deepcopy, pickle) gets a workspace of its own: a copied view would no
    # longer look at the copied bytes.
    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        del state["_obs_bytes"], state["_obs_view"]
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._new_workspace()

    def legal_actions(self) -> list[int]:
        legal = self._legal
        if legal is None:
            legal = self._legal = super().legal_actions()
        return legal

    def invalidate(self) -> None:
        """Forget the cached legal actions (after editing the game by hand)."""
        self._legal = None

    def step(self, action: int) -> StepOutcome:
        """:meth:`ReferenceGame.step`, with its two hot branches (play a card, draw) taken
        here without its per-call type checks and NumPy table lookups; everything else
        (other actions, a non-``int`` action, an illegal one, a finished game) goes to the
        reference's own ``step``, checks and errors included."""
        if type(action) is int and self.phase != OVER and action in self.legal_actions():
            return self.step_legal(action)
        outcome = super().step(action)  # an illegal action raises before any change
        self._legal = None
        return outcome

    def step_legal(self, action: int) -> StepOutcome:
        """:meth:`step` for an ``int`` action already checked to be in
        :meth:`legal_actions` (the env's own check); nothing is checked again here."""
        if self.layout.extended:  # the reference's own step
            outcome = super().step(action)
            self._legal = None
            return outcome
        if action < DRAW:  # 0 ... 59: play a card (a wild naming its color)
            self._play(self.actor, _ACTION_CARD[action], _ACTION_COLOR[action], self.phase)
        elif action == DRAW:
            self._draw_action(self.actor)
        else:  # the reference's own step for every other action
            outcome = super().step(action)
            self._legal = None
            return outcome
        self._legal = None
        return self._close_step()

    def observe(self, seat: int) -> np.ndarray:
        """(obs_size,) float32: seat ``seat``'s observation, equal to the reference's.

        A fresh array each call. Every value but the direction, the pending draws, the
        scores and the progress is a small non-negative integer (counts of at most 108
        cards, one-hots), so they are written into this game's byte workspace and converted
        to float32 in one call; the rest is set afterwards. ``seat`` is not checked here.
        """
        if self.layout.extended:
            return ReferenceGame.observe(self, seat)
        p = self.num_players
        hands = self.hands
        buf = self._obs_bytes
        buf[:] = _NO_BYTES
        buf[_HAND : _HAND + NUM_KINDS] = hands[seat]
        buf[_DISCARD : _DISCARD + NUM_KINDS] = self.discard
        top, phase, color = self.top, self.phase, self.color
        buf[_TOP + top] = 1
        buf[_PHASE + phase] = 1
        buf[_PLAYERS + p - 2] = 1
        if color >= 0:
            buf[_COLOR + color] = 1
        if phase != OVER:
            buf[_ACTOR + (self.actor - seat) % p] = 1
        buf[_PILE] = len(self.pile)
        for relative in range(p):
            buf[_SIZES + relative] = sum(hands[(seat + relative) % p])
        if phase == DRAWN and self.actor == seat:
            buf[_DRAWN + self.drawn] = 1
        if top == WILD_DRAW_FOUR:
            buf[_PREV_COLOR + self.prev_color] = 1
            buf[_DRAW4_PLAYER + (self.draw4_player - seat) % p] = 1
        if self.reveal_viewer == seat:
            buf[_REVEALED : _REVEALED + NUM_KINDS] = self.revealed
            buf[_REVEALED_SEAT + (self.reveal_target - seat) % p] = 1
        void_color, void_symbol, named = self.void_color, self.void_symbol, self.named
        for block in range(p - 1):
            other = (seat + 1 + block) % p
            if void_color[other] >= 0:
                buf[_VOID_COLOR + 4 * block + void_color[other]] = 1
            if void_symbol[other] >= 0:
                buf[_VOID_SYMBOL + _SYMBOLS * block + void_symbol[other]] = 1
            if named[other] >= 0:
                buf[_NAMED + 4 * block + named[other]] = 1
        direction = self.direction
        if direction > 0:
            buf[_DIRECTION] = 1
        obs = self._obs_view.astype(np.float32)
        if direction < 0:
            obs[_DIRECTION] = direction
        if self.pending:
            obs[_PENDING] = self.pending
        played = self.played  # counts can pass 255 in a long round: written as floats
        for block in range(p - 1):
            obs[_PLAYED + 5 * block : _PLAYED + 5 * block + 5] = played[(seat + 1 + block) % p]
        rules = self.rules
        obs[_PROGRESS] = self.turn / rules.max_turns
        scores = self.scores
        if any(scores):
            target = rules.match_target
            for s in range(p):
                obs[_SCORES + (s - seat) % p] = scores[s] / target
        return obs


def check_action(action, num_actions: int = CLASSIC.num_actions) -> int:
    """The action as a Python ``int``, or a clear error.

    Accepted: a Python ``int`` (not ``bool``), a NumPy integer scalar, or a 0-d NumPy
    integer array, in ``[0, num_actions)`` (the layout's action count: 77 for a classic
    deck, 122 for an extended one).

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
                f"action must be a single integer in [0, {num_actions}), got an array of "
                f"shape {action.shape}"
            )
        if not np.issubdtype(action.dtype, np.integer):
            raise TypeError(
                f"action must be an integer in [0, {num_actions}), got a 0-d array of "
                f"dtype {action.dtype}: {action!r}"
            )
        a = int(action)
    elif isinstance(action, int) and not isinstance(action, bool):
        a = int(action)  # an int subclass
    else:
        raise TypeError(
            f"action must be an integer in [0, {num_actions}), got "
            f"{type(action).__name__} {action!r}"
        )
    if not 0 <= a < num_actions:
        raise ValueError(f"action {a} is out of range [0, {num_actions})")
    return a


def legal_text(layout, mask: np.ndarray) -> str:
    """``'60 (draw), 61 (pass)'``: the legal actions of ``mask`` (A,) named by ``layout``."""
    return ", ".join(f"{i} ({layout.action_name(i)})" for i in np.flatnonzero(mask))


class SingleGame:
    """One UNO game (a round, or a match under ``rules.match``).

    PRIVILEGED: this object holds the whole game, hidden cards included (every hand, the
    draw pile, the deal seed). The envs keep it private and expose it only as their
    ``privileged_game``; what a seat may see is :meth:`observe` and :meth:`legal_mask`.

    Args:
        rules: the validated rule set (see :func:`uno_rl.core.load_rules`).

    Attributes:
        rules: the rule set.
        game: the :class:`FastGame` being played (``None`` before the
            first :meth:`reset`). After editing it by hand call :meth:`invalidate`.
        deal_seed: the deal seed of the current round (``int``).
    """

    __slots__ = ("rules", "layout", "game", "deal_seed", "_mask", "_none")

    def __init__(self, rules: Rules):
        if not isinstance(rules, Rules):
            raise TypeError(f"rules must be a uno_rl.core.Rules, got {type(rules).__name__}")
        self.rules = rules
        #: The deck's :class:`~uno_rl.core.layout.Layout` (its actions and observation).
        self.layout = rules.layout
        self._none = no_actions(self.layout.num_actions)
        self.game: FastGame | None = None
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
        self.game = FastGame(self.rules, seed)
        self._mask = None

    def _require_game(self) -> FastGame:
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
        """(A,) int8 read-only: 1 for the actor's legal actions (all 0 once over).

        Computed once per decision; a new array after each step, so a mask you keep stays
        valid.
        """
        mask = self._mask
        if mask is None:
            game = self._require_game()
            if game.phase == OVER:
                mask = self._none
            else:
                buf = bytearray(self.layout.num_actions)
                for a in game.legal_actions():
                    buf[a] = 1
                mask = np.frombuffer(bytes(buf), np.int8)  # read-only: it wraps bytes
            self._mask = mask
        return mask

    def is_legal(self, action: int) -> bool:
        """Whether the ``int`` ``action`` is legal now (False once over or before reset)."""
        game = self.game
        return game is not None and game.phase != OVER and action in game.legal_actions()

    def legal_actions(self) -> list[int]:
        """The legal actions as a sorted list of ints."""
        return np.flatnonzero(self.legal_mask()).tolist()

    def observe(self, seat: int) -> np.ndarray:
        """(obs_size,) float32: seat ``seat``'s own view (a fresh array; nothing hidden)."""
        game = self._require_game()
        if isinstance(seat, bool) or not isinstance(seat, int | np.integer):
            raise TypeError(f"seat must be an integer, got {seat!r}")
        if not 0 <= seat < self.rules.players:
            raise ValueError(f"seat must be in [0, {self.rules.players}), got {seat}")
        return game.observe(int(seat))

    def invalidate(self) -> None:
        """Forget the cached mask and legal actions; call after editing :attr:`game` by hand."""
        self._mask = None
        if isinstance(self.game, FastGame):
            self.game.invalidate()

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
        game = self.game
        if (
            type(action) is int
            and game is not None
            and game.phase != OVER
            and action in game.legal_actions()
        ):  # the hot path: nothing to report
            self._mask = None
            return game.step_legal(action)
        layout = self.layout
        a = check_action(action, layout.num_actions)
        game = self._require_game()
        phase = game.phase
        if phase == OVER:
            raise ValueError("the game is over; call reset() before stepping")
        mask = self.legal_mask()
        if not mask[a]:
            raise ValueError(
                f"illegal action {a} ({layout.action_name(a)}) for seat {game.actor} in "
                f"phase '{PHASE_NAMES[phase]}'; legal actions: {legal_text(layout, mask)}"
            )
        self._mask = None
        return game.step(a)
