"""Average the weights of PPO policies into one policy (a "model soup").

    uno_rl average OUT.pt IN1.pt IN2.pt ...

Fine-tunes of one bot (runs started with ``init_from`` from a common ancestor, on different
seeds, rewards or opponents) stay in one basin of the loss, and the mean of their weights often
plays better than any of them alone (Wortsman et al., 2022, "Model soups"). This program takes
``policy.pt`` files (or run folders, or shipped agent names such as ``ppo-official-4p``) of the
same network (features, hidden sizes, input scaling), averages them
(:func:`uno_rl.ppo.soup.average_policies`) and writes a policy file in the same format,
durably.

Bad input (fewer than two policies, one policy file named twice, a missing, unreadable or
corrupt file, networks that differ, an output that exists without ``--force``, an output that
is one of the inputs, or that is not a file: a folder, a device, a FIFO, even with
``--force``) gets one ``error:`` line and exit status 2; nothing is written.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from uno_rl.plumbing.cli import CliParser, fail
from uno_rl.plumbing.durable import DurableWriteError, check_target, check_writable
from uno_rl.ppo.checkpoint import CheckpointError, save_checkpoint
from uno_rl.ppo.soup import average_policies, resolve_policy

__all__ = ["build_parser", "check_distinct", "main"]


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
