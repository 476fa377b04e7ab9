"""``uno_rl distill``: a search agent's choices distilled into a PPO policy, iterated.

    uno_rl distill                                            # the shipped 2-player recipe
    uno_rl distill --config experiments/train-distill-official-2p.toml --iterations 1
    uno_rl distill --resume runs/distill-official-2p/<timestamp>

Each iteration the search agent (``[distill] search``) searches with the current policy and
plays it on duplicate deals, keeping its decisions as targets; a PPO run then starts from the
policy and learns the real game and the search's choices at once, and the policy it trains
goes back into the search (:mod:`uno_rl.ppo.expert_iteration`). The run folder
(``RUNS_DIR/NAME/<timestamp>/``) holds ``distill.json`` (the recipe), ``iter-K/targets-*.npz``
(the search data, kept and reused), ``iter-K/train/`` (each training run), ``search.csv``
(how the search fared against each policy) and ``policy.pt`` (the last policy).

Killed or interrupted, ``--resume RUN`` goes on from the last file written. Bad input is one
``error:`` line and exit status 2.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

from tqdm import tqdm

from uno_rl.agents import AgentError
from uno_rl.core.rules import RulesError
from uno_rl.eval.backends import BackendError
from uno_rl.plumbing import resources
from uno_rl.plumbing.cli import CliParser, count_type, print_error
from uno_rl.plumbing.durable import write_bytes_durably, write_text_durably
from uno_rl.plumbing.processes import Interrupted, interruptible
from uno_rl.plumbing.safe_text import printable
from uno_rl.ppo.checkpoint import CheckpointError
from uno_rl.ppo.config import (
    TrainConfig,
    TrainConfigError,
    add_arguments,
    config_from_dict,
    config_with_overrides,
    option_name,
    read_config_file,
)
from uno_rl.ppo.expert_iteration import (
    DistillSettings,
    generate_chunk,
    iteration_config,
    next_step,
    search_rules,
    search_table,
    split_recipe,
)
from uno_rl.ppo.runs import new_run_path, read_run_config
from uno_rl.ppo.search_targets import TargetsError

from .train import train

__all__ = ["DEFAULT_RECIPE", "distill", "main"]

DEFAULT_RECIPE = resources.shipped_dir("experiments") / "train-distill-official-2p.toml"
#: The file of a distillation run that holds its recipe.
RECIPE_FILE = "distill.json"
_SETTINGS = [f.name for f in dataclasses.fields(DistillSettings)]


def distill(settings: DistillSettings, base: TrainConfig, run: Path,
            progress: bool = True) -> Path:  # fmt: skip
    """Run (or go on with) the distillation in ``run``; returns the last policy's file."""
    rules = search_rules(base)
    while True:
        k, step, chunk = next_step(run, settings)
        if step == "done":
            break
        if step == "search":
            total = settings.deals * rules.players
            done = min(chunk * settings.chunk, settings.deals) * rules.players
            with tqdm(total=total, initial=done, disable=not progress, unit="round",
                      desc=f"iteration {k}: search data") as bar:  # fmt: skip
                for c in range(chunk, settings.chunks):
                    if not (run / f"iter-{k}" / f"targets-{c:03d}.npz").is_file():
                        generate_chunk(run, k, c, base, settings, rules, bar.update)
                    search_table(run, settings)
            continue
        folder = run / f"iter-{k}" / "train"
        resume = (folder / "checkpoint.pt").is_file()
        if folder.exists() and not resume:  # stopped before its first checkpoint: start again
            shutil.rmtree(folder)
        config = read_run_config(folder) if resume else iteration_config(run, k, base, settings)
        if progress:
            print(f"iteration {k}: training {config.total_decisions:,} decisions in {folder}",
                  flush=True)  # fmt: skip
        train(config, folder, resume, progress)
    last = run / f"iter-{settings.iterations - 1}" / "train" / "policy.pt"
    write_bytes_durably(run / "policy.pt", last.read_bytes())
    return run / "policy.pt"


def build_parser() -> CliParser:
    parser = CliParser(
        prog="uno_rl distill",
        description="Distill a search agent's choices into a PPO policy, iterated (expert "
        "iteration).",
    )
    parser.add_argument("--config", default=None,
                        help=f"a recipe: a training config with a [distill] table (default "
                             f"{DEFAULT_RECIPE.name})")  # fmt: skip
    parser.add_argument("--resume", default=None, metavar="RUN", help="a run folder to continue")
    parser.add_argument("--runs-dir", default="runs",
                        help="where new runs go: RUNS_DIR/NAME/<timestamp>/ (default runs)")  # fmt: skip
    parser.add_argument("--iterations", type=count_type(1, 1000), default=None,
                        help="search-then-train iterations (default: the recipe's)")  # fmt: skip
    parser.add_argument("--deals", type=count_type(1, 10_000_000), default=None,
                        help="duplicate deals of search data per iteration (default: the "
                             "recipe's)")  # fmt: skip
    parser.add_argument("--chunk", type=count_type(1, 10_000_000), default=None,
                        help="deals per targets file (default: the recipe's)")  # fmt: skip
    parser.add_argument("--search", default=None,
                        help="the search agent, searching with the current policy (default: "
                             "the recipe's)")  # fmt: skip
    parser.add_argument("--slots", type=count_type(1, 65_536), default=None,
                        help="games the search plays in lockstep (default: the recipe's)")  # fmt: skip
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bars")
    add_arguments(parser, default_config())
    for action in parser._actions:  # read only to be refused in one line
        if action.dest == "distill_data":
            action.help = "refused: uno_rl distill makes each iteration's targets itself"
    return parser


