"""OpenSpiel's IS-MCTS against uno_rl's ``pimc`` on duplicate deals of ``python_uno_rl``.

::

    python -m uno_rl.eval.openspiel_versus --rounds 20 --seed 0 --simulations 100
    python -m uno_rl.eval.openspiel_versus --rounds 40 --seed 0 --simulations 100  # 20 more

Needs the ``openspiel`` extra. Each deal (a deal seed) is played P times, the IS-MCTS seat
moved round the table (two players: the seats swapped), the other seats played by ``pimc``.
Every round is played on the OpenSpiel game (:mod:`uno_rl.envs.openspiel_game`): IS-MCTS
(:class:`open_spiel.python.algorithms.ismcts.ISMCTSBot`) searches it, drawing positions
with :meth:`~uno_rl.envs.openspiel_game.UnoState.resample_from_infostate`; its chance nodes
take the outcomes the deal seed gives (a :class:`~uno_rl.envs.openspiel_chance.SeededChance`
game played alongside), so every seating meets the same deck order as uno_rl's evaluator
deals it. ``pimc`` decides on that game as uno_rl's engine state
(:func:`uno_rl.core.convert.to_state`), watching every action as in ``uno_rl evaluate``.

IS-MCTS values a new leaf by play-outs: ``--rollout random`` is OpenSpiel's
:class:`~open_spiel.python.algorithms.mcts.RandomRolloutEvaluator` (uniformly random legal
actions through the chance nodes); an agent name (``color-first``, pimc's own play-out
agent, the default) plays that agent in every seat instead (:class:`AgentRollouts`: the
rules played on directly, a random pile order, as the chance nodes would draw it). IS-MCTS
maximizes the game's returns; ``pimc`` is given the same objective (``objective=win`` under
win-loss rewards, ``points`` under ``reward=points``) unless ``--pimc`` names another spec.
Under ``reward=points`` the returns are card points, tens of them: raise ``--uct-c`` to that
scale.

Every round replays on its own: its deal seed comes from ``--seed``, its random sources
(IS-MCTS's ``RandomState``, its worlds and random play-outs too; the agent play-outs' and
pimc's generators) from ``(--seed, round index)`` (:func:`round_sources`). ``--out`` (default
``runs/openspiel-versus``) gets ``settings.json``, ``rounds.csv`` (the tidy rows of
:mod:`uno_rl.eval.openspiel_versus_table`, rewritten durably after every round) and, at the
end, ``table.md`` (also printed). The same command resumes a stopped run, playing only the
missing rounds (a larger ``--rounds`` adds some) to the rows an uninterrupted run gives; other
settings are refused, ``--fresh`` starts over. Ctrl-C stops it with one line (exit status
130), the rounds done kept; bad input is one ``error:`` line and exit status 2.
"""

from __future__ import annotations

import json
import math
import signal
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts
from tqdm import tqdm

from uno_rl.agents import make_agent
from uno_rl.agents.base import Agent
from uno_rl.core.convert import to_state
from uno_rl.core.phases import OVER
from uno_rl.core.rng import new_seeds
from uno_rl.envs.openspiel_chance import ChanceGame, SeededChance
from uno_rl.envs.openspiel_game import SHORT_NAME, UnoGame, UnoState
from uno_rl.plumbing.cli import (
    CliParser,
    check_float,
    check_int,
    check_seed,
    count_type,
    float_type,
    parse_switches,
    print_error,
    seed_type,
)
from uno_rl.plumbing.durable import replace_durably, write_text_durably
from uno_rl.plumbing.processes import Interrupted, interruptible
from uno_rl.replays.record import AgentSeat

from .openspiel_versus_table import empty_rows, format_table, read_rows, round_line, round_rows
from .outputs import check_output_folder

__all__ = [
    "DEFAULT_OUT", "OUTPUT_FILES", "AgentRollouts", "check_resumable", "format_table", "main",
    "make_settings", "play_round", "round_sources", "versus",
]  # fmt: skip

