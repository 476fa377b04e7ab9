"""PettingZoo's classic wrapper stack, fused into one layer.

The classic environments wrap their raw env as
``OrderEnforcingWrapper(AssertOutOfBoundsWrapper(TerminateIllegalWrapper(raw, -1)))``.
:class:`ClassicWrapper` behaves the same way (tested side by side against that stack in
``tests/envs/test_classic_wrapper.py``):

* order: ``step``, ``observe``, ``render`` and the AEC attributes before ``reset`` raise
  PettingZoo's errors; a step with no agents left warns;
* a malformed action (not one integer in ``[0, A)``, A the deck layout's action count:
  77 classic, 122 extended) raises a ``TypeError`` /
  ``ValueError`` naming it (:func:`uno_rl.envs.game.check_action`) where the stack's
  ``assert`` would name nothing;
* an illegal action ends the game: -1 to the offender, 0 to the others, every agent
  terminated and truncated (PettingZoo's ``TerminateIllegalWrapper`` convention).

Why fuse: each wrapper layer forwards attribute reads through ``__getattr__``, about 40
reads a decision through four layers, which cost more than the game itself. Here the hot
attributes are plain properties reading the raw env.
"""

from __future__ import annotations

from pettingzoo import AECEnv
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

from .game import check_action


class ClassicWrapper(OrderEnforcingWrapper):
    """Order enforcing, action checks and terminate-on-illegal in one layer.

    Args:
        env: the raw AEC env; its observations are dicts holding ``"action_mask"`` and it has
            a ``privileged_game`` (:class:`~uno_rl.envs.game.SingleGame`) giving the legal mask,
            and a ``layout`` (the deck's :class:`~uno_rl.core.layout.Layout`).
        illegal_reward: reward of a player making an illegal move (others get 0).

    Everything but ``step`` and the hot attributes is PettingZoo's ``OrderEnforcingWrapper``.
    """

    def __init__(self, env: AECEnv, illegal_reward: float = -1.0):
        super().__init__(env)
        self._raw = env
        self._illegal_reward = float(illegal_reward)
        self._num_actions = int(env.layout.num_actions)

    def _live(self) -> AECEnv:
        if not self._has_reset:
            raise AttributeError("cannot be accessed before reset")
        return self._raw

    # The hot attributes: a property each, straight to the raw env. Before reset the
    # property's AttributeError falls back to OrderEnforcingWrapper.__getattr__, which
    # raises PettingZoo's own "<name> cannot be accessed before reset".
    agent_selection = property(lambda self: self._live().agent_selection)
    agents = property(lambda self: self._live().agents)
    rewards = property(lambda self: self._live().rewards)
    terminations = property(lambda self: self._live().terminations)
    truncations = property(lambda self: self._live().truncations)
    infos = property(lambda self: self._live().infos)
    num_agents = property(lambda self: len(self._live().agents))
    _cumulative_rewards = property(lambda self: self._raw._cumulative_rewards)

    def last(self, observe: bool = True) -> tuple:
        """``AECEnv.last`` read straight from the raw env (no forwarding per attribute)."""
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        raw = self._raw
        agent = raw.agent_selection
        return (
            raw.observe(agent) if observe else None,
            raw._cumulative_rewards[agent],
            raw.terminations[agent],
            raw.truncations[agent],
            raw.infos[agent],
        )

    def step(self, action) -> None:
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        raw = self._raw
        self._has_updated = True
        if not raw.agents:
            EnvLogger.warn_step_after_terminated_truncated()
            return
        agent = raw.agent_selection
        if raw.terminations[agent] or raw.truncations[agent]:
            if action is not None:
                check_action(action, self._num_actions)
            raw.step(action)  # the dead step (PettingZoo rejects anything but None)
            return
        if type(action) is not int or not 0 <= action < self._num_actions:
            action = check_action(
                action, self._num_actions
            )  # a NumPy integer, or the error naming the value
        if raw._step_if_legal(action):
            return
        EnvLogger.warn_on_illegal_move()
        raw._cumulative_rewards[agent] = 0
        raw.terminations = dict.fromkeys(raw.agents, True)
        raw.truncations = dict.fromkeys(raw.agents, True)
        raw.rewards = dict.fromkeys(raw.truncations, 0)
        raw.rewards[agent] = self._illegal_reward
        raw._accumulate_rewards()
        raw._deads_step_first()

    def __str__(self) -> str:
        return str(self._raw)
