"""Average the weights of PPO policies into one policy (a "model soup").

    uno_rl average OUT.pt IN1.pt IN2.pt ...     # or python -m uno_rl.ppo.average

Fine-tunes of one bot (runs started with ``init_from`` from a common ancestor, on different
seeds, rewards or opponents) stay in one basin of the loss, and the mean of their weights often
plays better than any of them alone (Wortsman et al., 2022, "Model soups"). This program takes
``policy.pt`` files (or run folders, or shipped agent names such as ``ppo-official-4p``) of the
same network (features, hidden sizes, input scaling), averages every tensor of the model
uniformly (in float32, then cast back to each tensor's dtype) and writes a policy file in the
same format, durably; ``config`` is the first input's, and ``averaged_from`` lists the inputs.

Bad input (fewer than two policies, one policy file named twice, a missing, unreadable or
corrupt file, networks that differ, an output that exists without ``--force``, an output that
is one of the inputs, or that is not a file: a folder, a device, a FIFO, even with
``--force``) gets one ``error:`` line and exit status 2; nothing is written.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch

from uno_rl.cli import CliParser, fail
from uno_rl.durable import DurableWriteError, check_target, check_writable

from .checkpoint import CheckpointError, load_checkpoint, network_spec, save_checkpoint

__all__ = ["average_policies", "build_parser", "check_distinct", "main", "resolve_policy"]


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


def build_parser() -> CliParser:
    parser = CliParser(
        prog="uno_rl average",
        description="Average the weights of PPO policies of one network into one policy file "
        "(a model soup of fine-tunes of one bot).",
    )
    parser.add_argument("out", help="the policy file to write (.pt)")
    parser.add_argument(
        "policies",
        nargs="+",
        help="two or more policy files, run folders or shipped PPO agent names",
    )
    parser.add_argument("--force", action="store_true", help="overwrite OUT if it exists")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; bad input exits with one ``error:`` line and status 2."""
    args = build_parser().parse_args(argv)
    out = Path(args.out)
    try:
        check_target(out)  # before --force: a device or a FIFO is never replaced
    except DurableWriteError as error:
        fail(str(error))
    if out.exists() and not args.force:
        fail(f"output {out} exists (use --force to overwrite it)")
    if not out.parent.is_dir():
        fail(f"output folder {out.parent} does not exist")
    try:
        check_writable(out)
        policies = [resolve_policy(p) for p in args.policies]
        check_distinct(out, args.policies, policies)
        payload = average_policies(policies)
    except (CheckpointError, DurableWriteError) as error:
        fail(str(error))
    try:
        save_checkpoint(out, payload)
    except OSError as error:  # the disk filled up, the folder went away
        fail(str(error) if isinstance(error, DurableWriteError) else _write_failure(out, error))
    print(f"averaged {len(args.policies)} policies into {out}")
    return 0


def check_distinct(out: Path, names: Sequence[str], paths: Sequence[Path]) -> None:
    """Refuse (:class:`CheckpointError`) a policy file named twice (by two paths, a run folder
    and its ``policy.pt``, an agent and its checkpoint): it would weigh twice in the mean; and
    an output that is one of the policies (``--force`` would overwrite an input)."""
    for index, path in enumerate(paths):
        if _same_file(out, path):
            raise CheckpointError(
                f"output {out} is also the input {names[index]!r}: it would overwrite a "
                "policy being averaged; choose another output path"
            )
        for earlier in range(index):
            if _same_file(paths[earlier], path):
                where = "" if str(path) in (names[earlier], names[index]) else f" ({path})"
                raise CheckpointError(
                    f"policies {names[earlier]!r} and {names[index]!r} are the same "
                    f"file{where}: name each policy once"
                )


def _same_file(first: Path, second: Path) -> bool:
    """Whether two paths name one file: one inode where both exist, else one resolved path."""
    try:
        return os.path.samefile(first, second)
    except (OSError, ValueError):
        return first.resolve() == second.resolve()


def _write_failure(out: Path, error: OSError) -> str:
    return f"cannot write {out}: {error.strerror or error}"


if __name__ == "__main__":
    raise SystemExit(main())
