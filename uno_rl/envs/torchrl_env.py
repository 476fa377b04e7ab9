"""TorchRL: the PettingZoo AEC env through TorchRL's own ``PettingZooWrapper``, as one learner sees it.

Two layers, both TorchRL ``EnvBase`` objects:

* :func:`wrap_pettingzoo` wraps :func:`uno_rl.envs.uno_v1.env` in TorchRL's
  ``torchrl.envs.libs.pettingzoo.PettingZooWrapper`` with ``use_mask=True`` (compulsory for a
  turn-based AEC env) and the default AEC grouping, one group per seat (``player_0``,
  ``player_1``, ...). Each group's entries are TorchRL's: ``(group, "observation",
  "observation")`` ``(1, obs_size)`` float32, ``(group, "action_mask")`` ``(1, A)`` bool (the
  wrapper moves the observation dict's ``"action_mask"`` there and sets it on the group's
  action spec), ``(group, "mask")`` ``(1,)`` bool (True for the agent to act), ``(group,
  "action")``, ``(group, "reward")``, ``(group, "done")``. Every seat is a group of its own,
  so a multi-agent TorchRL setup can give each its own policy.
* :class:`UnoTorchRLEnv` seats one learner in that wrapped env and plays every other seat
  with uno_rl agents (``opponents``, as in :mod:`uno_rl.envs.opponents`), stepping the
  wrapper until the learner is to act again. What the learner sees is an ordinary
  single-agent TorchRL env, so TorchRL's collectors, ``GAE``, ``ClipPPOLoss`` and replay
  buffers use it unchanged.

::

    from uno_rl.envs.torchrl_env import UnoTorchRLEnv

    env = UnoTorchRLEnv(players=2, opponents="random-playable", seed=0)
    rollout = env.rollout(100)  # random legal actions: the action spec carries the mask

A policy reads ``"observation"`` and passes ``"action_mask"`` to TorchRL's
``MaskedCategorical`` in a ``ProbabilisticActor``; ``docs/envs/torchrl.md`` shows one, and
``examples/torchrl_ppo.py`` trains PPO with it.

Needs the ``torchrl`` extra (``pip install 'uno_rl[torchrl]'``); importing this module
without ``torchrl`` raises an ``ImportError`` that says so.

:class:`UnoTorchRLEnv`'s entries (batch size ``()``):

* ``"observation"`` ``(obs_size,)`` float32: the learner's observation (583 values for a deck
  of classic cards, 877 for one with section-11 cards), read from the wrapper's
  ``(learner, "observation", "observation")``.
* ``"action_mask"`` ``(A,)`` bool: the learner's legal actions, the wrapper's ``(learner,
  "action_mask")``; all False in the observation that ends an episode (no action is legal
  there; a policy is never run on it). The action spec's mask follows it, so
  ``env.rand_step()`` and ``env.action_spec.rand()`` draw legal actions.
* ``"action"``: a ``Categorical(A)`` integer; one outside the mask raises ``ValueError``
  naming it (the env never replaces or punishes an illegal action silently) and changes
  nothing.
* ``"reward"`` ``(1,)`` float32: the learner's share of every round that ended since its last
  decision (the env's ``reward`` switch; zero-sum). ``"done"``, ``"terminated"``,
  ``"truncated"`` ``(1,)`` bool: the episode (a round, or a match under ``match=true``) ended,
  was won, reached ``max_turns``.

Deals the opponents finish before the learner's first decision are dealt again
(:attr:`UnoTorchRLEnv.skipped_deals` counts them); rewards of rounds ending before the
learner's first decision of a match are paid with its first step. Seeding: ``seed`` (or
:meth:`set_seed`) seeds the PettingZoo env's generator, from which every deal is drawn, and
the generator of the opponents and of the pool draws; the same seed, opponents and learner
actions replay the same games.
"""

from __future__ import annotations

import os
import warnings
from typing import Any

import numpy as np

try:
    import torch
    from tensordict import TensorDict, TensorDictBase
    from torchrl.data import Categorical, Composite, Unbounded
    from torchrl.envs import EnvBase
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper
except ImportError as error:  # pragma: no cover - exercised without the extra only
    raise ImportError(
        "uno_rl.envs.torchrl_env needs TorchRL: pip install 'uno_rl[torchrl]'"
    ) from error

from uno_rl.core.rules import Rules

from . import uno_v1
from .opponents import resolve_opponents

__all__ = ["MAX_REDEALS", "UnoTorchRLEnv", "wrap_pettingzoo"]

#: Deals in a row the opponents may finish before the learner's first decision.
MAX_REDEALS = 1000


def _opponents_rng(seed: int | None) -> np.random.Generator:
    """The opponents' generator: a stream of its own from ``seed`` (not the deals' stream,
    which PettingZoo draws from ``seed`` itself); ``None``: from the OS."""
    return np.random.default_rng(np.random.SeedSequence(seed).spawn(1)[0])


