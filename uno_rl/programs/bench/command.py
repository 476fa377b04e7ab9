"""Throughput benchmark: uniformly random legal play under the official rules.

    uno_rl bench                   # full run, a table
    uno_rl bench --quick --json    # under a minute, one JSON object per row

Rows (``name``):

============  =================================================================================
core          ``legal_mask`` -> sample a legal action -> ``step`` -> re-deal finished rounds,
              for a batch of N games in lockstep
core-obs      the same, plus the acting seat's observation (``observe.observe``) every step
vector        the native Gymnasium VectorEnv (``UnoVectorEnv``), 4096 games: learner steps, the
              learner's random legal action from ``info["action_mask"]``, random opponents
aec           the PettingZoo AEC env (``uno_rl.envs.uno_v1.env()``, wrappers included): one
              game, ``env.last()`` then a uniformly random legal action from its mask; N = 1.
              At 2 players, when ``rlcard-step`` is also asked for, the two rows' repeats
              are interleaved so that both see the same load (their ratio is the point)
evaluate      the evaluator (``uno_rl.eval.run.evaluate``): ``color-first`` against
              ``random-playable``, 2 players, duplicate deals, every CPU (worker processes);
              one timed run of ``--evaluate-rounds`` rounds (1,000,000; 50,000 with ``--quick``)
              including start-up, tables and ratings. ``batch`` is the games in lockstep per
              worker; ``decisions_per_s`` counts every player's decisions
train         PPO self-play (``uno_rl train``'s defaults: official, 2 players, 2048 games,
              32 steps per rollout, a 128x128 network, CPU, ``precision = "auto"``: a bfloat16
              trunk where the CPU has native bfloat16): ``--train-decisions`` decisions
              (2,000,000; 200,000 with ``--quick``) of rollouts and updates together, one timed
              run after start-up, no evaluations; every seat's decision counts
maskable-ppo  sb3-contrib's MaskablePPO learning end to end (rollouts and updates; the ``sb3``
              extra) against random opponents, twice in the same run: over the SB3 VecEnv
              adapter (``uno_rl.envs.sb3.UnoSB3VecEnv``, 128 games, ``batch`` 128) and over one
              Gymnasium env (``uno_rl/Uno-v1`` in SB3's one-env ``DummyVecEnv``, ``batch`` 1),
              with the same hyperparameters: 1,024 samples per update, minibatch 512, 4 epochs,
              the default ``MlpPolicy``, one torch CPU thread, the two envs' repeats
              interleaved (both see the same load). ``decisions_per_s`` is learner
              steps/s, ``rounds_per_s`` learner episodes/s, ``step_latency_us`` one update
              (its rollout and its training); ``vs_one_env`` is the adapter's steps/s over the
              one env's. rounds/s grows as the policy learns to end rounds (sooner over the
              adapter, whose model has made more updates by then)
rlcard-step   RLCard 1.2.0's UNO (the ``rlcard`` extra): one ``env.step`` per decision with a
              uniformly random legal action, ``env.reset`` when the round is over; N = 1
pimc          the ``pimc`` search agent (``--pimc-spec``, default its defaults; ``--quick``
              a small search) playing every seat of 256 aged 2-player games, one batched
              call per step (:mod:`uno_rl.programs.bench.search_rows`); decisions/s of the agent
============  =================================================================================

Every row that plays uno_rl's engine runs once per engine of ``--engines`` (default: the
compiled engine and the NumPy one, in the same run; :mod:`uno_rl.core.backend`), in the column
``engine``; ``vs_numpy`` is a compiled row's decisions/s over the NumPy row's. Columns:
``decisions_per_s`` (game-steps per second: every game of the batch takes one decision
per step), ``rounds_per_s`` (finished rounds, truncated ones included), both the median over
``--repeats`` timed repeats of ``--seconds`` each after one untimed warm-up repeat;
``step_latency_us``, the median wall time of one step of the whole batch (at N = 1, the latency
of one decision); ``bytes_per_game`` (``State.nbytes_per_game()``); ``vs_rlcard``, decisions/s
as a multiple of RLCard's at the same player count; ``vs_one_env`` (maskable-ppo rows only);
``deck`` (``--decks``: the core and core-obs rows run once per deck, the others on the classic
deck) and ``vs_classic``, a deck's core row as a share of the classic deck's same row (same
players and batch, same run); ``note``.

About RLCard (checked against 1.2.0's source):

* It runs unmodified on NumPy 2.x (its UNO code path uses no removed aliases such as
  ``np.int``), so no shim is applied. Its ``seed`` must be a plain ``int``.
* Its UNO env ignores ``game_num_players`` (only the Blackjack and Hold'em envs read their game
  config) and always plays 2 players. The row is labelled with the player count RLCard
  reports, with a note; a player count it already ran is not run twice.
* Its rules are not the official ones: drawing is legal only when nothing is playable; a drawn
  card is played automatically when it matches the color (or is a Wild, given a random color)
  and kept otherwise; +4 is legal only without any other playable card (a Wild included) and
  cannot be challenged; a first-card +2 does not cost the first player the turn; no scoring.
  Its reshuffle also puts the top card back into the draw pile while it stays on top, so that
  card can exist twice. Random play under RLCard's rules ends a round in about 46 decisions;
  under the official rules, where drawing is always allowed, in 600 to 700 (many rounds hit
  ``max_turns``). So rounds/s is not comparable between the two; decisions/s is.
* Every ``env.step`` also encodes the next player's observation, so ``core-obs`` is the fair
  counterpart of ``rlcard-step``.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from uno_rl.agents import AgentError, make_agent
from uno_rl.core import load_rules
from uno_rl.core.backend import ENGINES, compiled_available, engine_name, select_engine
from uno_rl.plumbing.cli import MAX_COUNT, CliParser, count_type, fail, float_type, seed_type
from uno_rl.programs.bench.game_rows import (
    aec_rlcard_rows,
    aec_row,
    aged_state,
    core_row,
    vector_row,
)
from uno_rl.programs.bench.peers import maskable_ppo_rows, rlcard_row
from uno_rl.programs.bench.program_rows import evaluate_row, train_config, train_row
from uno_rl.programs.bench.search_rows import QUICK_PIMC, pimc_row
from uno_rl.programs.bench.timing import log

ROW_KINDS = (
    "core", "core-obs", "aec", "vector", "evaluate", "train", "maskable-ppo", "rlcard-step",
    "pimc",
)  # fmt: skip
#: Most games in one core row's batch: about 1 KB of state each, so a million is a gigabyte.
MAX_BATCH = 1_000_000
#: Most timed repeats per row, and most seconds per repeat.
MAX_REPEATS = 1000
MAX_SECONDS = 3600.0
COLUMNS = [
    "name",
    "engine",
    "deck",
    "players",
    "batch",
    "decisions_per_s",
    "rounds_per_s",
    "step_latency_us",
    "bytes_per_game",
    "vs_rlcard",
    "vs_one_env",
    "vs_classic",
    "vs_numpy",
    "note",
]


def run_bench(
    rows: Sequence[str],
    players: Sequence[int],
    batches: Sequence[int],
    seconds: float,
    repeats: int,
    seed: int,
    evaluate_rounds: int = 1_000_000,
    train_decisions: int = 2_000_000,
    decks: Sequence[str] = ("classic",),
    pimc_spec: str = "pimc",
    engines: Sequence[str] = ("numpy",),
) -> pd.DataFrame:
    """Every requested row; returns the tidy table (one row per measurement). The ``core``
    and ``core-obs`` rows run once per deck of ``decks``, the others on the classic deck;
    every row that plays uno_rl's engine runs once per engine of ``engines``."""
    records: list[dict] = []

    def add(record: dict | None) -> None:
        if record is None:
            return
        records.append(record)
        log(
            f"{record['name']} players={record['players']} batch={record['batch']}: "
            f"{record['decisions_per_s']:,.0f} decisions/s, {record['rounds_per_s']:,.1f} rounds/s"
        )

    measured: dict[int, dict] = {}  # rlcard-step rows, by the player count RLCard ran
    with_rlcard = "rlcard-step" in rows and importlib.util.find_spec("rlcard") is not None
    in_use = engine_name()
    try:
        for name in engines:
            select_engine(name)
            start = len(records)
            _engine_rows(rows, players, batches, seconds, repeats, seed, evaluate_rounds,
                         train_decisions, decks, pimc_spec, add, measured, with_rlcard)  # fmt: skip
            for record in records[start:]:
                record["engine"] = name
    finally:
        select_engine(in_use)
    if "rlcard-step" in rows and importlib.util.find_spec("rlcard") is None:
        log("rlcard-step rows skipped: rlcard is not installed (pip install -e '.[rlcard]')")
    elif "rlcard-step" in rows:
        for record in list(measured.values()):
            add(record)
        for p in players:
            record = rlcard_row(p, seconds, repeats, seed, measured)
            if record is not None:
                measured[record["players"]] = record
            add(record)

    for record in records:
        record.setdefault("deck", "classic")
        record.setdefault("engine", "")  # another library's row
    table = pd.DataFrame(records, columns=COLUMNS)
    # Our decisions/s over RLCard's at the same player count (NaN where RLCard has no such row).
    rlcard_speed = table[table.name == "rlcard-step"].set_index("players")["decisions_per_s"]
    table["vs_rlcard"] = table.decisions_per_s / table.players.map(rlcard_speed).astype(float)
    table.loc[table.name.isin(["rlcard-step", "maskable-ppo", "pimc"]), "vs_rlcard"] = math.nan
    # A deck's core rows over the classic deck's at the same row, engine, players and batch.
    key = ["name", "engine", "players", "batch"]
    classic = table[table.deck == "classic"].set_index(key)["decisions_per_s"]
    same = table.set_index(key).index.map(lambda k: classic.get(k, math.nan))
    ratio = table.decisions_per_s / np.asarray(same, float)
    table["vs_classic"] = ratio.where(
        table.name.isin(["core", "core-obs"]) & (table.deck != "classic")
    )
    # The compiled engine's rows over the NumPy engine's same row in the same run.
    key = ["name", "deck", "players", "batch"]
    numpy_speed = table[table.engine == "numpy"].set_index(key)["decisions_per_s"]
    same = table.set_index(key).index.map(lambda k: numpy_speed.get(k, math.nan))
    table["vs_numpy"] = (table.decisions_per_s / np.asarray(same, float)).where(
        table.engine == "compiled"
    )
    return table


