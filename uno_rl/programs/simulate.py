"""Batched random self-play, and the statistics it yields.

    uno_rl simulate --preset official --players 2 --games 4096 --rounds 20000 --seed 0

``--games`` games run in lockstep through the core engine; every step each game's player to act
picks an action at random by ``--policy``: ``random-playable`` (default: a uniformly random card
play or other decision, drawing or passing only when nothing else is legal: the "random" baseline
of peers) or ``random`` (uniform over all legal actions; since drawing is always legal under the
official rules, hands grow and rounds last hundreds of decisions). A finished round is re-dealt at once with a fresh deal
seed. The run stops once ``--rounds`` rounds have been counted.

Which rounds are counted: game ``g`` contributes exactly its first ``q_g`` rounds, with the quotas
``q_g`` spread as evenly as possible so that they sum to ``--rounds``. Counting "whatever finished
before the stop" instead would under-represent long rounds (the rounds still running at the stop
are the long ones), biasing every per-round statistic. Games past their quota keep stepping (the
batch moves in lockstep) but are no longer counted, so ``rounds/s`` and ``decisions/s`` measure
counted work only; ``game-steps/s`` is the raw engine throughput over all games.

Truncated rounds (past the rules' turn cap) count as rounds with no winner: they are in every
denominator and shown as their own share.

The output opens with the run's arguments and one line of rules: the preset, the player
count, the deck, and the switches set on top of the preset (``official rules`` when the rules
are the official ones; the dispenser's settings only where a dispenser is in play).

All randomness comes from one ``np.random.Generator`` seeded by ``--seed``: the same arguments
give the same statistics (the timings aside).
"""

from __future__ import annotations

import dataclasses
import math
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from tqdm import tqdm

from uno_rl.agents.random_agents import playable_first
from uno_rl.core import Rules, RulesError, engine, load_rules, sample_legal_actions
from uno_rl.core.rules import read_preset
from uno_rl.eval import stats
from uno_rl.plumbing.cli import (
    MAX_COUNT,
    CliParser,
    check_int,
    check_seed,
    count_type,
    fail,
    seed_type,
)
from uno_rl.programs.rules_options import (
    SET_HELP,
    RulesOptions,
    add_rules_options,
    rules_from_args,
)

POLICIES = ("random-playable", "random")
#: The dispenser's draw-pile settings, which mean nothing without a dispenser in play.
DISPENSER_SETTINGS = ("dispenser_hazard", "dispenser_count")
#: Most games in lockstep: about 1 KB of state each, so a million is about a gigabyte.
MAX_GAMES = 1_000_000
#: The rule options: 2 players unless --players says; the count is not a switch.
RULES_OPTIONS = RulesOptions(
    players_default=2,
    players_help="players per game, 2 to 10 (default 2)",
    set_help=f"{SET_HELP}; VALUE is TOML (true, 3, 0.5) or a bare string",
    players_switch_error=("set the player count with --players (players=), not as a rule override"),
)


def wilson_interval(
    successes: float, trials: float, confidence: float = 0.95
) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion; (nan, nan) when there are no trials."""
    low, high = stats.wilson_interval(successes, trials, confidence)
    return float(low), float(high)


def policy_mask(mask: np.ndarray, policy: str) -> np.ndarray:
    """The actions ``policy`` picks uniformly from: (N, A) bool (A: the deck layout's
    actions, 77 or 122), a subset of ``mask``."""
    if policy == "random":
        return mask
    if policy != "random-playable":
        raise ValueError(f"unknown policy {policy!r}; choose one of {', '.join(POLICIES)}")
    return playable_first(mask)


def _new_seeds(rng: np.random.Generator, k: int) -> np.ndarray:
    """``k`` fresh deal seeds (uint64) drawn from the run's generator."""
    return rng.integers(0, 2**63, size=k, dtype=np.uint64)