#: Where a run goes unless ``--out`` says otherwise.
DEFAULT_OUT = Path("runs/openspiel-versus")
#: What a run writes into its folder.
OUTPUT_FILES = ("settings.json", "rounds.csv", "table.md")
SETTINGS_FILE, ROWS_FILE, TABLE_FILE = OUTPUT_FILES


class AgentRollouts(mcts.Evaluator):
    """IS-MCTS leaf values: ``rollouts`` play-outs of a uno_rl ``agent`` in every seat (a
    batched agent asked one decision at a time), averaged; uniform priors.

    Args:
        agent: a uno_rl agent that reads no engine state (a heuristic, a PPO policy).
        rollouts: play-outs per leaf.
        generator: the play-outs' random numbers (pile orders, the agent's choices).
    """

    def __init__(self, agent: Agent, rollouts: int, generator: np.random.Generator):
        if agent.needs_state:
            raise ValueError(f"the play-out agent {agent.label!r} cannot be a search agent")
        self.agent, self.rollouts, self.generator = agent, rollouts, generator

    def evaluate(self, state: UnoState) -> np.ndarray:
        if state.is_terminal():
            return np.asarray(state.returns())
        total = np.zeros(state.get_game().num_players())
        for _ in range(self.rollouts):
            game = state.round.playout_game(self.generator)
            num_actions = game.layout.num_actions
            outcome = None
            while game.phase != OVER:
                mask = np.zeros((1, num_actions), bool)
                mask[0, game.legal_actions()] = True
                seen = game.observe(game.actor)[None] if self.agent.needs_observation else None
                outcome = game.step(int(self.agent.act(seen, mask, self.generator)[0]))
            total += outcome.rewards
        return total / self.rollouts

    def prior(self, state: UnoState) -> list[tuple[int, float]]:
        if state.is_chance_node():
            return state.chance_outcomes()
        legal = state.legal_actions()
        return [(action, 1.0 / len(legal)) for action in legal]


def round_sources(
    seed: int, index: int
) -> tuple[np.random.Generator, np.random.Generator, np.random.RandomState]:
    """The random sources of round ``index`` of a run of ``seed``, children of
    ``SeedSequence([seed, index])``: the agent play-outs' generator, pimc's generator and
    IS-MCTS's ``RandomState`` (its choices, its worlds, OpenSpiel's random play-outs)."""
    rollouts, pimc, search = np.random.SeedSequence([int(seed), int(index)]).spawn(3)
    search_state = np.random.RandomState(np.random.MT19937(search))
    return np.random.default_rng(rollouts), np.random.default_rng(pimc), search_state


def play_round(
    game: UnoGame, seed: int, seats: Sequence[str], bot: ismcts.ISMCTSBot, pimc: Agent,
    generator: np.random.Generator,
) -> dict[str, Any]:  # fmt: skip
    """One round of ``game`` from deal ``seed``, seat ``s`` played by ``seats[s]``
    (``'ismcts'`` or ``'pimc'``; pimc's choices from ``generator``). Returns a dict: the deal
    ``seed``, the ``seats``, the ``rewards`` (P floats) and ``net_points`` (P ints), the
    ``winner`` (a seat, -1 where none), ``truncated``, and each seat's ``decisions`` (P
    ints) and ``seconds`` thinking (P floats)."""
    rules = game.rules
    dealt = ChanceGame(rules, SeededChance(), seed)  # the deal seed's events, recorded
    record = dealt.source.outcomes
    state = game.new_initial_state()
    used = 0

    def follow() -> None:  # the chance nodes take the recorded outcomes
        nonlocal used
        while state.is_chance_node():
            state.apply_action(record[used])
            used += 1

    follow()
    searchers = {s: AgentSeat(pimc, generator) for s in range(rules.players) if seats[s] == "pimc"}
    thought = [0.0] * rules.players
    decisions = [0] * rules.players
    outcome = None
    while not state.is_terminal():
        seat = state.current_player()
        legal = state.legal_actions()
        engine_state = to_state([dealt]) if searchers else None
        start = time.perf_counter()
        if seats[seat] == "pimc":
            mask = np.zeros(rules.layout.num_actions, bool)
            mask[legal] = True
            action = searchers[seat].decide(engine_state, mask)
        else:
            action = int(bot.step(state)) if len(legal) > 1 else legal[0]
        thought[seat] += time.perf_counter() - start
        decisions[seat] += 1
        for watcher, searcher in searchers.items():
            searcher.watch(engine_state, watcher, action)
        outcome = dealt.step(action)
        state.apply_action(action)
        follow()
        if state.round.game.hands != dealt.hands or state.round.game.top != dealt.top:
            raise RuntimeError("the OpenSpiel game left the seeded deal's round")
    return {
        "seed": int(seed),
        "seats": list(seats),
        "rewards": list(outcome.rewards),
        "net_points": list(outcome.net_points or [0] * rules.players),
        "winner": outcome.winner,
        "truncated": outcome.truncated,
        "decisions": decisions,
        "seconds": thought,
    }


