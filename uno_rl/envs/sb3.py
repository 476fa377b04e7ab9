"""A Stable-Baselines3 ``VecEnv`` over the native vector env, with ``action_masks`` for MaskablePPO.

:class:`UnoSB3VecEnv` plays ``num_envs`` games of one learner against opponents in lockstep
over one :class:`~uno_rl.envs.vector.UnoVectorEnv` (one batched core State), and speaks SB3's
``VecEnv`` protocol, so SB3 and sb3-contrib algorithms use it as they would a ``DummyVecEnv``
of ``num_envs`` single envs, without a Python env object per game::

    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import VecMonitor
    from uno_rl.envs.sb3 import UnoSB3VecEnv

    env = VecMonitor(UnoSB3VecEnv(num_envs=256, players=2, opponents="random"))
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=1024, seed=0)
    model.learn(100_000)

Needs the ``sb3`` extra (``pip install 'uno_rl[sb3]'``); importing this module without
``stable_baselines3`` raises an ``ImportError`` that says so.

Arguments are those of :class:`~uno_rl.envs.vector.UnoVectorEnv` (``num_envs``, ``preset``,
``players``, ``learner_seat``, ``opponents`` by name, spec, Agent, callable, list or pool,
rule switches as keywords), plus ``seed``: the seed of the first :meth:`reset` (as if
:meth:`seed` had been called). Bad values raise the vector env's errors at construction.

The VecEnv contract, as SB3 2.9 defines it:

* Spaces: ``observation_space`` is the single game's ``Box (obs_size,)`` float32 and
  ``action_space`` ``Discrete(A)`` (SB3 VecEnvs hold the per-env spaces): the deck's layout
  (``deck=`` like any rule), ``(583,)`` and ``Discrete(77)`` for a deck of classic cards,
  ``(877,)`` and ``Discrete(122)`` for one with any card of rules specification §11.
* :meth:`reset` returns the observations only, ``(N, obs_size)`` float32; ``reset_infos`` holds
  one empty dict per game.
* :meth:`step_async` / :meth:`step_wait` (or :meth:`step`): actions ``(N,)`` integers in
  ``[0, A)``, each legal in its game; returns ``(observations (N, obs_size) float32, rewards (N,)
  float32, dones (N,) bool, infos)``, ``infos`` a list of ``N`` dicts. An illegal or
  malformed action raises the vector env's ``ValueError`` / ``TypeError`` and changes nothing.
* Auto-reset in the same step, SB3's convention (not Gymnasium's next-step mode of the
  vector env underneath): where ``dones[i]``, ``observations[i]`` is already the first
  observation of the game's next episode (the opponents seated before the learner have
  played), ``infos[i]["terminal_observation"]`` the last observation of the episode that
  ended, and ``infos[i]["TimeLimit.truncated"]`` True when the episode was truncated
  (the core's ``max_turns``) rather than won. The other games' dicts are empty: infos are
  built with one empty dict per game and a loop over the finished games only.
* :meth:`action_masks` returns the ``(N, A)`` bool legal mask of the observations last
  returned (after an auto-reset, the new episode's); ``env_method("action_masks")`` returns
  it as a list of ``N`` rows, which is what sb3-contrib's
  ``sb3_contrib.common.maskable.utils.get_action_masks`` stacks, and
  ``has_attr("action_masks")`` is True (``is_masking_supported``).
* :meth:`seed` sets the seed of the next :meth:`reset`: the N games share one generator, so
  the one seed draws every game (the list returned holds it once per game); ``seed(None)``
  leaves the generator as it is. The same seed, opponents and actions replay the same
  games. SB3 algorithms built with ``seed=s`` call ``seed(s)`` before their first reset.
* :meth:`get_attr` reads an attribute of the shared vector env (the same value for every
  index: ``rules``, ``skipped_deals``...; ``get_attr("action_masks")`` gives each game's
  mask getter); :meth:`set_attr` sets one on it, for all games at once (``indices`` must be
  ``None`` or every game); :meth:`env_method` calls the per-game methods (only
  ``action_masks``; other names raise ``AttributeError``); :meth:`env_is_wrapped` is False
  for every game (no Gymnasium wrappers); :meth:`set_options` refuses options (the games
  take none). :meth:`render` has nothing to draw (``render_mode`` is None): render one game
  with :class:`uno_rl.envs.gym_env.UnoEnv`. :meth:`close` releases the games' state.

Episodes and rewards are the vector env's (:mod:`uno_rl.envs.vector`): one round, or one
match under ``match=true``; the learner's share of every round that ended during its step;
deals the opponents win before the learner's first decision are dealt again
(``get_attr("skipped_deals")``). Episode statistics for SB3's logger come from wrapping the
adapter in ``stable_baselines3.common.vec_env.VecMonitor``.

Hidden information: observations, rewards, masks and infos hold only what each learner seat
may see. ``get_attr`` reaches every attribute of the vector env, its *privileged* ones
(``privileged_state``, ``np_random``) included: for debugging, never for the learner.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

import numpy as np

try:
    from stable_baselines3.common.vec_env import VecEnv
except ImportError as error:  # pragma: no cover - exercised without the extra only
    raise ImportError(
        "uno_rl.envs.sb3 needs Stable-Baselines3 (and sb3-contrib for MaskablePPO): "
        "pip install 'uno_rl[sb3]'"
    ) from error

from uno_rl.core import engine
from uno_rl.core.observe import observe
from uno_rl.core.rules import Rules

from .vector import UnoVectorEnv

__all__ = ["PER_GAME_METHODS", "UnoSB3VecEnv"]

#: The methods :meth:`UnoSB3VecEnv.env_method` calls per game.
PER_GAME_METHODS = ("action_masks",)


class _SameStepVectorEnv(UnoVectorEnv):
    """The vector env plus :meth:`restart`, which SB3's same-step auto-reset needs.

    :class:`UnoVectorEnv` deals a finished game again at the end of the step that ended it
    and lets that game's opponents move at the next step (Gymnasium's next-step mode).
    :meth:`restart` lets them move at once instead, so the new episode's first observation
    can be returned in the same step. It relies on the vector env's bookkeeping
    (``_play_opponents``, ``_done``, ``_mask``); ``tests/envs/test_sb3.py`` holds it to the
    vector env's results.
    """

    def restart(self, games: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Play the opponents of the freshly dealt ``games`` (int64 indices, ``(k,)``) until
        each waits for its learner; returns their observations ``(k, obs_size)`` float32 and
        legal masks ``(k, A)`` bool."""
        n = self.num_envs
        # Only the fresh deals wait for an opponent: every other game waits for its learner.
        # Rewards of rounds ending before the learner's first decision are carried to it.
        self._play_opponents(np.zeros(n), np.zeros(n, bool), np.zeros(n, bool))
        self._done[games] = False  # their next action is the new episode's first one
        state = self.privileged_state
        masks = engine.legal_mask(state, games, validate=False)
        self._mask[games] = masks
        return observe(state.take(games), self.seat[games]), masks