def _engine_rows(rows, players, batches, seconds, repeats, seed, evaluate_rounds, train_decisions,
                 decks, pimc_spec, add, measured, with_rlcard) -> None:  # fmt: skip
    """The rows that play uno_rl's engine, on the engine selected now (:func:`run_bench`)."""
    for p in players:
        for kind in ("core", "core-obs"):
            if kind in rows:
                for n in batches:
                    for deck in decks:
                        obs = kind == "core-obs"
                        add(core_row(p, n, seconds, repeats, seed, with_obs=obs, deck=deck))
    if "aec" in rows:
        for p in players:
            if p == 2 and with_rlcard:
                aec, rl = aec_rlcard_rows(seconds, repeats, seed)
                add(aec)
                measured.setdefault(rl["players"], rl)  # the first engine's pass: one row
            else:
                add(aec_row(p, seconds, repeats, seed))
    if "vector" in rows:
        for p in players:
            add(vector_row(p, seconds, repeats, seed))
    if "evaluate" in rows:
        add(evaluate_row(evaluate_rounds, seed=seed))
    if "train" in rows:
        add(train_row(train_decisions, seed=seed))
    if "pimc" in rows:
        add(pimc_row(pimc_spec, seconds, repeats, seed, aged_state))
    if "maskable-ppo" in rows and importlib.util.find_spec("sb3_contrib") is None:
        log("maskable-ppo rows skipped: sb3-contrib is not installed (pip install -e '.[sb3]')")
    elif "maskable-ppo" in rows:
        for p in players:
            for record in maskable_ppo_rows(p, seconds, repeats, seed):
                add(record)


