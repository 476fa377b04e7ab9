"""A Stable-Baselines3 or sb3-contrib model as an agent: ``sb3:MODEL.zip`` (strategy ``sb3``).

The file is what ``model.save(PATH)`` writes (MaskablePPO, PPO, A2C, DQN, QR-DQN...). The
agent rebuilds the model's policy from it (its class, spaces, keyword arguments and weights;
no environment, no algorithm) and feeds it what a model trained on uno_rl's environments
(:mod:`uno_rl.envs.sb3`, :mod:`uno_rl.envs.gym_env`) saw: the acting seat's observation vector,
float32, as :func:`~uno_rl.core.observe.observe` writes it. A model trained behind
``VecNormalize`` or other observation wrappers saw something else, and would play badly.

A policy with an action distribution (the actor-critic ones: MaskablePPO, PPO, A2C) plays a
draw from its distribution over the legal actions, made with the caller's generator, as
MaskablePPO's masks would restrict it (a plain PPO or A2C never learned masks: its
probabilities are renormalized over the legal actions); ``deterministic=true`` plays the most
probable legal action. A Q-value policy (DQN, QR-DQN) plays the legal action of the highest
value. Recurrent policies are refused::

    sb3:models/uno.zip
    sb3:models/uno.zip,deterministic=true

The model's observation space must be a ``Box`` of the rules' observation width and its action
space ``Discrete`` of their action count (583 and 77 for a deck of classic cards, 877 and 122
for one with the cards of rules specification §11): a model trained on the other layout is
refused in one line naming both widths. Needs the ``sb3`` extra (``pip install
'uno_rl[sb3]'``); without it the agent says so in one line. Loading a model unpickles parts of
the file (its policy class, schedules): name only files you trust.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from .base import AgentError, Param
from .model_agents import ModelAgent, cached, layout_mismatch
from .own_agents import error_line

__all__ = ["SB3Agent", "load_policy"]

#: What the agent says where Stable-Baselines3 is not installed.
MISSING = "agent 'sb3' needs Stable-Baselines3: install uno_rl[sb3] (pip install 'uno_rl[sb3]')"


def load_policy(path: Path) -> Any:
    """The policy of a saved SB3 model, rebuilt on the CPU in eval mode; one
    :class:`AgentError` line when the file is no SB3 model."""
    try:
        from stable_baselines3.common.save_util import load_from_zip_file
    except ImportError:
        raise AgentError(MISSING) from None
    where = f"agent 'sb3': model {path}"
    try:
        data, params, _ = load_from_zip_file(path, device="cpu")
    except Exception as error:
        raise AgentError(f"{where} could not be loaded: {error_line(error)}") from None
    policy_class = (data or {}).get("policy_class")
    if not isinstance(policy_class, type) or "policy" not in (params or {}):
        raise AgentError(f"{where} holds no policy (is it a file of model.save?)")
    if "Recurrent" in policy_class.__name__:
        raise AgentError(f"{where}: recurrent policies ({policy_class.__name__}) are not supported")
    kwargs = dict(data.get("policy_kwargs") or {})
    kwargs.pop("device", None)
    try:
        policy = policy_class(
            data["observation_space"], data["action_space"], lambda _: 0.0, **kwargs
        )
        policy.load_state_dict(params["policy"])
    except Exception as error:
        raise AgentError(f"{where}: its policy could not be rebuilt: {error_line(error)}") from None
    if not any(hasattr(policy, name) for name in ("get_distribution", "q_net", "quantile_net")):
        raise AgentError(
            f"{where}: {policy_class.__name__} has neither an action distribution nor Q-values"
        )
    policy.set_training_mode(False)
    return policy


def _shown(space: Any) -> str:
    """A space in a few characters: ``Box(4, 84)``, ``Discrete(77)``, ``Dict``."""
    shape, count = getattr(space, "shape", None), getattr(space, "n", None)
    if count is not None:
        return f"{type(space).__name__}({count})"
    inside = ", ".join(map(str, shape)) if shape else ""
    return f"{type(space).__name__}({inside})" if shape else type(space).__name__


class SB3Agent(ModelAgent):
    """A saved Stable-Baselines3 / sb3-contrib model (the module docstring)."""

    name = "sb3"
    summary = "a Stable-Baselines3 or sb3-contrib model file (sb3:MODEL.zip)"
    PARAMS = {
        "file": Param("", "the model's .zip file (model.save)"),
        "deterministic": Param(
            False,
            "play the most probable legal action instead of sampling (Q-value models: always)",
        ),
    }
    GREEDY = "deterministic"

    def __init__(self, rules, **params):
        super().__init__(rules, **params)
        #: The model's policy (an SB3 ``BasePolicy``), shared by the agents of one file.
        self.policy = cached("sb3", self.path, load_policy)
        space, actions = self.policy.observation_space, self.policy.action_space
        shape = getattr(space, "shape", None)
        count = getattr(actions, "n", None)
        if type(space).__name__ != "Box" or shape is None or len(shape) != 1 or count is None:
            raise AgentError(
                f"agent 'sb3': model {self.path} reads {_shown(space)} and acts in "
                f"{_shown(actions)}; uno_rl agents see a Box ({rules.layout.obs_size},) and "
                f"choose one of Discrete({rules.layout.num_actions})"
            )
        problem = layout_mismatch(f"agent 'sb3': model {self.path}", shape[0], int(count), rules)
        if problem:
            raise AgentError(problem)
        #: Whether the policy scores actions by Q-values (always the best legal one).
        self.q_values = not hasattr(self.policy, "get_distribution")

    @property
    def greedy(self) -> bool:
        return self.q_values or bool(self.params["deterministic"])

    def scores(self, observations: np.ndarray) -> np.ndarray:
        """(k, A) float64 logits (or Q-values) of the policy."""
        import torch

        policy = self.policy
        with torch.no_grad():
            tensor = torch.from_numpy(observations)
            if hasattr(policy, "get_distribution"):
                scores = policy.get_distribution(tensor).distribution.logits
            elif hasattr(policy, "q_net"):
                scores = policy.q_net(tensor)
            else:
                scores = policy.quantile_net(tensor).mean(dim=1)
        return scores.double().numpy()
