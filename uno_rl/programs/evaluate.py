"""Evaluate agents against each other with duplicate deals: ``uno_rl evaluate``.

    uno_rl evaluate color-first random-playable --rounds 200000
    uno_rl evaluate color-first random-playable --matches 20000
    uno_rl evaluate rule color-first points-dumper aggressive --players 4
    uno_rl evaluate color-first:bluff=0.3 bayes-challenger --preset house \\
        --set caught_bluffer=takes-back --mode head-to-head

Agents are specs resolved by :func:`uno_rl.agents.make_agent` (names of ``agents/*.toml`` or
built-in strategies, ``name:key=value,...``; agents made elsewhere by their class or model
file: ``MODULE:Class``, ``FILE.py:Class``, ``sb3:MODEL.zip``, ``torch:MODULE.pt``). Every deal is replayed with the line-up rotated
through all seats; every match-up of the run plays the same deals. ``--matches N`` plays N
whole matches per match-up instead (``match = true`` on top of the preset: to 500 points
under the official rules), each match's sequence of deals replayed in every seating.

Prints per agent the three measures of strength: rounds won (Wilson interval), net points per
round (zero-sum; in matches over every round of them) and, for matches, matches won and the
final score; then the paired tests between agents over the same deals and OpenSkill ratings
(of rounds, or of matches), and writes the tables as Parquet and CSV to
``--out`` (default ``runs/evaluate/<timestamp>/``): ``seats`` (one row per agent and seat: the
tidy table), ``agents``, ``pairs``, ``ratings``, with ``config.json``. The printout names agents
by short labels (:mod:`uno_rl.agents.labels`: ``color-first``, ``ppo:official-2p`` for
``ppo:checkpoint=runs/official-2p/<timestamp>/policy.pt``, parameters only where they tell
two agents apart) and lists first each label that is not its spec; the tables keep the full
spec (``agent``) beside its label (``label``).

``--save-replays DIR`` also saves a sample of the games as JSON replays in ``DIR`` with an
``index.csv`` (``uno_rl replay DIR/FILE`` shows one); ``--replay-sample`` says which
games of each match-up, e.g. ``longest:5,random:5,truncated:5,violations`` (default
``longest:3,random:3,truncated:3,violations``; see :mod:`uno_rl.eval.replays`). With
``violations``, an agent's illegal action stops the run as always, but the replay of that game
up to the illegal action is saved first. The same seed keeps the same games for any number of
workers; without ``--save-replays`` nothing is recorded.

Both CPU cores are used by default (``--workers``); the same ``--seed`` gives the same tables
for any number of workers. Bad input (unknown agent, parameter, preset or rule switch, an
impossible value, a count above its bound, ``nan``) fails before any game is played, with an
error naming it; so does an output path that cannot be written (``--out`` or ``--save-replays``
an existing file, below a file, or in a folder this process may not write in). Work is planned
lazily (:func:`uno_rl.eval.tournament.iter_chunks`), and the workers end when this process
dies.

A run is bounded by what the computer can hold (:mod:`uno_rl.eval.limits`): at most 1,000
match-ups, 10 billion rounds (1 billion matches) over all of them, and results that fit in
memory; a larger request fails at once with one line naming its size. A run estimated to take
5 minutes or more says so on stderr before it starts (:mod:`uno_rl.eval.estimate`)::

    estimate: about 2.1 hours (45 match-ups, 45,000,000 rounds at about 6,000 rounds/s on 2
    workers); Ctrl-C stops it (the tables are written when it ends)

and one estimated above a week is refused unless ``--allow-long`` is given. Shorter runs print
nothing before their progress bar.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import signal
import sys
import time
from collections.abc import Sequence

import pandas as pd

from uno_rl.agents import AgentError
from uno_rl.core.rules import RulesError
from uno_rl.eval import formats
from uno_rl.eval.backends import BACKENDS, BackendError
from uno_rl.eval.limits import rate
from uno_rl.eval.outputs import check_output_folder
from uno_rl.eval.replays import DEFAULT_SAMPLE, ReplayRequest, ReplaySample
from uno_rl.eval.run import (
    MAX_MATCHES,
    MAX_ROUNDS,
    Evaluation,
    check_count,
    default_workers,
    evaluate,
)
from uno_rl.eval.tournament import MODES
from uno_rl.plumbing.cli import (
    MAX_COUNT,
    CliParser,
    count_type,
    float_type,
    print_error,
    seed_type,
)
from uno_rl.plumbing.durable import write_text_durably
from uno_rl.plumbing.processes import MAX_WORKERS, Interrupted, interruptible
from uno_rl.programs.rules_options import (
    RulesOptions,
    add_rules_options,
    load_preset_rules,
    read_switches,
)

__all__ = ["format_report", "main"]


#: The rule options: the preset's player count unless --players (or --set players=N) says.
RULES_OPTIONS = RulesOptions()

#: What an evaluation writes into --out.
TABLE_FILES = tuple(
    f"{name}{suffix}"
    for name in ("seats", "agents", "pairs", "ratings")
    for suffix in (".parquet", ".csv")
) + ("config.json",)


def build_parser() -> argparse.ArgumentParser:
    parser = CliParser(
        prog="uno_rl evaluate",
        description="Duplicate-deal evaluation of UNO agents.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "agents",
        nargs="+",
        help="two or more agent specs (names, paths, name:key=value; your own: "
        "MODULE:Class, FILE.py:Class, sb3:MODEL.zip, torch:MODULE.pt), e.g. color-first "
        "ppo-official-2p color-first:bluff=0.3",
    )
    add_rules_options(parser, RULES_OPTIONS)
    parser.add_argument(
        "--mode", choices=MODES, default=None,
        help="how agents are matched (default: head-to-head for 2 agents, table for one agent "
        "per seat, else round-robin)",
    )  # fmt: skip
    parser.add_argument(
        "--rounds", type=count_type(1, MAX_ROUNDS), default=None,
        help="rounds per match-up (default 20000); under --set match=true (or a match preset "
        "such as kids) it counts matches",
    )  # fmt: skip
    parser.add_argument(
        "--matches", type=count_type(1, MAX_MATCHES), default=None, metavar="N",
        help=f"instead of --rounds: play N whole matches per match-up (sets match=true on top "
        f"of the preset, keeping its match_target and scoring; at most {MAX_MATCHES:,})",
    )  # fmt: skip
    parser.add_argument("--seed", type=seed_type, default=0, help="the run's seed (default 0)")
    parser.add_argument(
        "--workers", type=count_type(1, MAX_WORKERS), default=None,
        help=f"worker processes (default: every CPU, here {default_workers()})",
    )  # fmt: skip
    parser.add_argument(
        "--confidence", type=float_type(0, 1, low_open=True, high_open=True), default=0.95,
        help="of every interval, in (0, 1) (default 0.95)",
    )  # fmt: skip
    parser.add_argument(
        "--rating-rounds", type=count_type(0, MAX_COUNT), default=50_000,
        help="rounds rated by OpenSkill (matches, when the rules are matches) (default 50000)",
    )  # fmt: skip
    parser.add_argument(
        "--backend", choices=BACKENDS, default="local",
        help="local worker processes, or Ray tasks (extra 'ray') (default local)",
    )  # fmt: skip
    parser.add_argument(
        "--address", default=None,
        help="Ray cluster address (ray start --head prints it; 'auto': the local one); "
        "without it --backend ray starts a private local instance of --workers CPUs",
    )  # fmt: skip
    parser.add_argument(
        "--out", default=None, help="output folder (default runs/evaluate/<timestamp>)"
    )
    parser.add_argument(
        "--save-replays", default=None, metavar="DIR",
        help="save a sample of the games as JSON replays in DIR (with index.csv) (default: none)",
    )  # fmt: skip
    parser.add_argument(
        "--replay-sample", default=None, metavar="SPEC",
        help="which games of each match-up --save-replays keeps: longest:K, random:K, "
        f"truncated:K, violations, comma-separated (default {DEFAULT_SAMPLE})",
    )  # fmt: skip
    parser.add_argument(
        "--allow-long", action="store_true",
        help="run even when the run is estimated to take more than a week (refused otherwise)",
    )  # fmt: skip
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    return parser


def _interval(low, high, fmt: str) -> list[str]:
    return [f"[{format(lo, fmt)}, {format(hi, fmt)}]" for lo, hi in zip(low, high)]


def _difference(value: float, low: float, high: float, fmt: str) -> str:
    """A paired difference with its interval; where every deal gave the same difference
    (:func:`uno_rl.eval.stats.paired_test`: no interval), says so instead of ``[nan, nan]``;
    with fewer than 2 deals there is no difference to show."""
    if pd.isna(value):
        return "- (fewer than 2 deals: no paired test)"
    if pd.isna(low) or pd.isna(high):
        return f"{format(value, fmt)} (the same on every deal: no interval)"
    return f"{format(value, fmt)} [{format(low, fmt)}, {format(high, fmt)}]"


def _table_lines(shown: pd.DataFrame, matchups: pd.Series) -> list[str]:
    """``shown`` as one aligned text table, cut into a block per match-up: ``match-up:`` and
    its name (``matchups``, one per row, rows of a match-up together), then the column
    headers and its rows."""
    header, *rows = shown.to_string(index=False).split("\n")
    lines: list[str] = []
    for name in dict.fromkeys(matchups):
        lines += [f"match-up: {name}", header]
        lines += [row for row, m in zip(rows, matchups) if m == name]
    return lines


def label_legend(agents: pd.DataFrame) -> list[str]:
    """``label = spec`` for each agent of the ``agents`` table shown by a label other than
    its spec (printed once, before the tables that use the labels)."""
    pairs = dict(zip(agents["agent"], agents["label"]))
    return [f"agent {label} = {spec}" for spec, label in pairs.items() if label != spec]


def format_report(result: Evaluation, confidence: float = 0.95) -> str:
    """Per variant: each agent's rounds won, net points per round and, when the rules are
    matches, matches won and final score (with intervals), match-up by match-up; the paired
    tests; the ratings. Agents are named by their labels (:mod:`uno_rl.agents.labels`; the
    tables keep the specs), each label that differs from its spec listed first."""
    pct = f"{round(confidence * 100)}%"
    agents = result.agents
    lines = label_legend(agents)
    for (variant, players), group in agents.groupby(["variant", "players"], sort=False):
        match = "matches" in group and bool(group["matches"].notna().any())
        rounds = int(group["rounds"].sum() / players)
        if match:
            matches = int(group["matches"].sum() / players)
            size = f"{matches:,} matches ({rounds:,} rounds)"
        else:
            size = f"{rounds:,} rounds"
        lines.append(f"== {variant}, {players} players: {size} ==")
        shown = {
            "agent": group["label"],
            "rounds": group["rounds"].map("{:,}".format),
            "rounds won": group["win_rate"].map("{:.2%}".format),
            f"rounds won {pct}": _interval(group["win_low"], group["win_high"], ".2%"),
            "points/round": group["points"].map("{:+.2f}".format),
            f"points/round {pct}": _interval(group["points_low"], group["points_high"], "+.2f"),
        }
        if match:
            shown.update({
                "matches won": group["match_win_rate"].map("{:.2%}".format),
                f"matches won {pct}": _interval(
                    group["match_win_low"], group["match_win_high"], ".2%"
                ),
                "final score": group["final_score"].map("{:.1f}".format),
                f"final score {pct}": _interval(
                    group["final_score_low"], group["final_score_high"], ".1f"
                ),
            })  # fmt: skip
        shown["truncated"] = group["truncated"].map("{:,}".format)
        shown["+4/round"] = group["draw4_plays"].map("{:.3f}".format)
        lines += _table_lines(pd.DataFrame(shown), group["matchup_label"].reset_index(drop=True))
        pairs = result.pairs[
            (result.pairs["variant"] == variant) & (result.pairs["players"] == players)
        ]
        for row in pairs.itertuples():
            wins = _difference(row.win_difference, row.win_diff_low, row.win_diff_high, "+.2%")
            pts = _difference(
                row.points_difference, row.points_diff_low, row.points_diff_high, "+.2f"
            )
            deals = f"{row.deals:,} deal{'' if row.deals == 1 else 's'}"
            lines.append(
                f"paired over {deals} ({row.matchup_label}): {row.label_a} minus {row.label_b}:"
            )
            text = (
                f"  rounds won {wins}, {formats.p_value(row.win_p_value, row.win_log10_p)}; "
                f"points/round {pts}, {formats.p_value(row.points_p_value, row.points_log10_p)}"
            )
            if match:
                matches = _difference(
                    row.match_win_difference, row.match_diff_low, row.match_diff_high, "+.2%"
                )
                text += (
                    f"; matches won {matches}, "
                    f"{formats.p_value(row.match_p_value, row.match_log10_p)}"
                )
            lines.append(text)
        ratings = result.ratings[
            (result.ratings["variant"] == variant) & (result.ratings["players"] == players)
        ]
        if len(ratings):
            text = ", ".join(
                f"{r.label} {r.ordinal:.2f} (mu {r.mu:.2f}, sigma {r.sigma:.2f})"
                for r in ratings.itertuples()
            )
            unit = ratings["rated_by"].iloc[0]
            lines.append(f"OpenSkill ordinal over {int(ratings['games'].max()):,} {unit}: {text}")
        lines.append("")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``uno_rl evaluate ARGV``; the exit status (0: done, 2: bad input, 130 or 143:
    stopped by Ctrl-C or SIGTERM, with one line saying what was kept)."""
    saving: list[str] = []
    try:
        with interruptible():
            return _run(argv, saving)
    except KeyboardInterrupt as stop:  # Interrupted: a signal; else raised by the code itself
        kept = f"; the replays saved so far are in {saving[0]}" if saving else ""
        print(f"interrupted: the evaluation stopped, no tables were written{kept}", file=sys.stderr)
        return stop.status if isinstance(stop, Interrupted) else 128 + signal.SIGINT


