"""A single-agent Gymnasium env: one learner seat against opponents, registered as ``uno_rl/Uno-v1``.

:class:`UnoEnv` plays one game (:class:`~uno_rl.envs.game.SingleGame`, the rules for one
game, held to the batched core decision by decision).
The learner holds one seat (``learner_seat``, default 0, or ``"random"`` per episode); the
opponents play every other seat automatically, so each :meth:`~UnoEnv.step` is one learner
decision followed by the opponents' decisions until the learner must act again or the
episode ends::

    import gymnasium
    import numpy as np
    import uno_rl.envs.registration  # or: import uno_rl.envs

    env = gymnasium.make("uno_rl/Uno-v1", players=3, stacking="any")
    obs, info = env.reset(seed=0)
    action = env.action_space.sample(info["action_mask"].astype(np.int8))
    obs, reward, terminated, truncated, info = env.step(action)
    mask = env.unwrapped.action_masks()  # the same as info["action_mask"]

Spaces follow the deck (``deck=`` like any rule; :attr:`UnoEnv.layout`, rules specification
§11): the observation is the learner's own view, a ``Box`` of ``(obs_size,)`` float32 with
per-value bounds (bounds from :func:`uno_rl.envs.uno_v1.observation_bounds`); the action
space is ``Discrete(A)``. A deck of classic cards has the classic layout, ``(583,)`` and
``Discrete(77)`` (:mod:`uno_rl.core.observe_layout`, :mod:`uno_rl.core.actions`); a deck
with any section-11 card the extended one, ``(877,)`` and ``Discrete(122)`` (the tables of
:mod:`uno_rl.core.layout`). The legal actions are ``info["action_mask"]``, an ``(A,)``
bool array on every reset and step (all False once the episode is over), and
:meth:`UnoEnv.action_masks` returns the same mask (what sb3-contrib's ``MaskablePPO``
calls). ``gymnasium.make`` returns the env inside Gymnasium's wrappers (``OrderEnforcing``
around ``PassiveEnvChecker``), and Gymnasium 1.x wrappers do not pass attributes on:
``env.action_masks()`` raises ``AttributeError`` there. Call
``env.unwrapped.action_masks()`` (or ``env.get_wrapper_attr("action_masks")()``), or read
``info["action_mask"]``.

Episodes and rewards (the same as :class:`uno_rl.envs.vector.UnoVectorEnv`):

* An episode is one round, or one match under ``match=true``. ``terminated`` when it is
  won; ``truncated`` when the core truncates the round at ``max_turns`` (a draw, reward 0;
  in a match a truncated round is just a drawn round and the match goes on).
* The reward of a step is the learner's share of every round that ended during it (its own
  decision and the opponents' that followed): nonzero only when a round ends
  (``win-loss``: +1 / -1/(P-1); ``points``: see the rules).
* An episode that ends before the learner's first decision (the opponents win at once,
  e.g. with ``hand_size=1``) is not an episode of the learner: it is dealt again, and
  :attr:`UnoEnv.skipped_deals` counts these. In a match, rounds that end before the
  learner's first decision pay their reward with that first decision's step.
* At the end of an episode ``info`` also holds ``winner`` (the seat that won the last
  round, -1 for none), and in a match ``match_winner`` and ``scores``.

Illegal actions. ``illegal_action="penalize"`` (the default, and what ``uno_rl/Uno-v1``
registers) follows PettingZoo's ``TerminateIllegalWrapper``: an illegal action ends the
episode at once with reward ``illegal_reward`` (-1), ``terminated=True``, the game left
untouched and ``info["illegal_action"] = True``. This is what lets Gymnasium's
``check_env`` pass honestly: it steps with unmasked ``action_space.sample()`` actions, most
of which are illegal in UNO; a masked learner never sees the penalty.
``illegal_action="raise"`` raises the ``ValueError`` of :class:`SingleGame` instead (naming
the action, its meaning and the legal actions; nothing changes). Either way an action that
is not one integer in ``[0, A)`` raises at the call (``TypeError`` for a wrong type such
as ``float``, ``bool``, ``str`` or ``None``; ``ValueError`` out of range).

Opponents (:mod:`uno_rl.envs.opponents`): ``None`` (the default, ``"random-playable"``: a
random playable card, drawing only when it must; uniformly random legal play, ``"random"``,
truncates 42.7% of its rounds), an agent name or spec string (``"color-first"``,
``"color-first:bluff=0.3"``, a shipped bot such as ``"ppo-official-2p"``, resolved by
:func:`uno_rl.agents.make_agent` for the env's rules), an :class:`~uno_rl.agents.Agent` or a
callable for every opponent seat; a list of ``P - 1`` of those, ``opponents[i]`` sitting
``i + 1`` seats clockwise of the learner (``["rule", "color-first", "random-playable"]`` for
4 players); or ``{"pool": [...]}``, from which each opponent seat of each episode draws one
entry from ``np_random`` (:attr:`UnoEnv.opponents` holds the episode's). An Agent, by name
or object, plays through :func:`single_opponent`. A callable opponent is called as ``opponent(observation, action_mask, rng) -> int``
with its own view ``(obs_size,)`` float32, its legal actions ``(A,)`` bool and the env's
``numpy.random.Generator``. An opponent with an attribute ``needs_observation = False`` gets
``None`` instead of the observation. :func:`single_opponent` adapts a batched agent
(``act(observations (k, obs_size), masks (k, A), rng) -> (k,)``, the protocol of
:class:`~uno_rl.envs.vector.UnoVectorEnv`) to this protocol.

Seeding: ``reset(seed=...)`` seeds ``self.np_random`` (Gymnasium's convention); each
episode's deal seed, a random learner seat and the opponents' randomness all come from
it (a pool's opponents are drawn after the seat). ``reset(options={"deal_seed": s})`` replays the deal ``s`` (duplicate deals) and
``options={"learner_seat": k}`` seats the learner at ``k`` for that episode. Other option
keys raise ``ValueError``.

Hidden information: the observation, ``info`` (``action_mask``, ``learner_seat``, and at the
end ``winner``, ``match_winner``, ``scores``, ``illegal_action``) and ``render()`` (the
learner's view: its own hand, every other hand as a count; as text or as an RGB frame, each
seat named by who plays it, :attr:`UnoEnv.seat_names`) show only what the learner's seat may see; no deal seed is ever in ``info``
(``engine.reset(rules, [deal_seed])`` would rebuild every hand and the draw pile). Debugging
and duplicate-deal bookkeeping read the full game through the *privileged* attributes, which a
learner must not be given:
:attr:`UnoEnv.privileged_game` (every hand, the draw pile, the seed) and
:attr:`UnoEnv.privileged_deal_seed`. Gymnasium's ``np_random`` and ``np_random_seed`` draw
every future deal, so they are privileged too.

Bad input raises at construction (unknown preset or rules key, player count outside 2 to
10: :class:`uno_rl.core.RulesError`; bad ``learner_seat``, ``opponents``,
``illegal_action``, ``illegal_reward`` or ``render_mode``: ``TypeError`` / ``ValueError``;
an unknown agent or agent parameter: :class:`~uno_rl.agents.AgentError`)
or at the call (see above). ``step()`` before ``reset()`` or after the episode ended raises
``gymnasium.error.ResetNeeded``.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.error import ResetNeeded

from uno_rl.core.engine import match_winner, sample_legal_actions
from uno_rl.core.reference import StepOutcome
from uno_rl.core.rules import Rules
from uno_rl.render.frames import render_frame
from uno_rl.render.text import present, render_text

from .env_checks import check_learner_seat, load_env_rules
from .game import SingleGame, check_action, legal_text
from .opponents import opponent_name, resolve_opponents
from .uno_v1 import observation_bounds

__all__ = ["Opponent", "UnoEnv", "random_opponent", "single_opponent"]

#: ``opponent(observation (obs_size,) float32 | None, action_mask (A,) bool, rng) -> int``
Opponent = Callable[[np.ndarray | None, np.ndarray, np.random.Generator], int]

ILLEGAL_ACTION_POLICIES = ("penalize", "raise")


def random_opponent(
    observation: np.ndarray | None, action_mask: np.ndarray, rng: np.random.Generator
) -> int:
    """A uniformly random legal action (the same draw as the vector env's random opponent)."""
    return int(sample_legal_actions(action_mask[None, :], rng)[0])


random_opponent.needs_observation = False  # type: ignore[attr-defined]


def single_opponent(batched: Callable) -> Opponent:
    """A one-game opponent from a batched one (``(k, obs_size), (k, A), rng -> (k,)``), at
    k = 1."""
    if not callable(batched):
        raise TypeError(f"single_opponent needs a callable, got {type(batched).__name__}")

    def opponent(observation, action_mask, rng) -> int:
        observations = None if observation is None else observation[None, :]
        return int(np.asarray(batched(observations, action_mask[None, :], rng)).reshape(-1)[0])

    opponent.needs_observation = getattr(batched, "needs_observation", True)  # type: ignore[attr-defined]
    opponent.agent = batched  # type: ignore[attr-defined]
    opponent.label = getattr(batched, "label", getattr(batched, "__name__", repr(batched)))  # type: ignore[attr-defined]
    return opponent


class UnoEnv(gymnasium.Env):
    """UNO for one learner seat against opponents; the module docstring is its documentation.

    Args:
        preset: preset name, path of a preset TOML file, or a :class:`~uno_rl.core.Rules`.
        players: number of players (2 to 10); ``None`` keeps the preset's.
        learner_seat: the learner's seat, or ``"random"`` (drawn each episode).
        opponents: ``None`` (``"random-playable"``), an agent name or spec, an Agent, a
            callable, a list of ``P - 1`` of those, or ``{"pool": [...]}`` (module docstring).
        render_mode: ``None``, ``"ansi"`` (``render()`` returns the text), ``"human"``
            (printed after every reset and step) or ``"rgb_array"`` (``render()`` returns a
            ``(640, 960, 3)`` uint8 frame of the same view, :mod:`uno_rl.render.frames`;
            Gymnasium's ``RecordVideo``, which needs ``moviepy``, records one frame a learner
            decision).
        illegal_action: ``"penalize"`` (end the episode with ``illegal_reward``) or
            ``"raise"`` (``ValueError``).
        illegal_reward: the reward of a penalized illegal action.
        **rule_overrides: rule switches applied on top of the preset.
    """

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 1}

    def __init__(
        self,
        preset: str | os.PathLike[str] | Rules = "official",
        players: int | None = None,
        learner_seat: int | str = 0,
        opponents: Any = None,
        render_mode: str | None = None,
        illegal_action: str = "penalize",
        illegal_reward: float = -1.0,
        **rule_overrides: Any,
    ):
        self.rules: Rules = load_env_rules(preset, players, rule_overrides)
        p = self.rules.players
        self._fixed_seat = check_learner_seat(learner_seat, p)
        plan = resolve_opponents(opponents, self.rules, single_opponent)
        self._agents, self._pool = plan.agents, plan.pool
        self._opponents: tuple[Opponent, ...] = tuple(
            self._agents[i] for i in (plan.seats or (0,) * (p - 1))
        )
        if illegal_action not in ILLEGAL_ACTION_POLICIES:
            raise ValueError(
                f"illegal_action must be one of {ILLEGAL_ACTION_POLICIES}, got {illegal_action!r}"
            )
        if isinstance(illegal_reward, bool) or not isinstance(illegal_reward, int | float):
            raise TypeError(f"illegal_reward must be a number, got {illegal_reward!r}")
        if not math.isfinite(illegal_reward):
            raise ValueError(f"illegal_reward must be finite, got {illegal_reward!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be None or one of {self.metadata['render_modes']}, "
                f"got {render_mode!r}"
            )
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self.render_mode = render_mode

        #: The deck's card layout (A = ``layout.num_actions`` actions, ``layout.obs_size``).
        self.layout = self.rules.layout
        low, high = observation_bounds(self.rules)
        self.observation_space = spaces.Box(low=low, high=high, dtype=np.float32)
        self.action_space = spaces.Discrete(self.layout.num_actions)

        self._game = SingleGame(self.rules)
        #: The learner's seat in the current episode.
        self.learner_seat: int = self._fixed_seat or 0
        #: Episodes that ended before the learner's first decision and were dealt again.
        self.skipped_deals = 0
        self._fresh = True  # the learner has not acted yet in this episode
        self._carry = 0.0  # reward earned before that first decision (a match)
        self._over = False  # the episode is over (reset needed)
        self._round_winner = -1  # winner of the last round that ended (-1: none, a draw)

    @property
    def opponents(self) -> tuple[Opponent, ...]:
        """The ``P - 1`` opponents of the current episode, clockwise from the learner (an
        Agent's wrapper holds it as ``.agent`` and its spec as ``.label``)."""
        return self._opponents

    @property
    def seat_names(self) -> list[str]:
        """How ``render()`` names each seat this episode: ``learner``, and each opponent's
        short name (:func:`~uno_rl.envs.opponents.opponent_name`: ``color-first``, a
        checkpoint's file stem)."""
        p, seat = self.rules.players, self.learner_seat
        return [
            "learner" if k == seat else opponent_name(self._opponents[(k - seat) % p - 1], k)
            for k in range(p)
        ]

    @property
    def privileged_game(self) -> SingleGame:
        """PRIVILEGED: the whole game, hidden cards included (every hand, the draw pile, the
        deal seed; its ``state`` is a core State copy, N = 1). For debugging and tests;
        never give it to the learner."""
        return self._game

    @property
    def privileged_deal_seed(self) -> int:
        """PRIVILEGED: the deal seed of the episode's first round (``reset(options=
        {"deal_seed": ...})`` replays it); it rebuilds every hand and the draw pile."""
        return self._game.deal_seed

    # ------------------------------------------------------------------- reset
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Deal a new episode; see the module docstring for ``seed`` and ``options``."""
        super().reset(seed=seed)
        options = dict(options or {})
        deal_seed = options.pop("deal_seed", None)
        seat = options.pop("learner_seat", None)
        if options:
            raise ValueError(
                f"unknown reset options {sorted(options)}; allowed: 'deal_seed', 'learner_seat'"
            )
        if seat is not None:
            seat = check_learner_seat(seat, self.rules.players)
            if seat is None:
                raise ValueError("options['learner_seat'] must be a seat number, not 'random'")
        self._new_episode(deal_seed, seat)
        while True:
            _, over, _ = self._play_opponents()
            if not over:
                break
            self.skipped_deals += 1  # the episode ended before the learner's first decision
            self._new_episode(None, seat)
        if self.render_mode == "human":
            self.render()
        return self._observe(), self._info(over=False)

    def _new_episode(self, deal_seed: int | None, seat: int | None) -> None:
        # The same draws, in the same order, as UnoVectorEnv: deal seed, seat, pool.
        self._game.reset(self.np_random, deal_seed)
        if seat is not None:
            self.learner_seat = seat
        elif self._fixed_seat is None:
            self.learner_seat = int(self.np_random.integers(0, self.rules.players, size=1)[0])
        else:
            self.learner_seat = self._fixed_seat
        if self._pool is not None:
            drawn = self.np_random.integers(0, len(self._pool), size=self.rules.players - 1)
            self._opponents = tuple(self._agents[self._pool[i]] for i in drawn)
        self._fresh = True
        self._carry = 0.0
        self._over = False

    # -------------------------------------------------------------------- step
    def step(self, action) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """The learner's ``action``, then the opponents until the learner acts again or the end."""
        game = self._game
        if not game.started:
            raise ResetNeeded("call reset() before step()")
        if self._over:
            raise ResetNeeded("the episode is over; call reset() before step()")
        a = check_action(action, self.layout.num_actions)
        if not game.legal_mask()[a] and self.illegal_action == "penalize":
            self._over = True
            info = self._info(over=True)
            info["illegal_action"] = True
            if self.render_mode == "human":
                self.render()
            return self._observe(), self.illegal_reward, True, False, info
        result = game.step(a)  # raises ValueError for an illegal action ("raise")
        self._fresh = False
        reward = self._carry
        self._carry = 0.0
        r, over, truncated = self._book(result)
        reward += r
        if not over:
            r, over, truncated = self._play_opponents()
            reward += r
        self._over = over
        info = self._info(over)
        if over:
            self._final_info(info)
        if self.render_mode == "human":
            self.render()
        return self._observe(), float(reward), over and not truncated, truncated, info

    def action_masks(self) -> np.ndarray:
        """(A,) bool: the learner's legal actions now (all False once the episode is over)."""
        if not self._game.started:
            raise ResetNeeded("call reset() before action_masks()")
        if self._over:
            return np.zeros(self.layout.num_actions, bool)
        return self._game.legal_mask().astype(bool)

    # ----------------------------------------------------------------- helpers
    def _book(self, result: StepOutcome) -> tuple[float, bool, bool]:
        """The learner's reward of one decision, whether the episode ended, truncated."""
        r = float(result.rewards[self.learner_seat])
        over = bool(result.match_over if self.rules.match else result.round_over)
        truncated = over and not self.rules.match and bool(result.truncated)
        if result.round_over:
            self._round_winner = int(result.winner)
        if self._fresh:  # before the learner's first decision: paid with it
            self._carry += r
            return 0.0, over, truncated
        return r, over, truncated

    def _play_opponents(self) -> tuple[float, bool, bool]:
        """Opponents act until the learner must act or the episode ends."""
        game, seat, p = self._game, self.learner_seat, self.rules.players
        reward, over, truncated = 0.0, False, False
        while not game.over and game.actor != seat:
            actor = game.actor
            offset = (actor - seat) % p
            opponent = self._opponents[offset - 1]
            mask = game.legal_mask().astype(bool)
            observation = (
                game.observe(actor)
                if getattr(opponent, "needs_observation", True) is not False
                else None
            )
            action = opponent(observation, mask, self.np_random)
            who = f"opponent {offset - 1} ({offset} seat(s) after the learner, seat {actor})"
            try:
                a = check_action(action, self.layout.num_actions)
            except (TypeError, ValueError) as error:
                raise type(error)(f"{who} returned a bad action: {error}") from None
            if not mask[a]:
                name, legal = self.layout.action_name(a), legal_text(self.layout, mask)
                raise ValueError(
                    f"{who} returned illegal action {a} ({name}); legal actions: {legal}"
                )
            result = game.step(a)
            r, over, truncated = self._book(result)
            reward += r
        return reward, over, truncated

    def _observe(self) -> np.ndarray:
        return self._game.observe(self.learner_seat)

    def _info(self, over: bool) -> dict[str, Any]:
        mask = (
            np.zeros(self.layout.num_actions, bool)
            if over
            else self._game.legal_mask().astype(bool)
        )
        return {"action_mask": mask, "learner_seat": self.learner_seat}  # nothing hidden

    def _final_info(self, info: dict[str, Any]) -> None:
        info["winner"] = self._round_winner
        if self.rules.match:
            state = self._game.state  # a State copy of the game: once per episode
            info["match_winner"] = int(match_winner(state)[0])
            info["scores"] = state.scores[0].copy()

    # ------------------------------------------------------------------ render
    def render(self) -> str | np.ndarray | None:
        """The learner's view (its hand, its legal actions when it is to act; other hands as
        counts): the text table of :func:`uno_rl.render.text.render_text` (``"ansi"``,
        ``"human"``), or the same as a ``(640, 960, 3)`` uint8 frame
        (:func:`uno_rl.render.frames.render_frame`, ``"rgb_array"``)."""
        if self.render_mode is None:
            gymnasium.logger.warn(
                "You are calling render method without specifying any render mode. "
                'Pass render_mode="ansi", "human" or "rgb_array" to UnoEnv (or gymnasium.make).'
            )
            return None
        if not self._game.started:
            raise ResetNeeded("call reset() before render()")
        names = self.seat_names
        state, seat = self._game.state, self.learner_seat
        if self.render_mode == "rgb_array":
            return render_frame(state, 0, names, title="Uno-v1", viewer=seat)
        return present(render_text(state, 0, names, title="Uno-v1", viewer=seat), self.render_mode)

    def close(self) -> None:
        pass
