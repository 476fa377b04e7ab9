"""How fast a line-up plays, measured in a fraction of a second (for :mod:`.estimate`).

Games are played in lockstep (:func:`~uno_rl.eval.jobs.play_jobs`): every step, each live
game takes one decision. A step costs a fixed part (the engine's and the agents' calls) and a
part per live game, so a chunk of ``N`` games played ``W`` at a time, ``L`` decisions each,
takes about::

    step_seconds * steps + decision_seconds * N * L,  steps = N / W * L + TAIL_ROUNDS * R

(``R`` decisions a round: the last, longest games of a chunk play on at a narrowing width).
:func:`measure` times two short probes of the line-up on the run's own deals: a few games at
once (the fixed part, and how long a game is) and a real chunk's full width, cut after a few
steps (the part per game). When the line-up is too slow to finish a round in its probe, the
length of a round is taken from copies of ``color-first`` under the same rules; a match's
rounds from the points the probes' rounds gave each seat (:func:`_rounds_per_game`).
"""

from __future__ import annotations

import dataclasses
import math
import statistics
import time
from collections.abc import Sequence

import numpy as np

from uno_rl.agents import make_agent
from uno_rl.core.rules import Rules

from .jobs import play_jobs
from .tournament import Chunk

__all__ = ["TAIL_ROUNDS", "Speed", "measure"]

#: Rounds' worth of steps the longest games of a chunk add after the others have ended.
TAIL_ROUNDS = 6
#: Games of the small probe (its width).
PROBE_GAMES = 64
#: Games of the first probe of a line-up with a search agent.
SEARCH_PROBE_GAMES = 8
#: Each probe stops after about this long (and a step or two).
PROBE_SECONDS = 0.25
#: A seat's points a round when no probe saw a round end.
FALLBACK_POINTS_PER_ROUND = 30.0
#: The agents whose games measure a round's length when the line-up's own are too slow.
PROXY_AGENT = "color-first"


@dataclasses.dataclass(frozen=True)
class Speed:
    """How fast a line-up plays under some rules (see the module docstring)."""

    step_seconds: float
    decision_seconds: float
    decisions_per_round: float
    #: 1, or the rounds of a match
    rounds_per_game: float

    @property
    def decisions_per_game(self) -> float:
        return self.decisions_per_round * self.rounds_per_game

    def chunk_seconds(self, games: int, width: int) -> float:
        """Seconds to play a chunk of ``games`` games (rounds, or matches), ``width`` at once."""
        length = self.decisions_per_game
        steps = games / max(1, width) * length + TAIL_ROUNDS * self.decisions_per_round
        return self.step_seconds * steps + self.decision_seconds * games * length


class _Stop(Exception):
    """Ends a probe (raised by its observer)."""


@dataclasses.dataclass
class _Probe:
    """What a probe saw: each step's seconds and width, the rounds ended,
    decisions taken, and (matches) the points of each round."""

    games: int
    seconds: list[float] = dataclasses.field(default_factory=list)
    widths: list[int] = dataclasses.field(default_factory=list)
    rounds: int = 0
    decisions: int = 0
    #: (k, P) points each seat scored in each round that ended (matches)
    points: list[np.ndarray] = dataclasses.field(default_factory=list)


def _probe(
    rules: Rules, lineup: Sequence[str], chunk: Chunk, games: int, min_steps: int = 2
) -> _Probe:
    """Play the first ``games`` games of ``chunk`` all at once, for about
    :data:`PROBE_SECONDS` (at least ``min_steps`` timed steps) or until they end."""
    agents = {spec: make_agent(spec, rules) for spec in dict.fromkeys(lineup)}
    deals = max(1, math.ceil(games / rules.players))
    seeds = chunk.deal_seeds()[:deals]
    seen = _Probe(deals * rules.players)
    clock: list[float] = []
    last: list[np.ndarray] = []

    def observe(state, live, masks, positions, actions) -> None:
        now = time.perf_counter()
        if clock:
            seen.seconds.append(now - clock[-1])
        clock.append(now)
        seen.widths.append(int(live.size))
        seen.decisions += int(live.size)
        if rules.match:  # scores change when a round ends: keep each round's points
            if last:
                index, scores, over = last
                ended = (state.round_index != index) | (state.match_over & ~over)
                seen.rounds += int(ended.sum())
                if ended.any():
                    seen.points.append(state.scores[ended] - scores[ended])
            last[:] = [state.round_index.copy(), state.scores.copy(), state.match_over.copy()]
        if now - clock[0] >= PROBE_SECONDS and len(clock) > min_steps:
            raise _Stop

    def finished(count: int) -> None:
        if not rules.match:  # (matches: their rounds are counted as they end)
            seen.rounds += count

    try:
        play_jobs(
            rules,
            [agents[spec] for spec in lineup],
            seeds,
            chunk.agent_generator(),
            slots=deals * rules.players,
            on_finished=finished,
            observer=observe,
        )
    except _Stop:
        pass
    seen.widths = seen.widths[: len(seen.seconds)]  # the last step was not timed to its end
    return seen