def _run(argv: Sequence[str] | None, saving: list[str]) -> int:
    # PPO agents run small torch forwards here and in the workers: one math thread per
    # process, so several processes (or a training run beside) do not oversubscribe the CPUs.
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(name, "1")
    args = build_parser().parse_args(argv)
    try:
        if len(args.agents) < 2:
            raise ValueError(
                f"evaluate compares agents: name at least two, e.g. uno_rl evaluate "
                f"{args.agents[0][:60]} random-playable (got only {args.agents[0][:60]!r})"
            )
        switches = read_switches(args.switches, RULES_OPTIONS)
        load_preset_rules(args.preset, args.players, switches)  # a bad rule fails here, first
        if args.matches is not None:
            if args.rounds is not None:
                raise ValueError(
                    "--matches and --rounds exclude each other (--matches N plays N matches)"
                )
            check_count(args.matches, True, "--matches")
        elif args.rounds is not None:
            check_count(args.rounds, switches.get("match") is True, "--rounds")
        replays = _replay_request(args.save_replays, args.replay_sample)
        # Every output path is checked before the first game: never a save failing at the end.
        if args.out is not None:
            check_output_folder(args.out, "--out", TABLE_FILES)
        else:
            check_output_folder(os.path.join("runs", "evaluate"), "--out (default runs/evaluate)")
        if replays is not None:
            check_output_folder(replays.folder, "--save-replays", ("index.csv",))
            saving.append(str(replays.folder))
    except (ValueError, RulesError) as error:
        print_error(error)
        return 2
    start = time.perf_counter()
    try:
        result = evaluate(
            args.agents,
            preset=args.preset,
            players=args.players,
            switches=switches,
            mode=args.mode,
            rounds=args.rounds,
            matches=args.matches,
            seed=args.seed,
            workers=args.workers,
            confidence=args.confidence,
            rating_rounds=args.rating_rounds,
            progress=not args.no_progress,
            backend=args.backend,
            address=args.address,
            replays=replays,
            announce=lambda line: print(line, file=sys.stderr, flush=True),
            allow_long=args.allow_long,
        )
    except (AgentError, RulesError, ValueError, BackendError) as error:
        print_error(error)
        path = getattr(error, "replay_path", None)
        if path is not None:
            print(f"the game up to that action is saved: uno_rl replay {path}",
                  file=sys.stderr)  # fmt: skip
        return 2
    elapsed = time.perf_counter() - start
    out = args.out or os.path.join("runs", "evaluate", dt.datetime.now().strftime("%Y%m%d-%H%M%S"))
    result.save(out)
    config = {**vars(args), "switches": switches, "seconds": round(elapsed, 2)}
    write_text_durably(os.path.join(out, "config.json"), json.dumps(config, indent=2))
    print(format_report(result, args.confidence))
    rounds = int((result.agents["rounds"] / result.agents["players"]).sum())
    played = ""
    if "matches" in result.agents:
        matches = (result.agents["matches"] / result.agents["players"]).sum()
        played = f"{int(matches):,} matches, "
    print(
        f"{played}{rounds:,} rounds in {elapsed:.1f} s ({rate(rounds / elapsed)} rounds/s); "
        f"tables in {out}/ (seats, agents, pairs, ratings: .parquet and .csv)"
    )
    if replays is not None:
        saved = len(pd.read_csv(os.path.join(replays.folder, "index.csv")))
        print(f"{saved} replays in {replays.folder}/ (index.csv; view one with uno_rl replay FILE)")
    return 0


def _replay_request(folder: str | None, sample: str | None) -> ReplayRequest | None:
    """What --save-replays and --replay-sample ask for (None: no replays)."""
    if folder is None:
        if sample is not None:
            raise ValueError("--replay-sample needs --save-replays DIR")
        return None
    return ReplayRequest(folder, ReplaySample.parse(DEFAULT_SAMPLE if sample is None else sample))
