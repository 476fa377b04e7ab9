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

Columns: ``decisions_per_s`` (game-steps per second: every game of the batch takes one decision
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

import functools
import importlib.util
import json
import math
import os
import random
import time
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from uno_rl.agents import AgentError, make_agent
from uno_rl.core import State, engine, load_rules, observe, sample_legal_actions
from uno_rl.core.rng import new_seeds
from uno_rl.plumbing.cli import MAX_COUNT, CliParser, count_type, fail, float_type, seed_type
from uno_rl.programs.bench.peers import maskable_ppo_rows, rlcard_record, rlcard_row, rlcard_stepper
from uno_rl.programs.bench.search_rows import QUICK_PIMC, pimc_row, play_step
from uno_rl.programs.bench.timing import StepFn, log, measure, measure_pair

ROW_KINDS = (
    "core", "core-obs", "aec", "vector", "evaluate", "train", "maskable-ppo", "rlcard-step",
    "pimc",
)  # fmt: skip
#: Most games in one core row's batch: about 1 KB of state each, so a million is a gigabyte.
MAX_BATCH = 1_000_000
#: Most timed repeats per row, and most seconds per repeat.
MAX_REPEATS = 1000
MAX_SECONDS = 3600.0
#: Games in the vector env row.
VECTOR_GAMES = 4096
#: Games aged once per player count; every core row starts from copies of them.
AGED_GAMES = 256
COLUMNS = [
    "name",
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
    "note",
]


def core_stepper(state: State, rng: np.random.Generator, with_obs: bool = False) -> StepFn:
    """One random legal decision in every game of ``state``; finished rounds are re-dealt."""

    def step() -> tuple[int, int]:
        if with_obs:
            observe.observe(state, state.actor)
        return play_step(state, sample_legal_actions(engine.legal_mask(state), rng), rng)

    return step


@functools.cache
def aged_state(players: int, seed: int, deck: str = "classic") -> State:
    """``AGED_GAMES`` games played for ``2 * max_turns`` steps: spread over their rounds.

    A fresh batch starts every game at its first decision, and random play under the official
    rules takes hundreds of decisions per round, so after a short warm-up hardly any round of a
    large batch would have ended yet and rounds/s would come out far too low. Rows start from
    copies of these games instead (cached: one ageing per player count and seed).
    """
    rules = load_rules("official", players=players, deck=deck)
    rng = np.random.default_rng([seed, players])
    state = engine.reset(rules, new_seeds(rng, AGED_GAMES))
    log(
        f"ageing {AGED_GAMES} games of {players} players ({deck} deck) "
        f"for {2 * rules.max_turns} steps"
    )
    step = core_stepper(state, rng)
    for _ in range(2 * rules.max_turns):
        step()
    return state


def core_row(
    players: int,
    batch: int,
    seconds: float,
    repeats: int,
    seed: int,
    with_obs: bool = False,
    deck: str = "classic",
) -> dict:
    """Batched random legal play in the core engine (``core`` or ``core-obs`` row), on ``deck``."""
    state = aged_state(players, seed, deck).take(np.arange(batch) % AGED_GAMES)
    step = core_stepper(state, np.random.default_rng(seed), with_obs)
    timing = measure(step, seconds, repeats)
    return {
        "name": "core-obs" if with_obs else "core",
        "deck": deck,
        "players": players,
        "batch": batch,
        **timing,
        "bytes_per_game": float(state.nbytes_per_game()),
        "note": "",
    }


def aec_stepper(players: int, seed: int) -> StepFn:
    """Random legal play through the wrapped PettingZoo AEC env (``uno_v1.env``), one game.

    Each step is what a PettingZoo user's loop does: ``env.last()`` (the acting agent's
    observation and mask), a uniformly random legal action, ``env.step``; a finished game is
    reset. Decisions are agent steps (dead steps at the end of a game included). The action is
    picked as in the ``rlcard-step`` loop (``random.Random.randrange`` over the legal list), so
    both rows time their env and the same per-step overhead.
    """
    from uno_rl.envs import uno_v1

    aec = uno_v1.env(players=players)
    aec.reset(seed=seed)
    pick = random.Random(seed)

    def step() -> tuple[int, int]:
        observation, _, termination, truncation, _ = aec.last()
        if termination or truncation:
            aec.step(None)
        else:
            legal = np.flatnonzero(observation["action_mask"])
            aec.step(int(legal[pick.randrange(len(legal))]))
        if not aec.agents:
            aec.reset()
            return 1, 1
        return 1, 0

    return step


def aec_record(players: int, timing: dict[str, float], note: str = "") -> dict:
    """The ``aec`` row of a timing (:func:`uno_rl.programs.bench.timing.measure`)."""
    return {
        "name": "aec",
        "players": players,
        "batch": 1,
        **timing,
        "bytes_per_game": math.nan,
        "note": note,
    }


def aec_row(players: int, seconds: float, repeats: int, seed: int) -> dict:
    """The ``aec`` row alone (:func:`aec_stepper`)."""
    return aec_record(players, measure(aec_stepper(players, seed), seconds, repeats))


def aec_rlcard_rows(seconds: float, repeats: int, seed: int) -> tuple[dict, dict]:
    """The 2-player ``aec`` and ``rlcard-step`` rows with their repeats interleaved
    (:func:`uno_rl.programs.bench.timing.measure_pair`), so both see the same load of a shared machine
    and their ratio is what is compared."""
    rlcard_step, real, note = rlcard_stepper(2, seed)
    aec, rl = measure_pair(aec_stepper(2, seed), rlcard_step, seconds, repeats)
    return (
        aec_record(2, aec, "repeats interleaved with rlcard-step"),
        rlcard_record(real, rl, "; ".join(filter(None, [note, "repeats interleaved with aec"]))),
    )


def vector_row(players: int, seconds: float, repeats: int, seed: int) -> dict:
    """The native Gymnasium VectorEnv (``UnoVectorEnv``), ``VECTOR_GAMES`` games: the learner
    seat plays uniformly random legal actions from ``info["action_mask"]``, random opponents.

    Decisions are learner steps (``num_envs`` per ``step`` call); the opponents' decisions in
    between are not counted. Rounds are learner episodes that ended.
    """
    from uno_rl.envs.vector import UnoVectorEnv

    env = UnoVectorEnv(num_envs=VECTOR_GAMES, players=players, opponents="random")
    _, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    mask = info["action_mask"]

    def step() -> tuple[int, int]:
        nonlocal mask
        actions = sample_legal_actions(mask, rng)
        _, _, terminated, truncated, info = env.step(actions)
        mask = info["action_mask"]
        return VECTOR_GAMES, int(np.count_nonzero(terminated | truncated))

    return {
        "name": "vector",
        "players": players,
        "batch": VECTOR_GAMES,
        **measure(step, seconds, repeats),
        "bytes_per_game": math.nan,
        "note": "",
    }


def evaluate_row(rounds: int, workers: int | None = None, seed: int = 0) -> dict:
    """One evaluation of ``color-first`` against ``random-playable`` (2 players, official):
    ``rounds`` rounds with duplicate deals on ``workers`` processes (default: every CPU)."""
    from uno_rl.eval.run import default_workers, evaluate

    workers = default_workers() if workers is None else workers
    start = time.perf_counter()
    result = evaluate(["color-first", "random-playable"], rounds=rounds, seed=seed, workers=workers)
    elapsed = time.perf_counter() - start
    agents = result.agents
    played = int(agents["rounds"].iloc[0])
    decisions = float(agents["decisions"].iloc[0]) * played
    return {
        "name": "evaluate",
        "players": 2,
        "batch": 4096,
        "decisions_per_s": decisions / elapsed,
        "rounds_per_s": played / elapsed,
        "step_latency_us": math.nan,
        "bytes_per_game": math.nan,
        "note": f"{played:,} rounds on {workers} worker(s) in {elapsed:.1f} s, one timed run",
    }


def train_config(decisions: int, seed: int = 0, name: str = "decisions"):
    """The train row's config: the defaults, ``decisions`` decisions, no evaluations.

    ``ValueError`` (naming ``decisions`` as ``name``) when ``decisions`` is less than one
    rollout, which would play more than asked; ``TrainConfigError`` for a value it refuses.
    """
    from uno_rl.ppo.config import TrainConfig

    config = TrainConfig(
        name="bench", seed=seed, total_decisions=decisions, eval_every=0, final_eval_rounds=0,
        tensorboard=False,
    )  # fmt: skip
    if decisions < config.decisions_per_rollout:
        raise ValueError(
            f"{name} must be at least one rollout ({config.decisions_per_rollout:,} "
            f"decisions: {config.num_games} games x {config.rollout_steps} steps), "
            f"got {decisions:,}"
        )
    return config


def train_row(decisions: int, seed: int = 0) -> dict:
    """PPO self-play with the default config for ``decisions`` decisions, in a temporary run."""
    import tempfile
    from pathlib import Path

    from uno_rl.programs.train import train

    config = train_config(decisions, seed)
    with tempfile.TemporaryDirectory() as folder:
        summary = train(config, Path(folder), progress=False)
    return {
        "name": "train",
        "players": config.players,
        "batch": config.num_games,
        "decisions_per_s": summary["decisions"] / summary["seconds"],
        "rounds_per_s": summary["rounds"] / summary["seconds"],
        "step_latency_us": math.nan,
        "bytes_per_game": math.nan,
        "note": (
            f"{summary['decisions']:,} decisions ({config.num_updates} updates) in "
            f"{summary['seconds']:.1f} s, one timed run, {summary['precision']} trunk; rounds/s "
            "grows as the policy learns"
        ),
    }


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
) -> pd.DataFrame:
    """Every requested row; returns the tidy table (one row per measurement). The ``core``
    and ``core-obs`` rows run once per deck of ``decks``, the others on the classic deck."""
    records: list[dict] = []

    def add(record: dict | None) -> None:
        if record is None:
            return
        records.append(record)
        log(
            f"{record['name']} players={record['players']} batch={record['batch']}: "
            f"{record['decisions_per_s']:,.0f} decisions/s, {record['rounds_per_s']:,.1f} rounds/s"
        )

    for p in players:
        for kind in ("core", "core-obs"):
            if kind in rows:
                for n in batches:
                    for deck in decks:
                        obs = kind == "core-obs"
                        add(core_row(p, n, seconds, repeats, seed, with_obs=obs, deck=deck))
    measured: dict[int, dict] = {}  # rlcard-step rows, by the player count RLCard ran
    with_rlcard = "rlcard-step" in rows and importlib.util.find_spec("rlcard") is not None
    if "aec" in rows:
        for p in players:
            if p == 2 and with_rlcard:
                aec, rl = aec_rlcard_rows(seconds, repeats, seed)
                add(aec)
                measured[rl["players"]] = rl
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
    table = pd.DataFrame(records, columns=COLUMNS)
    # Our decisions/s over RLCard's at the same player count (NaN where RLCard has no such row).
    rlcard_speed = table[table.name == "rlcard-step"].set_index("players")["decisions_per_s"]
    table["vs_rlcard"] = table.decisions_per_s / table.players.map(rlcard_speed).astype(float)
    table.loc[table.name.isin(["rlcard-step", "maskable-ppo", "pimc"]), "vs_rlcard"] = math.nan
    # A deck's core rows over the classic deck's at the same row, players and batch.
    key = ["name", "players", "batch"]
    classic = table[table.deck == "classic"].set_index(key)["decisions_per_s"]
    same = table.set_index(key).index.map(lambda k: classic.get(k, math.nan))
    ratio = table.decisions_per_s / np.asarray(same, float)
    table["vs_classic"] = ratio.where(
        table.name.isin(["core", "core-obs"]) & (table.deck != "classic")
    )
    return table


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
    try:
        check_setup(args.rows, args.players, train_decisions, args.seed, args.decks, pimc_spec)
    except (AgentError, ValueError) as error:  # RulesError and TrainConfigError included
        fail(str(error))
    log(
        f"rows={','.join(args.rows)} players={args.players} batch={args.batch} "
        f"repeats={repeats} seconds={seconds} seed={args.seed}"
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
                },
            )
        )
        for row in table[table.note != ""].itertuples():
            print(f"note: {row.name} players={row.players}: {row.note}")
    return table
