"""PPO self-play: ``uno_rl train`` trains a bot and reports how good it is.

    uno_rl train                                   # the quick-start config
    uno_rl train --config experiments/train-official-2p.toml --num-games 2048
    uno_rl train --resume runs/quickstart/<timestamp>
    uno_rl train --backend ray --workers 8 --address HEAD_IP:6379   # on Ray
    uno_rl train --help                            # every config field

Read top to bottom, in the manner of CleanRL's ``ppo.py``:

1. The config (:class:`uno_rl.ppo.config.TrainConfig`: a file, then command-line overrides).
2. N games in lockstep (:class:`uno_rl.ppo.selfplay.SelfPlay`): the current policy in every
   seat, or in one seat against past snapshots or zoo agents, chosen per game. Where they are
   played is the rollout source (:mod:`uno_rl.ppo.rollout`): ``backend = "local"`` plays them
   all in this process; ``backend = "ray"`` splits them over ``workers`` Ray actors
   (:mod:`uno_rl.ppo.ray_workers`), each with its own generators and a copy of the policy,
   to which the learner broadcasts its weights (one ``ray.put``) every update.
3. Each update: a rollout of ``rollout_steps`` engine steps (``total_decisions`` is rounded to
   the nearest whole number of updates, at least one; the run says so before it starts, and its
   checkpoints keep that number for a resume); the learner's transitions, linked
   per (game, seat) (:class:`uno_rl.ppo.buffer.TurnBuffer`), the round's reward on each seat's
   last transition; GAE, computed where the games are (each worker's rollout comes back with
   its advantages and returns, and the learner concatenates them in worker order);
   ``update_epochs`` passes of the clipped PPO loss over minibatches (masked categorical
   policy, entropy over legal actions, clipped value loss, advantage normalization, linear
   learning-rate decay).
4. Every ``checkpoint_every`` updates a durable checkpoint (model, optimizer, games, pool,
   every generator; on Ray every worker's games and generators; written to a temporary file,
   ``fsync``-ed, renamed, the folder ``fsync``-ed); ``--resume RUN`` continues exactly where a
   killed run stopped, on the backend and with the workers it started with, and first cuts
   ``metrics.csv`` and the TensorBoard events back to the checkpoint, so that each update is
   logged once, as in a run nobody killed. Ctrl-C or SIGTERM (a background run's too) stops
   it with one line naming its last checkpoint and that command (exit status 130 or 143).
   A Ray worker lost mid-run is recreated from the state it last reported and its rollout
   rerun, up to ``worker_retries`` times per update, without changing the result; beyond
   that the run stops with an error naming the worker and the update, having merged nothing
   of that update, and resumes from its last checkpoint.
5. Logs: ``metrics.csv`` and TensorBoard, the same scalars under the same names, grouped as
   in CleanRL (``charts/``: progress, speed, the rollout's games; ``losses/``: the update, the
   gradient norm before clipping; ``behaviour/``: +4 / bluff / challenge rates; ``eval/``:
   every ``eval_every`` updates and after the last a duplicate-deal evaluation against
   ``eval_agents``, with 95% intervals), each column documented in :mod:`uno_rl.ppo.logger`;
   the config in the HPARAMS tab; a tqdm bar. ``global_step`` counts the learner's decisions.
   With ``track`` (``--track``), the same scalars and the config go to Weights & Biases too
   (:mod:`uno_rl.ppo.tracking`; nothing is sent unless asked).
6. At the end: ``policy.pt`` (the network alone, loadable as ``ppo:checkpoint=...``) and a
   final evaluation table with 95% intervals.

Evaluations play the network being trained itself (its current weights, named ``ppo`` in the
tables: :mod:`uno_rl.ppo.live_policy`), never a file read back, and
play ``eval_rounds`` / ``final_eval_rounds`` single rounds per eval agent, or,
where the rules play matches, ``eval_matches`` / ``final_eval_matches`` whole matches; by
default (``auto``) a share of ``total_decisions``, capped, so that a short run evaluates
briefly (:class:`~uno_rl.ppo.config.TrainConfig`). Before it trains, a new run says how many
updates it will train and how big its evaluations are (:mod:`uno_rl.ppo.plan`); each
evaluation shows the evaluator's progress bar, named (``final evaluation: 20,000 rounds vs
color-first``), unless ``--no-progress``.

Bad input (a field out of range, ``nan``, an unsafe run name, a file that is not a config or
a checkpoint, a checkpoint that does not fit) is one ``error:`` line and exit status 2, and a
start that fails leaves no run folder: everything is set up and checked before it is made.

The same seed and config give the same run; on Ray, the same number of workers too (another
number deals other games). Results go to ``runs/NAME/<timestamp>/``. The learner runs on the
CPU unless ``device`` says ``cuda``; Ray workers play on one CPU each.
"""