def _load_game(settings: Mapping[str, Any]) -> UnoGame:
    switches = ";".join(settings["switches"])
    params = {"preset": settings["preset"], "players": settings["players"], "switches": switches}
    return pyspiel.load_game(SHORT_NAME, params)


def make_settings(
    preset: str = "official", players: int = 2, switches: Sequence[str] = (), rounds: int = 20,
    seed: int = 0, simulations: int = 100, uct_c: float = 2.0, rollout: str = "color-first",
    rollouts: int = 1, pimc: str | None = None,
) -> dict[str, Any]:  # fmt: skip
    """A run's settings (what ``settings.json`` holds), every one checked: the game loads,
    both agents are made. ``pimc`` None: the spec for the game's returns (``pimc`` under
    ``reward=points``, else ``pimc:objective=win``); ``reward`` is the game's. ``ValueError``
    (one line) for any bad value."""
    check_int(rounds, "rounds")
    check_int(simulations, "simulations")
    check_int(rollouts, "rollouts")
    check_seed(seed)
    uct_c = check_float(uct_c, "uct_c", 0.0)
    switches = [str(s) for s in switches]
    parse_switches(switches)  # KEY=VALUE, as every program's --set
    settings = {
        "preset": str(preset), "players": int(players), "switches": switches,
        "rounds": rounds, "seed": seed, "simulations": simulations, "uct_c": uct_c,
        "rollout": str(rollout), "rollouts": rollouts, "pimc": pimc,
    }  # fmt: skip
    rules = _load_game(settings).rules
    if pimc is None:
        settings["pimc"] = "pimc:objective=win" if rules.reward == "win-loss" else "pimc"
    settings["reward"] = rules.reward
    make_agent(settings["pimc"], rules)
    if rollout != "random":
        AgentRollouts(make_agent(rollout, rules), rollouts, np.random.default_rng(0))
    return settings


def _deals(settings: Mapping[str, Any], rounds: int) -> np.ndarray:
    """The deal seeds (uint64) of the first ``rounds`` rounds' deals (a prefix of a longer
    run's)."""
    count = max(1, math.ceil(rounds / settings["players"]))
    return new_seeds(np.random.default_rng(settings["seed"]), count)


def _planned(settings: Mapping[str, Any]) -> int:
    """Rounds the settings play: ``rounds`` made up to whole deals."""
    p = settings["players"]
    return max(1, math.ceil(settings["rounds"] / p)) * p


