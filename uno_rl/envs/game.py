"""One game for the single-game envs: the thin facade shared by the AEC and Gymnasium envs.

:class:`SingleGame` plays one game on the batched engine's :class:`~uno_rl.core.state.State`
(one game, N = 1) and exposes who acts (:attr:`SingleGame.actor`), the legal mask as an
``(A,) int8`` vector, one seat's ``(obs_size,) float32`` observation, and ``step(action)``
for one integer action, where ``A = rules.layout.num_actions`` and ``obs_size =
rules.layout.obs_size`` follow the deck (77 and 583 for a deck of classic cards, 122 and 877
for a deck with any card of rules specification §11: :mod:`uno_rl.core.layout`). The rules
are the engine's, so the single-game envs play exactly what the batched engine, the vector
env and the evaluator play.

Under the compiled engine (:mod:`uno_rl.core.backend`) a decision is one compiled call
(:func:`uno_rl.core.compiled.nb_session.session_step`): the action, the close of the step,
and the next actor's mask and observation together, since a PettingZoo or Gymnasium loop
reads them next. Under the NumPy engine each query is the batched API's at N = 1.
``tests/envs/test_fast_path.py`` holds both to the reference game
(:class:`~uno_rl.core.reference.ReferenceGame`) decision by decision.

Episodes:

* Without ``rules.match`` an episode is one round: once it is won (or truncated at
  ``max_turns``) :attr:`SingleGame.over` is true until the next :meth:`SingleGame.reset`.
* With ``rules.match`` an episode is a whole match: the engine deals each next round itself
  (a round's rewards still arrive in the :class:`~uno_rl.core.reference.StepOutcome` of the
  step that ended it) and :attr:`SingleGame.over` becomes true once the match is decided.

Randomness: :meth:`SingleGame.reset` draws the round's deal seed from an explicit
``numpy.random.Generator`` (the env's, seeded from ``reset(seed=...)``); everything random
inside the round is a pure function of that deal seed (see :mod:`uno_rl.core.rng`).

Bad input: :func:`check_action` rejects anything but one integer in ``[0, A)`` with a
``TypeError`` / ``ValueError`` naming the value and the valid range, and
:meth:`SingleGame.step` rejects an illegal action with a ``ValueError`` naming it, its
meaning (``layout.action_name``) and the legal actions; the game is left untouched.

Arrays handed out (mask, observation) are fresh or read-only, never a buffer that a later
step overwrites.
"""

from __future__ import annotations

from threading import get_ident
from types import SimpleNamespace

import numpy as np

from uno_rl.core import engine
from uno_rl.core.backend import compiled_engine
from uno_rl.core.convert import to_reference, to_state
from uno_rl.core.layout import CLASSIC
from uno_rl.core.observe import observe as observe_games
from uno_rl.core.phases import OVER, PHASE_NAMES
from uno_rl.core.reference import ReferenceGame, StepOutcome
from uno_rl.core.rng import new_seeds
from uno_rl.core.rules import Rules
from uno_rl.core.scoring import result_rows
from uno_rl.core.state import STAT_NAMES, State

