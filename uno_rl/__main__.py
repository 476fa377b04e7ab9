"""One command for every program: ``uno_rl SUBCOMMAND ...`` (or ``python -m uno_rl SUBCOMMAND``).

    uno_rl train                                        # PPO self-play, the quick-start config
    uno_rl evaluate color-first random-playable --rounds 20000
    uno_rl presets                                      # what can be named
    uno_rl --version

Each subcommand is a program of its own (``python -m uno_rl.train`` keeps working), imported
only when it runs, so that ``uno_rl --help`` answers at once. Every subcommand names the same
things the same way: ``--preset``, ``--players``, ``--set KEY=VALUE`` (a rule switch,
repeatable), ``--seed``, ``--rounds``, ``--workers``, ``--out``, ``--no-progress``.
"""

from __future__ import annotations

import difflib
import importlib
import os
import sys
from collections.abc import Sequence

__all__ = ["COMMANDS", "main"]

#: Subcommand -> (module, function taking argv, one line of what it does).
COMMANDS: dict[str, tuple[str, str, str]] = {
    "train": (
        "uno_rl.programs.train",
        "main",
        "train a PPO bot by self-play (default: the quick start)",
    ),
    "exploit": (
        "uno_rl.programs.exploit",
        "main",
        "train a best response to an agent: what it wins (exploitability)",
    ),
    "distill": (
        "uno_rl.programs.distill",
        "main",
        "distill a search agent's choices into a PPO bot, iterated",
    ),
    "evaluate": (
        "uno_rl.programs.evaluate",
        "main",
        "duplicate-deal evaluation of agents, with intervals",
    ),
    "scorecard": (
        "uno_rl.programs.scorecard",
        "main",
        "the standard scorecard of an agent: every heuristic and bot, 2 and 4 players",
    ),
    "experiment": ("uno_rl.programs.experiment", "main", "run an experiment config (resumable)"),
    "play": ("uno_rl.programs.play", "main", "play UNO in the terminal against bots"),
    "replay": ("uno_rl.programs.replay", "main", "show a saved game again"),
    "simulate": ("uno_rl.programs.simulate", "main", "random self-play statistics of a rule set"),
    "bench": (
        "uno_rl.programs.bench.command",
        "main",
        "throughput benchmark: decisions/s and rounds/s",
    ),
    "average": (
        "uno_rl.programs.average",
        "main",
        "average the weights of PPO policies (model soup)",
    ),
    "presets": ("uno_rl.programs.listing", "presets_main", "list the rule presets"),
    "decks": (
        "uno_rl.programs.listing",
        "decks_main",
        "list the decks (the later editions' cards)",
    ),
    "agents": ("uno_rl.programs.listing", "agents_main", "list the agents (heuristics and bots)"),
    "experiments": ("uno_rl.programs.listing", "experiments_main", "list the experiment configs"),
    "notebooks": ("uno_rl.programs.notebooks", "main", "copy the analysis notebooks into a folder"),
}

PROG = "uno_rl"


def usage() -> str:
    """The text of ``uno_rl --help``: every subcommand with one line."""
    width = max(map(len, COMMANDS))
    lines = [
        f"usage: {PROG} [--version] [--help] COMMAND [ARGS ...]",
        "",
        "UNO simulation, agents, evaluation and PPO training.",
        "",
        "commands:",
        *(f"  {name:<{width}}  {text}" for name, (_, _, text) in COMMANDS.items()),
        "",
        f"'{PROG} COMMAND --help' shows a command's options. Shared options: --preset, "
        "--players, --set KEY=VALUE (a rule switch, repeatable), --seed, --rounds, --workers, "
        "--out, --no-progress.",
    ]
    return "\n".join(lines)


def _version() -> str:
    import uno_rl

    return f"{PROG} {uno_rl.__version__}"


def main(argv: Sequence[str] | None = None, leaving: bool | None = None) -> int:
    """Run ``uno_rl ARGV``; the exit status (0: done, 2: bad input).

    ``leaving`` (default: whether ``argv`` is None, as for the ``uno_rl`` command): the process
    exits with the status next, so where a stopped pool left a thread Python would wait for
    forever at exit, it leaves at once (:func:`uno_rl.plumbing.processes.exit_would_hang`).
    """
    status = _main(argv)
    from uno_rl.plumbing.processes import exit_would_hang

    if (argv is None if leaving is None else leaving) and exit_would_hang():
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)
    return status


def _main(argv: Sequence[str] | None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help", "help"):
        print(usage())
        return 0
    if args[0] in ("-V", "--version"):
        print(_version())
        return 0
    name, rest = args[0], args[1:]
    if name not in COMMANDS:
        close = difflib.get_close_matches(name, COMMANDS, n=1)
        hint = f" (did you mean '{close[0]}'?)" if close else ""
        shown = name if len(name) <= 40 else name[:37] + "..."
        print(
            f"error: unknown command {shown!r}{hint}; commands: {', '.join(COMMANDS)}",
            file=sys.stderr,
        )
        return 2
    from uno_rl.core.backend import EngineChoiceError, check_engine_variable
    from uno_rl.core.compiled.thread_setting import check_threads_variable

    problem = check_engine_variable() or check_threads_variable()
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    module, function, _ = COMMANDS[name]
    try:
        program = getattr(importlib.import_module(module), function)
    except KeyboardInterrupt:  # Ctrl-C while the command's modules load: nothing ran yet
        print(f"interrupted before {PROG} {name} started: nothing was written", file=sys.stderr)
        return 130
    try:
        result = program(rest)
    except SystemExit as stop:  # argparse (--help, bad options) and fail(): their status
        if stop.code is None or isinstance(stop.code, int):
            return stop.code or 0
        from uno_rl.plumbing.safe_text import printable

        print(printable(stop.code), file=sys.stderr)
        return 1
    except EngineChoiceError as error:  # UNO_RL_ENGINE=compiled where numba does not import
        print(f"error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # Ctrl-C in a program without its own handling (simulate, bench)
        print(f"interrupted: {PROG} {name} stopped", file=sys.stderr)
        return 130
    except BrokenPipeError:  # piped into a program that stopped reading (head)
        try:  # keep Python from failing again when it flushes stdout at exit
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):  # stdout is not a file (tests)
            pass
        return 0
    # simulate and bench return their tables (for notebooks); a command line only wants 0.
    return result if isinstance(result, int) and not isinstance(result, bool) else 0


if __name__ == "__main__":
    sys.exit(main(leaving=True))
