"""OpenSpiel's IS-MCTS against uno_rl's ``pimc`` on duplicate deals of ``python_uno_rl``.

::

    python -m uno_rl.eval.openspiel_versus --rounds 20 --seed 0 --simulations 100

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
scale. The deals, both bots' choices and IS-MCTS's worlds all come from ``--seed``: a run
replays exactly.
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from uno_rl.agents import make_agent
from uno_rl.agents.base import Agent
from uno_rl.core.convert import to_state
from uno_rl.core.phases import OVER
from uno_rl.core.rng import new_seeds
from uno_rl.envs.openspiel_chance import ChanceGame, SeededChance
from uno_rl.envs.openspiel_game import SHORT_NAME, UnoGame, UnoState
from uno_rl.replays.record import AgentSeat

from .formats import with_interval
from .stats import wilson_interval, z_value

__all__ = ["AgentRollouts", "format_table", "main", "play_round", "versus"]


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


def play_round(
    game: UnoGame, seed: int, seats: Sequence[str], bot: ismcts.ISMCTSBot, pimc: Agent,
    generator: np.random.Generator,
) -> dict[str, Any]:  # fmt: skip
    """One round of ``game`` from deal ``seed``, seat ``s`` played by ``seats[s]``
    (``'ismcts'`` or ``'pimc'``). Returns its rewards, net points (P,) lists, winner,
    decisions, truncation and the seconds each side thought."""
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
    thought = {"ismcts": 0.0, "pimc": 0.0}
    decisions = {"ismcts": 0, "pimc": 0}
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
        thought[seats[seat]] += time.perf_counter() - start
        decisions[seats[seat]] += 1
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


def versus(
    preset: str = "official", players: int = 2, switches: Sequence[str] = (), rounds: int = 20,
    seed: int = 0, simulations: int = 100, uct_c: float = 2.0, rollout: str = "color-first",
    rollouts: int = 1, pimc: str | None = None, log=None,
) -> dict[str, Any]:  # fmt: skip
    """IS-MCTS (one seat) against ``pimc`` (the others) on ``ceil(rounds / P)`` deals, each
    played with the IS-MCTS seat in every position. Returns the settings, the rounds
    (:func:`play_round`) and the seconds taken."""
    game = pyspiel.load_game(
        SHORT_NAME, {"preset": preset, "players": players, "switches": ";".join(switches)}
    )
    rules = game.rules
    if pimc is None:
        pimc = "pimc:objective=win" if rules.reward == "win-loss" else "pimc"
    pimc_agent = make_agent(pimc, rules)
    random_state = np.random.RandomState(seed % 2**32)
    generator = np.random.default_rng(seed)
    if rollout == "random":
        evaluator = mcts.RandomRolloutEvaluator(rollouts, random_state)
    else:
        evaluator = AgentRollouts(make_agent(rollout, rules), rollouts, generator)
    bot = ismcts.ISMCTSBot(
        game, evaluator, uct_c, simulations, random_state=random_state,
        final_policy_type=ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT,
    )  # fmt: skip
    # The worlds from the seed too (OpenSpiel's default sampler is seeded afresh each time).
    bot.set_resampler(
        lambda state, player: state.resample_from_infostate(player, random_state.random_sample)
    )
    p = rules.players
    deals = new_seeds(np.random.default_rng(seed), max(1, math.ceil(rounds / p)))
    played, start = [], time.perf_counter()
    for deal in deals:
        for position in range(p):
            seats = ["ismcts" if s == position else "pimc" for s in range(p)]
            played.append(play_round(game, int(deal), seats, bot, pimc_agent, generator))
            if log is not None:
                log(_progress(played, time.perf_counter() - start))
    settings = {
        "preset": preset, "players": p, "switches": list(switches), "seed": seed,
        "simulations": simulations, "uct_c": uct_c, "rollout": rollout, "rollouts": rollouts,
        "pimc": pimc, "reward": rules.reward,
    }  # fmt: skip
    return {"settings": settings, "rounds": played, "seconds": time.perf_counter() - start}


def _progress(played: list[dict[str, Any]], seconds: float) -> str:
    last = played[-1]
    seat = last["seats"].index("ismcts")
    return (
        f"round {len(played)}: IS-MCTS in seat {seat} scored {last['net_points'][seat]:+d} "
        f"points{' (won)' if last['winner'] == seat else ''}, {seconds:.0f} s"
    )


def _side_numbers(rounds: list[dict[str, Any]], side: str, p: int, confidence: float):
    """(mean net points a round of one seat of ``side``, its interval, wins, seat-rounds)."""
    per_deal: dict[int, list[float]] = {}
    wins = seat_rounds = 0
    for r in rounds:
        mine = [s for s in range(p) if r["seats"][s] == side]
        per_deal.setdefault(r["seed"], []).extend(r["net_points"][s] for s in mine)
        wins += int(r["winner"] in mine)
        seat_rounds += len(mine)
    means = np.array([np.mean(v) for v in per_deal.values()])
    mean = float(means.mean())
    half = math.nan
    if means.size >= 2:
        half = z_value(confidence) * float(means.std(ddof=1)) / math.sqrt(means.size)
    return mean, (mean - half, mean + half), wins, seat_rounds


def format_table(result: dict[str, Any], confidence: float = 0.95) -> str:
    """The match's table: net points a round (per seat) and rounds won, with intervals (net
    points: normal, over the deals' means; rounds won: Wilson)."""
    s, rounds = result["settings"], result["rounds"]
    p = s["players"]
    rollout = "random" if s["rollout"] == "random" else f"{s['rollout']}"
    lines = [
        f"IS-MCTS ({s['simulations']} simulations, uct_c {s['uct_c']}, {rollout} play-outs x"
        f"{s['rollouts']}) against {s['pimc']}: preset {s['preset']}"
        f"{' ' + ';'.join(s['switches']) if s['switches'] else ''}, {p} players, "
        f"{len(rounds)} rounds ({len(rounds) // p} deals x {p} seatings), seed {s['seed']}",
        "",
        "| side | seats a round | net points a round (one seat) | rounds won |",
        "|---|---:|---:|---:|",
    ]
    for side, name in (("ismcts", "IS-MCTS"), ("pimc", "pimc")):
        mean, (low, high), wins, seat_rounds = _side_numbers(rounds, side, p, confidence)
        lo, hi = wilson_interval(wins, len(rounds), confidence)
        points = with_interval(mean, low, high, lambda v: f"{float(v):+.2f}")
        won = with_interval(wins / len(rounds), float(lo), float(hi))
        lines.append(f"| {name} | {seat_rounds // len(rounds)} | {points} | {won} |")
    thought = {k: sum(r["seconds"][k] for r in rounds) for k in ("ismcts", "pimc")}
    made = {k: sum(r["decisions"][k] for r in rounds) for k in ("ismcts", "pimc")}
    truncated = sum(r["truncated"] for r in rounds)
    lines += [
        "",
        f"{truncated} rounds truncated; {result['seconds']:.0f} s in all; a decision took "
        + ", ".join(
            f"{n} {thought[k] / max(made[k], 1):.2f} s"
            for k, n in (("ismcts", "IS-MCTS"), ("pimc", "pimc"))
        )
        + " on average",
    ]
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m uno_rl.eval.openspiel_versus",
        description="OpenSpiel's IS-MCTS against uno_rl's pimc on duplicate deals.",
    )
    parser.add_argument("--preset", default="official", help="rule preset (default official)")
    parser.add_argument("--players", type=int, default=2, help="players (default 2)")
    parser.add_argument(
        "--set", dest="switches", action="append", default=[], metavar="KEY=VALUE",
        help="a rule switch on top of the preset (repeatable)",
    )  # fmt: skip
    parser.add_argument("--rounds", type=int, default=20, help="rounds (default 20)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the deals and bots")
    parser.add_argument(
        "--simulations", type=int, default=100, help="IS-MCTS simulations a decision"
    )
    parser.add_argument("--uct-c", type=float, default=2.0, help="IS-MCTS exploration constant")
    parser.add_argument(
        "--rollout", default="color-first",
        help="IS-MCTS play-outs: random (OpenSpiel's) or a uno_rl agent (default color-first)",
    )  # fmt: skip
    parser.add_argument("--rollouts", type=int, default=1, help="play-outs a leaf (default 1)")
    parser.add_argument(
        "--pimc", default=None, help="the pimc agent's spec (default: pimc, for the returns)"
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.rounds < 1 or args.simulations < 1 or args.rollouts < 1:
        raise SystemExit("error: --rounds, --simulations and --rollouts must be at least 1")
    try:
        result = versus(
            args.preset, args.players, args.switches, args.rounds, args.seed, args.simulations,
            args.uct_c, args.rollout, args.rollouts, args.pimc, log=print,
        )  # fmt: skip
    except ValueError as error:  # bad rules, switches or agent specs: one line
        raise SystemExit(f"error: {error}") from None
    print(format_table(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