def _json_value(value):
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def _fmt(spec: str) -> Callable[[float], str]:
    """A column formatter that leaves missing values blank."""
    return lambda value: "" if pd.isna(value) else spec.format(value)


def build_parser() -> CliParser:
    """The command line; every number is checked as it is parsed (0 is never "the default")."""
    parser = CliParser(
        prog="uno_rl bench",
        description="Random legal play under the official rules: decisions/s and rounds/s.",
    )
    parser.add_argument(
        "--players",
        type=count_type(2, 10),
        nargs="+",
        default=[2, 4],
        help="player counts (default 2 4)",
    )
    parser.add_argument(
        "--batch",
        type=count_type(1, MAX_BATCH),
        nargs="+",
        default=[1, 1024, 8192],
        help=f"games in lockstep, 1 to {MAX_BATCH:,} (default 1 1024 8192)",
    )
    parser.add_argument(
        "--rows",
        nargs="+",
        choices=ROW_KINDS,
        default=list(ROW_KINDS),
        help=f"row kinds to run (default {' '.join(ROW_KINDS)})",
    )
    parser.add_argument(
        "--repeats",
        type=count_type(1, MAX_REPEATS),
        help="timed repeats per row (default 5, quick 3)",
    )
    parser.add_argument(
        "--seconds",
        type=float_type(0, MAX_SECONDS, low_open=True),
        help="seconds per repeat (default 2, quick 0.3)",
    )
    parser.add_argument(
        "--seed", type=seed_type, default=0, help="seed of every row's RNG (default 0)"
    )
    parser.add_argument(
        "--decks",
        nargs="+",
        default=["classic"],
        metavar="DECK",
        help="decks of the core and core-obs rows (default classic; e.g. classic extreme "
        "extension modern-112 swap-112, or a deck file)",
    )
    parser.add_argument("--quick", action="store_true", help="short repeats: under a minute")
    parser.add_argument(
        "--pimc-spec",
        default=None,
        help=f"agent of the pimc row (default pimc; quick {QUICK_PIMC})",
    )
    parser.add_argument(
        "--engines",
        nargs="+",
        choices=ENGINES,
        default=None,
        help="engines whose rows to run (default compiled numpy; numpy where numba is missing)",
    )
    parser.add_argument("--json", action="store_true", help="one JSON object per row")
    parser.add_argument(
        "--evaluate-rounds",
        type=count_type(1, MAX_COUNT),
        help="rounds of the evaluate row (default 1000000; quick 50000)",
    )
    parser.add_argument(
        "--train-decisions",
        type=count_type(1, MAX_COUNT),
        help="decisions of the train row (default 2000000; quick 200000)",
    )
    return parser


