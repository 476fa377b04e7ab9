"""Play UNO in the terminal against the bots: ``uno_rl play``.

    uno_rl play                                  # you against color-first
    uno_rl play --players 4                      # against three color-first
    uno_rl play --opponents color-first
    uno_rl play --opponents ppo-official-2p --seed 7 --save game.json
    uno_rl play --opponents rule aggressive bluffer --preset seven-zero --seat 2
    uno_rl play --opponents random-playable --preset kids      # a match
    uno_rl play --opponents rule rule --set multi_play=true --no-color
    uno_rl play --opponents rule random-playable --set deck=extreme   # rules specification §11

You take one seat (``--seat``, default 0); every name after ``--opponents`` is an agent from
the zoo (``uno_rl.agents``: built-in strategies, ``agents/*.toml``, shipped PPO checkpoints such
as ``ppo-official-2p``, with ``name:key=value`` parameters) in the next seats, so 1 to 9
opponents make a table of 2 to 10. The rules are a preset (``envs/*.toml``, default
``official``) with ``--set KEY=VALUE`` switches on top; the player count is one more than the
opponents. Without ``--opponents``, ``color-first`` takes every other seat of a table of
``--players N`` (2 to 10), or of the preset's count (2 under ``official``): plain
``uno_rl play`` is you against one ``color-first``. Each opponent is named by its seat and
its short label (:mod:`uno_rl.agents.labels`: ``seat 1 (color-first)`` for
``color-first:bluff=1``, parameters only where they tell two opponents apart); a label that
is not the spec is followed once, at the start, by the full spec.

What is played is decided by the rules: a single round, or, when the rules are a match
(``match = true``, e.g. the ``kids`` preset or ``--set match=true``), the whole match until
someone reaches ``match_target`` (points, or rounds won), the engine dealing each next round.

At each of your decisions the screen shows what happened since your last one (who played
what and the color named, who drew how many cards and which ones you drew, skips, reverses,
swapped and passed-on hands, UNO calls, challenges with their verdict and the hand a
challenge of yours revealed, reshuffles, round ends with points and scores), the top card
and current color, the direction, every player's hand size, your hand, and a numbered list of
your legal actions under the phase's question ("Your turn: play a card or draw", "Play the
drawn card?", "Challenge the +4?", "Choose a color", "Swap hands with whom?", "Jump in?",
...). A Wild or +4 is chosen first, its color after. A bad answer (not a number, out of
range, empty) is explained and asked again.

Any deck plays (``--set deck=NAME``: ``modern-112``, ``swap-112``, ``extension``, ``extreme``,
or a deck file; rules specification §11): its cards are drawn and narrated (a Discard All and the
cards it sheds, hits and the dispenser's presses, Downpours, shuffled and swapped hands, a
targeted draw's victim, a Boomerang sending a draw or a Skip back) and the menus offer them
("Whom do you target with ...?", "A Skip is coming your way: ..."); the replay records the deck.

``q``, the end of input (Ctrl-D) or Ctrl-C stop the game cleanly (exit code 0, or 130 for
Ctrl-C); with ``--save FILE`` the game is saved as a JSON replay (:mod:`uno_rl.replays`) at
the end, finished or not: ``uno_rl replay FILE`` shows it again. ``--seed`` fixes the
deal and the bots' choices (the same seed and the same answers replay the same game);
without it a fresh seed is drawn, and printed when the game ends (not before: it fixes every
card, the opponents' hands and the draw pile included). Bad input on the command line (unknown agent,
preset or switch, a bad seat) exits with code 2 and an error naming it.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import TextIO

import numpy as np

from uno_rl.agents import AgentError, make_agent
from uno_rl.core import engine
from uno_rl.core.rng import new_seeds
from uno_rl.core.rules import Rules, RulesError
from uno_rl.plumbing.cli import CliParser, count_type, failure_reason, seed_type, short_repr
from uno_rl.plumbing.durable import DurableWriteError, check_writable
from uno_rl.plumbing.safe_text import printable
from uno_rl.programs.rules_options import (
    RulesOptions,
    add_rules_options,
    load_preset_rules,
    read_switches,
)
from uno_rl.replays import AgentSeat, GameRecorder, Replay, play_game, save
from uno_rl.terminal.console import QuitGame, TerminalPlayer
from uno_rl.terminal.narrate import Voice, describe_outcome, narrate, narrate_deal
from uno_rl.terminal.style import Style, use_color
from uno_rl.terminal.table import seat_names, spec_notes, table_text

__all__ = ["build_parser", "main"]

#: The name of the person's seat in replays.
HUMAN = "human"
#: Exit code after Ctrl-C (128 + SIGINT), as shells report it.
INTERRUPTED = 130
#: The agent in every other seat when ``--opponents`` is not given.
DEFAULT_OPPONENT = "color-first"
#: The rule options: the table is you and the opponents, so the count is not a switch.
RULES_OPTIONS = RulesOptions(
    players_help="players at the table, you included, 2 to 10 (default: one more than the "
    "--opponents, else the preset's count)",
    players_switch_error=(
        "the players are you and the --opponents (or --players N): do not --set players"
    ),
)


def build_parser() -> CliParser:
    """The command line: one ``error: ...`` line and exit status 2 for bad options."""
    parser = CliParser(
        prog="uno_rl play",
        description="Play UNO in the terminal against agents from the zoo or shipped checkpoints.",
    )
    parser.add_argument(
        "--opponents", nargs="+", default=None, metavar="NAME",
        help="agent specs for the other seats (1 to 9), e.g. color-first ppo-official-2p "
        f"(default: {DEFAULT_OPPONENT} in every other seat of the --players or the preset's "
        "table)",
    )  # fmt: skip
    add_rules_options(parser, RULES_OPTIONS)
    parser.add_argument(
        "--seat", type=count_type(0, 9), default=0, help="your seat, 0 to players-1 (default 0)"
    )
    parser.add_argument(
        "--seed",
        type=seed_type,
        default=None,
        help="seed of the deal and the bots, 0 to 2^63-1 (default: a fresh one, shown at the end)",
    )
    parser.add_argument(
        "--save", default=None, metavar="FILE", help="save the replay here (default: not saved)"
    )
    parser.add_argument("--no-color", action="store_true", help="plain text, no ANSI colors")
    return parser


def table_size(opponents: Sequence[str] | None, players: int | None) -> int | None:
    """The player count the command line asks for: one more than the ``--opponents``, or
    ``--players``; None when neither says (the preset's count).

    Raises:
        ValueError: 0 or 10+ opponents, or ``--players`` that disagrees with them.
    """
    if opponents is None:
        return players
    count = len(opponents)
    if not 1 <= count <= 9:
        raise ValueError(f"--opponents takes 1 to 9 agents (2 to 10 players), got {count}")
    if players is not None and players != count + 1:
        raise ValueError(f"--players {players} needs {players - 1} --opponents, got {count}")
    return count + 1


def resolve_table(
    preset: str, opponents: Sequence[str] | None, players: int | None, switches: Sequence[str]
) -> tuple[Rules, list[str]]:
    """The rules and the opponents' specs: without ``opponents``, :data:`DEFAULT_OPPONENT` in
    every seat but yours, at ``players`` seats or the preset's count (errors as
    :func:`table_size` and :func:`resolve_rules`)."""
    rules = resolve_rules(preset, table_size(opponents, players), switches)
    if opponents is None:
        return rules, [DEFAULT_OPPONENT] * (rules.players - 1)
    return rules, list(opponents)


def resolve_rules(preset: str, players: int | None, switches: Sequence[str]) -> Rules:
    """The rules: ``preset`` with ``switches`` (``KEY=VALUE``) at ``players`` seats (None: the
    preset's count).

    Raises:
        RulesError: an unknown preset or switch, a bad value.
        ValueError: a malformed switch, ``players`` set, or a preset file that cannot be
            read (each message names the option).
    """
    return load_preset_rules(preset, players, read_switches(switches, RULES_OPTIONS))


def make_agents(specs: Sequence[str], rules: Rules) -> list:
    """The agents of the ``--opponents`` specs; errors name the spec."""
    agents = []
    for spec in specs:
        try:
            agents.append(make_agent(spec, rules))
        except AgentError:
            raise
        except (ValueError, OSError, RecursionError) as error:  # an unreadable agent file
            raise ValueError(
                f"agent {short_repr(spec)} cannot be loaded: {failure_reason(error)}"
            ) from None
    return agents


def check_save_path(path: str | None) -> None:
    """Refuse at the start a ``--save`` path that can never be written (a folder, under a
    file, a device or a FIFO, in a folder that takes no new file: read-only, no permission,
    ``/proc``), rather than after the whole game."""
    if path is None:
        return
    if not path.strip():
        raise ValueError("--save needs a file name, got ''")
    target = os.path.abspath(path)
    if os.path.isdir(target):
        raise ValueError(f"--save {short_repr(path)} is a folder; give a file name")
    parent = os.path.dirname(target)
    while parent and not os.path.exists(parent):
        parent = os.path.dirname(parent) if os.path.dirname(parent) != parent else ""
    if parent and not os.path.isdir(parent):
        raise ValueError(f"--save {short_repr(path)}: {parent} is a file, not a folder")
    try:
        check_writable(target)
    except DurableWriteError as error:
        raise ValueError(f"--save {short_repr(path)} {error.reason}") from None


def game_seeds(seed: int) -> tuple[int, np.random.Generator]:
    """The deal seed and the bots' generator that ``seed`` (``--seed``) fixes."""
    deal_sequence, agent_sequence = np.random.SeedSequence(seed).spawn(2)
    deal_seed = int(new_seeds(np.random.Generator(np.random.PCG64(deal_sequence)), 1)[0])
    return deal_seed, np.random.Generator(np.random.PCG64(agent_sequence))


def describe_game(rules: Rules) -> str:
    """``a single round`` or ``a match to 500 points``."""
    if not rules.match:
        return "a single round"
    if rules.scoring == "rounds":
        return f"a match: the first to win {rules.match_target} rounds"
    lowest = " (lowest total wins)" if rules.scoring == "losers-add" else ""
    return f"a match to {rules.match_target} points{lowest}"


def main(
    argv: Sequence[str] | None = None,
    read_line: Callable[[], str] = input,
    out: TextIO | None = None,
) -> int:
    """Run the program; ``read_line`` and ``out`` replace the terminal (tests)."""
    out = sys.stdout if out is None else out
    args = build_parser().parse_args(argv)
    try:
        return _play(args, read_line, out)
    except KeyboardInterrupt:  # before the game started (loading a checkpoint, ...)
        out.write("\nInterrupted.\n")
        return INTERRUPTED


def _play(args: argparse.Namespace, read_line: Callable[[], str], out: TextIO) -> int:
    """Set the table up, play the game, save it; the exit code."""
    try:
        rules, specs = resolve_table(args.preset, args.opponents, args.players, args.switches)
        if not 0 <= args.seat < rules.players:
            raise ValueError(f"--seat must be in [0, {rules.players - 1}], got {args.seat}")
        check_save_path(args.save)
        agents = make_agents(specs, rules)
    except (AgentError, RulesError, ValueError, OSError) as error:
        print(f"error: {printable(error)}", file=sys.stderr)  # names typed by the user
        return 2
    seed = args.seed if args.seed is not None else int(np.random.SeedSequence().entropy % 2**63)
    deal_seed, agent_rng = game_seeds(seed)
    seats = specs[: args.seat] + [HUMAN] + specs[args.seat :]
    style = Style(use_color(out, args.no_color))
    voice = Voice(seat_names(seats), you=args.seat)
    human = TerminalPlayer(args.seat, voice, style, out, read_line)
    players = [
        human if seat == args.seat else AgentSeat(agents[seat - (seat > args.seat)], agent_rng)
        for seat in range(rules.players)
    ]
    recorder = GameRecorder(
        rules, deal_seed, seats, preset=args.preset,
        source={"program": "uno_rl.programs.play", "seed": seed, "human_seat": args.seat,
                "switches": list(args.switches)},
    )  # fmt: skip
    opponents = ", ".join(voice.who(s) for s in range(rules.players) if s != args.seat)
    preset = printable(args.preset)
    human.write(
        style.bold(f"UNO, {preset} rules, {rules.players} players: {describe_game(rules)}.")
    )
    human.write(f"You are seat {args.seat}. Opponents: {opponents}.")
    for note in spec_notes(seats):  # an opponent named by a label: its full spec, once
        human.write(note)
    if rules.deck != "classic":
        deck = rules.deck_cards
        extra = " with the random card dispenser" if rules.dispenser_on else ""
        human.write(f"Deck {printable(rules.deck)} ({deck.size} cards){extra}.")
    # The seed fixes every card (opponents' hands, the draw pile): shown only when it is over.
    human.write("The seed of this game is shown when it ends.")
    human.write("Type the number of your choice and press Enter; q quits.")
    state = engine.reset(rules, np.array([deal_seed], dtype=np.uint64))
    human.hear(narrate_deal(state, voice, style))
    try:
        play_game(
            rules, players, deal_seed, recorder,
            on_decision=lambda d: human.hear(narrate(d, voice, style)), state=state,
        )  # fmt: skip
    except KeyboardInterrupt:
        human.write("\nInterrupted: the game is abandoned.")
        _tell_seed(human, seed)
        return _save(args.save, recorder.replay(), human) or INTERRUPTED
    except (QuitGame, EOFError):
        human.write("\nYou left the table: the game is abandoned.")
        _tell_seed(human, seed)
        return _save(args.save, recorder.replay(), human)
    human.show_news()
    human.write(style.dim(human.rule("---- game over ")))
    human.write(table_text(state, voice, style, None))
    replay = recorder.replay(state)
    assert replay.outcome is not None
    human.write(style.bold(describe_outcome(replay.outcome, rules, voice)))
    _tell_seed(human, seed)
    return _save(args.save, replay, human)


def _tell_seed(human: TerminalPlayer, seed: int) -> None:
    """The game's seed, once the game is over (during it, it would give away every card)."""
    human.write(f"Seed {seed} (the same seed and answers replay this game: --seed {seed}).")


def _save(path: str | None, replay: Replay, human: TerminalPlayer) -> int:
    """Save ``replay`` to ``path`` if one was given; exit code 0, or 1 if it failed."""
    if path is None:
        return 0
    try:
        save(replay, path)
    except OSError as error:
        print(f"error: cannot save the replay to {printable(f'{path}: {error}')}", file=sys.stderr)
        return 1
    finished = replay.outcome is not None and replay.outcome.finished
    human.write(
        f"Replay of the {'' if finished else 'unfinished '}game saved to {printable(path)} "
        f"(view it: uno_rl replay {printable(os.fspath(path))})."
    )
    return 0
