"""Watch a saved game again: ``uno_rl replay FILE``.

    uno_rl replay game.json              # every hand open, the whole game printed
    uno_rl replay game.json --seat 1     # what seat 1 saw, and nothing more
    uno_rl replay game.json --step       # press Enter for each decision, q to stop

``FILE`` is a JSON replay (:mod:`uno_rl.replays`), saved by ``uno_rl play --save`` or
by the evaluator (``uno_rl evaluate ... --save-replays DIR``). It is checked and
played again on the engine, which reproduces the game exactly from its rules, deal seed and
actions; the recorded outcome is checked against the replayed one. Games on every deck
(rules specification §11) replay; a deck this reader does not know, or whose cards changed since
the game was recorded, exits with code 2 and one ``error: ...`` line.

Views: ``--open`` (the default) shows every hand at every decision and every event, private
ones included (the cards each player drew, the hand a challenge revealed, the drawn cards a
player kept, declined jump-ins), and the deal seed; ``--seat K`` shows the game as seat K
lived it: the table with K's hand only (others as card counts) before each of K's decisions
and the events K could see, addressed to K as "you"; no deal seed (it rebuilds every hand)
and no other seat's legal actions.

By default the whole game is printed at once; ``--step`` waits for Enter after each decision
(``q`` then Enter stops). Ctrl-C stops cleanly (exit code 130). A file that is not a replay,
or whose actions do not replay (the error names the step, ``actions[k]``), exits with code 2
and one line ``error: ...`` naming the problem. Names, the preset and messages read from the file
are printed with control characters escaped (:func:`uno_rl.plumbing.safe_text.printable`), so a
hostile replay cannot drive the terminal. Seats are named by short labels of their agent specs
(:mod:`uno_rl.agents.labels`: ``seat 1 (ppo:official-2p)``), each full spec that differs
from its label said once at the start.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from typing import TextIO

from uno_rl.core.phases import PHASE_NAMES
from uno_rl.plumbing.cli import CliParser, count_type
from uno_rl.plumbing.safe_text import printable
from uno_rl.replays import Replay, ReplayError, deal, load, steps
from uno_rl.terminal.narrate import Voice, describe_outcome, narrate, narrate_deal
from uno_rl.terminal.style import Style, use_color
from uno_rl.terminal.table import seat_names, spec_notes, table_text
from uno_rl.terminal.wrap import terminal_width, wrap_text

__all__ = ["build_parser", "main", "show"]

INTERRUPTED = 130


def build_parser() -> CliParser:
    """The command line: one ``error: ...`` line and exit status 2 for bad options."""
    parser = CliParser(
        prog="uno_rl replay",
        description="Show a saved UNO game again, from one seat or with every hand open.",
    )
    parser.add_argument("file", help="a JSON replay")
    view = parser.add_mutually_exclusive_group()
    view.add_argument(
        "--seat",
        type=count_type(0, 9),
        default=None,
        help="show what this seat saw, 0 to 9 (default: every hand open)",
    )
    view.add_argument("--open", action="store_true", help="every hand open (the default)")
    parser.add_argument("--step", action="store_true", help="wait for Enter after each decision")
    parser.add_argument("--no-color", action="store_true", help="plain text, no ANSI colors")
    return parser


class _Stop(Exception):
    """The viewer typed q."""


def show(
    replay: Replay,
    viewer: int | None,
    style: Style,
    out: TextIO,
    pause: Callable[[], None] | None = None,
) -> None:
    """Print ``replay`` decision by decision for seat ``viewer`` (None: every hand open).

    ``pause`` is called after each printed decision (``--step``).
    """
    rules = replay.rules
    names = seat_names(replay.seats)
    voice = Voice(names, you=viewer)

    width = terminal_width(out)

    def write(text: str = "") -> None:
        out.write(wrap_text(text, width) + "\n")

    where = f" (preset {printable(replay.preset)})" if replay.preset else ""
    game = "a match" if rules.match else "a single round"
    # The deal seed rebuilds every hand and the draw pile: only the open view shows it.
    seed = f", deal seed {replay.seed}" if viewer is None else ""
    deck = f", deck {printable(rules.deck)}" if rules.deck != "classic" else ""
    write(style.bold(f"UNO replay: {rules.players} players{where}{deck}, {game}{seed}."))
    write("Seats: " + ", ".join(names) + ".")
    for note in spec_notes(replay.seats):  # a seat named by a label: its full spec, once
        write(note)
    program = replay.source.get("program")
    if isinstance(program, str) and program:
        write(f"Recorded by {printable(program)}; {len(replay.actions)} decisions.")
    write("View: every hand open." if viewer is None else f"View: {names[viewer]}'s seat.")
    state = deal(replay)
    for event in narrate_deal(state, voice, style):
        write("  " + event.text)
    for decision in steps(replay):
        before, seat = decision.before, decision.seat
        events = [e for e in narrate(decision, voice, style) if e.visible_to(viewer)]
        own = viewer is None or seat == viewer
        if own:
            phase = PHASE_NAMES[int(before.phase[0])]
            header = f"---- decision {decision.index + 1}: {voice.who(seat)} ({phase}) "
            write(style.dim(header + "-" * max(4, 60 - len(header))))
            write(table_text(before, voice, style, viewer))
            if viewer is None:
                name = rules.layout.action_name(decision.action)
                write(style.dim(f"  action {decision.action}: {name}"))
        for event in events:
            write("  " + event.text)
        if pause is not None and (own or events):
            out.flush()
            pause()
        state = decision.after
    write(style.dim("---- end " + "-" * 52))
    finished = replay.outcome is not None and replay.outcome.finished
    write(table_text(state, voice, style, None if finished else viewer))  # hands shown at the end
    write(style.bold(_ending(replay, voice, viewer)))
    out.flush()


def _ending(replay: Replay, voice: Voice, viewer: int | None) -> str:
    outcome, rules = replay.outcome, replay.rules
    lines = []
    if outcome is None:
        lines.append("No outcome was recorded.")
    else:
        lines.append(describe_outcome(outcome, rules, voice))
    if replay.violation is not None:
        v = replay.violation
        layout = rules.layout
        what = (
            layout.action_name(v.action) if 0 <= v.action < layout.num_actions else "out of range"
        )
        # The evaluator's message lists the offender's legal actions: its hand.
        why = f": {printable(v.message)}" if viewer in (None, v.seat) else "."
        lines.append(
            f"Then {voice.who(v.seat)} chose an illegal action, {v.action} ({what}), and the "
            f"evaluator stopped{why}"
        )
    return "\n".join(lines)


def main(
    argv: Sequence[str] | None = None,
    read_line: Callable[[], str] = input,
    out: TextIO | None = None,
) -> int:
    """Run the program; ``read_line`` and ``out`` replace the terminal (tests)."""
    out = sys.stdout if out is None else out
    args = build_parser().parse_args(argv)
    try:
        replay = load(args.file)
        if args.seat is not None and not 0 <= args.seat < replay.rules.players:
            raise ReplayError(f"--seat must be in [0, {replay.rules.players - 1}], got {args.seat}")
    except ReplayError as error:
        print(f"error: {printable(error)}", file=sys.stderr)  # a path, values: escaped
        return 2

    def pause() -> None:
        out.write("[Enter: next decision, q: stop] ")
        out.flush()
        try:
            answer = read_line()
        except EOFError:
            raise _Stop from None
        if answer.strip().lower() in ("q", "quit"):
            raise _Stop

    style = Style(use_color(out, args.no_color))
    try:
        show(replay, args.seat, style, out, pause if args.step else None)
    except _Stop:
        out.write("\nStopped.\n")
    except KeyboardInterrupt:
        out.write("\nInterrupted.\n")
        return INTERRUPTED
    except BrokenPipeError:  # piped into a program that stopped reading (head)
        if out is sys.stdout:  # keep Python from failing again when it flushes at exit
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    return 0