def _or_default(value, default):
    """``value`` unless the option was not given (None; never 0, which the parser refuses)."""
    return default if value is None else value


def check_setup(
    rows: Sequence[str],
    players: Sequence[int],
    train_decisions: int,
    seed: int,
    decks: Sequence[str] = ("classic",),
    pimc_spec: str = "pimc",
) -> None:
    """Build what the rows need up front, so that a bad value fails before anything is timed:
    the rules of every player count and deck, the train row's config, the pimc row's agent."""
    for p in players:
        for deck in decks:
            load_rules("official", players=p, deck=deck)
    if "train" in rows:
        train_config(train_decisions, seed, name="--train-decisions")
    if "pimc" in rows:
        make_agent(pimc_spec, load_rules("official", players=2))


def main(argv: Sequence[str] | None = None) -> pd.DataFrame:
    """Run the command line; bad input exits with one ``error:`` line and status 2."""
    args = build_parser().parse_args(argv)
    repeats = _or_default(args.repeats, 3 if args.quick else 5)
    seconds = _or_default(args.seconds, 0.3 if args.quick else 2.0)
    evaluate_rounds = _or_default(args.evaluate_rounds, 50_000 if args.quick else 1_000_000)
    train_decisions = _or_default(args.train_decisions, 200_000 if args.quick else 2_000_000)
    pimc_spec = _or_default(args.pimc_spec, QUICK_PIMC if args.quick else "pimc")
    engines = args.engines or (["compiled", "numpy"] if compiled_available() else ["numpy"])
    try:
        for name in dict.fromkeys(engines):
            select_engine(name)  # the compiled engine where numba is missing: one line
        check_setup(args.rows, args.players, train_decisions, args.seed, args.decks, pimc_spec)
    except (AgentError, ValueError) as error:  # RulesError, EngineChoiceError included
        fail(str(error))
    log(
        f"rows={','.join(args.rows)} players={args.players} batch={args.batch} "
        f"repeats={repeats} seconds={seconds} seed={args.seed} engines={','.join(engines)}"
    )
    table = run_bench(
        args.rows,
        args.players,
        args.batch,
        seconds,
        repeats,
        args.seed,
        evaluate_rounds,
        train_decisions,
        args.decks,
        pimc_spec=pimc_spec,
        engines=engines,
    )

    if args.json:
        for record in table.to_dict(orient="records"):
            print(json.dumps({k: _json_value(v) for k, v in record.items()}))
    else:
        print(
            f"numpy {np.__version__}, {os.cpu_count()} CPUs; median of {repeats} repeats "
            f"of {seconds:g} s each; official rules, uniformly random legal actions"
        )
        print(
            table.drop(columns="note").to_string(
                index=False,
                na_rep="",
                formatters={
                    "decisions_per_s": _fmt("{:,.0f}"),
                    "rounds_per_s": _fmt("{:,.1f}"),
                    "step_latency_us": _fmt("{:,.1f}"),
                    "bytes_per_game": _fmt("{:,.0f}"),
                    "vs_rlcard": _fmt("{:,.1f}x"),
                    "vs_one_env": _fmt("{:,.1f}x"),
                    "vs_classic": _fmt("{:.0%}"),
                    "vs_numpy": _fmt("{:,.1f}x"),
                },
            )
        )
        for row in table[table.note != ""].itertuples():
            print(f"note: {row.name} players={row.players}: {row.note}")
    return table
