"""Average the weights of PPO policies into one policy (a "model soup").

Fine-tunes of one bot (runs started with ``init_from`` from a common ancestor, on different
seeds, rewards or opponents) stay in one basin of the loss, and the mean of their weights often
plays better than any of them alone (Wortsman et al., 2022, "Model soups").
:func:`average_policies` averages every tensor of the model uniformly (in float32, then cast
back to each tensor's dtype); ``config`` is the first input's, and ``averaged_from`` lists the
inputs. The command line is ``uno_rl average`` (:mod:`uno_rl.programs.average`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch

from .checkpoint import CheckpointError, load_checkpoint, network_spec

__all__ = ["average_policies", "resolve_policy"]


def resolve_policy(name: str) -> Path:
    """A policy file from a path, a run folder (its ``policy.pt``) or a shipped PPO agent's
    name (the checkpoint its spec names)."""
    path = Path(name)
    if path.is_dir():
        return path / "policy.pt"
    if path.exists() or path.suffix == ".pt":
        return path
    from uno_rl.agents import AgentError, make_agent
    from uno_rl.core.rules import load_rules

    try:
        agent = make_agent(name, load_rules("official"))
    except (AgentError, ValueError) as error:
        raise CheckpointError(
            f"{name!r}: not a policy file, run folder or PPO agent ({error})"
        ) from None
    checkpoint = getattr(agent, "checkpoint_path", None)
    if checkpoint is None:
        raise CheckpointError(f"{name!r}: agent {agent.name!r} is not a PPO policy")
    return Path(checkpoint)


def average_policies(paths: Sequence[str | Path]) -> dict[str, Any]:
    """The checkpoint payload whose model is the mean of the models of ``paths`` (at least
    two), checked to share one network; raises :class:`CheckpointError` naming the file."""
    if len(paths) < 2:
        raise CheckpointError(f"averaging needs at least two policies, got {len(paths)}")
    loaded = [(Path(p), load_checkpoint(p)) for p in paths]
    first_path, first = loaded[0]
    spec = network_spec(first, first_path)
    model = first["model"]
    if not isinstance(model, dict) or not all(isinstance(t, torch.Tensor) for t in model.values()):
        raise CheckpointError(f"checkpoint {first_path}: its model is not a table of tensors")
    for path, data in loaded[1:]:
        if network_spec(data, path) != spec:
            raise CheckpointError(
                f"checkpoint {path}: its network {network_spec(data, path)} differs from "
                f"{first_path}'s {spec}: only policies of one network can be averaged"
            )
        other = data["model"]
        if not isinstance(other, dict) or set(other) != set(model):
            raise CheckpointError(f"checkpoint {path}: its tensors differ from {first_path}'s")
        for key, tensor in model.items():
            if not isinstance(other[key], torch.Tensor) or other[key].shape != tensor.shape:
                raise CheckpointError(
                    f"checkpoint {path}: tensor {key} has another shape than in {first_path}"
                )
    averaged = {
        key: (sum(data["model"][key].float() for _, data in loaded) / len(loaded)).to(tensor.dtype)
        for key, tensor in model.items()
    }
    payload = {k: v for k, v in first.items() if k not in ("format", "model")}
    payload["model"] = averaged
    payload["averaged_from"] = [str(path) for path, _ in loaded]
    return payload
