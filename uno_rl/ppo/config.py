"""The training config: one dataclass, a docstring per field, TOML files and command-line overrides.

``experiments/train-*.toml`` holds a flat table of fields (any subset; the rest keep their
defaults); every field is also a command-line option (``--num-games 2048``, lists as
``--hidden 256,256``, true/false as ``--track false``, or alone for true: ``--track``), and
rule switches are ``--set stacking=any --set jump_in=true`` (on top of the file's
``switches``). Unknown keys and bad values raise :class:`TrainConfigError` naming the key.

Every value is checked in one place, :meth:`TrainConfig.__post_init__`, whichever way it came
(a TOML file, the command line, a resumed run's ``config.json`` through
:func:`config_from_dict`; each field by :func:`uno_rl.ppo.config_checks.check_field`): its
type (``true`` is not a number, ``2.5`` not a count), finite numbers only (``nan`` and ``inf``
are refused), each field's range (counts at most :data:`uno_rl.plumbing.cli.MAX_COUNT`, seeds in
[0, 2^63 - 1]) or choices, a safe run ``name`` (one folder under ``--runs-dir``), then the
rules between fields.

The evaluations' sizes have a field per unit: ``eval_rounds`` and ``final_eval_rounds`` count
single rounds and apply when the rules play single rounds; ``eval_matches`` and
``final_eval_matches`` count whole matches and apply under match rules (``match = true``).
Each is a number or ``auto``, a share of ``total_decisions`` capped at the sizes the shipped
long runs use (:meth:`TrainConfig.eval_size`), so that a short run evaluates briefly.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from uno_rl.core.layout import EXTENDED_PIECES
from uno_rl.core.observe_layout import PIECES
from uno_rl.core.rules import Rules, load_rules
from uno_rl.plumbing.cli import MAX_SEED, parse_toml_value
from uno_rl.plumbing.cli import parse_switches as cli_switches
from uno_rl.plumbing.tomlfile import read_toml

from .config_checks import TrainConfigError
from .config_checks import check_field as _check_field
from .config_checks import config_field as _field
from .config_checks import field_kind as _kind
from .config_checks import is_int as _is_int
from .config_checks import shown as _show

__all__ = [
    "NAME_PATTERN",
    "TrainConfig",
    "TrainConfigError",
    "add_arguments",
    "cli_text",
    "config_from_dict",
    "config_with_overrides",
    "load_train_config",
    "option_name",
    "parse_switches",
]

#: Every piece of the classic observation: the default ``features`` (on an extended deck it
#: means every piece of the extended layout, :func:`uno_rl.ppo.inputs.resolve_features`).
ALL_FEATURES = [name for name, _ in PIECES]
#: The pieces only the extended layout has (decks with the cards of rules specification §11).
EXTENDED_FEATURES = [name for name, _ in EXTENDED_PIECES]
#: A run name: one folder under ``--runs-dir`` (no ``/``, no leading dot, no ``..``).
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
#: Limits of ``hidden``: layers and units per layer.
MAX_LAYERS, MAX_WIDTH = 16, 8192
#: The most rounds, and matches, per eval agent (the evaluator's limits,
#: :data:`uno_rl.eval.run.MAX_ROUNDS` and ``MAX_MATCHES``; that module loads pandas).
MAX_EVAL_ROUNDS, MAX_EVAL_MATCHES = 100_000_000, 10_000_000


@dataclasses.dataclass
class TrainConfig:
    """PPO self-play settings (see each field's ``doc`` metadata, or ``--help``)."""

    # ------------------------------------------------------------------ run
    name: str = _field("quickstart", "run name: results go to runs/NAME/<timestamp>/")
    seed: int = _field(
        0, "seed of every generator (games, opponents, sampling, torch)", low=0, high=MAX_SEED
    )
    device: str = _field("cpu", "torch device: cpu, cuda or auto (cuda when available)",
                         choices=("cpu", "cuda", "auto"))  # fmt: skip
    torch_threads: int = _field(0, "torch CPU threads (0: torch's default)", low=0, high=256)
    total_decisions: int = _field(
        3_000_000,
        "decisions to train (all seats, all games), rounded to the nearest whole number of "
        "updates of num_games x rollout_steps decisions, at least one",
        low=1,
    )
    # --------------------------------------------------------------- backend
    backend: str = _field("local", "where the games are played: local (this process) or ray "
                          "(rollout actors)", choices=("local", "ray"))  # fmt: skip
    workers: int = _field(1, "Ray rollout actors, each playing a slice of num_games (backend ray)",
                          low=1, high=4096)  # fmt: skip
    address: str = _field("", "Ray cluster address (ray start --head prints it; 'auto': the local "
                          "one); '' starts a private local instance of `workers` CPUs")  # fmt: skip
    worker_retries: int = _field(3, "times a lost rollout actor is recreated within one update "
                                 "before the run stops", low=0, high=100)  # fmt: skip
    # ---------------------------------------------------------------- rules
    preset: str = _field("official", "rule preset (envs/NAME.toml)")
    players: int = _field(2, "players at each table", low=2, high=10)
    switches: dict = _field(
        {},
        'rule switches on top of the preset: in a file switches = {stacking = "any"}, on '
        "the command line --set stacking=any",
    )
    # ---------------------------------------------------------------- games
    num_games: int = _field(2048, "games played in lockstep", low=1, high=65536)
    rollout_steps: int = _field(32, "engine steps per rollout (every game takes one decision each)",
                                low=1, high=4096)  # fmt: skip
    # ------------------------------------------------------------ opponents
    self_play: float = _field(
        0.5, "share of games with the current policy in every seat", low=0, high=1
    )
    pool_share: float = _field(0.2, "share of games against past snapshots (self-play while the pool is empty)",
                               low=0, high=1)  # fmt: skip
    truncation_penalty: float = _field(
        1.0,
        "training reward of every learner seat in a round cut at max_turns, negated",
        low=0,
        high=100,
    )
    # ------------------------------------------------------------ objective
    objective: str = _field(
        "rules",
        "what the learner is rewarded for: rules (each round's reward under the rules' "
        "`reward` switch: win-loss, or points times reward_scale) or match (+1 for winning a "
        "match, -1/(P-1) for losing it; needs match = true)",
        choices=("rules", "match"),
    )
    reward_scale: float = _field(
        0.0,
        "multiplier of the rules' round reward in training (0: automatic: 1 for win-loss, "
        "1/50 for points, so a typical round is worth about 1)",
        low=0,
        high=100,
    )
    win_bonus: float = _field(0.0, "objective rules: extra reward for winning a round (+this to "
                              "the winner, -this/(P-1) to each loser), on top of the scaled "
                              "points: a round's win counts besides its points", low=0,
                              high=100)  # fmt: skip
    zoo_share: float = _field(0.3, "share of games against zoo agents", low=0, high=1)
    zoo: list = _field(["random-playable", "rule", "color-first", "points-dumper", "aggressive"],
                       "zoo agent specs the learner meets")  # fmt: skip
    zoo_tables: float = _field(0.0, "share of the zoo games with one zoo agent in every other "
                               "seat (as the strength tables are); the rest draw each seat's "
                               "agent separately", low=0, high=1)  # fmt: skip
    pool_size: int = _field(8, "past snapshots kept in the opponent pool", low=1, high=256)
    snapshot_every: int = _field(10, "updates between snapshots added to the pool", low=1)
    # -------------------------------------------------------------- network
    features: list = _field(list(ALL_FEATURES), "observation pieces the network reads (the "
                            "default, every classic piece, reads every piece of the deck's "
                            "layout: the extended pieces too on a deck with new cards)")  # fmt: skip
    hidden: list = _field([128, 128], "hidden layer sizes")
    precision: str = _field(
        "auto",
        "precision of the hidden layers: bf16 (bfloat16 autocast; weights, logits and values "
        "stay float32; about 1.6x faster training on CPUs with native bfloat16), fp32, or "
        "auto (bf16 where the CPU has it natively, else fp32; always fp32 on CUDA)",
        choices=("auto", "bf16", "fp32"),
    )
    init_from: str = _field("", "start from these weights: a checkpoint file, or an agent with "
                            "one such as ppo-official-2p (as many hidden layers, each as wide "
                            "or wider; its features, or more of the same layout: new units and "
                            "columns start with weight 0 on the outputs they feed, so it starts "
                            "as that bot; '' = fresh)")  # fmt: skip
    # ------------------------------------------------------------------ PPO
    learning_rate: float = _field(2.5e-4, "Adam learning rate", low=0, high=1)
    anneal_lr: bool = _field(True, "decay the learning rate linearly to 0")
    gamma: float = _field(0.995, "discount per decision of the same seat", low=0, high=1)
    gae_lambda: float = _field(0.95, "GAE lambda", low=0, high=1)
    update_epochs: int = _field(3, "passes over each rollout", low=1, high=100)
    minibatch_size: int = _field(4096, "transitions per gradient step", low=1)
    clip_coef: float = _field(0.2, "PPO ratio clip", low=0, high=10)
    clip_vloss: bool = _field(True, "clip the value loss like the policy")
    ent_coef: float = _field(0.01, "entropy bonus", low=0, high=10)
    vf_coef: float = _field(0.5, "value loss weight", low=0, high=100)
    max_grad_norm: float = _field(0.5, "gradient norm clip", low=0)
    norm_adv: bool = _field(True, "normalize advantages per minibatch")
    target_kl: float = _field(0.0, "stop an update's epochs past this KL (0: never)", low=0)
    # --------------------------------------------------- search distillation
    distill_data: list = _field([], "search-target files (.npz, written by uno_rl distill) "
                                "whose decisions the policy learns to imitate as well "
                                "(empty: none)")  # fmt: skip
    distill_coef: float = _field(
        1.0, "weight of the imitation loss (cross-entropy to the search's choice)", low=0
    )
    distill_batch: int = _field(
        1024, "search targets drawn for each minibatch", low=1, high=1_000_000
    )
    # ------------------------------------------------- evaluation, logging
    eval_every: int = _field(
        25, "updates between periodic evaluations against the eval agents, the last update "
        "evaluated too (0: never)", low=0,
    )  # fmt: skip
    eval_rounds: int | str = _field(
        "auto", "single rounds per eval agent in each periodic evaluation, when the rules play "
        "single rounds (auto: total_decisions / 1,000, between 2 and 2,000)",
        low=2, high=MAX_EVAL_ROUNDS, auto=(1_000, 2_000),
    )  # fmt: skip
    eval_matches: int | str = _field(
        "auto", "whole matches per eval agent in each periodic evaluation, when the rules play "
        "matches (match = true) (auto: total_decisions / 100,000, between 2 and 2,000)",
        low=2, high=MAX_EVAL_MATCHES, auto=(100_000, 2_000),
    )  # fmt: skip
    eval_agents: list = _field(["random-playable", "color-first"], "agents of the evaluations")
    final_eval_rounds: int | str = _field(
        "auto", "single rounds per eval agent in the final evaluation, when the rules play single "
        "rounds (0: skip; auto: total_decisions / 100, between 2 and 20,000)",
        low=0, high=MAX_EVAL_ROUNDS, auto=(100, 20_000),
    )  # fmt: skip
    final_eval_matches: int | str = _field(
        "auto", "whole matches per eval agent in the final evaluation, when the rules play matches "
        "(match = true) (0: skip; auto: total_decisions / 10,000, between 2 and 20,000)",
        low=0, high=MAX_EVAL_MATCHES, auto=(10_000, 20_000),
    )  # fmt: skip
    checkpoint_every: int = _field(10, "updates between checkpoints", low=1)
    tensorboard: bool = _field(True, "also write TensorBoard event files")
    track: bool = _field(False, "also log the scalars and the config to Weights & Biases (the "
                         "track extra; WANDB_MODE=offline keeps them on disk)")  # fmt: skip

    # ---------------------------------------------------------------- checks
    def __post_init__(self) -> None:
        # Every field is checked here, whichever way it came (TOML, command line, a resumed
        # run's config.json): its type, finiteness, range or choices; then the cross-field rules.
        for f in dataclasses.fields(self):
            setattr(self, f.name, _check_field(f, getattr(self, f.name)))
        if not NAME_PATTERN.fullmatch(self.name) or ".." in self.name:
            raise TrainConfigError(
                f"name: {_show(self.name)} is not a safe run name (letters, digits, '-', '_' "
                "and '.', starting with a letter or digit, at most 100 characters; no '/', "
                "no '..'): it names a folder under --runs-dir"
            )
        if abs(self.self_play + self.pool_share + self.zoo_share - 1.0) > 1e-9:
            raise TrainConfigError(
                "self_play + pool_share + zoo_share: must sum to 1, got "
                f"{self.self_play + self.pool_share + self.zoo_share}"
            )
        if self.backend == "local" and self.workers != 1:
            raise TrainConfigError(
                f"workers: the local backend plays every game in this process; {self.workers} "
                "workers need backend = 'ray'"
            )
        if self.backend == "local" and self.address:
            raise TrainConfigError("address: only for backend = 'ray'")
        if self.workers > self.num_games:
            raise TrainConfigError(
                f"workers: each rollout actor plays at least one game; {self.workers} workers "
                f"> num_games {self.num_games}"
            )
        if self.zoo_share > 0 and not self.zoo:
            raise TrainConfigError("zoo: name at least one agent when zoo_share > 0")
        if not self.features:
            raise TrainConfigError("features: name at least one observation piece")
        unknown = [f for f in self.features if f not in ALL_FEATURES + EXTENDED_FEATURES]
        if unknown:
            raise TrainConfigError(
                f"features: unknown observation piece {unknown[0]!r} (pieces: "
                f"{', '.join(ALL_FEATURES)}; with new cards also {', '.join(EXTENDED_FEATURES)})"
            )
        if (
            not self.hidden
            or len(self.hidden) > MAX_LAYERS
            or not all(_is_int(h) and 1 <= h <= MAX_WIDTH for h in self.hidden)
        ):
            raise TrainConfigError(
                f"hidden: must be a list of 1 to {MAX_LAYERS} layer sizes in [1, {MAX_WIDTH}], "
                f"got {_show(self.hidden)}"
            )
        for name in ("zoo", "eval_agents", "features", "distill_data"):
            if not all(isinstance(s, str) and s for s in getattr(self, name)):
                raise TrainConfigError(
                    f"{name}: must be a list of non-empty names, got {_show(getattr(self, name))}"
                )
        # The final evaluation's size depends on the rules' unit: checked with the rules
        # (uno_rl.programs.train.training_rules).
        if self.eval_every and not self.eval_agents:
            raise TrainConfigError("eval_agents: name at least one agent when eval_every > 0")
        for key, value in self.switches.items():
            if not isinstance(key, str) or not key:
                raise TrainConfigError(f"switches: {_show(key)} is not a switch name")
            if isinstance(value, float) and not math.isfinite(value):
                raise TrainConfigError(f"switches: {key} must be finite, got {value}")
            if not isinstance(value, str | int | float | bool):
                raise TrainConfigError(
                    f"switches: {key} must be a string, number or true/false, got {_show(value)}"
                )

    def rules(self) -> Rules:
        """The rules of the run: the preset with the switches at the player count (the one
        place they are built from the config; :class:`RulesError` for a bad combination)."""
        return load_rules(self.preset, players=self.players, **dict(self.switches))

    def training_reward_scale(self, reward: str) -> float:
        """The multiplier of the rules' round reward (``reward``: the rules' switch)."""
        if self.reward_scale:
            return self.reward_scale
        return 1.0 / 50.0 if reward == "points" else 1.0

    def eval_size(self, final: bool, match: bool) -> tuple[str, int]:
        """The field and the number of rounds (``match``: whole matches) per eval agent of the
        periodic evaluations (or the ``final`` one; 0: none): the field's value, or its
        ``auto`` rule applied to ``total_decisions``."""
        name = f"{'final_' if final else ''}eval_{'matches' if match else 'rounds'}"
        value = getattr(self, name)
        if value == "auto":
            divisor, cap = _FIELDS[name].metadata["auto"]
            value = min(cap, max(2, self.total_decisions // divisor))
        return name, value

    @property
    def decisions_per_rollout(self) -> int:
        """Decisions of one update's rollout: every game takes one per engine step."""
        return self.num_games * self.rollout_steps

    @property
    def num_updates(self) -> int:
        """The updates of a run: ``total_decisions`` in rollouts, rounded to the nearest whole
        number (half up), at least one."""
        per = self.decisions_per_rollout
        return max(1, (2 * self.total_decisions + per) // (2 * per))

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


_FIELDS = {f.name: f for f in dataclasses.fields(TrainConfig)}


def _parse_cli_value(name: str, text: str, kind: type) -> Any:
    """The command-line text of field ``name`` as a ``kind`` (or ``auto`` where the field
    takes it); errors name its option."""
    auto = name in _FIELDS and "auto" in _FIELDS[name].metadata
    if auto and text.strip() == "auto":
        return "auto"
    try:
        if kind is bool:
            lowered = text.lower()
            if lowered not in ("true", "false", "1", "0", "yes", "no"):
                raise ValueError(text)
            return lowered in ("true", "1", "yes")
        if kind is list:
            items = [t.strip() for t in text.split(",") if t.strip()]
            return [int(t) if t.lstrip("-").isdigit() else t for t in items]
        if kind is dict:
            out = {}
            for item in filter(None, (t.strip() for t in text.split(","))):
                key, _, value = item.partition("=")
                out[key.strip()] = parse_toml_value(value)
            return out
        if kind is int and len(text.strip()) > 30:  # int() of 5,000 digits is slow, then fails
            raise ValueError(text)
        return kind(text)
    except ValueError as error:
        why = f" ({error})" if kind is dict else ""  # which switch value is unreadable, and why
        what = "int or 'auto'" if auto else kind.__name__
        raise TrainConfigError(
            f"{option_name(name)}: cannot read {_show(text)} as {what}{why}"
        ) from None


def cli_text(value: Any) -> str:
    """``value`` written as the command line takes it (``256,256``, ``true``, ``any``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ",".join(map(str, value)) or "''"
    if isinstance(value, dict):
        return " ".join(f"--set {k}={cli_text(v)}" for k, v in value.items()) or "none"
    if value == "":
        return "''"
    return str(value)


def add_arguments(parser: argparse.ArgumentParser, shown: TrainConfig | None = None) -> None:
    """One ``--field-name`` option per config field and ``--set KEY=VALUE`` for the rule
    switches (a true/false field's option alone means true); none has a parser default (a
    field not given keeps the config file's value).
    ``--help`` shows the values of ``shown`` (the config a run without ``--config`` uses;
    default: the dataclass defaults)."""
    shown = TrainConfig() if shown is None else shown
    group = parser.add_argument_group(
        "config fields (override the config file; defaults: the quick-start config)"
    )
    for f in dataclasses.fields(TrainConfig):
        if f.name == "switches":  # in the place of the field, after --preset and --players
            group.add_argument(
                "--set",
                dest="switches",
                action="append",
                default=None,
                metavar="KEY=VALUE",
                help="a rule switch on top of the preset and the config file's switches "
                "(repeatable), e.g. --set stacking=any --set match=true "
                f"(default {cli_text(shown.switches)})",
            )
            continue
        flag = {"nargs": "?", "const": "true"} if _kind(f) is bool else {}  # --track: true
        group.add_argument(
            "--" + f.name.replace("_", "-"),
            dest=f.name,
            default=None,
            **flag,
            metavar="INT|auto" if "auto" in f.metadata else _kind(f).__name__.upper(),
            help=f"{f.metadata['doc']} (default {cli_text(getattr(shown, f.name))})".replace(
                "%", "%%"
            ),
        )


def parse_switches(items: list[str]) -> dict[str, Any]:
    """``--set KEY=VALUE`` options as a table of rule switches (VALUE read as TOML, or a bare
    string: ``any``); :class:`TrainConfigError` for a malformed one."""
    try:
        return cli_switches(items)
    except ValueError as error:
        raise TrainConfigError(str(error)) from None


def option_name(field: str) -> str:
    """The command-line option of config field ``field`` (``--set`` for the switches)."""
    return "--set" if field == "switches" else "--" + field.replace("_", "-")


def _blamed(message: str, where: str, options: Mapping[str, str]) -> str:
    """``message`` (``FIELD: ...``) started with the option of ``FIELD`` when ``options``
    has one (the value came from the command line), else with ``where``."""
    field, sep, rest = message.partition(": ")
    if sep and field in options:
        return f"{options[field]}: {rest}"
    return f"{where}: {message}"


def config_from_dict(
    data: Any, where: str, options: Mapping[str, str] | None = None
) -> TrainConfig:
    """The config of a table of fields (a TOML file, a run's ``config.json``), every field
    checked; errors start with ``where``, or with the command-line option of the field they
    name where ``options`` (field -> option) has it."""
    if not isinstance(data, dict):
        raise TrainConfigError(
            f"{where}: must be a table of config fields, got {type(data).__name__}"
        )
    names = {f.name for f in dataclasses.fields(TrainConfig)}
    for key in data:
        if key == "distill":
            raise TrainConfigError(
                f"{where}: a search-distillation recipe (its [distill] table): run it with "
                "uno_rl distill --config"
            )
        if key not in names:
            raise TrainConfigError(
                f"{where}: {str(key)[:60]}: unknown key (see --help for the fields)"
            )
    try:
        return TrainConfig(**data)
    except TrainConfigError as error:
        raise TrainConfigError(_blamed(str(error), where, options or {})) from None


def read_config_file(path: str | Path) -> dict[str, Any]:
    """The table of a TOML config file; a clear error if it is missing, a folder, binary or
    not TOML."""
    return read_toml(path, "a TOML config file", TrainConfigError)


def load_train_config(
    path: str | Path | None,
    overrides: dict[str, Any] | None = None,
) -> TrainConfig:
    """The config of a TOML file (or the defaults) with command-line overrides: strings per
    field, and ``switches`` as a list of ``KEY=VALUE`` (``--set``), applied on top of the
    file's switches. An error about a value given on the command line names its option
    (``--name``), one about a value of the file names the file (and so does one about rule
    switches that both give)."""
    values = read_config_file(path) if path is not None else {}
    return config_with_overrides(values, str(path or "config"), overrides)


def config_with_overrides(
    values: dict[str, Any], where: str, overrides: dict[str, Any] | None = None
) -> TrainConfig:
    """The config of a table of fields read from ``where`` with command-line overrides, as
    :func:`load_train_config` applies them."""
    values = dict(values)
    names = {f.name: f for f in dataclasses.fields(TrainConfig)}
    given = {key: text for key, text in (overrides or {}).items() if text is not None}
    options = {key: option_name(key) for key in given if key != "switches" or key not in values}
    for key, text in given.items():
        if key == "switches" and isinstance(text, list):
            base = values.get("switches", {})
            values[key] = {**(base if isinstance(base, dict) else {}), **parse_switches(text)}
            continue
        values[key] = _parse_cli_value(key, text, _kind(names[key]))
    return config_from_dict(values, where, options)
