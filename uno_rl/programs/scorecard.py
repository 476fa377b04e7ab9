"""The standard scorecard of one agent: ``uno_rl scorecard AGENT``.

    uno_rl scorecard color-first                        # writes scorecards/color-first/
    uno_rl scorecard ppo-official-2p --out docs/results/scorecards/ppo-official-2p
    uno_rl scorecard my_agents.py:MyAgent --players 2   # your own agent, 2 players only
    uno_rl scorecard color-first --quick                # a try at a small size
    uno_rl scorecard pimc-ppo-official-2p --search      # a search agent's sizes
    uno_rl scorecard pimc --search --out DIR --refresh ppo-official-2p  # one opponent again

Plays AGENT by a fixed protocol (:mod:`uno_rl.eval.scorecard_protocol`): official rules,
every zoo heuristic and the shipped PPO bots as opponents, at 2 players (head to head) and 4
(the agent against three copies of the opponent), 20,000 single rounds (rounds won, net
points a round) and 2,000 matches to 500 (matches won) an opponent on duplicate deals of
fixed public seeds, with 99% intervals; and adds the agent's exploitability where
``uno_rl exploit`` measured one (a lower bound; ``--exploitability`` names the table). An
agent trained for one player count (a PPO checkpoint records it) gets that count only, the
other marked not applicable; ``--players`` restricts the scorecard to one count.

Writes into ``--out`` (default ``scorecards/AGENT``): ``scorecard.md`` (also printed),
``scorecard.json`` (the uno_rl version, this command line, the protocol's seeds and sizes,
every row with value, low, high and count, the exploitability), ``rows.csv`` (the tidy rows:
:data:`uno_rl.eval.scorecard_report.ROW_COLUMNS`), ``settings.json`` and ``parts/`` (each
finished part's table). Stopped (Ctrl-C, SIGTERM, a crash), the same command resumes it: the
finished parts are kept; ``--fresh`` plays everything again. ``--search`` plays 400 rounds and
40 matches an opponent, for an agent that searches at every decision (the full sizes would take
it days), and every output says so. ``--refresh OPPONENT`` plays again only the match-ups
against OPPONENT of the finished scorecard in ``--out`` and replaces their rows
(:mod:`uno_rl.eval.scorecard_refresh`: an opponent that changed, without replaying the
others). ``--quick`` plays 200 rounds and 20 matches an opponent,
and every output says it is a quick run. Bad input (an unknown agent,
one that plays neither 2 nor 4 players, a bad option) is one ``error:`` line and exit
status 2.
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from uno_rl.agents import AgentError
from uno_rl.core.rules import RulesError
from uno_rl.eval.estimate import RunTooLong
from uno_rl.eval.outputs import check_output_folder
from uno_rl.eval.run import default_workers
from uno_rl.eval.scorecard_protocol import (
    FULL,
    PLAYER_COUNTS,
    QUICK,
    SEARCH,
    Plan,
    check_resumable,
    parts_done,
    pieces_done,
    plan_scorecard,
    play_scorecard,
)
from uno_rl.eval.scorecard_refresh import finished_scorecard, refresh_rows, refreshed_parts
from uno_rl.eval.scorecard_report import (
    EXPLOITABILITY_TABLE,
    exploitability,
    read_exploitability,
    scorecard_json,
    scorecard_markdown,
    scorecard_rows,
    shipped_exploitability,
)
from uno_rl.plumbing.cli import CliParser, count_type, print_error
from uno_rl.plumbing.durable import replace_durably, write_text_durably
from uno_rl.plumbing.processes import MAX_WORKERS, Interrupted, interruptible

__all__ = ["OUTPUT_FILES", "build_parser", "default_out", "main"]

#: What a scorecard writes into its folder (besides ``parts/``).
OUTPUT_FILES = ("scorecard.md", "scorecard.json", "rows.csv", "settings.json")


#: ``--exploitability``'s value for the table shipped with uno_rl.
SHIPPED = "shipped"


def build_parser() -> CliParser:
    parser = CliParser(
        prog="uno_rl scorecard",
        description="The standard scorecard of an agent: official rules, every heuristic and "
        "shipped bot as opponent, 2 and 4 players, rounds won, net points a round and matches "
        "won with 99% intervals, and its exploitability where measured.",
    )
    parser.add_argument(
        "agent", metavar="AGENT",
        help="the agent: a name (uno_rl agents lists them), name:key=value, or your own "
        "(MODULE:Class, FILE.py:Class, sb3:MODEL.zip, torch:MODULE.pt, ppo:checkpoint=PATH)",
    )  # fmt: skip
    parser.add_argument(
        "--players", type=int, choices=PLAYER_COUNTS, default=None,
        help="measure this player count only (default: 2 and 4, where the agent plays them)",
    )  # fmt: skip
    parser.add_argument(
        "--out", default=None,
        help="output folder; the same folder resumes a stopped scorecard (default "
        "scorecards/AGENT)",
    )  # fmt: skip
    parser.add_argument(
        "--quick", action="store_true",
        help=f"a try: {QUICK.rounds} rounds and {QUICK.matches} matches an opponent instead "
        f"of {FULL.rounds:,} and {FULL.matches:,} (every output says it is a quick run)",
    )  # fmt: skip
    parser.add_argument(
        "--search", action="store_true",
        help=f"a search agent's sizes: {SEARCH.rounds} rounds and {SEARCH.matches} matches an "
        "opponent, for an agent that searches at every decision (pimc, ismcts, pimc-*), whose "
        "full scorecard would take days; every output says so",
    )  # fmt: skip
    parser.add_argument(
        "--fresh", action="store_true",
        help="play every part again, even those --out already holds",
    )  # fmt: skip
    parser.add_argument(
        "--refresh", action="append", default=[], metavar="OPPONENT",
        help="in the finished scorecard in --out, play the match-ups against OPPONENT again "
        "(a shipped bot retrained under its name) and replace its rows, or add the rows of "
        "an opponent the protocol added since; the others are kept (repeatable)",
    )  # fmt: skip
    parser.add_argument(
        "--exploitability", default=SHIPPED, metavar="CSV",
        help="uno_rl exploit's results table to read the agent's exploitability from; "
        f"'{SHIPPED}': the table shipped with uno_rl ({EXPLOITABILITY_TABLE}); an agent it has "
        f"no row of is 'not measured' (default {SHIPPED})",
    )  # fmt: skip
    parser.add_argument(
        "--workers", type=count_type(1, MAX_WORKERS), default=None,
        help=f"worker processes (default: every CPU, here {default_workers()}); the tables "
        "are the same for any number",
    )  # fmt: skip
    parser.add_argument(
        "--allow-long", action="store_true",
        help="run even when the scorecard is estimated to take more than a week (a slow "
        "search agent; refused otherwise)",
    )  # fmt: skip
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bars")
    return parser


def default_out(agent: str) -> Path:
    """``scorecards/NAME``: the agent's spec with every character a folder name should not
    hold replaced by ``-``."""
    name = re.sub(r"[^A-Za-z0-9._=-]+", "-", agent).strip("-.") or "agent"
    return Path("scorecards") / name[:100]


def command_line(argv: Sequence[str]) -> str:
    """The command as a shell would take it: ``uno_rl scorecard ARGV``."""
    return shlex.join(["uno_rl", "scorecard", *argv])


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``uno_rl scorecard ARGV``; the exit status (0: done, 2: bad input, 130 or 143:
    stopped by Ctrl-C or SIGTERM, with one line saying what is kept)."""
    reached: dict = {}
    try:
        with interruptible():
            return _run(list(sys.argv[1:] if argv is None else argv), reached)
    except KeyboardInterrupt as stop:  # Interrupted: a signal; else raised by the code itself
        line = interrupted_line(reached.get("plan"), reached.get("out"), reached.get("refresh"))
        print(line, file=sys.stderr)
        return stop.status if isinstance(stop, Interrupted) else 128 + signal.SIGINT