from __future__ import annotations

import dataclasses
import signal
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import torch
from tqdm import tqdm

from uno_rl.agents import AgentError, make_agent
from uno_rl.core.rules import Rules, RulesError
from uno_rl.eval.backends import BackendError
from uno_rl.plumbing import resources
from uno_rl.plumbing.cli import CliParser, print_error
from uno_rl.plumbing.processes import Interrupted, interruptible
from uno_rl.plumbing.safe_text import printable
from uno_rl.ppo.checkpoint import CheckpointError, save_checkpoint
from uno_rl.ppo.config import (
    TrainConfig,
    TrainConfigError,
    add_arguments,
    load_train_config,
)
from uno_rl.ppo.inputs import NetworkInputs
from uno_rl.ppo.live_policy import LivePolicyAgent
from uno_rl.ppo.logger import RunLogger
from uno_rl.ppo.network import PolicyNetwork, use_bf16
from uno_rl.ppo.plan import (
    budget_line,
    evaluation_line,
    interrupted_line,
    resume_note,
    trained_line,
)
from uno_rl.ppo.report import (
    eval_metrics,
    evaluate_policy,
    final_report,
    format_final,
    hparam_metrics,
    rollout_metrics,
)
from uno_rl.ppo.rollout import LocalSource, RolloutSource, StartedHook
from uno_rl.ppo.runs import (
    check_backend,
    create_run,
    initial_weights,
    load_resume,
    new_run_path,
    remove_stale_temporaries,
    restore_learner,
    resumed_config,
)
from uno_rl.ppo.tracking import FINAL_TABLES, Tracker
from uno_rl.ppo.update import imitation_targets, ppo_update

__all__ = [
    "budget_line",
    "check_backend",
    "evaluate_policy",
    "evaluation_line",
    "format_final",
    "main",
    "ppo_update",
    "train",
]

QUICKSTART = resources.shipped_dir("experiments") / "train-quickstart.toml"


def pick_device(name: str) -> torch.device:
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cuda" and not torch.cuda.is_available():
        raise TrainConfigError("device: cuda was asked for but torch sees no CUDA device")
    return torch.device(name)


def training_rules(config: TrainConfig) -> Rules:
    """The rules of the run, checked against the objective and the final evaluation (errors
    name the field)."""
    rules = config.rules()
    if config.objective == "match" and not rules.match:
        raise TrainConfigError(
            "objective: 'match' rewards winning matches; the rules play single rounds "
            "(add switches match=true)"
        )
    final, size = config.eval_size(True, rules.match)
    if size and not config.eval_agents:
        raise TrainConfigError(
            f"eval_agents: name at least one agent for the final evaluation ({final} = 0: none)"
        )
    return rules


def network_inputs(config: TrainConfig, rules: Rules) -> NetworkInputs:
    """What the run's network reads and outputs: ``config.features`` in the layout of the
    rules' deck (a piece that layout lacks names the field and the deck)."""
    try:
        return NetworkInputs.of_rules(config.features, rules)
    except ValueError as error:
        raise TrainConfigError(f"features: {error} (deck {rules.deck!r})") from None


def _shown(value: float | None) -> float:
    return float("nan") if value is None else value


def open_source(
    config: TrainConfig,
    rules: Rules,
    zoo: list,
    network: PolicyNetwork,
    pool: list[PolicyNetwork],
    pool_filled: int,
    generator: torch.Generator,
    device: torch.device,
    saved: dict | None = None,
    where: str = "checkpoint",
) -> RolloutSource:
    """The rollout source of ``config.backend``, continuing from a checkpoint (``saved``)."""
    if config.backend == "ray":
        from uno_rl.ppo.ray_workers import RaySource

        states = saved["workers"] if saved is not None else None
        return RaySource(config, network, pool, pool_filled, states, where)
    return LocalSource(
        config, rules, zoo, network, pool, pool_filled, generator, device, saved, where
    )