__all__ = ["SingleGame", "check_action", "legal_text"]


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
        layout: the deck's :class:`~uno_rl.core.layout.Layout` (its actions and observation).
        deal_seed: the deal seed of the current round (``int``).
    """

    __slots__ = (
        "rules", "layout", "deal_seed", "_state", "_compiled", "_held", "_buffers", "_results",
        "_mask_rows", "_legal", "_known", "_mask", "_obs", "_seen_by", "_quiet",
    )  # fmt: skip

    def __init__(self, rules: Rules):
        if not isinstance(rules, Rules):
            raise TypeError(f"rules must be a uno_rl.core.Rules, got {type(rules).__name__}")
        self.rules = rules
        self.layout = rules.layout
        self.deal_seed: int = 0
        self._state: State | None = None
        self._compiled = None  # the compiled kernels under the compiled engine: _session_kernels()
        self._held = None  # (game arrays, thread id, kernels and arguments, rule tables)
        self._buffers = None  # the kernels' SessionBuffers, of the arrays below
        p = rules.players
        self._results = result_rows(p)  # the last step's result, as the kernel writes it
        # The actor's legal actions: a (1, A) bool row, as the kernels write it, seen as (A,) int8
        self._mask_rows = np.zeros((1, self.layout.num_actions), bool)
        self._legal = self._mask_rows[0].view(np.int8)
        self._known = False  # whether _legal holds this decision's
        self._mask: np.ndarray | None = None  # a read-only copy of _legal handed out, or None
        self._obs = np.zeros(self.layout.obs_size, np.float32)  # seat _seen_by's observation
        self._seen_by = -1  # the seat whose observation _obs holds; -1: none
        self._quiet = [0.0] * p

    # A copy (copy.deepcopy, pickle) finds the compiled kernels anew: they are not data.
    def __getstate__(self) -> dict:
        state = {name: getattr(self, name) for name in self.__slots__}
        state["_compiled"] = state["_held"] = state["_buffers"] = None
        del state["_legal"]
        return state

    def __setstate__(self, state: dict) -> None:
        for name, value in state.items():
            object.__setattr__(self, name, value)
        self._legal = self._mask_rows[0].view(np.int8)  # a view again, not a copy
        if self._state is not None:
            self._compiled = _session_kernels()

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
        seeds = np.array([seed], np.uint64)
        if self._state is None:
            self._state = engine.reset(self.rules, seeds)
        else:
            engine.reset_games(self._state, np.zeros(1, np.int64), seeds)
        self._compiled = _session_kernels()
        self.invalidate()

    def _require_state(self) -> State:
        if self._state is None:
            raise RuntimeError("call reset() before using the game")
        return self._state

    @property
    def started(self) -> bool:
        """Whether :meth:`reset` has dealt a game yet."""
        return self._state is not None

    @property
    def state(self) -> State | None:
        """A copy of the game as a batched-core :class:`~uno_rl.core.state.State` (N = 1),
        for rendering and reports (``None`` before the first :meth:`reset`); not a hot path."""
        return None if self._state is None else self._state.copy()

    @property
    def live_state(self) -> State:
        """PRIVILEGED: the :class:`~uno_rl.core.state.State` (N = 1) being played, not a
        copy. After editing it by hand call :meth:`invalidate`."""
        return self._require_state()

    @property
    def game(self) -> ReferenceGame | None:
        """PRIVILEGED: a copy of the game as a :class:`~uno_rl.core.reference.ReferenceGame`
        (every hand and the draw pile as lists; ``None`` before the first :meth:`reset`), for
        tests and reports: editing it changes nothing until it is assigned back here.
        Assigning a ``ReferenceGame`` of the same rules replaces the game being played."""
        return None if self._state is None else to_reference(self._state, 0)

    @game.setter
    def game(self, game: ReferenceGame) -> None:
        if not isinstance(game, ReferenceGame) or game.rules != self.rules:
            raise ValueError("the game must be a ReferenceGame of this game's rules")
        loaded = to_state([game])
        if self._state is None:
            self._state = loaded
        else:
            for name, array in self._state.arrays().items():
                array[...] = getattr(loaded, name)
        self._compiled = _session_kernels()
        self.invalidate()

    def invalidate(self) -> None:
        """Forget the cached mask and observation; call after editing :attr:`live_state`."""
        self._known = False
        self._mask = None
        self._seen_by = -1
        self._require_state().invalidate()

    # ----------------------------------------------------------------- queries
    @property
    def actor(self) -> int:
        """Seat to act now (meaningless once :attr:`over`)."""
        seat = self._seen_by  # the actor, where the kernels have written its observation
        return seat if seat >= 0 else int(self._require_state().actor[0])

    @property
    def phase(self) -> int:
        """Phase of the turn (:mod:`uno_rl.core.phases`); ``OVER`` once over."""
        return int(self._require_state().phase[0])

    @property
    def phase_name(self) -> str:
        """Name of :attr:`phase`, e.g. ``'play'``."""
        return PHASE_NAMES[self.phase]

    @property
    def over(self) -> bool:
        """The episode is over: the round (single-round mode) or the match is decided."""
        return self._require_state().phase[0] == OVER

    def legal_mask(self) -> np.ndarray:
        """(A,) int8 read-only: 1 for the actor's legal actions (all 0 once over).

        Computed once per decision; a new array after each step, so a mask you keep stays
        valid.
        """
        mask = self._mask
        if mask is None:
            mask = self._mask = self._legal_now().copy()
            mask.flags.writeable = False
        return mask

    def legal_mask_copy(self) -> np.ndarray:
        """(A,) int8: a fresh, writable copy of :meth:`legal_mask`."""
        return self._legal_now().copy()

    def view(self, seat: int) -> tuple[np.ndarray, np.ndarray]:
        """``(observation, mask)`` of ``seat``, both fresh arrays: :meth:`observe` and
        :meth:`legal_mask_copy` where ``seat`` is to act, else an all-zero mask."""
        legal = self._legal_now()  # under the compiled engine, the actor's observation too
        if seat == self._seen_by:
            return self._obs.copy(), legal.copy()
        observation = self.observe(seat)
        if seat == self.actor:
            return observation, legal.copy()
        return observation, np.zeros(self.layout.num_actions, np.int8)

    def _legal_now(self) -> np.ndarray:
        """The workspace holding this decision's legal mask (A,) int8, computed if need be."""
        legal = self._legal
        if not self._known:
            state = self._require_state()
            call = None if self._compiled is None else self._kernel_arguments()
            if call is not None:  # also the actor's observation, read next
                view, _, arguments = call
                self._seen_by = view(*arguments)
            elif state.phase[0] == OVER:
                legal[:] = 0
            else:
                legal[:] = engine.legal_mask(state)[0]
            self._known = True
        return legal

    def is_legal(self, action: int) -> bool:
        """Whether the ``int`` ``action`` is legal now (False once over or before reset)."""
        if not 0 <= action < self._legal.size or self._state is None:
            return False
        return bool((self._legal if self._known else self._legal_now())[action])

    def legal_actions(self) -> list[int]:
        """The legal actions as a sorted list of ints."""
        return np.flatnonzero(self.legal_mask()).tolist()

    def observe(self, seat: int) -> np.ndarray:
        """(obs_size,) float32: seat ``seat``'s own view (a fresh array; nothing hidden)."""
        if seat == self._seen_by and type(seat) is int:  # the actor's, written by the step
            return self._obs.copy()
        state = self._require_state()
        if isinstance(seat, bool) or not isinstance(seat, int | np.integer):
            raise TypeError(f"seat must be an integer, got {seat!r}")
        if not 0 <= seat < self.rules.players:
            raise ValueError(f"seat must be in [0, {self.rules.players}), got {seat}")
        if seat == self._seen_by:
            return self._obs.copy()
        return observe_games(state, int(seat))[0]

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
        if not (
            type(action) is int
            and self._known
            and 0 <= action < self._legal.size
            and self._legal[action]
        ):
            action = self._checked(action)
        return self.step_legal(action)

    def step_legal(self, action: int) -> StepOutcome:
        """:meth:`step` for an ``int`` action already checked to be legal now (with
        :meth:`is_legal`): nothing is checked again."""
        if self.play_legal(action):
            return self.outcome()
        return StepOutcome(self._quiet.copy())

    def play_legal(self, action: int) -> bool:
        """:meth:`step_legal` without its :class:`StepOutcome`: whether a round ended in
        this step, its outcome then being :meth:`outcome` (for environments that need it only
        then)."""
        self._mask = None
        if self._compiled is not None:
            held = self._held  # _kernel_arguments() inlined: this is the hot path
            if held is not None and held[0] is self._state._compiled and held[1] == get_ident():
                call = held[2]
            else:
                call = self._kernel_arguments()
            if call is not None:
                code = call[1](*call[2], action)
                self._seen_by = code >> 1
                return code & 1 == 1
        return self._numpy_play(action)

    def _kernel_arguments(self) -> tuple | None:
        """``(view kernel, step kernel, arguments)`` for this game in this thread: the
        kernels of :mod:`uno_rl.core.compiled.nb_session` and the addresses of the game's
        arrays, rule tables and buffers, held with the structures they point into; a step
        kernel takes the action after the arguments. None where a structure is of another
        type than those kernels read: the game then plays through the batched API (as under
        the NumPy engine) until its next reset."""
        held = self._held  # the arrays are cached on the state until a field is replaced
        if held is not None and held[0] is self._state._compiled and held[1] == get_ident():
            return held[2]
        kernels = self._compiled
        arrays, tables = kernels.game_arrays(self._state), kernels.thread_tables(self.rules)
        if self._buffers is None:
            self._buffers = kernels.session_buffers(self._results, self._mask_rows, self._obs)
        at = kernels.addresses(arrays, tables, self._buffers)
        if at is None:
            self._compiled = None
            return None
        call = (kernels.view_at, kernels.step_at, at)
        # the addresses point into the structures held here, with the thread they are for
        self._held = (arrays, get_ident(), call, tables)
        return call

    def _checked(self, action) -> int:
        """``action`` as an ``int`` legal now, or the error naming what is wrong."""
        layout = self.layout
        a = check_action(action, layout.num_actions)
        state = self._require_state()
        phase = int(state.phase[0])
        if phase == OVER:
            raise ValueError("the game is over; call reset() before stepping")
        mask = self.legal_mask()
        if not mask[a]:
            raise ValueError(
                f"illegal action {a} ({layout.action_name(a)}) for seat {self.actor} in "
                f"phase '{PHASE_NAMES[phase]}'; legal actions: {legal_text(layout, mask)}"
            )
        return a

    def outcome(self) -> StepOutcome:
        """The :class:`StepOutcome` of the last step, where it ended a round (read from the
        step's result arrays: valid until the next step)."""
        _, flags, winner, ints, net_points, stats = self._results
        w, p = int(winner[0]), self.rules.players
        if w < 0:  # truncated
            rewards = [0.0] * p
        elif self.rules.reward == "win-loss":  # as the reference computes it, in float64
            rewards = [1.0 if s == w else -1.0 / (p - 1) for s in range(p)]
        else:
            rewards = [float(points) for points in net_points[0].tolist()]
        outcome = StepOutcome(
            rewards=rewards,
            round_over=True,
            truncated=bool(flags[1, 0]),
            match_over=bool(flags[2, 0]),
            winner=w,
            points=int(ints[0, 0]),
            net_points=net_points[0].tolist() if w >= 0 else None,
            decisions=int(ints[1, 0]),
        )
        for row, name in enumerate(STAT_NAMES):
            setattr(outcome, name, stats[row, 0].tolist())
        return outcome

    def _numpy_play(self, action: int) -> bool:
        """:meth:`play_legal` through the NumPy engine's batched API at N = 1."""
        state = self._require_state()
        result = engine.step(state, np.array([action], np.int64), validate=False)
        self._known = False
        self._seen_by = -1
        if not result.round_over[0]:
            return False
        flags = self._results[1]
        flags[0, 0], flags[1, 0], flags[2, 0] = True, result.truncated[0], result.match_over[0]
        self._results[2][0] = result.winner[0]
        self._results[3][:, 0] = (result.points[0], result.decisions[0])
        self._results[4][0] = result.net_points[0]
        for row, name in enumerate(STAT_NAMES):
            self._results[5][row, 0] = getattr(result, name)[0]
        return True


def _session_kernels():
    """Under the compiled engine the single-game kernels
    (:mod:`uno_rl.core.compiled.nb_session`) and what finds their arguments
    (:func:`~uno_rl.core.compiled.nb_state.game_arrays`,
    :func:`~uno_rl.core.compiled.threads.thread_tables`: asked for at each call, both
    cached, since the tables' work arrays belong to a thread); None under the NumPy engine."""
    if compiled_engine() is None:
        return None
    from uno_rl.core.compiled import nb_session
    from uno_rl.core.compiled.nb_state import game_arrays
    from uno_rl.core.compiled.threads import thread_tables

    return SimpleNamespace(
        view_at=nb_session.view_at,
        step_at=nb_session.step_at,
        addresses=nb_session.addresses,
        session_buffers=nb_session.session_buffers,
        game_arrays=game_arrays,
        thread_tables=thread_tables,
    )