def default_config() -> TrainConfig | None:
    """The training config of the default recipe (what ``--help`` shows), if it reads."""
    try:
        _, fields = split_recipe(read_config_file(DEFAULT_RECIPE), str(DEFAULT_RECIPE))
        return config_from_dict(fields, str(DEFAULT_RECIPE))
    except TrainConfigError:
        return None


def new_run(args, overrides: dict) -> tuple[DistillSettings, TrainConfig, Path]:
    """The settings, base config and (not yet made) folder of a new distillation run."""
    if "distill_data" in overrides:
        raise TrainConfigError(
            "--distill-data: uno_rl distill makes each iteration's targets itself"
        )
    path = DEFAULT_RECIPE if args.config is None else Path(args.config)
    settings, fields = split_recipe(read_config_file(path), str(path))
    given = {name: getattr(args, name) for name in _SETTINGS if getattr(args, name) is not None}
    settings = dataclasses.replace(settings, **given)
    base = config_with_overrides(fields, str(path), overrides)
    base.rules()  # a bad combination of switches: one line now
    if not args.runs_dir:
        raise TrainConfigError("--runs-dir: must name a folder")
    return settings, base, new_run_path(Path(args.runs_dir), base.name)


def read_recipe(run: Path) -> tuple[DistillSettings, TrainConfig]:
    """The recipe of a distillation run folder (errors name the file)."""
    path = run / RECIPE_FILE
    if not run.is_dir():
        raise TrainConfigError(f"--resume {run}: no such run folder")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        settings = DistillSettings.from_table(data["distill"], str(path))
        return settings, config_from_dict(data["config"], str(path))
    except FileNotFoundError:
        raise TrainConfigError(
            f"--resume {run}: not a distillation run (no {RECIPE_FILE})"
        ) from None
    except (OSError, ValueError, TypeError, KeyError) as error:
        raise TrainConfigError(f"{path}: cannot be read: {error}") from None


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``uno_rl distill ARGV``; the exit status (0: done, 2: bad input, 130 or 143: stopped
    by Ctrl-C or SIGTERM, with one line saying where it can go on)."""
    with interruptible():
        return _run(argv)


def _run(argv: Sequence[str] | None) -> int:
    args = build_parser().parse_args(argv)
    names = [f.name for f in dataclasses.fields(TrainConfig)]
    overrides = {name: getattr(args, name) for name in names if getattr(args, name) is not None}
    run: Path | None = None
    try:
        if args.resume is not None:
            given = [option_name(k) for k in overrides]
            given += [f"--{k}" for k in _SETTINGS if getattr(args, k) is not None]
            if given or args.config is not None:
                raise TrainConfigError(
                    "--resume continues a run with its own recipe: no other settings (got "
                    f"{', '.join(given or ['--config'])})"
                )
            run = Path(args.resume)
            settings, base = read_recipe(run)
            print(f"resuming the distillation in {run}", flush=True)
        else:
            settings, base, run = new_run(args, overrides)
            run.mkdir(parents=True)
            recipe = {"distill": dataclasses.asdict(settings), "config": base.to_dict()}
            write_text_durably(run / RECIPE_FILE, json.dumps(recipe, indent=2) + "\n")
            print(f"distilling {settings.search} into {base.init_from} in {run}: "
                  f"{settings.iterations} iterations of {settings.deals:,} deals and "
                  f"{base.total_decisions:,} training decisions", flush=True)  # fmt: skip
        policy = distill(settings, base, run, not args.no_progress)
        table = search_table(run, settings)
        for k, rows in table.groupby("iteration"):
            points = (rows.search_points_per_round * rows.rounds).sum() / rows.rounds.sum()
            print(f"iteration {k}: the search {points:+.2f} net points a round against "
                  f"{rows.policy.iloc[0]} over {rows.rounds.sum():,} rounds; "
                  f"{rows.decisions.sum():,} targets")  # fmt: skip
        print(f"policy: {policy} (agent spec ppo:checkpoint={policy}); table: {run / 'search.csv'}")
    except (TrainConfigError, CheckpointError, AgentError, RulesError, BackendError,
            TargetsError) as error:  # fmt: skip
        message = " ".join(line.strip() for line in str(error).splitlines() if line.strip())
        print_error(message)
        return 2
    except KeyboardInterrupt as stop:  # Interrupted: a signal; else raised by the code itself
        where = f"; continue with: uno_rl distill --resume {run}" if run is not None else ""
        print(
            printable(f"interrupted: the distillation stopped at its last file{where}"),
            file=sys.stderr,
        )
        return stop.status if isinstance(stop, Interrupted) else 130
    return 0
