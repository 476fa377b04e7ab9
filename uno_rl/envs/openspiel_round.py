"""A round as OpenSpiel plays it: decisions and chance nodes in turn (no pyspiel needed).

:class:`ChanceRound` holds a :class:`~uno_rl.envs.openspiel_chance.ChanceGame` and what is
under way. A decision (or the deal) is played from the position before it with a
:class:`~uno_rl.envs.openspiel_chance.ReplayChance` holding the chance outcomes given so
far; when that runs out, the round stands at a chance node (:attr:`ChanceRound.request`)
until the next outcome is given, and the decision is played again from the same position
with one outcome more. So the random events of a decision (the cards of a draw, a refill of
the pile, the dispenser) are chance nodes one by one, in the order the rules meet them,
while the rules stay the reference's own code (a decision with k chance nodes is played
k + 1 times: a draw of one card, twice).

:meth:`ChanceRound.observe` is the seat's uno_rl observation vector
(:func:`uno_rl.core.observe.observe`'s layout; during the deal only the seat's hand so far);
:meth:`ChanceRound.describe` a short readable line of it ending in a digest of the whole
vector; :meth:`ChanceRound.resampled` a copy with everything the seat cannot see drawn afresh
(:func:`uno_rl.agents.determinize.determinize`); :meth:`ChanceRound.playout_game` the
position as a plain one-game implementation for fast play-outs.
"""

from __future__ import annotations

import hashlib

import numpy as np

from uno_rl.agents.determinize import determinize
from uno_rl.core import rng
from uno_rl.core.cards import COLOR_NAMES
from uno_rl.core.convert import to_reference, to_state
from uno_rl.core.phases import OVER, PHASE_NAMES
from uno_rl.core.rng import new_seeds
from uno_rl.core.rules import Rules
from uno_rl.core.scalar import ScalarGame

from .openspiel_chance import ChanceGame, ChanceRequest, NeedChance, ReplayChance, choice_request

__all__ = ["ChanceRound"]


