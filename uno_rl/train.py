"""PPO self-play: ``python -m uno_rl.train`` trains a bot and reports how good it is.

    python -m uno_rl.train                                   # the quick-start config
    python -m uno_rl.train --config experiments/train-official-2p.toml --num-games 2048
    python -m uno_rl.train --resume runs/quickstart/20261130-120000
    python -m uno_rl.train --backend ray --workers 8 --address HEAD_IP:6379   # on Ray
    python -m uno_rl.train --help                            # every config field

Read top to bottom, in the manner of CleanRL's ``ppo.py``:

1. The config (:class:`uno_rl.ppo.config.TrainConfig`: a file, then command-line overrides).
2. N games in lockstep (:class:`uno_rl.ppo.selfplay.SelfPlay`): the current policy in every
   seat, or in one seat against past snapshots or zoo agents, chosen per game. Where they are
   played is the rollout source (:mod:`uno_rl.ppo.rollout`): ``backend = "local"`` plays them
   all in this process; ``backend = "ray"`` splits them over ``workers`` Ray actors
   (:mod:`uno_rl.ppo.ray_workers`), each with its own generators and a copy of the policy,
   to which the learner broadcasts its weights (one ``ray.put``) every update.
3. Each update: a rollout of ``rollout_steps`` engine steps; the learner's transitions, linked
   per (game, seat) (:class:`uno_rl.ppo.buffer.TurnBuffer`), the round's reward on each seat's
   last transition; GAE, computed where the games are (each worker's rollout comes back with
   its advantages and returns, and the learner concatenates them in worker order);
   ``update_epochs`` passes of the clipped PPO loss over minibatches (masked categorical
   policy, entropy over legal actions, clipped value loss, advantage normalization, linear
   learning-rate decay).
4. Every ``checkpoint_every`` updates an atomic checkpoint (model, optimizer, games, pool,
   every generator; on Ray every worker's games and generators); ``--resume RUN`` continues
   exactly where a killed run stopped, on the backend and with the workers it started with.
   A Ray worker lost mid-run is recreated from the state it last reported and its rollout
   rerun, up to ``worker_retries`` times per update, without changing the result; beyond
   that the run stops with an error naming the worker and the update, having merged nothing
   of that update, and resumes from its last checkpoint.
5. Logs: ``metrics.csv`` and TensorBoard (losses, entropy, explained variance, clip fraction,
   decisions/s, win rates against the pool and the zoo, +4 / bluff / challenge rates), a tqdm
   bar; every ``eval_every`` updates a duplicate-deal evaluation against ``eval_agents``.
6. At the end: ``policy.pt`` (the network alone, loadable as ``ppo:checkpoint=...``) and a
   final evaluation table with 95% intervals.

The same seed and config give the same run; on Ray, the same number of workers too (another
number deals other games). Results go to ``runs/NAME/<timestamp>/``. The learner runs on the
CPU unless ``device`` says ``cuda``; Ray workers play on one CPU each.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import torch
from tqdm import tqdm

from uno_rl.agents import AgentError, make_agent
from uno_rl.core.rules import Rules, RulesError, load_rules
from uno_rl.eval.backends import BackendError
from uno_rl.ppo.checkpoint import CheckpointError, load_checkpoint, save_checkpoint
from uno_rl.ppo.config import TrainConfig, TrainConfigError, add_arguments, load_train_config
from uno_rl.ppo.logger import RunLogger
from uno_rl.ppo.network import (
    PolicyNetwork,
    biased_log_probs_and_entropy,
    feature_columns,
    input_scale,
    mask_bias,
    use_bf16,
)
from uno_rl.ppo.rollout import LocalSource, Rollout, RolloutSource, StartedHook

__all__ = ["evaluate_policy", "main", "train"]

QUICKSTART = Path(__file__).resolve().parents[1] / "experiments" / "train-quickstart.toml"


def pick_device(name: str) -> torch.device:
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cuda" and not torch.cuda.is_available():
        raise TrainConfigError("device: cuda was asked for but torch sees no CUDA device")
    return torch.device(name)


def evaluate_policy(policy: Path, config: TrainConfig, rounds: int, seed: int, workers: int = 1):
    """Duplicate-deal evaluation of ``policy`` against each eval agent (head to head)."""
    from uno_rl.eval.run import Evaluation, evaluate_variant, resolve_variant
    from uno_rl.eval.tournament import make_matchups

    rules, label = resolve_variant(config.preset, config.players, dict(config.switches))
    spec = f"ppo:checkpoint={policy}"
    parts = []
    for opponent in config.eval_agents:
        matchups = make_matchups([spec, opponent], rules.players, "head-to-head")
        parts.append(
            evaluate_variant(rules, label, matchups, rounds, seed, workers, progress=False)
        )
    result = Evaluation.concat(parts)
    for table in (result.agents, result.seats, result.pairs):
        for column in ("agent", "agent_a", "agent_b", "matchup"):
            if column in table:
                table[column] = table[column].str.replace(spec, "ppo", regex=False)
    return result


def training_rules(config: TrainConfig) -> Rules:
    """The rules of the run, checked against the objective (errors name the field)."""
    rules = load_rules(config.preset, players=config.players, **dict(config.switches))
    if config.objective == "match" and not rules.match:
        raise TrainConfigError(
            "objective: 'match' rewards winning matches; the rules play single rounds "
            "(add switches match=true)"
        )
    return rules


def _rate(wins: int, total: int) -> float:
    return wins / total if total else float("nan")


def initial_weights(config: TrainConfig) -> dict:
    """The weights ``init_from`` names (a path, or a file in ``agents/``), checked to fit."""
    from uno_rl.agents.registry import AGENTS_DIR

    path = Path(config.init_from)
    if not path.exists() and not path.is_absolute():
        path = AGENTS_DIR / config.init_from
    start = load_checkpoint(path)
    spec = start["network"]
    if not spec.get("scaled", False):
        raise TrainConfigError(f"init_from: {path} was trained without input scaling")
    if list(spec["features"]) != list(config.features) or list(spec["hidden"]) != list(
        config.hidden
    ):
        raise TrainConfigError(
            f"init_from: {path} has hidden sizes {spec['hidden']} and {len(spec['features'])} "
            f"observation pieces; the config asks for {config.hidden} and {len(config.features)}"
        )
    return start["model"]


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


def check_backend(data: dict, config: TrainConfig, where: Path) -> None:
    """A checkpoint resumes only on the backend and with the worker count that wrote it."""
    saved = data.get("backend", {"name": "local", "workers": 1})  # older checkpoints: local
    if (saved["name"], saved["workers"]) != (config.backend, config.workers):
        raise CheckpointError(
            f"{where}: written by backend {saved['name']!r} with {saved['workers']} worker(s); "
            f"the config asks for backend {config.backend!r} with {config.workers}: the games "
            "and their generators are split among the workers, so a run resumes only as it "
            "started"
        )
    needed = ("workers",) if config.backend == "ray" else ("games", "carried")
    missing = [key for key in needed if key not in data]
    if missing:
        raise CheckpointError(f"{where}: missing {', '.join(missing)}")


def ppo_update(
    config: TrainConfig,
    network: PolicyNetwork,
    optimizer: torch.optim.Optimizer,
    rollout: Rollout,
    generator: torch.Generator,
    device: torch.device,
) -> dict[str, float]:
    """``update_epochs`` passes of the clipped PPO loss over minibatches of ``rollout``
    (shuffled with ``generator``); returns the ``losses/`` metrics."""
    size = rollout.size
    b_obs = torch.from_numpy(rollout.obs).to(device)
    if network.trunk_bf16:
        # The trunk reads bfloat16 anyway: cast once, not once per minibatch and epoch (the
        # same values), and gather half the bytes.
        b_obs = b_obs.to(torch.bfloat16)
    b_bias = mask_bias(torch.from_numpy(rollout.mask).to(device))
    b_action = torch.from_numpy(rollout.action).to(device)
    b_logp = torch.from_numpy(rollout.logp).to(device)
    b_value = torch.from_numpy(rollout.value).to(device)
    b_adv = torch.from_numpy(rollout.advantages).to(device)
    b_ret = torch.from_numpy(rollout.returns).to(device)
    clipfracs, approx_kl = [], torch.zeros(())
    pg_loss = v_loss = entropy = torch.zeros(())
    for _epoch in range(config.update_epochs):
        order = torch.randperm(size, generator=generator).to(device)
        for start in range(0, size, config.minibatch_size):
            mb = order[start : start + config.minibatch_size]
            logits, new_value = network(b_obs.index_select(0, mb))
            log_probs, entropies = biased_log_probs_and_entropy(logits, b_bias.index_select(0, mb))
            new_logp = log_probs.gather(1, b_action.index_select(0, mb)[:, None]).squeeze(1)
            entropy = entropies.mean()
            log_ratio = new_logp - b_logp.index_select(0, mb)
            ratio = log_ratio.exp()
            with torch.no_grad():
                approx_kl = ((ratio - 1) - log_ratio).mean()
                clipfracs.append(((ratio - 1.0).abs() > config.clip_coef).float().mean().item())
            mb_adv, mb_value, mb_ret = b_adv[mb], b_value[mb], b_ret[mb]
            if config.norm_adv and mb.numel() > 1:
                mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
            pg_loss = torch.max(
                -mb_adv * ratio,
                -mb_adv * torch.clamp(ratio, 1 - config.clip_coef, 1 + config.clip_coef),
            ).mean()
            if config.clip_vloss:
                clipped = mb_value + torch.clamp(
                    new_value - mb_value, -config.clip_coef, config.clip_coef
                )
                v_loss = 0.5 * torch.max((new_value - mb_ret) ** 2, (clipped - mb_ret) ** 2).mean()
            else:
                v_loss = 0.5 * ((new_value - mb_ret) ** 2).mean()
            loss = pg_loss - config.ent_coef * entropy + config.vf_coef * v_loss
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(network.parameters(), config.max_grad_norm)
            optimizer.step()
        if config.target_kl and approx_kl.item() > config.target_kl:
            break
    variance = b_ret.var().item() if size > 1 else 0.0
    explained = 1.0 - (b_ret - b_value).var().item() / variance if variance > 0 else float("nan")
    return {
        "losses/policy": pg_loss.item(),
        "losses/value": v_loss.item(),
        "losses/entropy": entropy.item(),
        "losses/approx_kl": approx_kl.item(),
        "losses/clip_fraction": float(np.mean(clipfracs)) if clipfracs else 0.0,
        "losses/explained_variance": explained,
    }


def train(
    config: TrainConfig,
    run: Path,
    resume: bool = False,
    progress: bool = True,
    on_rollout: StartedHook | None = None,
) -> dict:
    """Train per ``config`` into the run folder ``run``; returns the final summary.

    ``on_rollout(update, source)`` is called each update once its rollout has been started
    (tests kill a Ray worker there). A lost Ray worker that cannot be recreated raises
    :class:`BackendError`; the run folder then resumes from its last checkpoint.
    """
    # ---------------------------------------------------------------- setup
    if config.torch_threads:
        torch.set_num_threads(config.torch_threads)
    device = pick_device(config.device)
    rules = training_rules(config)
    zoo = [make_agent(spec, rules) for spec in config.zoo]
    for spec in config.eval_agents:
        make_agent(spec, rules)
    columns = feature_columns(config.features)
    torch.manual_seed(config.seed)  # network initialisation
    scale = input_scale(config.features)
    bf16 = use_bf16(config.precision, device)
    network = PolicyNetwork(len(columns), config.hidden, scale, bf16).to(device)
    if config.init_from and not resume:
        network.load_state_dict(initial_weights(config))
    optimizer = torch.optim.Adam(network.parameters(), lr=config.learning_rate, eps=1e-5)
    pool = [
        PolicyNetwork(len(columns), config.hidden, scale, bf16).to(device)
        for _ in range(config.pool_size)
    ]
    # Minibatch shuffling (and, on the local backend, the learner's action sampling).
    generator = torch.Generator().manual_seed(config.seed)
    start_update, decisions, rounds, pool_filled, pool_next = 0, 0, 0, 0, 0
    data = None
    if resume:
        data = load_checkpoint(run / "checkpoint.pt", ("model", "optimizer", "rng"))
        check_backend(data, config, run / "checkpoint.pt")
        network.load_state_dict(data["model"])
        optimizer.load_state_dict(data["optimizer"])
        for net, weights in zip(pool, data["pool"]):
            net.load_state_dict(weights)
        pool_filled, pool_next = data["pool_filled"], data["pool_next"]
        generator.set_state(data["rng"]["sample"])
        torch.set_rng_state(data["rng"]["torch"])
        start_update, decisions, rounds = data["update"], data["decisions"], data["rounds"]
    # N games in lockstep: in this process, or split over Ray actors (`backend`).
    source = open_source(
        config, rules, zoo, network, pool, pool_filled, generator, device, data,
        str(run / "checkpoint.pt"),
    )  # fmt: skip
    logger = RunLogger(run, config.tensorboard)

    def checkpoint(update: int) -> None:
        games = source.state()  # local: games, carried, rng; ray: every worker's state
        save_checkpoint(
            run / "checkpoint.pt",
            {
                "config": config.to_dict(),
                "network": {
                    "features": list(config.features),
                    "hidden": list(config.hidden),
                    "scaled": True,
                },
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
                "decisions": decisions,
                "rounds": rounds,
            },
        )

    def save_policy(path: Path) -> None:
        save_checkpoint(
            path,
            {
                "network": {
                    "features": list(config.features),
                    "hidden": list(config.hidden),
                    "scaled": True,
                },
                "model": network.state_dict(),
                "config": config.to_dict(),
            },
        )

    # ----------------------------------------------------------------- loop
    bar = tqdm(total=config.num_updates, initial=start_update, disable=not progress, unit="update")
    started = time.perf_counter()
    try:
        for update in range(start_update, config.num_updates):
            tick = time.perf_counter()
            if config.anneal_lr:
                optimizer.param_groups[0]["lr"] = config.learning_rate * (
                    1.0 - update / config.num_updates
                )
            rollout = source.collect(update, on_rollout)
            stats = rollout.stats
            decisions += stats.decisions
            rounds += stats.rounds
            rollout_seconds = time.perf_counter() - tick
            losses = ppo_update(config, network, optimizer, rollout, generator, device)
            if (update + 1) % config.snapshot_every == 0:
                pool[pool_next].load_state_dict(network.state_dict())
                source.snapshot(pool_next, min(pool_filled + 1, config.pool_size))
                pool_next = (pool_next + 1) % config.pool_size
                pool_filled = min(pool_filled + 1, config.pool_size)

            # ------------------------------------------------------- logging
            seconds = time.perf_counter() - tick
            row = {
                "charts/update": update + 1,
                "charts/learning_rate": optimizer.param_groups[0]["lr"],
                "charts/decisions_per_s": stats.decisions / seconds,
                "charts/rollout_share": rollout_seconds / seconds,
                "charts/rounds": rounds,
                "charts/win_rate_self_and_all": stats.learner_wins / max(stats.learner_rounds, 1),
                "charts/win_rate_vs_pool": stats.pool_wins / stats.pool_rounds if stats.pool_rounds else float("nan"),
                "charts/win_rate_vs_zoo": stats.zoo_wins / stats.zoo_rounds if stats.zoo_rounds else float("nan"),
                "charts/points_per_round_vs_pool": stats.pool_points / stats.pool_rounds if stats.pool_rounds else float("nan"),
                "charts/points_per_round_vs_zoo": stats.zoo_points / stats.zoo_rounds if stats.zoo_rounds else float("nan"),
                **losses,
                "behaviour/draw4_per_round": stats.draw4_plays / max(stats.learner_rounds, 1),
                "behaviour/bluff_share": stats.bluffs / stats.draw4_plays if stats.draw4_plays else float("nan"),
                "behaviour/challenges_per_round": stats.challenges / max(stats.learner_rounds, 1),
                "behaviour/challenge_success": stats.challenges_won / stats.challenges if stats.challenges else float("nan"),
            }  # fmt: skip
            if rules.match:
                row["charts/match_win_rate_vs_pool"] = _rate(
                    stats.pool_match_wins, stats.pool_matches
                )
                row["charts/match_win_rate_vs_zoo"] = _rate(stats.zoo_match_wins, stats.zoo_matches)
            last = update + 1 == config.num_updates
            if config.eval_every and ((update + 1) % config.eval_every == 0 or last):
                save_policy(run / "policy.pt")
                result = evaluate_policy(
                    run / "policy.pt", config, config.eval_rounds, config.seed + update
                )
                for r in result.agents[result.agents.agent == "ppo"].itertuples():
                    opponent = r.matchup.split(" vs ")[-1]
                    row[f"eval/win_rate_vs_{opponent}"] = r.win_rate
                    row[f"eval/points_per_round_vs_{opponent}"] = r.points
                    if rules.match:
                        row[f"eval/match_win_rate_vs_{opponent}"] = r.match_win_rate
            logger.log(decisions, row)
            if (update + 1) % config.checkpoint_every == 0 or last:
                checkpoint(update + 1)
            bar.update(1)
            bar.set_postfix(
                dec_s=f"{row['charts/decisions_per_s']:,.0f}",
                win_zoo=f"{row['charts/win_rate_vs_zoo']:.1%}",
                pts_zoo=f"{row['charts/points_per_round_vs_zoo']:+.1f}",
                rounds=f"{rounds:,}",
            )
    except BackendError as error:
        saved = run / "checkpoint.pt"
        resume_note = (
            f"the run resumes from its last checkpoint (update "
            f"{load_checkpoint(saved, ('update',))['update']}) with: python -m uno_rl.train "
            f"--resume {run}"
            if saved.is_file()
            else "no checkpoint was written yet"
        )
        raise BackendError(f"{error}; {resume_note}") from None
    finally:
        bar.close()
        logger.close()
        source.close()
    save_policy(run / "policy.pt")
    elapsed = time.perf_counter() - started
    return {
        "decisions": decisions,
        "rounds": rounds,
        "seconds": elapsed,
        "worker_restarts": source.restarts,
        "precision": "bf16" if bf16 else "fp32",
    }


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m uno_rl.train",
        description="PPO self-play for UNO. Without arguments: the quick-start config.",
    )
    parser.add_argument("--config", default=None, help=f"TOML config (default {QUICKSTART.name})")
    parser.add_argument("--resume", default=None, help="a run folder to continue")
    parser.add_argument("--runs-dir", default="runs", help="where new runs go")
    parser.add_argument("--no-progress", action="store_true")
    add_arguments(parser)
    return parser


def final_report(run: Path, config: TrainConfig, summary: dict) -> str:
    """Evaluate ``policy.pt`` against the eval agents; save and format the table."""
    if not config.final_eval_rounds:
        return ""
    from uno_rl.eval.run import default_workers

    result = evaluate_policy(
        run / "policy.pt", config, config.final_eval_rounds, config.seed + 10**6, default_workers()
    )
    result.save(run / "final_eval")
    return format_final(result, config.final_eval_rounds, "match_win_rate" in result.agents)


def format_final(result, count: int, match: bool) -> str:
    """The final evaluation's lines: rounds won, net points per round and, in matches,
    matches won and the mean final score, each with its 95% interval."""
    unit = "matches" if match else "rounds"
    lines = [f"Final evaluation ({count:,} duplicate-deal {unit} per opponent, 95% intervals):"]
    for r in result.agents[result.agents.agent == "ppo"].itertuples():
        line = (
            f"  ppo vs {r.matchup.split(' vs ', 1)[1]}: rounds won {r.win_rate:.2%} "
            f"[{r.win_low:.2%}, {r.win_high:.2%}], points/round {r.points:+.2f} "
            f"[{r.points_low:+.2f}, {r.points_high:+.2f}]"
        )
        if match:
            line += (
                f", matches won {r.match_win_rate:.2%} [{r.match_win_low:.2%}, "
                f"{r.match_win_high:.2%}], final score {r.final_score:.0f}"
            )
        lines.append(line)
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    field_names = [f.name for f in dataclasses.fields(TrainConfig)]
    overrides = {
        name: getattr(args, name) for name in field_names if getattr(args, name) is not None
    }
    try:
        if args.resume:
            address = overrides.pop("address", None)  # where the cluster is, not what runs
            if {"backend", "workers"} & set(overrides):
                raise TrainConfigError(
                    "--resume: a run keeps its backend and number of workers (the games and "
                    "their generators are split among the workers); only --address may change"
                )
            given = ["--" + k.replace("_", "-") for k in overrides] + ["--config"] * bool(
                args.config
            )
            if given:
                raise TrainConfigError(
                    "--resume continues a run with its own config: no other settings (got "
                    f"{', '.join(given)}; only --address may be given, to reach a Ray cluster)"
                )
            run = Path(args.resume)
            try:
                saved = json.loads((run / "config.json").read_text())
            except (OSError, json.JSONDecodeError) as error:
                raise TrainConfigError(
                    f"--resume {run}: no readable config.json ({error})"
                ) from None
            if address is not None:
                saved["address"] = address
            config = TrainConfig(**saved)
            data = load_checkpoint(run / "checkpoint.pt", ("model", "optimizer", "rng"))
            check_backend(data, config, run / "checkpoint.pt")
        else:
            config = load_train_config(args.config or QUICKSTART, overrides)
            # Bad rules or agent specs fail here, before a run folder is made.
            rules = training_rules(config)
            for spec in [*config.zoo, *config.eval_agents]:
                make_agent(spec, rules)
            if config.init_from:
                initial_weights(config)
            stamp = time.strftime("%Y%m%d-%H%M%S")
            run = Path(args.runs_dir) / config.name / stamp
            suffix = 1
            while run.exists():
                run = Path(args.runs_dir) / config.name / f"{stamp}-{suffix}"
                suffix += 1
            run.mkdir(parents=True)
            (run / "config.json").write_text(json.dumps(config.to_dict(), indent=2))
        print(f"{'resuming' if args.resume else 'training'} {config.name} in {run}", flush=True)
        summary = train(config, run, resume=bool(args.resume), progress=not args.no_progress)
        print(
            f"{summary['decisions']:,} decisions, {summary['rounds']:,} rounds in "
            f"{summary['seconds']:.0f} s ({summary['decisions'] / max(summary['seconds'], 1e-9):,.0f} "
            f"decisions/s, {summary['precision']} trunk)"
        )
        if summary["worker_restarts"]:
            print(f"{summary['worker_restarts']} lost rollout worker(s) recreated, rollouts rerun")
        report = final_report(run, config, summary)
        if report:
            print(report)
        print(f"policy: {run / 'policy.pt'} (agent spec ppo:checkpoint={run / 'policy.pt'})")
    except (TrainConfigError, CheckpointError, AgentError, RulesError, BackendError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