class _PettingZooWrapper(PettingZooWrapper):
    """TorchRL's ``PettingZooWrapper`` with the PettingZoo attributes it reads on every step
    (``agent_selection``, ``agents``, ``possible_agents``) as properties: TorchRL's fallback
    ``__getattr__`` lists the module's whole ``dir()`` for each read, about a quarter of a
    step's time. Nothing else changes."""

    agent_selection = property(lambda self: self._env.agent_selection)
    agents = property(lambda self: self._env.agents)
    possible_agents = property(lambda self: self._env.possible_agents)


def wrap_pettingzoo(
    preset: str | os.PathLike[str] | Rules = "official",
    players: int | None = None,
    seed: int | None = None,
    **rule_overrides: Any,
) -> PettingZooWrapper:
    """:func:`uno_rl.envs.uno_v1.env` in TorchRL's ``PettingZooWrapper`` (``use_mask=True``,
    one group per seat), its generator seeded with ``seed`` (``None``: from the OS).

    Bad rules raise :class:`~uno_rl.core.RulesError` here, as the PettingZoo env does.
    """
    aec = uno_v1.env(preset=preset, players=players, **rule_overrides)
    with warnings.catch_warnings():
        # TorchRL warns for every PettingZoo other than the one its own tests pin; the
        # wrapper is exercised against this project's PettingZoo by tests/envs/test_torchrl.py.
        warnings.filterwarnings("ignore", message="PettingZoo in TorchRL is tested")
        return _PettingZooWrapper(aec, use_mask=True, seed=seed)