def interrupted_line(plan: Plan | None, out: Path | None, refresh: bool = False) -> str:
    """What a stopped scorecard leaves: nothing before its first part, else the parts done
    (and the opponents done of the part it stopped in); a stopped ``--refresh`` changed
    nothing."""
    if refresh:
        return f"interrupted: the scorecard in {out} is unchanged; run the same command again"
    if plan is None or out is None:
        return "interrupted before the scorecard started: nothing was played"
    finished = parts_done(plan, out)
    done, total = len(finished), len(plan.parts())
    started = [
        f" and {n} of {len(part.opponents)} opponents of {part.name}"
        for part in plan.parts()
        if part not in finished and (n := pieces_done(part, out / "parts"))
    ]
    return (
        f"interrupted: {done} of {total} parts of the scorecard{''.join(started[:1])} done in "
        f"{out}; run the same command to resume"
    )


def _run(argv: list[str], reached: dict) -> int:
    # PPO agents run small torch forwards here and in the workers: one math thread per
    # process (as uno_rl evaluate), so the processes do not oversubscribe the CPUs.
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(name, "1")
    args = build_parser().parse_args(argv)
    start = time.perf_counter()
    try:
        out = Path(args.out) if args.out is not None else default_out(args.agent)
        check_output_folder(out, "--out", OUTPUT_FILES)
        shipped = args.exploitability == SHIPPED
        source = EXPLOITABILITY_TABLE if shipped else args.exploitability
        table = read_exploitability(shipped_exploitability() if shipped else source)
        if table is None and not shipped:
            raise ValueError(f"--exploitability {args.exploitability}: no such file")
        plan = plan_scorecard(
            args.agent, [args.players] if args.players else None, args.quick,
            search=args.search,
        )  # fmt: skip
        if args.refresh:
            if args.fresh:
                raise ValueError("--refresh and --fresh: choose one")
            refreshed_parts(plan, args.refresh)
            command, kept, added = finished_scorecard(plan, out)
            unnamed = [name for name in added if name not in (*args.refresh, plan.agent)]
            if unnamed:
                raise ValueError(
                    f"--refresh: the protocol now also plays {unnamed[0]}, which the scorecard "
                    f"in {out} has not played; add --refresh {unnamed[0]}"
                )
        else:
            check_resumable(plan, out, args.fresh)
    except (ValueError, AgentError, RulesError) as error:
        print_error(error)
        return 2
    reached.update(plan=plan, out=out, refresh=bool(args.refresh))
    if args.refresh:
        try:
            rows = refresh_rows(plan, kept, args.refresh, args.workers or default_workers(),
                                not args.no_progress, added)  # fmt: skip
        except (AgentError, RulesError, ValueError) as error:
            print_error(error)
            return 2
        return _write(plan, out, rows, command, table, source, start)
    done = len(parts_done(plan, out)) if not args.fresh else 0
    if done:
        print(f"resuming the scorecard in {out}: {done} of {len(plan.parts())} parts done",
              file=sys.stderr)  # fmt: skip
    try:
        tables = play_scorecard(
            plan, out, args.workers, not args.no_progress, args.fresh,
            announce=lambda line: print(line, file=sys.stderr, flush=True),
            allow_long=args.allow_long,
        )  # fmt: skip
    except (AgentError, RulesError, RunTooLong, ValueError) as error:
        print_error(error)
        return 2
    rows = scorecard_rows(plan, tables)
    return _write(plan, out, rows, command_line(argv), table, source, start)


def _write(plan: Plan, out: Path, rows, command: str, table, source: str, start: float) -> int:
    """Write and print the scorecard of ``rows`` (its exploitability from ``table``, read
    from ``source``)."""
    figures = {p: exploitability(table, plan.agent, p, source) for p in plan.players}
    source = source if table is not None else f"{source} (not found)"
    markdown = scorecard_markdown(plan, rows, command, figures)
    write_text_durably(out / "scorecard.md", markdown)
    write_text_durably(out / "scorecard.json", scorecard_json(plan, rows, command, figures, source))
    with replace_durably(out / "rows.csv") as tmp:
        rows.to_csv(tmp, index=False)
    print(markdown)
    print(f"scorecard in {out}/ (scorecard.md, scorecard.json, rows.csv) after "
          f"{time.perf_counter() - start:.0f} s")  # fmt: skip
    return 0