class ChanceRound:
    """One round of ``rules``: at a chance node (:attr:`request` set), a decision
    (:attr:`actor`) or over (:attr:`over`).

    A stored game is never changed (every event plays a copy of the position it starts
    from), so copies of a round share them.

    Attributes:
        game: the round after the last completed event; at a chance node, the position as
            far as the pending event got (what the seats see meanwhile).
        request: the open chance node's :class:`~uno_rl.envs.openspiel_chance.ChanceRequest`,
            or None.
        rewards: (P,) the round's rewards once it is over (the engine's), else None.
    """

    def __init__(self, rules: Rules):
        if rules.match:
            raise ValueError(
                "a round of OpenSpiel is a single round: match rules are not supported"
            )
        self.rules = rules
        self.game: ChanceGame | None = None
        self.before: ChanceGame | None = None  # the position the pending decision is played from
        self.action: int | None = None  # the pending decision (None: the deal)
        self.outcomes: list[int] = []  # the chance outcomes given to the pending event
        # The deal opens with the dealer (the first random event of the rules' deal).
        self.request: ChanceRequest | None = choice_request(rules, rng.DEALER)
        self.rewards: list[float] | None = None

    # -------------------------------------------------------------- progress
    @property
    def over(self) -> bool:
        return self.request is None and self.game is not None and self.game.phase == OVER

    @property
    def actor(self) -> int:
        """The seat to decide (-1 at a chance node or once over)."""
        if self.request is not None or self.over:
            return -1
        return self.game.actor

    def legal_actions(self) -> list[int]:
        """The actor's legal action ids, ascending."""
        return sorted(self.game.legal_actions())

    def apply_outcome(self, outcome: int) -> None:
        """Give the open chance node ``outcome``."""
        if self.request is None:
            raise ValueError("no chance node is open")
        if outcome not in self.request.outcomes:
            raise ValueError(
                f"chance outcome {outcome} is not one of {list(self.request.outcomes)}"
            )
        self.outcomes.append(int(outcome))
        self._play()

    def apply_action(self, action: int) -> None:
        """The actor plays ``action`` (ValueError for an illegal one)."""
        if self.request is not None or self.over:
            raise ValueError("no decision is open")
        self.before, self.action, self.outcomes = self.game, int(action), []
        self._play()

    def _play(self) -> None:
        """The pending event from its start, with the outcomes given so far."""
        source = ReplayChance(self.outcomes)
        try:
            if self.action is None:
                game = ChanceGame(self.rules, source)
                outcome = None
            else:
                game = self.before.clone(source)
                outcome = game.step(self.action)
        except NeedChance as need:
            self.game, self.request = need.game, need.request
            return
        self.game, self.request = game, None
        self.before, self.action, self.outcomes = None, None, []
        if outcome is not None and outcome.round_over:
            self.rewards = list(outcome.rewards)

    def returns(self) -> list[float]:
        """The round's rewards once over, zeros before."""
        if self.rewards is None:
            return [0.0] * self.rules.players
        return list(self.rewards)

    # ----------------------------------------------------------------- views
    def _dealing(self) -> bool:
        return self.game is None or not hasattr(self.game, "phase")

    def observe(self, seat: int) -> np.ndarray:
        """(O,) float32: the seat's uno_rl observation (O: ``rules.layout.obs_size``); while
        the cards are dealt, only its hand so far."""
        if self._dealing():
            obs = np.zeros(self.rules.layout.obs_size, np.float32)
            if self.game is not None:
                obs[self.rules.layout.slices["hand"]] = self.game.hands[seat]
            return obs
        return self.game.observe(seat)

    def describe(self, seat: int) -> str:
        """A short line of what ``seat`` sees, ending in a digest of its observation vector
        (two lines are equal exactly when the vectors are)."""
        digest = hashlib.blake2b(self.observe(seat).tobytes(), digest_size=6).hexdigest()
        if self._dealing():
            return f"P{seat} dealing hand:{self._cards(seat)} #{digest}"
        g = self.game
        color = COLOR_NAMES[g.color] if g.color >= 0 else "none"
        actor = "-" if g.phase == OVER else f"P{g.actor}"
        sizes = " ".join(str(g.hand_size(s)) for s in range(g.num_players))
        return (
            f"P{seat} t{g.turn} {PHASE_NAMES[g.phase]} actor:{actor} "
            f"top:{self.rules.layout.card_name(g.top)} color:{color} "
            f"dir:{'+' if g.direction > 0 else '-'} pending:{g.pending} "
            f"hand:{self._cards(seat)} sizes:{sizes} pile:{len(g.pile)} #{digest}"
        )

    def _cards(self, seat: int) -> str:
        if self.game is None:
            return ""
        name = self.rules.layout.card_name
        hand = self.game.hands[seat]
        return ",".join(name(k) for k in range(len(hand)) for _ in range(hand[k]))

    def __str__(self) -> str:
        if self.game is None:
            return "dealing"
        g = self.game
        hands = " | ".join(f"P{s}: {self._cards(s)}" for s in range(g.num_players))
        top = self.rules.layout.card_name(g.top) if not self._dealing() else "-"
        pending = f" (chance: {len(self.request.outcomes)} outcomes)" if self.request else ""
        return f"top {top}; {hands}; pile {len(g.pile)}{pending}"

    # ------------------------------------------------------------ copies
    def __deepcopy__(self, memo) -> ChanceRound:
        """A copy (OpenSpiel's ``clone``): the games are shared, never changed once stored
        (every event plays a copy of the position it starts from)."""
        new = object.__new__(ChanceRound)
        new.__dict__.update(self.__dict__)
        new.outcomes = list(self.outcomes)
        new.rewards = None if self.rewards is None else list(self.rewards)
        return new

    def playout_game(self, generator: np.random.Generator) -> ScalarGame:
        """This decision's position as a plain :class:`~uno_rl.core.scalar.ScalarGame` whose
        random events follow the rules from here as the chance nodes would (the draw pile in
        a uniformly random order, a fresh deal seed for the later ones): fast play-outs."""
        if self.request is not None:
            raise ValueError("a play-out starts at a decision, not at a chance node")
        game = object.__new__(ScalarGame)
        fields = self.game.clone().__dict__
        del fields["source"]
        pile = fields.pop("_pile")
        game.__dict__.update(fields)
        game.pile = [pile[i] for i in generator.permutation(len(pile))]
        game.key = int(new_seeds(generator, 1)[0])
        return game

    def resampled(self, seat: int, generator: np.random.Generator) -> ChanceRound:
        """A copy at this decision of ``seat`` in which everything it cannot see (the other
        hands, the draw pile, hidden records) is drawn afresh, consistent with its view: the
        other hands keep their sizes and take the unseen cards uniformly
        (:func:`uno_rl.agents.determinize.determinize`; nothing is inferred from how the
        others played). Its observation, hence :meth:`describe`, is unchanged."""
        if self.actor != seat:
            raise ValueError(f"a resample is drawn at a decision of the seat (P{seat})")
        state = to_state([self.game])
        world = determinize(state, np.zeros(1, np.int64), np.array([seat]), 1, generator)
        new = object.__new__(ChanceRound)
        new.__dict__.update(self.__dict__)
        new.game = ChanceGame.adopt(to_reference(world, 0), ReplayChance())
        new.outcomes = []
        return new