def _check_seed(seed: Any) -> int | None:
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
        raise TypeError(f"seed must be None or an int >= 0, got {type(seed).__name__} {seed!r}")
    if seed < 0:
        raise ValueError(f"seed must be None or an int >= 0, got {seed}")
    return int(seed)


class UnoSB3VecEnv(VecEnv):
    """``num_envs`` UNO games as one SB3 ``VecEnv`` (see the module docstring).

    Args:
        num_envs: games in lockstep (1 to 1,000,000).
        preset: preset name, path of a preset TOML file, or a :class:`~uno_rl.core.Rules`.
        players: number of players (2 to 10); ``None`` keeps the preset's.
        learner_seat: the learner's seat in every game, or ``"random"`` (per game and episode).
        opponents: the vector env's ``opponents`` (:mod:`uno_rl.envs.opponents`).
        seed: seed of the first reset (``None``: unseeded unless :meth:`seed` is called).
        **rule_overrides: rule switches applied on top of the preset.

    Attributes:
        vector_env: the :class:`~uno_rl.envs.vector.UnoVectorEnv` playing the games.
    """

    def __init__(
        self,
        num_envs: int = 1,
        preset: str | os.PathLike[str] | Rules = "official",
        players: int | None = None,
        learner_seat: int | str = 0,
        opponents: Any = None,
        seed: int | None = None,
        **rule_overrides: Any,
    ):
        seed = _check_seed(seed)
        self.vector_env = _SameStepVectorEnv(
            num_envs=num_envs,
            preset=preset,
            players=players,
            learner_seat=learner_seat,
            opponents=opponents,
            **rule_overrides,
        )
        venv = self.vector_env
        super().__init__(venv.num_envs, venv.single_observation_space, venv.single_action_space)
        self._seeds = [seed] * self.num_envs
        self._actions: np.ndarray | None = None
        self._masks: np.ndarray | None = None  # (N, A) bool, of the last observations

    @property
    def rules(self) -> Rules:
        """The rules every game plays."""
        return self.vector_env.rules

    # ------------------------------------------------------------ reset / step
    def reset(self) -> np.ndarray:
        """Deal new episodes in every game; returns the observations ``(N, obs_size)`` float32."""
        observations, info = self.vector_env.reset(seed=self._seeds[0])
        self._reset_seeds()
        self._masks = info["action_mask"]
        self._actions = None
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return observations

    def step_async(self, actions: np.ndarray) -> None:
        """Hold one action per game for :meth:`step_wait` (checked there)."""
        self._actions = actions

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        """Play the held actions; returns ``(observations (N, obs_size) float32, rewards (N,)
        float32, dones (N,) bool, infos)`` with SB3's same-step auto-reset."""
        if self._actions is None:
            raise RuntimeError("step_wait() needs a step_async(actions) first")
        actions, self._actions = self._actions, None
        observations, rewards, terminated, truncated, info = self.vector_env.step(actions)
        dones = terminated | truncated
        masks = info["action_mask"]
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        if dones.any():
            games = np.flatnonzero(dones)
            final = observations[games]  # a copy: the rows are overwritten next
            observations[games], masks[games] = self.vector_env.restart(games)
            cut = truncated[games] & ~terminated[games]
            for row, (game, limit) in enumerate(zip(games.tolist(), cut.tolist(), strict=True)):
                infos[game] = {"terminal_observation": final[row], "TimeLimit.truncated": limit}
        self._masks = masks
        return observations, rewards, dones, infos

    # -------------------------------------------------------------- masking
    def action_masks(self) -> np.ndarray:
        """The legal actions of every game now, ``(N, A)`` bool (a copy)."""
        if self._masks is None:
            raise RuntimeError("call reset() before action_masks()")
        return self._masks.copy()

    # ------------------------------------------------------- VecEnv plumbing
    def seed(self, seed: int | None = None) -> list[int | None]:
        """Seed the next :meth:`reset` (one seed for the whole batch); returns it per game."""
        self._seeds = [_check_seed(seed)] * self.num_envs
        return list(self._seeds)

    def set_options(self, options: list[dict] | dict | None = None) -> None:
        """The games take no reset options: only ``None`` or empty dicts are accepted."""
        given = [options] if isinstance(options, dict) or options is None else list(options)
        if any(given):
            raise ValueError(f"UnoSB3VecEnv.reset takes no options, got {options!r}")
        self._reset_options()

    def close(self) -> None:
        """Release the games' state; :meth:`reset` deals new ones."""
        self.vector_env.close()
        self._masks = None
        self._actions = None

    def _indices(self, indices) -> list[int]:
        """``indices`` (None, an int or an iterable of ints) as a checked list of games."""
        n = self.num_envs
        if indices is None:
            return list(range(n))
        if isinstance(indices, int | np.integer):
            indices = [indices]
        if not isinstance(indices, Iterable):
            raise TypeError(f"indices must be None, an int or ints, got {indices!r}")
        out = [int(i) for i in indices]
        bad = [i for i in out if not 0 <= i < n]
        if bad:
            raise IndexError(f"game index {bad[0]} is out of range for {n} games")
        return out

    def has_attr(self, attr_name: str) -> bool:
        """Whether :meth:`get_attr` finds ``attr_name``."""
        return attr_name in PER_GAME_METHODS or hasattr(self.vector_env, attr_name)

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        """The shared vector env's ``attr_name`` once per game in ``indices`` (per-game
        methods: one getter per game)."""
        games = self._indices(indices)
        if attr_name in PER_GAME_METHODS:
            return [lambda game=game: self.action_masks()[game] for game in games]
        if not hasattr(self.vector_env, attr_name):
            raise AttributeError(f"UnoVectorEnv has no attribute {attr_name!r}")
        return [getattr(self.vector_env, attr_name)] * len(games)

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        """Set ``attr_name`` on the shared vector env: for every game at once."""
        if sorted(set(self._indices(indices))) != list(range(self.num_envs)):
            raise ValueError(
                f"the {self.num_envs} games share one vector env: set_attr sets {attr_name!r} "
                "for all of them, so indices must be None or every game"
            )
        setattr(self.vector_env, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list:
        """Call a per-game method (``action_masks``: each game's ``(A,)`` bool mask)."""
        if method_name not in PER_GAME_METHODS:
            raise AttributeError(
                f"UnoSB3VecEnv.env_method: no per-game method {method_name!r}; "
                f"available: {', '.join(PER_GAME_METHODS)}"
            )
        if method_args or method_kwargs:
            raise TypeError(f"{method_name}() takes no arguments")
        masks = self.action_masks()
        return list(masks) if indices is None else list(masks[self._indices(indices)])

    def env_is_wrapped(self, wrapper_class: type, indices=None) -> list[bool]:
        """False for every game: the games are not Gymnasium envs and have no wrappers."""
        return [False] * len(self._indices(indices))
