"""A trained PPO policy as a batched agent (strategy ``ppo``), loadable by name.

A spec file in ``agents/`` names the checkpoint (relative to ``agents/``)::

    strategy = "ppo"
    [params]
    checkpoint = "ppo-official-2p.pt"

``ppo:checkpoint=runs/NAME/<timestamp>/checkpoint.pt`` loads any training checkpoint. The
policy samples its action from the masked distribution with the caller's generator
(``greedy=true``: the most probable legal action). Networks are loaded once per process.

A policy plays the layout of the deck it was trained on (its checkpoint records it; one that
does not is classic): a ``classic`` policy plays every deck of classic cards, an ``extreme``
or ``extension`` policy every deck with new cards. Rules of the other layout are refused with
one line naming both decks and layouts.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from uno_rl.agents.base import Agent, AgentError, Param

from .checkpoint import CheckpointError, load_checkpoint, load_weights, network_spec
from .inputs import NetworkInputs
from .network import PolicyNetwork, masked_logits

__all__ = ["PPOAgent", "load_policy", "load_policy_inputs"]

_CACHE: dict[tuple[str, float], tuple[PolicyNetwork, NetworkInputs]] = {}


def load_policy_inputs(path: str | Path) -> tuple[PolicyNetwork, NetworkInputs]:
    """The network of a checkpoint and what it reads (its layout, deck, columns; cached)."""
    path = Path(path).resolve()
    key = (str(path), path.stat().st_mtime if path.exists() else 0.0)
    if key not in _CACHE:
        data = load_checkpoint(path)
        spec = network_spec(data, path)
        try:
            inputs = NetworkInputs.of_spec(spec)
            network = inputs.network(spec["hidden"], spec["scaled"])
        except (KeyError, RuntimeError, ValueError) as error:
            raise CheckpointError(f"checkpoint {path}: bad network: {error}") from None
        load_weights(network, data["model"], path)
        network.eval()
        _CACHE[key] = (network, inputs)
    return _CACHE[key]


def load_policy(path: str | Path) -> tuple[PolicyNetwork, np.ndarray]:
    """The network of a checkpoint and the observation columns (F,) int64 it reads (cached)."""
    network, inputs = load_policy_inputs(path)
    return network, inputs.columns


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
            self.network, self.inputs = load_policy_inputs(path)
            self.inputs.check_plays(rules, f"checkpoint {path}")
        except (CheckpointError, ValueError) as error:
            raise AgentError(f"agent 'ppo': {error}") from None
        #: (F,) int64: the observation columns the network reads
        self.columns = self.inputs.columns
        #: the training config the checkpoint records (empty if none): what its value means
        self.config = dict(load_checkpoint(path).get("config") or {})

    @property
    def _read(self) -> slice | np.ndarray:
        """How the network's columns are read from an observation: a network that reads the
        first F columns (every shipped one) reads a slice (no gather, and no copy at all
        where F is the whole observation), another its ``columns``."""
        columns = self.columns
        cached = self.__dict__.get("_read_cache")
        if cached is None or cached[0] is not columns:
            first = np.arange(columns.size)
            read = slice(0, columns.size) if np.array_equal(columns, first) else columns
            self.__dict__["_read_cache"] = cached = (columns, read)
        return cached[1]

    def _check_batch(self, observations, masks) -> int:
        """The batch size k of ``observations`` (k, O) and ``masks`` (k, A) bool of the
        policy's layout; a clear ValueError otherwise."""
        layout = self.inputs.layout
        masks = np.asarray(masks)
        if masks.ndim != 2 or masks.shape[1] != layout.num_actions or masks.dtype != bool:
            raise ValueError(
                f"masks must be a (k, {layout.num_actions}) bool array (the {layout.name} "
                f"layout of this policy), got {masks.dtype} {masks.shape}"
            )
        shape = np.shape(observations) if observations is not None else None
        if shape != (masks.shape[0], layout.obs_size):
            raise ValueError(
                f"observations must be a (k, {layout.obs_size}) array (the {layout.name} "
                f"layout of this policy) with one row per mask row, got shape {shape}"
            )
        return masks.shape[0]

    def estimate_problem(self, objective: str) -> str:
        """Why :meth:`estimate` cannot value ``objective`` (``points``, ``win``, ``match``) for
        this policy, or "" when it can: its value head predicts the training reward, which
        converts to net points only for a points reward without a win bonus, and to a round
        win only for a win/loss reward, one round an episode."""
        config = self.config
        reward = (config.get("switches") or {}).get("reward", "win-loss")
        if config.get("objective", "rules") != "rules":
            return f"it was trained on the {config.get('objective')!r} objective"
        if config.get("win_bonus"):
            return "its training reward adds a win bonus to the points"
        if objective == "points" and reward != "points":
            return f"it was trained on the {reward!r} reward, not points"
        if objective == "win" and reward == "points":
            return "it was trained on points, not round wins"
        if objective == "match":
            return "its value is that of a round, not of the match"
        return ""

    @torch.no_grad()
    def estimate(self, state, seat: np.ndarray, objective: str) -> np.ndarray:
        """(n,) float64: the value head's estimate of each game of ``state`` to ``seat`` (n,),
        in ``objective``'s units (net points of the round, or the round-win probability).

        The value head was trained on the acting seat's observations; here it reads
        ``seat``'s view, whoever acts (an approximation away from its own turns).
        """
        from uno_rl.core.observe import observe

        why = self.estimate_problem(objective)
        if why:
            raise ValueError(f"agent {self.label!r} cannot estimate {objective!r}: {why}")
        obs = observe(state, np.asarray(seat, np.int64))
        _, value = self.network.act_forward(obs, self._read)
        value = value.double().numpy()
        if objective == "points":
            return value / (self.config.get("reward_scale") or (1.0 / 50.0))
        losers = self.rules.players - 1  # win-loss: +1 for the winner, -1/(P-1) for the others
        return np.clip((value + 1.0 / losers) / (1.0 + 1.0 / losers), 0.0, 1.0)

    @torch.no_grad()
    def act(self, observations, masks, rng, memory=None, rows=None):
        k = self._check_batch(observations, masks)
        logits, _ = self.network.act_forward(observations, self._read)
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
