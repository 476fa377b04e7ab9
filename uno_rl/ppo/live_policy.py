"""The policy a training run is training, as an agent: what its evaluations play.

A run's evaluations (every ``eval_every`` updates, and the final one) play the learner's
current weights directly, with no round trip through a file. :class:`LivePolicyAgent` is a
:class:`~uno_rl.ppo.agent.PPOAgent` whose network is a CPU copy of the training network in
eval mode, computed as a loaded ``policy.pt`` computes (float32, tanh: not the training
settings ``trunk_bf16`` and ``sigmoid_form``), so it chooses exactly the actions that the saved
policy would, with the same generator. :meth:`LivePolicyAgent.copy_weights` brings it up to date
before each evaluation.

It pickles as its weights (NumPy arrays) and what it reads, so it travels to evaluation worker
processes without moving torch tensors into shared memory.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import torch
from torch import nn

from uno_rl.agents.base import Agent
from uno_rl.core.rules import Rules

from .agent import PPOAgent
from .inputs import NetworkInputs

__all__ = ["LivePolicyAgent"]


class LivePolicyAgent(PPOAgent):
    """The policy in training, named ``ppo`` (its spec and its label in the tables).

    Args:
        rules: the rules of the evaluations (the run's, :meth:`TrainConfig.rules`).
        inputs: what the training network reads (its layout, deck and columns).
        hidden: the sizes of its hidden layers.
        config: the training config as a dict (:attr:`PPOAgent.config`: what its value means).
        network: the training network, whose weights are copied (on any device).
    """

    summary = "the PPO policy a training run is training"

    def __init__(
        self,
        rules: Rules,
        inputs: NetworkInputs,
        hidden: Sequence[int],
        config: Mapping[str, Any],
        network: nn.Module | None = None,
    ):
        # Not PPOAgent.__init__: there is no checkpoint file to read.
        Agent.__init__(self, rules)
        inputs.check_plays(rules, "the policy in training")
        self.inputs = inputs
        self.hidden = tuple(int(width) for width in hidden)
        #: no file: the weights are the training network's
        self.checkpoint_path = None
        self.network = inputs.network(self.hidden).eval()
        self.columns = inputs.columns
        self.config = dict(config)
        if network is not None:
            self.copy_weights(network)

    def copy_weights(self, network: nn.Module) -> None:
        """Take the current weights of the training ``network``."""
        self.network.load_state_dict(network.state_dict())

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        weights = self.network.state_dict()
        state["network"] = {name: value.detach().cpu().numpy() for name, value in weights.items()}
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        weights = state.pop("network")
        self.__dict__.update(state)
        self.network = self.inputs.network(self.hidden).eval()
        self.network.load_state_dict(
            {name: torch.from_numpy(np.array(value)) for name, value in weights.items()}
        )
