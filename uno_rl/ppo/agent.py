"""A trained PPO policy as a batched agent (strategy ``ppo``), loadable by name.

A spec file in ``agents/`` names the checkpoint (relative to ``agents/``)::

    strategy = "ppo"
    [params]
    checkpoint = "ppo-official-2p.pt"

``ppo:checkpoint=runs/NAME/<timestamp>/checkpoint.pt`` loads any training checkpoint. The
policy samples its action from the masked distribution with the caller's generator
(``greedy=true``: the most probable legal action). Networks are loaded once per process.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from uno_rl.agents.base import Agent, AgentError, Param, check_batch

from .checkpoint import CheckpointError, load_checkpoint, load_weights, network_spec
from .network import PolicyNetwork, feature_columns, input_scale, masked_logits

__all__ = ["PPOAgent", "load_policy"]

_CACHE: dict[tuple[str, float], tuple[PolicyNetwork, np.ndarray]] = {}


def load_policy(path: str | Path) -> tuple[PolicyNetwork, np.ndarray]:
    """The network of a checkpoint and the observation columns it reads (cached)."""
    path = Path(path).resolve()
    key = (str(path), path.stat().st_mtime if path.exists() else 0.0)
    if key not in _CACHE:
        data = load_checkpoint(path)
        spec = network_spec(data, path)
        try:
            columns = feature_columns(spec["features"])
            scale = input_scale(spec["features"]) if spec["scaled"] else None
            network = PolicyNetwork(len(columns), spec["hidden"], scale)
        except (KeyError, RuntimeError, ValueError) as error:
            raise CheckpointError(f"checkpoint {path}: bad network: {error}") from None
        load_weights(network, data["model"], path)
        network.eval()
        _CACHE[key] = (network, columns)
    return _CACHE[key]


class PPOAgent(Agent):
    """A PPO policy network from a checkpoint file."""

    name = "ppo"
    summary = "a trained PPO policy (checkpoint)"
    PARAMS = {
        "checkpoint": Param("", "checkpoint file: absolute, or relative to agents/"),
        "greedy": Param(False, "play the most probable legal action instead of sampling"),
    }

    def __init__(self, rules, **params):
        super().__init__(rules, **params)
        from uno_rl.agents.registry import AGENTS_DIR

        text = self.params["checkpoint"]
        if not text:
            raise AgentError("agent 'ppo': parameter 'checkpoint' is required")
        path = Path(text)
        if not path.is_absolute() and not path.exists():
            path = AGENTS_DIR / text
        #: the policy file this agent plays
        self.checkpoint_path = path
        try:
            self.network, self.columns = load_policy(path)
        except CheckpointError as error:
            raise AgentError(f"agent 'ppo': {error}") from None

    @torch.no_grad()
    def act(self, observations, masks, rng, memory=None, rows=None):
        k = check_batch(observations, masks, True)
        features = torch.from_numpy(np.ascontiguousarray(observations[:, self.columns]))
        logits, _ = self.network(features)
        logits = masked_logits(logits, torch.from_numpy(masks))
        if self.params["greedy"]:
            return logits.argmax(dim=1).numpy().astype(np.int64)
        probs = torch.softmax(logits.double(), dim=1).numpy()
        cumulative = probs.cumsum(axis=1)
        u = rng.random(k)[:, None] * cumulative[:, -1:]
        actions = np.minimum((cumulative <= u).sum(axis=1), masks.shape[1] - 1)
        bad = ~masks[np.arange(k), actions]  # a draw on a rounding edge: take the mode
        if bad.any():
            actions[bad] = logits[torch.from_numpy(bad)].argmax(dim=1).numpy()
        return actions.astype(np.int64)