def check_resumable(out: Path, settings: Mapping[str, Any], fresh: bool = False) -> pd.DataFrame:
    """The rows (:data:`~uno_rl.eval.openspiel_versus_table.COLUMNS`) of the rounds ``out``
    already holds of a run of ``settings`` (any ``rounds``), none where it holds no run or
    ``fresh``; ``ValueError`` (one line, suggesting ``--fresh``) where it holds a run of other
    settings or rows that are not that run's. Nothing is written."""
    empty = empty_rows()
    if fresh or not (out / SETTINGS_FILE).exists() and not (out / ROWS_FILE).exists():
        return empty
    try:
        found = json.loads((out / SETTINGS_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        found = None
    found = found if isinstance(found, dict) else {}
    differ = [k for k in {**settings, **found} if k != "rounds" and found.get(k) != settings.get(k)]
    if differ:
        what = f"other {', '.join(differ[:3])}" if found else f"no readable {SETTINGS_FILE}"
        raise ValueError(
            f"--out {out}: holds a run of {what}; choose another --out, or pass --fresh to "
            "start over there"
        )
    if not (out / ROWS_FILE).exists():
        return empty
    rows = read_rows(out / ROWS_FILE)
    p = settings["players"]
    rounds, left = divmod(len(rows), p)
    index = np.repeat(np.arange(rounds), p)
    expected = not left and (rows["round"].to_numpy() == index).all()
    if expected and rounds:
        deals = _deals(settings, rounds)
        seat, position = np.tile(np.arange(p), rounds), index % p
        expected = (
            (rows["seat"].to_numpy() == seat).all()
            and (rows["ismcts_position"].to_numpy() == position).all()
            and (rows["side"].to_numpy() == np.where(seat == position, "ismcts", "pimc")).all()
            and (rows["deal_seed"].to_numpy() == deals[index // p]).all()
        )
    if not expected:
        raise ValueError(
            f"--out {out}: {ROWS_FILE} is not the rounds of its {SETTINGS_FILE}; pass --fresh "
            "to start over there"
        )
    return rows


def _write_rows(out: Path, rows: pd.DataFrame) -> None:
    with replace_durably(out / ROWS_FILE) as tmp:
        rows.to_csv(tmp, index=False)


def versus(
    settings: Mapping[str, Any], out: Path | None = None, fresh: bool = False,
    progress: bool = False,
) -> pd.DataFrame:  # fmt: skip
    """Play the rounds of ``settings`` (:func:`make_settings`) and return their tidy rows
    (:data:`~uno_rl.eval.openspiel_versus_table.COLUMNS`, ``settings['rounds']`` made up to
    whole deals, times P rows).

    With ``out``, the run's folder: the rounds it holds are kept and only the missing ones
    played (:func:`check_resumable`, ``ValueError`` for a run of other settings; ``fresh``:
    none kept), ``settings.json`` written, and ``rounds.csv`` rewritten durably after every
    round (rows of rounds past ``settings['rounds']`` stay in it, left out of what is
    returned). ``progress``: a tqdm bar on stderr."""
    game = _load_game(settings)
    rules = game.rules
    pimc_agent = make_agent(settings["pimc"], rules)
    rollout = settings["rollout"]
    rollout_agent = None if rollout == "random" else make_agent(rollout, rules)
    rows = empty_rows() if out is None else check_resumable(out, settings, fresh)
    if out is not None:
        if rows.empty:  # a new run: no rows of an old one beside the new settings
            (out / TABLE_FILE).unlink(missing_ok=True)
            _write_rows(out, rows)
        write_text_durably(out / SETTINGS_FILE, json.dumps(dict(settings), indent=2) + "\n")
    p, total = rules.players, _planned(settings)
    done = int(rows["round"].nunique())
    deals = _deals(settings, total)
    with tqdm(total=total, initial=min(done, total), unit="round", disable=not progress,
              file=sys.stderr, desc="IS-MCTS vs pimc") as bar:  # fmt: skip
        for index in range(done, total):
            generator, pimc_generator, random_state = round_sources(settings["seed"], index)
            if rollout_agent is None:
                evaluator = mcts.RandomRolloutEvaluator(settings["rollouts"], random_state)
            else:
                evaluator = AgentRollouts(rollout_agent, settings["rollouts"], generator)
            bot = ismcts.ISMCTSBot(
                game, evaluator, settings["uct_c"], settings["simulations"],
                random_state=random_state,
                final_policy_type=ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT,
            )  # fmt: skip
            # The worlds from the round's source (OpenSpiel's sampler is seeded afresh).
            bot.set_resampler(
                lambda state, player, rs=random_state: state.resample_from_infostate(
                    player, rs.random_sample
                )
            )
            seats = ["ismcts" if s == index % p else "pimc" for s in range(p)]
            played = play_round(game, int(deals[index // p]), seats, bot, pimc_agent,
                                pimc_generator)  # fmt: skip
            new = round_rows(index, played)
            rows = new if rows.empty else pd.concat([rows, new], ignore_index=True)
            if out is not None:
                _write_rows(out, rows)
            bar.update()
            bar.set_postfix_str(round_line(new))
    return rows[rows["round"] < total].reset_index(drop=True)


def build_parser() -> CliParser:
    parser = CliParser(
        prog="python -m uno_rl.eval.openspiel_versus",
        description="OpenSpiel's IS-MCTS against uno_rl's pimc on duplicate deals; resumable.",
    )
    parser.add_argument("--preset", default="official", help="rule preset (default official)")
    parser.add_argument("--players", type=count_type(2, 10), default=2, help="players (default 2)")
    parser.add_argument(
        "--set", dest="switches", action="append", default=[], metavar="KEY=VALUE",
        help="a rule switch on top of the preset (repeatable)",
    )  # fmt: skip
    parser.add_argument(
        "--rounds", type=count_type(), default=20,
        help="rounds, made up to whole deals (default 20); a larger number goes on with a run",
    )  # fmt: skip
    parser.add_argument("--seed", type=seed_type, default=0, help="seed of the deals and bots")
    parser.add_argument(
        "--simulations", type=count_type(), default=100,
        help="IS-MCTS simulations a decision (default 100)",
    )  # fmt: skip
    parser.add_argument(
        "--uct-c", type=float_type(0.0), default=2.0,
        help="IS-MCTS exploration constant (default 2)",
    )  # fmt: skip
    parser.add_argument(
        "--rollout", default="color-first",
        help="IS-MCTS play-outs: random (OpenSpiel's) or a uno_rl agent (default color-first)",
    )  # fmt: skip
    parser.add_argument(
        "--rollouts", type=count_type(), default=1, help="play-outs a leaf (default 1)"
    )
    parser.add_argument(
        "--pimc", default=None, help="the pimc agent's spec (default: pimc, for the returns)"
    )
    parser.add_argument(
        "--out", default=str(DEFAULT_OUT),
        help=f"the run's folder; the same command resumes the run there (default {DEFAULT_OUT})",
    )  # fmt: skip
    parser.add_argument(
        "--fresh", action="store_true", help="start over, forgetting the rounds --out holds"
    )
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; the exit status (0: done, 2: bad input, 130 or 143: stopped by Ctrl-C
    or SIGTERM, with one line saying what is kept)."""
    reached: dict[str, Any] = {}
    try:
        with interruptible():
            return _run(list(sys.argv[1:] if argv is None else argv), reached)
    except KeyboardInterrupt as stop:  # Interrupted: a signal; else raised by the code itself
        print(_interrupted_line(reached), file=sys.stderr)
        return stop.status if isinstance(stop, Interrupted) else 128 + signal.SIGINT


def _interrupted_line(reached: Mapping[str, Any]) -> str:
    if "out" not in reached:
        return "interrupted before the first round: nothing was played"
    out = reached["out"]
    try:
        done = int(read_rows(out / ROWS_FILE)["round"].nunique())
    except (OSError, ValueError):
        done = 0
    return (
        f"interrupted: {done} of {reached['total']} rounds done in {out / ROWS_FILE}; run the "
        "same command to resume"
    )


def _run(argv: list[str], reached: dict[str, Any]) -> int:
    args = build_parser().parse_args(argv)
    try:
        out = check_output_folder(args.out, "--out", OUTPUT_FILES)
        settings = make_settings(
            args.preset, args.players, args.switches, args.rounds, args.seed, args.simulations,
            args.uct_c, args.rollout, args.rollouts, args.pimc,
        )  # fmt: skip
        done = int(check_resumable(out, settings, args.fresh)["round"].nunique())
    except (ValueError, OSError) as error:  # bad rules, switches, agent specs or folder
        print_error(error)
        return 2
    total = _planned(settings)
    reached.update(out=out, total=total)
    if done:
        print(f"resuming the run in {out}: {min(done, total)} of {total} rounds done",
              file=sys.stderr)  # fmt: skip
    rows = versus(settings, out, args.fresh, progress=not args.no_progress)
    table = format_table(settings, rows)
    write_text_durably(out / TABLE_FILE, table + "\n")
    print(table)
    print(f"{total} rounds in {out}/ ({', '.join(OUTPUT_FILES)})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
