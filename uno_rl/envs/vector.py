"""A native Gymnasium vector env: N games of one learner against opponents, in lockstep.

:class:`UnoVectorEnv` is a :class:`gymnasium.vector.VectorEnv` over one batched core
:class:`~uno_rl.core.state.State` of ``num_envs`` games (it does not wrap single envs).
In every game one seat belongs to the learner (``learner_seat``, default 0, or
``"random"``: drawn per game and episode); the opponents play every other seat
automatically. Each :meth:`~UnoVectorEnv.step` applies one learner action per game, then
lets the opponents act, a batch at a time (a Python loop over opponent decisions, never
over games), until every game waits for its learner again. Registered as the
``vector_entry_point`` of ``uno_rl/Uno-v1``::

    envs = gymnasium.make_vec("uno_rl/Uno-v1", num_envs=4096, vectorization_mode="vector_entry_point")
    obs, info = envs.reset(seed=0)
    actions = uno_rl.core.sample_legal_actions(info["action_mask"], rng)
    obs, rewards, terminated, truncated, info = envs.step(actions)

Spaces follow the deck (``deck=`` like any rule; :attr:`UnoVectorEnv.layout`):
``single_observation_space`` is the learner's view, a ``Box`` of ``(obs_size,)`` float32
(:func:`uno_rl.envs.uno_v1.observation_bounds`); ``single_action_space`` is
``Discrete(A)``; ``observation_space`` and ``action_space`` are their ``batch_space``
(``Box (N, obs_size)`` and ``MultiDiscrete([A] * N)``). A deck of classic cards has the
classic layout (``obs_size`` 583, ``A`` 77: :mod:`uno_rl.core.observe_layout`,
:mod:`uno_rl.core.actions`), a deck with any card of rules specification §11 the extended one
(877 and 122: the tables of :mod:`uno_rl.core.layout`).

Infos: ``info["action_mask"]`` is an ``(N, A)`` bool array on every reset and step (with
``info["_action_mask"]``, all True, after Gymnasium's ``_key`` convention), and
``info["learner_seat"]`` ``(N,)`` the learner's seat in each game. Rewards are float32
``(N,)``, ``terminated`` and ``truncated`` bool ``(N,)``.

Episodes and rewards (the same as :class:`uno_rl.envs.gym_env.UnoEnv`):

* An episode is one round, or one match under ``match=true``. ``terminated`` when it is
  won; ``truncated`` when the core truncates the round at ``max_turns`` (a draw, reward 0;
  in a match a truncated round is just a drawn round and the match goes on).
* The reward of a step is the learner's share of every round that ended during it (its own
  decision and the opponents' that followed): nonzero only when a round ends.
* An episode that ends before the learner's first decision (the opponents win at once,
  e.g. with ``hand_size=1``) is not an episode of the learner: the game is dealt again,
  and :attr:`UnoVectorEnv.skipped_deals` counts these. In a match, rounds that end before
  the learner's first decision pay their reward with that first decision's step.

Autoreset: ``metadata["autoreset_mode"]`` is ``AutoresetMode.NEXT_STEP``, exactly as
Gymnasium 1.0 - 1.2 define it (and as ``CartPoleVectorEnv`` does): the step that ends a
game returns its final observation with ``terminated`` or ``truncated`` True; on the next
step that game's action is ignored (it is still checked for type and range, not for
legality), the game is dealt again and its first observation is returned with reward 0 and
``terminated = truncated = False``. NEXT_STEP is the only mode Gymnasium 1.0 knows, its
default, and the mode the vector observation wrappers of Gymnasium 1.1 - 1.2 require. In
the step that ends a game its ``action_mask`` row is all True: the next action of that game
is ignored, so any action is accepted (and masked samplers never see an empty row);
``info["learner_seat"]`` there is still the seat of the episode that ended. (On Gymnasium
1.0, which has no ``AutoresetMode``, the metadata holds the string ``"NextStep"``.)

Speed: a learner step costs about 1.9 core decisions with two players (the learner's and
the opponents' until its next turn) plus one observation and one legal mask per game. The
opponents' decisions run as a shrinking series of batched steps (each chain of skips and
drawn cards adds one), so the fixed cost per engine call matters as much as the cost per
game. ``python -m uno_rl.bench --rows vector`` measures it (random legal play on both sides).

Opponents (:mod:`uno_rl.envs.opponents`): ``None`` (the default, ``"random-playable"``: a
random playable card, drawing only when it must), an agent name or spec string
(``"color-first"``, ``"color-first:bluff=0.3"``, ``"ppo-official-2p"``, resolved by
:func:`uno_rl.agents.make_agent` for the env's rules), an :class:`~uno_rl.agents.Agent` or a
batched callable for every opponent seat; a list of ``P - 1`` of those, ``opponents[i]``
sitting ``i + 1`` seats clockwise of the learner; or ``{"pool": [...]}``, from which each
opponent seat of each game's episode draws one entry from the env's generator
(:meth:`UnoVectorEnv.opponents_of` tells a game's current ones). A batched opponent is called as
``opponent(observations, masks, rng) -> actions`` with ``observations`` ``(k, obs_size)``
float32 (each acting seat's own view), ``masks`` ``(k, A)`` bool, the env's
``numpy.random.Generator``, and returns ``(k,)`` integer legal actions. An opponent with an
attribute ``needs_observation = False`` (like :func:`random_opponent`) gets ``None`` instead
of the observations, which saves encoding them. A wrong shape, type or an illegal action
raises ``ValueError`` / ``TypeError`` naming the opponent, the game and the action.

Seeding: ``reset(seed=...)`` seeds the env's generator (``self.np_random``); deal seeds,
random learner seats and the opponents' randomness all come from it, so the same seed and
the same learner actions replay the same games.

Hidden information: observations and ``info`` hold only what each learner seat may see
(no other hand, not the draw pile, no deal seed). The batched core state with every hand,
the draw piles and the deal seeds is :attr:`UnoVectorEnv.privileged_state`, *privileged*:
for debugging and tests, never for the learner (nor are ``np_random`` and
``np_random_seed``, which draw every future deal).

Bad input raises at construction (unknown preset or rules key, player count outside 2 to
10: :class:`uno_rl.core.RulesError`; bad ``num_envs``, ``learner_seat`` or ``opponents``:
``TypeError`` / ``ValueError``, an unknown agent :class:`~uno_rl.agents.AgentError`) or at the call (actions of the wrong type: ``TypeError``;
wrong shape, out of range or illegal: ``ValueError`` naming the game index, the action and
the legal actions). Nothing is changed by a rejected step. An opponent's bad action is
found in the middle of a step (the error names the opponent, the game and the action);
reset the env after it.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.error import ResetNeeded
from gymnasium.vector.utils import batch_space

from uno_rl.core import engine
from uno_rl.core.engine import sample_legal_actions
from uno_rl.core.observe import observe
from uno_rl.core.phases import OVER
from uno_rl.core.rng import new_seeds
from uno_rl.core.rules import Rules
from uno_rl.core.state import State

from .env_checks import check_learner_seat, checked_actions, illegal_action_error, load_env_rules
from .game import legal_text
from .opponents import resolve_opponents
from .uno_v1 import observation_bounds

try:  # Gymnasium >= 1.1; 1.0 has no enum (and only next-step autoreset)
    from gymnasium.vector import AutoresetMode

    _NEXT_STEP: Any = AutoresetMode.NEXT_STEP
except ImportError:  # pragma: no cover - gymnasium 1.0
    _NEXT_STEP = "NextStep"

__all__ = [
    "BatchedOpponent",
    "UnoVectorEnv",
    "checked_actions",
    "illegal_action_error",
    "load_env_rules",
    "random_opponent",
]

#: ``opponent(observations (k, obs_size) float32 | None, masks (k, A) bool, rng) -> (k,) ints``
BatchedOpponent = Callable[[np.ndarray | None, np.ndarray, np.random.Generator], np.ndarray]

#: Most games the core steps at once.
MAX_ENVS = 1_000_000


def random_opponent(
    observations: np.ndarray | None, masks: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """Batched opponent: a uniformly random legal action per game (ignores observations)."""
    return sample_legal_actions(masks, rng)


random_opponent.needs_observation = False  # type: ignore[attr-defined]


class UnoVectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` games of UNO, one learner seat each, over one batched core State.

    Args:
        num_envs: games in lockstep (1 to 1,000,000).
        preset: preset name, path of a preset TOML file, or a :class:`~uno_rl.core.Rules`.
        players: number of players (2 to 10); ``None`` keeps the preset's.
        learner_seat: the learner's seat in every game, or ``"random"`` (drawn per game and
            episode from the env's generator).
        opponents: ``None`` (``"random-playable"``), an agent name or spec, an Agent, a
            batched callable, a list of ``P - 1`` of those, or ``{"pool": [...]}`` (see the
            module docstring).
        render_mode: must be ``None`` (no rendering for the batch).
        **rule_overrides: rule switches applied on top of the preset.

    The module docstring documents episodes, rewards, autoreset and bad input.
    """

    metadata = {"render_modes": [], "autoreset_mode": _NEXT_STEP}

    def __init__(
        self,
        num_envs: int = 1,
        preset: str | os.PathLike[str] | Rules = "official",
        players: int | None = None,
        learner_seat: int | str = 0,
        opponents: Any = None,
        render_mode: str | None = None,
        **rule_overrides: Any,
    ):
        if isinstance(num_envs, bool) or not isinstance(num_envs, int | np.integer):
            raise TypeError(
                f"num_envs must be an int in [1, {MAX_ENVS}], got {type(num_envs).__name__} "
                f"{num_envs!r}"
            )
        if not 1 <= int(num_envs) <= MAX_ENVS:
            raise ValueError(f"num_envs must be in [1, {MAX_ENVS}], got {num_envs}")
        if render_mode is not None:
            raise ValueError(
                f"UnoVectorEnv does not render: render_mode must be None, got {render_mode!r}"
            )
        self.rules: Rules = load_env_rules(preset, players, rule_overrides)
        n, p = int(num_envs), self.rules.players
        self.num_envs = n
        self.render_mode = None
        self._fixed_seat = check_learner_seat(learner_seat, p)
        self.learner_seat = learner_seat
        plan = resolve_opponents(opponents, self.rules)
        self._agents = plan.agents  # distinct opponents
        self._pool = None if plan.pool is None else np.asarray(plan.pool, np.int64)
        #: (N, P - 1): the index in ``_agents`` of each game's opponent seats (clockwise).
        self._table = np.zeros((n, p - 1), np.int64)
        if plan.seats is not None:
            self._table[:] = plan.seats
        self._shared_opponent = len(self._agents) == 1
        self._opponents_observe = any(
            getattr(fn, "needs_observation", True) is not False for fn in self._agents
        )

        #: The deck's card layout (A = ``layout.num_actions`` actions, ``layout.obs_size``).
        self.layout = self.rules.layout
        low, high = observation_bounds(self.rules)
        self.single_observation_space = spaces.Box(low=low, high=high, dtype=np.float32)
        self.single_action_space = spaces.Discrete(self.layout.num_actions)
        self.observation_space = batch_space(self.single_observation_space, n)
        self.action_space = batch_space(self.single_action_space, n)

        #: PRIVILEGED: the batched core state of all games, hidden cards and deal seeds
        #: included (``None`` before the first reset); for debugging and tests, never for the
        #: learner. A game that ended at the last step already holds its next deal here.
        self.privileged_state: State | None = None
        #: (N,) int8: the learner's seat in each game.
        self.seat = np.full(n, self._fixed_seat or 0, np.int8)
        #: Episodes that ended before the learner's first decision and were dealt again.
        self.skipped_deals = 0
        self._fresh = np.ones(n, bool)  # the learner has not acted yet in this episode
        self._carry = np.zeros(n, np.float64)  # reward earned before that first decision
        self._done = np.zeros(n, bool)  # the game ended at the previous step (autoreset next)
        self._mask: np.ndarray | None = None  # legal mask of the state (learner to act)
        self._rows = np.arange(n)

    def opponents_of(self, game: int) -> tuple[Callable, ...]:
        """The ``P - 1`` opponents of ``game``'s current episode, clockwise from the learner."""
        return tuple(self._agents[i] for i in self._table[game])

    # ------------------------------------------------------------------- reset
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Deal new episodes in every game; ``seed`` (an int) reseeds the env's generator."""
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int | np.integer)):
            raise TypeError(
                f"seed must be None or one int (it seeds the whole batch), got "
                f"{type(seed).__name__} {seed!r}"
            )
        if options:
            raise ValueError(f"UnoVectorEnv.reset takes no options, got {sorted(options)}")
        super().reset(seed=seed)
        self.privileged_state = None
        self._deal(self._rows)
        n = self.num_envs
        self._play_opponents(np.zeros(n), np.zeros(n, bool), np.zeros(n, bool))
        self._done = np.zeros(self.num_envs, bool)
        self._mask = engine.legal_mask(self.privileged_state)
        return observe(self.privileged_state, self.seat), self._info(self._done, self.seat.copy())

    # -------------------------------------------------------------------- step
    def step(
        self, actions
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """One learner action per game, then the opponents until each game waits again.

        Returns ``(observations (N, obs_size) float32, rewards (N,) float32, terminated (N,) bool,
        truncated (N,) bool, info)``; see the module docstring for autoreset.
        """
        if self.privileged_state is None:
            raise ResetNeeded("call reset() before step()")
        n = self.num_envs
        actions = self._check_actions(actions)
        state, done = self.privileged_state, self._done
        reward = np.zeros(n, np.float64)  # summed in float64, returned as float32
        ended = np.zeros(n, bool)
        truncated = np.zeros(n, bool)
        if done.any():
            # NEXT_STEP: the games that ended at the previous step were dealt again at its
            # end; their actions are ignored and only the other games are stepped (in place).
            live = np.flatnonzero(~done)
            self._check_legal(live, actions[live])
            result = engine.step(state, actions[live], games=live, validate=False)
            rows = np.arange(live.size)
        else:
            live = rows = self._rows
            self._check_legal(live, actions)
            result = engine.step(state, actions, validate=False)
        self._fresh[live] = False
        reward[live] += self._carry[live]
        self._carry[live] = 0.0
        self._account(
            live,
            result.rewards[rows, self.seat[live]],
            (result.match_over if self.rules.match else result.round_over)[rows],
            result.truncated[rows],
            reward,
            ended,
            truncated,
        )
        self._play_opponents(reward, ended, truncated)

        observations = observe(state, self.seat)  # final observations of the games that ended
        finished = ended | truncated
        seats = self.seat.copy()  # the seats of the episodes these observations belong to
        if finished.any():
            self._deal(np.flatnonzero(finished))  # their first observation comes next step
        self._done = finished
        self._mask = engine.legal_mask(state)
        rewards = reward.astype(np.float32)
        info = self._info(finished, seats)
        return observations, rewards, ended & ~truncated, truncated, info

    # ----------------------------------------------------------------- helpers
    def _info(self, finished: np.ndarray, seats: np.ndarray) -> dict[str, Any]:
        mask = self._mask.copy()
        mask[finished] = True  # their next action is ignored (autoreset)
        return {
            "action_mask": mask,
            "_action_mask": np.ones(self.num_envs, bool),
            "learner_seat": seats,
            "_learner_seat": np.ones(self.num_envs, bool),
        }

    def _check_actions(self, actions) -> np.ndarray:
        return checked_actions(actions, self.num_envs, self.layout.num_actions)

    def _check_legal(self, games: np.ndarray, actions: np.ndarray) -> None:
        illegal = np.flatnonzero(~self._mask[games, actions])
        if illegal.size:
            g = int(games[illegal[0]])
            raise illegal_action_error(
                g,
                int(actions[illegal[0]]),
                self._mask[g],
                int(self.seat[g]),
                self.privileged_state.phase[g],
                self.layout,
            )

    def _deal(self, games: np.ndarray) -> None:
        """New episodes in ``games``: deal seeds, learner seats, then pool opponents, from
        the generator."""
        rng = self.np_random
        seeds = new_seeds(rng, games.size)
        if self._fixed_seat is None:
            self.seat[games] = rng.integers(0, self.rules.players, size=games.size)
        if self._pool is not None:
            drawn = rng.integers(0, self._pool.size, size=(games.size, self.rules.players - 1))
            self._table[games] = self._pool[drawn]
        if self.privileged_state is None:
            self.privileged_state = engine.reset(self.rules, seeds)
        else:
            engine.reset_games(self.privileged_state, games, seeds)
        self._fresh[games] = True
        self._carry[games] = 0.0

    def _account(
        self,
        games: np.ndarray,
        rewards: np.ndarray,
        over: np.ndarray,
        round_truncated: np.ndarray,
        reward: np.ndarray,
        ended: np.ndarray,
        truncated: np.ndarray,
    ) -> None:
        """Book a step of ``games`` (the learner's ``rewards``, episodes ``over``).

        An episode over before the learner's first decision is dealt again at once.
        """
        fresh = self._fresh[games]
        if rewards.any():
            reward[games] += np.where(fresh, 0.0, rewards)
            self._carry[games] += np.where(fresh, rewards, 0.0)
        if over.any():
            end = over & ~fresh
            ended[games[end]] = True
            if not self.rules.match:  # in a match a truncated round is a drawn round
                truncated[games[end]] = round_truncated[end]
            skip = games[over & fresh]
            if skip.size:
                self.skipped_deals += int(skip.size)
                self._deal(skip)

    def _play_opponents(self, reward: np.ndarray, ended: np.ndarray, truncated: np.ndarray) -> None:
        """Opponents act, a batch of games per decision, until every game waits for its learner."""
        state = self.privileged_state
        games = self._rows  # only games an opponent acted in can still wait for one
        while True:
            games = games[(state.actor[games] != self.seat[games]) & (state.phase[games] != OVER)]
            if not games.size:
                return
            masks = engine.legal_mask(state, games, validate=False)
            actions = self._opponent_actions(games, masks)
            result = engine.step(state, actions, games=games, validate=False)  # checked: _call
            self._account(
                games,
                result.rewards[np.arange(games.size), self.seat[games]],
                result.match_over if self.rules.match else result.round_over,
                result.truncated,
                reward,
                ended,
                truncated,
            )

    def _opponent_actions(self, games: np.ndarray, masks: np.ndarray) -> np.ndarray:
        rng = self.np_random
        actors = self.privileged_state.actor[games]
        observations = None
        if self._opponents_observe:
            observations = observe(self.privileged_state.take(games), actors)
        if self._shared_opponent:
            return self._call(self._agents[0], 0, games, observations, masks, rng, None)
        actions = np.empty(games.size, np.int64)
        relative = (actors.astype(np.int64) - self.seat[games]) % self.rules.players
        for offset in range(1, self.rules.players):  # a loop over seats and agents, not games
            at = np.flatnonzero(relative == offset)
            if not at.size:
                continue
            keys = self._table[games[at], offset - 1]
            for key in [keys[0]] if self._pool is None else np.unique(keys):
                rows = at if self._pool is None else at[keys == key]
                actions[rows] = self._call(
                    self._agents[key], offset, games, observations, masks, rng, rows
                )
        return actions

    def _call(self, fn, offset, games, observations, masks, rng, rows) -> np.ndarray:
        if rows is not None:
            games, masks = games[rows], masks[rows]
            observations = None if observations is None else observations[rows]
        if fn is random_opponent:  # trusted: skip the checks
            return sample_legal_actions(masks, rng)
        if getattr(fn, "needs_observation", True) is False:
            observations = None
        who = (
            "opponent"
            if offset == 0
            else f"opponent {offset - 1} ({offset} seat(s) after the learner)"
        )
        out = np.asarray(fn(observations, masks, rng))
        if out.dtype == bool or not np.issubdtype(out.dtype, np.integer):
            raise TypeError(f"{who} must return integer actions, got dtype {out.dtype}")
        if out.shape != (games.size,):
            raise ValueError(
                f"{who} must return one action per game, shape ({games.size},), got {out.shape}"
            )
        out = out.astype(np.int64, copy=False)
        layout = self.layout
        bad = np.flatnonzero((out < 0) | (out >= layout.num_actions))
        if not bad.size:
            bad = np.flatnonzero(~masks[np.arange(games.size), out])
        if bad.size:
            i = int(bad[0])
            a = int(out[i])
            what = (
                f"out of range [0, {layout.num_actions})"
                if not 0 <= a < layout.num_actions
                else f"({layout.action_name(a)}), which is illegal; legal actions: "
                + legal_text(layout, masks[i])
            )
            raise ValueError(f"{who} returned action {a} in game {int(games[i])}: {what}")
        return out

    def close_extras(self, **kwargs: Any) -> None:
        self.privileged_state = None
