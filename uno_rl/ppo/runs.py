"""Run folders: where a run goes, what it is made of, and what a resume checks first.

A new run goes to ``RUNS/NAME/<timestamp>/`` (:func:`new_run_path`; the folder is made by
:func:`create_run` only once training has been set up, so that a start that fails leaves no
folder). ``config.json``, written durably, holds the run's config; ``--resume RUN`` reads it
back through the same checks as a TOML file (:func:`read_run_config`; a config of an older
version is first put in today's fields: :func:`matches_budgets_moved`) and restores the
checkpoint's state into the network, the optimizer and the opponent pool
(:func:`load_resume`, :func:`restore_learner`), each part checked to fit: errors name the
file and the problem. A checkpoint counts the learner's decisions (``learner_decisions``,
the logs' ``global_step``) and the seconds trained (``elapsed``); one written before it did is
refused unless its run had finished (nothing more is logged then). It also holds the run's
number of updates, fixed at its start (:func:`planned_updates`), so that a resume trains as
many as the run nobody killed.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import torch

from uno_rl.core.rules import RulesError, load_rules
from uno_rl.plumbing.durable import fsync_folder, write_text_durably
from uno_rl.plumbing.tomlfile import FileReadError, parsed_value_problem, read_small_file

from .checkpoint import CheckpointError, load_checkpoint, load_weights, network_spec
from .config import TrainConfig, TrainConfigError, config_from_dict, option_name
from .inputs import NetworkInputs
from .network import PolicyNetwork

__all__ = [
    "RESUME_KEYS",
    "check_backend",
    "create_run",
    "initial_weights",
    "load_resume",
    "matches_budgets_moved",
    "new_run_path",
    "planned_updates",
    "read_run_config",
    "remove_stale_temporaries",
    "restore_learner",
    "resumed_config",
]

#: What a training checkpoint holds besides the games (checked before anything is restored).
RESUME_KEYS = (
    "model", "network", "optimizer", "rng", "pool", "pool_filled", "pool_next", "update",
    "decisions", "rounds",
)  # fmt: skip
#: Files of a run written through a temporary file (a kill may leave one behind).
DURABLE_FILES = ("checkpoint.pt", "policy.pt", "metrics.csv", "config.json", "wandb_run_id.txt")


def new_run_path(runs_dir: Path, name: str) -> Path:
    """``runs_dir/name/<timestamp>`` (``-1``, ``-2``, ... if taken); nothing is made yet."""
    if runs_dir.exists() and not runs_dir.is_dir():
        raise TrainConfigError(f"--runs-dir {runs_dir}: not a folder")
    stamp = time.strftime("%Y%m%d-%H%M%S")
    run = runs_dir / name / stamp
    suffix = 1
    while run.exists():
        run = runs_dir / name / f"{stamp}-{suffix}"
        suffix += 1
    return run


def create_run(run: Path, config: TrainConfig) -> None:
    """Make the run folder (and its parents, each entry made durable) and write
    ``config.json`` durably."""
    try:
        missing = [p for p in (run, *run.parents) if not p.exists()]
        run.mkdir(parents=True, exist_ok=True)
        for folder in missing:
            fsync_folder(folder.parent)
        write_text_durably(run / "config.json", json.dumps(config.to_dict(), indent=2))
    except OSError as error:
        raise TrainConfigError(
            f"run folder {run}: cannot be made ({error.strerror or error})"
        ) from None


def read_run_config(run: Path, address: str | None = None) -> TrainConfig:
    """The config of run folder ``run`` (its ``config.json``), checked like a TOML file;
    ``address`` (a Ray cluster) replaces the saved one when given."""
    path = run / "config.json"
    if not run.is_dir():
        raise TrainConfigError(f"--resume {run}: no such run folder")
    try:  # looked at before it is opened: a FIFO would wait for a writer forever
        saved = json.loads(read_small_file(path).decode("utf-8"))
    except FileReadError as error:
        if error.missing:
            raise TrainConfigError(f"--resume {run}: no config.json in the run folder") from None
        raise TrainConfigError(f"--resume {path} {error}") from None
    except UnicodeDecodeError:
        raise TrainConfigError(f"--resume {path}: not a text file") from None
    except json.JSONDecodeError as error:
        raise TrainConfigError(f"--resume {path}: not valid JSON ({error})") from None
    except RecursionError:
        raise TrainConfigError(f"--resume {path}: not usable JSON: nested too deeply") from None
    except ValueError as error:  # int() refuses a number of 4,300 or more digits
        problem = parsed_value_problem(error)
        raise TrainConfigError(f"--resume {path}: not usable JSON: {problem}") from None
    if address is not None and isinstance(saved, dict):
        saved["address"] = address
    return config_from_dict(matches_budgets_moved(saved), f"--resume {path}")


#: The evaluation sizes an older config counted in matches under match rules, and the fields
#: that count them now.
MOVED_TO_MATCHES = {"eval_rounds": "eval_matches", "final_eval_rounds": "final_eval_matches"}


def matches_budgets_moved(saved: Any) -> Any:
    """A run's saved config table with its evaluation sizes in today's fields: a config
    written before the matches had fields of their own (it has no ``eval_matches``) counted
    whole matches in ``eval_rounds`` and ``final_eval_rounds`` when its rules play matches;
    those values move to ``eval_matches`` and ``final_eval_matches``, so that the resumed run
    evaluates as it started (its rounds fields then keep their default). Anything else is
    returned as it is (a table whose rules do not load fails later, naming them)."""
    if not isinstance(saved, dict) or "eval_matches" in saved or "eval_rounds" not in saved:
        return saved
    switches = saved.get("switches", {})
    try:
        rules = load_rules(saved.get("preset", "official"), players=saved.get("players", 2),
                           **(switches if isinstance(switches, dict) else {}))  # fmt: skip
    except (RulesError, TypeError, ValueError):
        return saved
    if not rules.match:
        return saved
    moved = dict(saved)
    for old, new in MOVED_TO_MATCHES.items():
        if old in moved:
            moved[new] = moved.pop(old)
    return moved


def check_backend(data: dict, config: TrainConfig, where: Path) -> None:
    """A checkpoint resumes only on the backend and with the worker count that wrote it."""
    saved = data.get("backend", {"name": "local", "workers": 1})  # older checkpoints: local
    if not isinstance(saved, dict) or not {"name", "workers"} <= set(saved):
        raise CheckpointError(f"{where}: its backend entry is not a backend and worker count")
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


def load_resume(
    run: Path, config: TrainConfig, inputs: NetworkInputs | None = None
) -> dict[str, Any]:
    """The checkpoint of run folder ``run``, checked to fit ``config``: its keys, backend,
    network shape (``inputs``: the network's, by default those of ``config``'s rules) and
    counters. Nothing in the folder is changed."""
    where = run / "checkpoint.pt"
    data = load_checkpoint(where, RESUME_KEYS)
    check_backend(data, config, where)
    spec = network_spec(data, where)
    inputs = NetworkInputs.of_config(config) if inputs is None else inputs
    if spec["hidden"] != list(config.hidden) or not inputs.matches(spec):
        raise CheckpointError(
            f"{where}: its network has hidden sizes {spec['hidden']} and reads "
            f"{NetworkInputs.of_spec(spec).describe()}; the run's config.json asks for "
            f"{config.hidden} and {inputs.describe()}"
        )
    data["num_updates"] = planned_updates(data, config, where)
    if "learner_decisions" not in data:  # written before the logs counted them
        if data["update"] < data["num_updates"]:
            raise CheckpointError(
                f"{where}: written by an older version of uno_rl, which did not count the "
                "learner's decisions (the logs' global_step); it cannot be resumed: start a "
                "new run (init_from can reuse its policy.pt)"
            )
        data["learner_decisions"] = data["decisions"]  # finished: nothing more is logged
    for key in ("update", "decisions", "learner_decisions", "rounds", "pool_filled", "pool_next"):
        value = data[key]
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise CheckpointError(f"{where}: {key} must be a whole number >= 0, got {value!r}")
    elapsed = data.setdefault("elapsed", 0.0)  # older checkpoints: the time is not known
    if isinstance(elapsed, bool) or not isinstance(elapsed, int | float) or not 0 <= elapsed < 1e15:
        raise CheckpointError(f"{where}: elapsed must be seconds >= 0, got {elapsed!r}")
    if data["pool_filled"] > config.pool_size or data["pool_next"] >= config.pool_size:
        raise CheckpointError(f"{where}: its opponent pool does not fit pool_size")
    if not isinstance(data["pool"], list) or len(data["pool"]) != config.pool_size:
        raise CheckpointError(f"{where}: its opponent pool does not hold pool_size snapshots")
    rng = data["rng"]
    if not isinstance(rng, dict) or not all(
        isinstance(rng.get(k), torch.Tensor) for k in ("sample", "torch")
    ):
        raise CheckpointError(f"{where}: its generator states are missing or not tensors")
    return data


def planned_updates(data: dict[str, Any], config: TrainConfig, where: Path) -> int:
    """The updates the run of checkpoint ``data`` trains in all: the number it planned at its
    start. A checkpoint that does not hold it was written when a budget was rounded down to
    whole updates: its run planned ``total_decisions // decisions_per_rollout``."""
    if "num_updates" not in data:
        return max(1, config.total_decisions // config.decisions_per_rollout)
    value = data["num_updates"]
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise CheckpointError(f"{where}: num_updates must be a whole number >= 1, got {value!r}")
    return value


def remove_stale_temporaries(run: Path) -> None:
    """Remove what a kill left of an unfinished durable write in run folder ``run``."""
    for name in DURABLE_FILES:
        for stale in [*run.glob(f".{name}.*.tmp"), run / f"{name}.tmp"]:
            stale.unlink(missing_ok=True)


def restore_learner(
    data: dict[str, Any],
    where: Path,
    network: PolicyNetwork,
    optimizer: torch.optim.Optimizer,
    pool: list[PolicyNetwork],
    generator: torch.Generator,
) -> None:
    """Load a checked checkpoint (:func:`load_resume`) into the learner's parts."""
    load_weights(network, data["model"], where, "network weights")
    load_weights(optimizer, data["optimizer"], where, "optimizer state")
    for group in optimizer.param_groups:
        for param in group["params"]:
            moments = optimizer.state.get(param, {})
            if any(
                isinstance(t, torch.Tensor) and t.dim() and t.shape != param.shape
                for t in moments.values()
            ):
                raise CheckpointError(f"{where}: its optimizer state does not fit the network")
    for net, weights in zip(pool, data["pool"]):
        load_weights(net, weights, where, "opponent pool weights")
    try:
        generator.set_state(data["rng"]["sample"])
        torch.set_rng_state(data["rng"]["torch"])
    except (RuntimeError, TypeError, ValueError) as error:
        raise CheckpointError(f"{where}: its generator states do not fit: {error}") from None


def init_from_path(text: str) -> Path:
    """The checkpoint file ``init_from`` names: a path, a file in ``agents/``, or an agent (a
    spec name, ``ppo:checkpoint=FILE``) whose parameters name a ``checkpoint``."""
    from uno_rl.agents import AgentError
    from uno_rl.agents.registry import AGENTS_DIR, parse_spec, spec_parameters

    path = Path(text)
    if path.exists() or path.is_absolute() or (AGENTS_DIR / text).exists():
        return path if path.exists() or path.is_absolute() else AGENTS_DIR / text
    try:
        name, overrides = parse_spec(text)
        checkpoint = {**spec_parameters(name), **overrides}.get("checkpoint")
    except AgentError:
        checkpoint = None
    if not isinstance(checkpoint, str) or not checkpoint:
        raise TrainConfigError(
            f"init_from: {text!r} is neither a checkpoint file nor an agent with a checkpoint "
            "(e.g. ppo-official-2p, or a path to a .pt file)"
        )
    found = Path(checkpoint)
    return found if found.is_absolute() or found.exists() else AGENTS_DIR / checkpoint


def initial_weights(
    config: TrainConfig, network: PolicyNetwork, inputs: NetworkInputs | None = None
) -> None:
    """Load the weights ``init_from`` names (a path, a file in ``agents/``, or an agent whose
    spec has a ``checkpoint``: ``ppo-official-2p``) into ``network``, checked to fit (errors
    name the field and the file). ``inputs``: the network's (default: those of ``config``'s
    rules); the checkpoint must have been trained on the same layout and deck size, with the
    same features or fewer, and as many hidden layers, none wider than ``config.hidden``'s."""
    path = init_from_path(config.init_from)
    try:
        start = load_checkpoint(path)
        spec = network_spec(start, path)
    except CheckpointError as error:
        raise TrainConfigError(f"init_from: {error}") from None
    if not spec["scaled"]:
        raise TrainConfigError(f"init_from: {path} was trained without input scaling")
    inputs = NetworkInputs.of_config(config) if inputs is None else inputs
    saved = NetworkInputs.of_spec(spec)
    widens = _widens(saved, inputs)
    wider_layers = _wider_layers(spec["hidden"], list(config.hidden))
    if not (spec["hidden"] == list(config.hidden) or wider_layers) or not (
        inputs.matches(spec) or widens
    ):
        raise TrainConfigError(
            f"init_from: {path} has hidden sizes {spec['hidden']} and reads "
            f"{saved.describe()}; the config asks for {config.hidden} and {inputs.describe()} "
            "(or as many layers, none narrower, or more pieces of the same layout and deck "
            "size)"
        )
    weights = start["model"]
    if widens:
        weights = _widened(weights, saved, inputs, path)
    if wider_layers:
        weights = _wider_units(weights, network.state_dict(), len(config.hidden), path)
    try:
        load_weights(network, weights, path)
    except CheckpointError as error:
        raise TrainConfigError(f"init_from: {error}") from None


def _widens(saved: NetworkInputs, inputs: NetworkInputs) -> bool:
    """Whether ``inputs`` read every piece ``saved`` did and more, on the same layout and
    deck size: a network that starts from the saved one with the new columns' weights at 0."""
    same = (saved.layout.name, saved.deck_size) == (inputs.layout.name, inputs.deck_size)
    return same and set(saved.features) < set(inputs.features)


def _widened(
    weights: dict[str, Any], saved: NetworkInputs, inputs: NetworkInputs, path: Path
) -> dict[str, Any]:
    """The saved weights with the first layer widened to ``inputs``' columns: each column the
    saved network read keeps its weights, every new one starts at 0 (the same function)."""
    first = weights.get("trunk.0.weight")
    if not isinstance(first, torch.Tensor) or first.shape[1:] != (saved.columns.size,):
        raise TrainConfigError(f"init_from: {path}: its first layer does not read its pieces")
    position = {int(column): j for j, column in enumerate(saved.columns)}
    wide = first.new_zeros((first.shape[0], inputs.columns.size))
    for j, column in enumerate(inputs.columns.tolist()):
        if column in position:
            wide[:, j] = first[:, position[column]]
    return {**weights, "trunk.0.weight": wide}


def _wider_layers(saved: list[int], asked: list[int]) -> bool:
    """Whether ``asked`` has as many hidden layers as ``saved``, none narrower, one wider."""
    return (
        len(saved) == len(asked)
        and all(a >= b for a, b in zip(asked, saved, strict=True))
        and asked != saved
    )


def _wider_units(
    weights: dict[str, Any], fresh: dict[str, torch.Tensor], layers: int, path: Path
) -> dict[str, Any]:
    """The saved weights in a network with wider hidden layers, computing the same function.

    ``fresh``: the wider network's own freshly initialised state. Each saved unit keeps its
    weights and bias, reading 0 from the new units of the layer below; each new unit keeps its
    fresh incoming weights (so it has an output and a gradient) and feeds the layer above (the
    heads included) through weights of 0, so nothing it computes reaches the logits or the
    value until training moves those weights.
    """
    names = [f"trunk.{2 * k}" for k in range(layers)] + ["policy", "value"]
    wide = dict(weights)
    for name in names:
        saved_w, saved_b = weights.get(f"{name}.weight"), weights.get(f"{name}.bias")
        new_w, new_b = fresh[f"{name}.weight"], fresh[f"{name}.bias"]
        if (
            not isinstance(saved_w, torch.Tensor)
            or not isinstance(saved_b, torch.Tensor)
            or saved_w.ndim != 2
            or saved_w.shape[0] > new_w.shape[0]
            or saved_w.shape[1] > new_w.shape[1]
            or saved_b.shape != saved_w.shape[:1]
        ):
            raise TrainConfigError(f"init_from: {path}: its layer {name} does not fit its sizes")
        units, reads = saved_w.shape
        w = new_w.detach().clone()
        w[:units, :] = 0.0  # a saved unit reads nothing from the new units below
        w[:units, :reads] = saved_w
        b = new_b.detach().clone()
        b[:units] = saved_b
        wide[f"{name}.weight"], wide[f"{name}.bias"] = w, b
    return wide


def resumed_config(
    resume: str, config_given: bool, overrides: dict[str, str]
) -> tuple[Path, TrainConfig]:
    """The run folder and config of ``uno_rl train --resume RESUME``; ``config_given``: a
    ``--config`` was given too; ``overrides``: the options given (only ``--address`` may be)."""
    address = overrides.pop("address", None)  # where the cluster is, not what runs
    if {"backend", "workers"} & set(overrides):
        raise TrainConfigError(
            "--resume: a run keeps its backend and number of workers (the games and "
            "their generators are split among the workers); only --address may change"
        )
    given = [option_name(k) for k in overrides]
    given += ["--config"] * config_given
    if given:
        raise TrainConfigError(
            "--resume continues a run with its own config: no other settings (got "
            f"{', '.join(given)}; only --address may be given, to reach a Ray cluster)"
        )
    run = Path(resume)
    return run, read_run_config(run, address)