def _round_quotas(rounds: int, games: int) -> np.ndarray:
    """Rounds each game contributes: as even as possible, summing to ``rounds``."""
    quotas = np.full(games, rounds // games, dtype=np.int64)
    quotas[: rounds % games] += 1
    return quotas


@dataclass
class SimulationResult:
    """Totals over the counted rounds of one run."""

    rules: object
    games: int
    rounds: int
    seconds: float
    game_steps: int  # engine steps times games: every game's decisions, counted or not
    decisions: int  # decisions taken in counted rounds (the engine's per-round count)
    wins: np.ndarray  # (P,) int64 rounds won per absolute seat
    truncated: int
    points: int  # points scored by round winners
    draw4_plays: int
    bluffs: int
    challenges: int
    challenges_won: int

    def summary(self) -> pd.DataFrame:
        """One row per statistic: value, and a 95% Wilson interval for proportions."""
        r = self.rounds
        won = int(self.wins.sum())
        rows: list[tuple[str, float, float, float]] = []

        def add(name: str, value: float, ci: tuple[float, float] = (math.nan, math.nan)) -> None:
            rows.append((name, value, ci[0], ci[1]))

        def ratio(a: float, b: float) -> float:
            return a / b if b else math.nan

        add("rounds", r)
        add("seconds", self.seconds)
        add("rounds/s", ratio(r, self.seconds))
        add("decisions/s", ratio(self.decisions, self.seconds))
        add("game-steps/s (all games)", ratio(self.game_steps, self.seconds))
        add("decisions per round", ratio(self.decisions, r))
        add("truncated share", ratio(self.truncated, r), wilson_interval(self.truncated, r))
        add("winner points per won round", ratio(self.points, won))
        add("+4 plays per round", ratio(self.draw4_plays, r))
        add("bluffs per round", ratio(self.bluffs, r))
        add(
            "bluffs per +4 play",
            ratio(self.bluffs, self.draw4_plays),
            wilson_interval(self.bluffs, self.draw4_plays),
        )
        add("challenges per round", ratio(self.challenges, r))
        add(
            "challenges won per challenge",
            ratio(self.challenges_won, self.challenges),
            wilson_interval(self.challenges_won, self.challenges),
        )
        return pd.DataFrame(
            rows, columns=["statistic", "value", "ci95_low", "ci95_high"]
        ).set_index("statistic")

    def seats(self) -> pd.DataFrame:
        """Win rate per absolute seat over all counted rounds (truncated rounds: no winner)."""
        r = self.rounds
        rows = []
        for seat, w in enumerate(self.wins.tolist()):
            lo, hi = wilson_interval(w, r)
            rows.append((seat, w, w / r if r else math.nan, lo, hi))
        return pd.DataFrame(
            rows, columns=["seat", "wins", "win_rate", "ci95_low", "ci95_high"]
        ).set_index("seat")


def simulate(
    preset: str = "official",
    players: int = 2,
    games: int = 4096,
    rounds: int = 20000,
    seed: int = 0,
    overrides: dict[str, object] | None = None,
    progress: bool = True,
    policy: str = "random-playable",
) -> SimulationResult:
    """Play ``rounds`` rounds of random play by ``policy`` over ``games`` batched games.

    Every argument is checked before any game is dealt: a bad one raises ``ValueError``
    (:class:`~uno_rl.core.RulesError` for the rules) naming it.
    """
    rules = check_setup(preset, players, games, rounds, seed, overrides, policy)
    rng = np.random.default_rng(seed)

    quotas = _round_quotas(rounds, games)
    finished = np.zeros(games, dtype=np.int64)  # rounds finished so far, per game
    wins = np.zeros(players, dtype=np.int64)
    totals = dict.fromkeys(
        (
            "decisions",
            "truncated",
            "points",
            "draw4_plays",
            "bluffs",
            "challenges",
            "challenges_won",
        ),
        0,
    )
    counted = 0
    steps = 0

    start = time.perf_counter()
    state = engine.reset(rules, _new_seeds(rng, games))
    with tqdm(total=rounds, unit="round", disable=not progress, file=sys.stderr) as bar:
        while counted < rounds:
            mask = engine.legal_mask(state)
            actions = sample_legal_actions(policy_mask(mask, policy), rng)
            res = engine.step(state, actions)
            steps += 1

            over = np.asarray(res.round_over, dtype=bool)
            if not over.any():
                continue
            count = over & (finished < quotas)  # rounds inside their game's quota
            finished += over
            n = int(count.sum())
            if n:
                winner = np.asarray(res.winner)[count].astype(np.int64)
                wins += np.bincount(winner[winner >= 0], minlength=players)
                totals["decisions"] += int(np.asarray(res.decisions)[count].sum(dtype=np.int64))
                totals["truncated"] += int(np.asarray(res.truncated)[count].sum())
                totals["points"] += int(np.asarray(res.points)[count].sum(dtype=np.int64))
                for key in ("draw4_plays", "bluffs", "challenges", "challenges_won"):
                    totals[key] += int(np.asarray(getattr(res, key))[count].sum(dtype=np.int64))
                counted += n
                bar.update(n)
            # Re-deal every finished game (counted or not): no game is ever stepped while over.
            # In match mode the engine deals the next round itself until the match is over.
            done = np.asarray(res.match_over, dtype=bool) if rules.match else over
            if done.any():
                engine.reset_games(state, done, _new_seeds(rng, int(done.sum())))
    seconds = time.perf_counter() - start

    return SimulationResult(
        rules=rules,
        games=games,
        rounds=counted,
        seconds=seconds,
        game_steps=steps * games,
        wins=wins,
        **totals,
    )


def check_setup(
    preset: str | Rules,
    players: int,
    games: int,
    rounds: int,
    seed: int,
    overrides: dict[str, object] | None,
    policy: str,
) -> Rules:
    """The validated rules of a run; ``ValueError`` (or ``RulesError``) naming a bad argument."""
    check_int(games, "games", 1, MAX_GAMES)
    check_int(rounds, "rounds", 1, MAX_COUNT)
    check_seed(seed)
    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r}; choose one of {', '.join(POLICIES)}")
    overrides = dict(overrides or {})
    if "players" in overrides:
        raise RulesError("set the player count with --players (players=), not as a rule override")
    return load_rules(preset, players=players, **overrides)