def _step_costs(small: _Probe, full: _Probe | None) -> tuple[float, float]:
    """(seconds a step, seconds a decision) from the probes' steps: the medians of each
    probe's steps (the first of them, which warm up caches and lazy imports, left out when
    there are more)."""
    if not small.seconds:
        return 0.0, 0.0
    t_small, w_small = _median_step(small)
    if full is None or not full.seconds or full.widths[0] <= w_small:
        return 0.0, t_small / max(1.0, w_small)
    t_full, w_full = _median_step(full)
    per_decision = max(0.0, (t_full - t_small) / (w_full - w_small))
    return max(0.0, t_small - per_decision * w_small), per_decision


def _median_step(probe: _Probe) -> tuple[float, float]:
    """(seconds, width) of a probe's median step, its first step left out when it has more."""
    skip = 1 if len(probe.seconds) > 1 else 0
    return statistics.median(probe.seconds[skip:]), statistics.median(probe.widths[skip:])


def measure(
    rules: Rules, lineup: Sequence[str], chunk: Chunk, width: int, searching: bool
) -> Speed:
    """The :class:`Speed` of ``lineup`` under ``rules``, probed on ``chunk``'s deals; the run
    plays ``width`` games at once. ``searching`` (a search agent seated): a narrower first
    probe of one timed step, and no full-width one (a step of hundreds of searches takes
    seconds, and their cost is per decision anyway)."""
    if searching:
        small = _probe(rules, lineup, chunk, SEARCH_PROBE_GAMES, min_steps=1)
        full = None
    else:
        small = _probe(rules, lineup, chunk, PROBE_GAMES, min_steps=4)
        full = _probe(rules, lineup, chunk, width, min_steps=3)
    step, decision = _step_costs(small, full)
    lengths = small
    if small.rounds < small.games / 2:  # too slow to finish its rounds: a cheap line-up's
        lengths = _probe(rules, (PROXY_AGENT,) * rules.players, chunk, PROBE_GAMES)
    per_round = lengths.decisions / max(1, lengths.rounds)
    points = small.points + lengths.points if lengths is not small else small.points
    return Speed(step, decision, per_round, _rounds_per_game(rules, points))


#: The expected largest of P independent standard normal draws, P = 2 to 10.
_EXPECTED_MAX_NORMAL = {
    2: 0.5642, 3: 0.8463, 4: 1.0294, 5: 1.1630, 6: 1.2672, 7: 1.3522, 8: 1.4236, 9: 1.4850,
    10: 1.5388,
}  # fmt: skip


def _rounds_per_game(rules: Rules, points: list[np.ndarray]) -> float:
    """1 for single rounds; for a match, its fixed rounds, or the rounds ``k`` after which
    the leading score reaches the target: ``mu k + c sigma sqrt(k) = target``, with ``mu`` and
    ``sigma`` a seat's mean and spread of points a round (from the probes' ``points``; at
    least one round) and ``c`` the expected largest of ``P`` standard normal draws."""
    if not rules.match:
        return 1.0
    if rules.match_rounds:
        return float(rules.match_rounds)
    seen = np.concatenate(points) if points else np.zeros((0, rules.players))
    mu = float(seen.mean()) if seen.size else 0.0
    if mu <= 0:  # no round ended in the probes
        return max(1.0, rules.match_target / FALLBACK_POINTS_PER_ROUND)
    spread = _EXPECTED_MAX_NORMAL[rules.players] * float(seen.std())
    root = (-spread + math.sqrt(spread**2 + 4 * mu * rules.match_target)) / (2 * mu)
    return max(1.0, root**2)