def train(
    config: TrainConfig,
    run: Path,
    resume: bool = False,
    progress: bool = True,
    on_rollout: StartedHook | None = None,
    on_start: Callable[[Path], None] | None = None,
) -> dict:
    """Train per ``config`` into the run folder ``run``; returns the final summary: the run's
    ``decisions``, ``learner_decisions`` and ``rounds`` so far, its ``num_updates``, and this call's
    ``updates_run``, ``decisions_run`` and ``seconds``, and the trained ``policy`` as an agent
    (:class:`~uno_rl.ppo.live_policy.LivePolicyAgent`, for the final evaluation).

    Everything is set up and checked (device, rules, agents, ``init_from``, the checkpoint of a
    resume, the rollout source) before anything is written: a fresh run's folder is made
    (with ``config.json``) only then, and a resume's ``metrics.csv`` and TensorBoard events
    are cut back to its checkpoint only then. ``on_start(run)`` is called at that point.
    ``on_rollout(update, source)`` is called each update once its rollout has been started
    (tests kill a Ray worker there). A lost Ray worker that cannot be recreated raises
    :class:`BackendError`; the run folder then resumes from its last checkpoint.
    """
    # ---------------------------------------------------------------- setup
    if config.torch_threads:
        torch.set_num_threads(config.torch_threads)
    device = pick_device(config.device)
    tracker = Tracker(config)  # with track: wandb imported here, or one error before anything
    rules = training_rules(config)
    zoo = [make_agent(spec, rules) for spec in config.zoo]
    for spec in config.eval_agents:
        make_agent(spec, rules)
    inputs = network_inputs(config, rules)
    _, eval_size = config.eval_size(False, rules.match)  # per eval agent, each evaluation
    torch.manual_seed(config.seed)  # network initialisation
    bf16 = use_bf16(config.precision, device)
    network = inputs.network(config.hidden, trunk_bf16=bf16, sigmoid_form=True).to(device)
    # What the evaluations play: the network's current weights, on the CPU, as policy.pt plays.
    policy = LivePolicyAgent(rules, inputs, config.hidden, config.to_dict())
    if config.init_from and not resume:
        initial_weights(config, network, inputs)
    optimizer = torch.optim.Adam(network.parameters(), lr=config.learning_rate, eps=1e-5)
    targets = imitation_targets(config, rules, inputs.columns, network, device)
    pool = [
        inputs.network(config.hidden, trunk_bf16=bf16, sigmoid_form=True).to(device)
        for _ in range(config.pool_size)
    ]
    # Minibatch shuffling (and, on the local backend, the learner's action sampling).
    generator = torch.Generator().manual_seed(config.seed)
    start_update, decisions, rounds, pool_filled, pool_next = 0, 0, 0, 0, 0
    num_updates = config.num_updates
    learner_decisions, elapsed_before = 0, 0.0  # global_step; seconds trained before a resume
    data = None
    where = run / "checkpoint.pt"
    if resume:
        data = load_resume(run, config, inputs)
        restore_learner(data, where, network, optimizer, pool, generator)
        pool_filled, pool_next = data["pool_filled"], data["pool_next"]
        start_update, decisions, rounds = data["update"], data["decisions"], data["rounds"]
        learner_decisions, elapsed_before = data["learner_decisions"], data["elapsed"]
        num_updates = data["num_updates"]  # as the run planned it at its start
    # N games in lockstep: in this process, or split over Ray actors (`backend`).
    try:
        source = open_source(
            config, rules, zoo, network, pool, pool_filled, generator, device, data, str(where)
        )
    except (CheckpointError, TrainConfigError, BackendError, AgentError, RulesError):
        raise
    except (KeyError, TypeError, ValueError, RuntimeError, IndexError, AttributeError) as error:
        if data is None:
            raise
        raise CheckpointError(
            f"{where}: its game state does not fit: {type(error).__name__}: {error}"
        ) from None
    try:
        if resume:
            remove_stale_temporaries(run)
            # Rows and events past the checkpoint are logged again below: drop them.
            logger = RunLogger(run, config.tensorboard, keep_rows=start_update,
                               purge_step=learner_decisions + 1, tracker=tracker)  # fmt: skip
        else:
            create_run(run, config)
            logger = RunLogger(run, config.tensorboard, tracker=tracker)
            logger.log_hparams(config.to_dict(), hparam_metrics(config, rules.match))
        tracker.start(run)  # W&B: a new run, or on a resume the run's own again
    except BaseException:
        source.close()
        raise
    if on_start is not None:
        on_start(run)

    def checkpoint(update: int) -> None:
        games = source.state()  # local: games, carried, rng; ray: every worker's state
        save_checkpoint(
            run / "checkpoint.pt",
            {
                "config": config.to_dict(),
                "network": inputs.spec(config.hidden),
                "backend": {"name": config.backend, "workers": config.workers},
                "model": network.state_dict(),
                "optimizer": optimizer.state_dict(),
                "pool": [net.state_dict() for net in pool],
                "pool_filled": pool_filled,
                "pool_next": pool_next,
                **games,
                "rng": {
                    **games.get("rng", {}),
                    "sample": generator.get_state(),
                    "torch": torch.get_rng_state(),
                },
                "update": update,
                "num_updates": num_updates,
                "decisions": decisions,
                "learner_decisions": learner_decisions,
                "rounds": rounds,
                "elapsed": elapsed_before + time.perf_counter() - started,
            },
        )

    def save_policy(path: Path) -> None:
        save_checkpoint(
            path,
            {
                "network": inputs.spec(config.hidden),
                "model": network.state_dict(),
                "config": config.to_dict(),
            },
        )

    # ----------------------------------------------------------------- loop
    bar = tqdm(total=num_updates, initial=start_update, disable=not progress, unit="update")
    started, decisions_before = time.perf_counter(), decisions
    try:
        for update in range(start_update, num_updates):
            tick = time.perf_counter()
            if config.anneal_lr:
                optimizer.param_groups[0]["lr"] = config.learning_rate * (
                    1.0 - update / num_updates
                )
            rollout = source.collect(update, on_rollout)
            stats = rollout.stats
            decisions += stats.decisions
            learner_decisions += stats.learner_decisions
            rounds += stats.rounds
            rollout_seconds = time.perf_counter() - tick
            losses = ppo_update(config, network, optimizer, rollout, generator, device, targets)
            if (update + 1) % config.snapshot_every == 0:
                pool[pool_next].load_state_dict(network.state_dict())
                source.snapshot(pool_next, min(pool_filled + 1, config.pool_size))
                pool_next = (pool_next + 1) % config.pool_size
                pool_filled = min(pool_filled + 1, config.pool_size)

            # ------------------------------------------------------- logging
            seconds = time.perf_counter() - tick
            row = {
                "charts/update": update + 1,
                "charts/decisions": decisions,
                "charts/rounds": rounds,
                "charts/learning_rate": optimizer.param_groups[0]["lr"],
                "charts/wall_time": None,  # set once the row is complete (below)
                "charts/elapsed_s": None,
                "charts/SPS": stats.learner_decisions / seconds,
                "charts/decisions_per_s": stats.decisions / seconds,
                "charts/rollout_share": rollout_seconds / seconds,
                **rollout_metrics(stats, config, rules.match),
                **losses,
            }
            last = update + 1 == num_updates
            if config.eval_every and ((update + 1) % config.eval_every == 0 or last):
                policy.copy_weights(network)
                result = evaluate_policy(
                    policy, config, eval_size, config.seed + update, progress=progress,
                    what=f"evaluation at update {update + 1:,}",
                )  # fmt: skip
                row.update(eval_metrics(result, rules.match))
            elif config.eval_every:
                row["eval/evaluated"] = 0
            row["charts/wall_time"] = time.time()
            row["charts/elapsed_s"] = elapsed_before + time.perf_counter() - started
            logger.log(learner_decisions, row)
            if (update + 1) % config.checkpoint_every == 0 or last:
                checkpoint(update + 1)
            bar.update(1)
            bar.set_postfix(
                dec_s=f"{row['charts/decisions_per_s']:,.0f}",
                win_zoo=f"{_shown(row['charts/win_rate_vs_zoo']):.1%}",
                pts_zoo=f"{_shown(row['charts/points_per_round_vs_zoo']):+.1f}",
                rounds=f"{rounds:,}",
            )
    except BackendError as error:
        raise BackendError(f"{error}; {resume_note(run)}") from None
    finally:
        bar.close()
        logger.close()
        source.close()
    save_policy(run / "policy.pt")
    policy.copy_weights(network)
    elapsed = time.perf_counter() - started
    return {
        "decisions": decisions,
        "learner_decisions": learner_decisions,
        "rounds": rounds,
        "num_updates": num_updates,
        # This call's share (a resume trains only the updates left: maybe none).
        "updates_run": max(num_updates - start_update, 0),
        "decisions_run": decisions - decisions_before,
        "seconds": elapsed,
        "worker_restarts": source.restarts,
        "precision": "bf16" if bf16 else "fp32",
        "policy": policy,
    }


