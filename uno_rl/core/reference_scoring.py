"""The reference game's close of a step (a mixin of :class:`~uno_rl.core.reference.ReferenceGame`):
a caught bluffer's or a returned Skip's lost turn, truncation, the round's scoring and
rewards, the match's scores, its next round and its winner; and :class:`StepOutcome`, what a
step produced (the batched engine's ``StepResult`` row).
"""

from __future__ import annotations

import dataclasses

from . import rng
from .phases import OVER, PLAY


@dataclasses.dataclass
class StepOutcome:
    """One step's result for one game (the engine's ``StepResult`` row)."""

    rewards: list[float]
    round_over: bool = False
    truncated: bool = False
    match_over: bool = False
    winner: int = -1
    points: int = 0
    net_points: list[int] | None = None
    decisions: int = 0
    draw4_plays: list[int] | None = None
    bluffs: list[int] | None = None
    challenges: list[int] | None = None
    challenges_won: list[int] | None = None
    draw4_challenged: list[int] | None = None
    bluffs_caught: list[int] | None = None


class ReferenceScoring:
    """Scoring and the match for :class:`ReferenceGame`."""

    def _close_step(self) -> StepOutcome:
        """What this step produced; also truncation, match scoring and a match's next round."""
        p, rules = self.num_players, self.rules
        while self.phase == PLAY and self.skip_turn[self.actor]:  # a caught bluffer's lost turn
            self.skip_turn[self.actor] -= 1
            self.actor = self._next(self.actor)
        self.turn += 1
        outcome = StepOutcome(rewards=[0.0] * p)
        if self.phase != OVER and self.turn >= rules.max_turns:
            self.truncated = True
            self.phase = OVER
        if self.phase != OVER:
            return outcome
        outcome.round_over, outcome.truncated = True, self.truncated
        outcome.winner, outcome.decisions = self.winner, self.turn
        for name, values in self.stats.items():
            setattr(outcome, name, list(values))
        if self.winner >= 0:
            points = [
                sum(h * int(v) for h, v in zip(self.hands[s], self.layout.kind_points))
                for s in range(p)
            ]
            total = sum(points)
            outcome.points = total
            outcome.net_points = [total if s == self.winner else -points[s] for s in range(p)]
            for s in range(p):
                if rules.reward == "win-loss":
                    outcome.rewards[s] = 1.0 if s == self.winner else -1.0 / (p - 1)
                else:
                    outcome.rewards[s] = float(total) if s == self.winner else -float(points[s])
            if rules.scoring == "winner-takes":
                self.scores[self.winner] += total
            elif rules.scoring == "losers-add":
                for s in range(p):
                    if s != self.winner:
                        self.scores[s] += points[s]
            else:
                self.scores[self.winner] += 1
        if rules.match:
            if rules.match_rounds:  # a fixed number of rounds, truncated ones included
                decided = self.round_index + 1 >= rules.match_rounds
            else:
                decided = max(self.scores) >= rules.match_target
            if decided:
                self.match_over = outcome.match_over = True
            else:
                seed = int(rng.bits(self.key, rng.NEXT_ROUND, 0, 0))
                dealer = (self.dealer + 1) % p if rules.dealer == "rotate" else None
                self.round_index += 1
                self._deal(seed, dealer)
        return outcome

    def match_winner(self) -> int:
        """The match's winner, -1 while nobody has reached the target (under
        ``match_rounds``: until the last round is over)."""
        if self.rules.match_rounds:
            if not self.match_over:
                return -1
        elif max(self.scores) < self.rules.match_target:
            return -1
        if self.rules.scoring == "losers-add":
            return min(range(self.num_players), key=lambda s: (self.scores[s], s))
        return max(range(self.num_players), key=lambda s: (self.scores[s], -s))