class UnoTorchRLEnv(EnvBase):
    """One learner seat of the TorchRL-wrapped PettingZoo env; the module docstring is its
    documentation.

    Args:
        preset: preset name, path of a preset TOML file, or a :class:`~uno_rl.core.Rules`.
        players: number of players (2 to 10); ``None`` keeps the preset's.
        learner_seat: the learner's seat (``player_<learner_seat>``).
        opponents: ``None`` (``"random-playable"``), an agent name or spec, an Agent, a
            callable ``(observations (1, obs_size), masks (1, A), rng) -> (1,)``, a list of
            ``P - 1`` of those, ``opponents[i]`` sitting ``i + 1`` seats clockwise of the
            learner, or ``{"pool": [...]}`` (each opponent seat of each episode draws one).
        seed: seed of the deals and of the opponents' generator (``None``: from the OS).
        **rule_overrides: rule switches applied on top of the preset.

    Raises:
        RulesError, AgentError, ValueError, TypeError: bad rules, opponents or seat.
    """

    def __init__(
        self,
        preset: str | os.PathLike[str] | Rules = "official",
        players: int | None = None,
        learner_seat: int = 0,
        opponents: Any = None,
        seed: int | None = None,
        **rule_overrides: Any,
    ):
        super().__init__(device="cpu", batch_size=torch.Size([]))
        #: The TorchRL-wrapped PettingZoo env (:func:`wrap_pettingzoo`); PRIVILEGED through
        #: its ``_env`` (the PettingZoo env, every hand): never give it to the learner.
        self.pettingzoo = wrap_pettingzoo(preset, players, seed, **rule_overrides)
        self.rules: Rules = self.pettingzoo._env.unwrapped.rules
        p = self.rules.players
        if isinstance(learner_seat, bool) or not isinstance(learner_seat, int | np.integer):
            raise TypeError(f"learner_seat must be an int, got {type(learner_seat).__name__}")
        if not 0 <= learner_seat < p:
            raise ValueError(
                f"learner_seat must be in [0, {p - 1}] for {p} players, got {learner_seat}"
            )
        self.learner_seat = int(learner_seat)
        self.groups: list[str] = list(self.pettingzoo.group_map)  # player_k at index k
        self.learner = self.groups[self.learner_seat]
        self._plan = resolve_opponents(opponents, self.rules)
        self._rng = _opponents_rng(seed)
        self._seat_agents: dict[int, Any] = {}  # seat -> its opponent this episode
        #: Deals dealt again because the opponents finished them before the learner acted.
        self.skipped_deals = 0
        self._inner: TensorDictBase | None = None  # the wrapper's current entries
        self._carried = 0.0  # rewards paid before the learner's first decision
        self._actions = self.pettingzoo.full_action_spec.zero()  # every group's, to fill in

        actions = self.rules.layout.num_actions
        #: A: the size of the action space (77 for classic cards, 122 with section-11 cards).
        self.num_actions = actions
        inner_obs = self.pettingzoo.observation_spec[self.learner, "observation", "observation"]
        self.observation_spec = Composite(
            observation=inner_obs[0].clone(),
            action_mask=Categorical(n=2, shape=(actions,), dtype=torch.bool),
        )
        self.action_spec = Categorical(n=actions, shape=())
        self.reward_spec = Unbounded(shape=(1,), dtype=torch.float32)
        self.done_spec = Composite(
            done=Categorical(n=2, shape=(1,), dtype=torch.bool),
            terminated=Categorical(n=2, shape=(1,), dtype=torch.bool),
            truncated=Categorical(n=2, shape=(1,), dtype=torch.bool),
        )

    # ------------------------------------------------------------------ seeding
    def _set_seed(self, seed: int | None) -> None:
        self.pettingzoo.set_seed(seed)  # resets the PettingZoo env with this seed
        self._rng = _opponents_rng(seed)
        self._inner = None

    # -------------------------------------------------------------------- reset
    def _reset(self, tensordict: TensorDictBase | None = None, **kwargs: Any) -> TensorDictBase:
        for _ in range(MAX_REDEALS):
            self._draw_opponents()
            inner = self.pettingzoo.reset()
            inner, reward, done = self._play_opponents(inner)
            if not done:
                self._carried = reward
                return self._entries(inner)
            self.skipped_deals += 1
        raise RuntimeError(
            f"the opponents finished {MAX_REDEALS} deals in a row before the learner acted"
        )

    # --------------------------------------------------------------------- step
    def _step(self, tensordict: TensorDictBase) -> TensorDictBase:
        if self._inner is None:
            raise RuntimeError("call reset() before step()")
        action = int(tensordict.get("action"))
        mask = self._inner.get((self.learner, "action_mask"))[0]
        if not 0 <= action < self.num_actions or not bool(mask[action]):
            legal = torch.nonzero(mask).flatten().tolist()
            raise ValueError(
                f"illegal action {action} ({self.rules.layout.action_name(action)}) for "
                f"{self.learner}; legal actions: {legal}"
            )
        inner, reward = self._advance(self._inner, self.learner, action)
        reward += self._carried
        self._carried = 0.0
        inner, more, _ = self._play_opponents(inner)
        out = self._entries(inner)
        out.set("reward", torch.tensor([reward + more], dtype=torch.float32))
        return out

    # ------------------------------------------------------------------ helpers
    def _draw_opponents(self) -> None:
        """The opponent of every other seat for the next episode (a pool draws per seat)."""
        plan, p = self._plan, self.rules.players
        seats = [(self.learner_seat + i + 1) % p for i in range(p - 1)]
        if plan.pool is not None:
            drawn = [plan.pool[k] for k in self._rng.integers(len(plan.pool), size=p - 1)]
        else:
            drawn = list(plan.seats)
        self._seat_agents = {seat: plan.agents[k] for seat, k in zip(seats, drawn)}

    def _advance(
        self, inner: TensorDictBase, group: str, action: int
    ) -> tuple[TensorDictBase, float]:
        """Step the wrapper with ``group``'s ``action``; its next entries and the learner's reward."""
        step = self._actions.clone()
        step.set((group, "action"), torch.tensor([action]))
        out = self.pettingzoo.step(step).get("next")
        return out, float(out.get((self.learner, "reward")).sum())

    def _play_opponents(self, inner: TensorDictBase) -> tuple[TensorDictBase, float, bool]:
        """Opponents act until the learner is to act or the episode ends; the wrapper's
        entries then, the learner's rewards on the way, and whether the episode ended."""
        reward = 0.0
        while not bool(inner.get("done")):
            if bool(inner.get((self.learner, "mask"))[0]):
                break
            seat = next(k for k, g in enumerate(self.groups) if bool(inner.get((g, "mask"))[0]))
            group = self.groups[seat]
            observation = inner.get((group, "observation", "observation")).numpy()
            mask = inner.get((group, "action_mask")).numpy()
            action = int(
                np.asarray(self._seat_agents[seat](observation, mask, self._rng)).reshape(-1)[0]
            )
            inner, more = self._advance(inner, group, action)
            reward += more
        self._inner = inner
        return inner, reward, bool(inner.get("done"))

    def _entries(self, inner: TensorDictBase) -> TensorDictBase:
        """The learner's entries from the wrapper's: observation, mask and done flags."""
        done = inner.get("done").clone()
        if bool(done):
            mask = torch.zeros(self.num_actions, dtype=torch.bool)
            self.action_spec.update_mask(None)
        else:
            mask = inner.get((self.learner, "action_mask"))[0].clone()
            self.action_spec.update_mask(mask.clone())
        return TensorDict(
            {
                "observation": inner.get((self.learner, "observation", "observation"))[0].clone(),
                "action_mask": mask,
                "done": done,
                "terminated": inner.get("terminated").clone(),
                "truncated": inner.get("truncated").clone(),
            },
            batch_size=self.batch_size,
        )

    def close(self, *, raise_if_closed: bool = True) -> None:
        self.pettingzoo.close(raise_if_closed=raise_if_closed)
        super().close(raise_if_closed=raise_if_closed)