def changed_switches(rules: Rules, base: Mapping[str, Any]) -> dict[str, Any]:
    """The switches of ``rules`` that differ from ``base`` (a preset's ``[rules]`` table;
    what it leaves out is the official rules'), without the player count and the deck, and
    without the dispenser's settings where no dispenser is in play."""
    official = {field.name: field.default for field in dataclasses.fields(Rules)}
    reference = {**official, **base}
    hidden = {"players", "deck"}
    if not rules.dispenser_on:
        hidden.update(DISPENSER_SETTINGS)
        if not rules.deck_cards.dispenser:
            hidden.add("dispenser")
    changed = {}
    for name, value in rules.to_dict().items():
        if name not in hidden and _comparable(value) != _comparable(reference[name]):
            changed[name] = value
    return changed


def _comparable(value: Any) -> Any:
    """``value`` with lists as tuples (a TOML table holds lists, ``Rules`` tuples)."""
    return tuple(value) if isinstance(value, list | tuple) else value


def switch_text(value: Any) -> str:
    """A switch's value as it is typed after ``--set KEY=``."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, list | tuple):
        return "[" + ", ".join(switch_text(item) for item in value) + "]"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def describe_rules(rules: Rules, preset: str) -> str:
    """One line: the preset, the player count, the deck, then the switches set on top of the
    preset (or ``official rules`` / ``the preset's rules`` when there are none)."""
    dispenser = " with the random card dispenser" if rules.dispenser_on else ""
    deck = f"{rules.deck} deck ({rules.deck_cards.size} cards){dispenser}"
    head = f"{preset} preset, {rules.players} players, {deck}"
    changed = changed_switches(rules, read_preset(preset))
    if changed:
        shown = ", ".join(f"{name}={switch_text(value)}" for name, value in changed.items())
        return f"{head}; on top of the preset: {shown}"
    if not changed_switches(rules, {}):
        return f"{head}: official rules"
    return f"{head}: the preset's rules"


def _fmt(value: float) -> str:
    """Whole or large numbers with thousands separators and no decimals, others with 4."""
    if value.is_integer() or abs(value) >= 1000:
        return f"{value:,.0f}"
    return f"{value:,.4f}"


def build_parser() -> CliParser:
    """The command line; every number is checked as it is parsed."""
    parser = CliParser(
        prog="uno_rl simulate",
        description="Batched random self-play; prints statistics.",
    )
    add_rules_options(parser, RULES_OPTIONS)
    parser.add_argument(
        "--games",
        type=count_type(1, MAX_GAMES),
        default=4096,
        help=f"games run in lockstep, 1 to {MAX_GAMES:,} (default 4096)",
    )
    parser.add_argument(
        "--rounds",
        type=count_type(1, MAX_COUNT),
        default=20000,
        help="rounds to count (default 20000)",
    )
    parser.add_argument(
        "--seed", type=seed_type, default=0, help="seed of the run's only RNG (default 0)"
    )
    parser.add_argument(
        "--policy",
        choices=POLICIES,
        default="random-playable",
        help="how actions are picked (default random-playable)",
    )
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    return parser


def main(argv: Sequence[str] | None = None) -> SimulationResult:
    """Run the command line; bad input exits with one ``error:`` line and status 2."""
    args = build_parser().parse_args(argv)
    try:
        rules = rules_from_args(args, RULES_OPTIONS)
        check_setup(rules, args.players, args.games, args.rounds, args.seed, None, args.policy)
    except ValueError as error:  # RulesError included
        fail(str(error))
    result = simulate(
        preset=rules,
        players=args.players,
        games=args.games,
        rounds=args.rounds,
        seed=args.seed,
        progress=not args.no_progress,
        policy=args.policy,
    )
    print(
        f"preset={args.preset} players={args.players} games={args.games} policy={args.policy} "
        f"rounds={result.rounds} seed={args.seed}"
        + (f" deck={result.rules.deck}" if result.rules.deck != "classic" else "")
    )
    print(f"rules: {describe_rules(result.rules, args.preset)}")
    print()
    print(result.summary().to_string(float_format=_fmt, na_rep=""))
    print()
    print(result.seats().to_string(float_format=_fmt, na_rep=""))
    return result