def build_parser() -> CliParser:
    parser = CliParser(
        prog="uno_rl train",
        description="PPO self-play for UNO. Without arguments: the quick-start config.",
    )
    parser.add_argument(
        "--config", default=None, help=f"a TOML config file (default {QUICKSTART.name})"
    )
    parser.add_argument(
        "--resume", default=None, metavar="RUN", help="a run folder to continue (default none)"
    )
    parser.add_argument(
        "--runs-dir", default="runs", help="where new runs go: RUNS_DIR/NAME/<timestamp>/ "
        "(default runs)"
    )  # fmt: skip
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    add_arguments(parser, quickstart_config())
    return parser


def quickstart_config() -> TrainConfig | None:
    """The config of a run without ``--config`` (None if the file cannot be read: ``--help``
    then shows the dataclass defaults, and the run itself reports the error)."""
    try:
        return load_train_config(QUICKSTART)
    except TrainConfigError:
        return None


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``uno_rl train ARGV``; the exit status (0: done, 2: bad input, 130 or 143: stopped
    by Ctrl-C or SIGTERM, with one line saying what was kept and how to go on)."""
    where: dict[str, Path] = {}
    try:
        with interruptible():
            return _run(argv, where)
    except KeyboardInterrupt as stop:  # Interrupted: a signal; else raised by the code itself
        print(printable(interrupted_line(where.get("run"), where.get("trained"))), file=sys.stderr)
        return stop.status if isinstance(stop, Interrupted) else 128 + signal.SIGINT


def _run(argv: Sequence[str] | None, where: dict[str, Path]) -> int:
    args = build_parser().parse_args(argv)
    field_names = [f.name for f in dataclasses.fields(TrainConfig)]
    overrides = {
        name: getattr(args, name) for name in field_names if getattr(args, name) is not None
    }
    resume = args.resume is not None
    try:
        if resume:
            run, config = resumed_config(args.resume, args.config is not None, overrides)
        else:
            if not args.runs_dir:
                raise TrainConfigError("--runs-dir: must name a folder")
            config = load_train_config(
                QUICKSTART if args.config is None else args.config, overrides
            )
            # Nothing is made before train() has set everything up and checked it.
            run = new_run_path(Path(args.runs_dir), config.name)

        def announce(run: Path) -> None:
            where["run"] = run
            print(f"{'resuming' if resume else 'training'} {config.name} in {run}", flush=True)
            if not resume:
                print(budget_line(config), flush=True)
                print(evaluation_line(config, training_rules(config).match), flush=True)

        summary = train(config, run, resume, not args.no_progress, on_start=announce)
        where["trained"] = run / "policy.pt"
        print(trained_line(summary))
        if summary["worker_restarts"]:
            print(f"{summary['worker_restarts']} lost rollout worker(s) recreated, rollouts rerun")
        report = final_report(
            run, config, summary, progress=not args.no_progress, policy=summary["policy"]
        )
        if report:
            print(report)
            tracker = Tracker(config)  # W&B: the final tables join the training's run
            tracker.log_tables(run, "final_eval", FINAL_TABLES, summary["learner_decisions"])
        print(f"policy: {run / 'policy.pt'} (agent spec ppo:checkpoint={run / 'policy.pt'})")
    except (TrainConfigError, CheckpointError, AgentError, RulesError, BackendError) as error:
        message = " ".join(line.strip() for line in str(error).splitlines() if line.strip())
        print_error(message)
        return 2
    return 0
