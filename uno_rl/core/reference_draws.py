"""The reference game's cards that make other players draw, and the answers to them (a mixin
of :class:`~uno_rl.core.reference.ReferenceGame`): +2 and +4, Targeted +2 / +4, Downpour +1
/ +2, Hit 2, Wild Hit-Fire and Wild All Hit, and the dispenser they press. The executable
specification of the engine's :mod:`.draw_penalties` and :mod:`.dispenser`.

Decisions taken where the rules specification (docs/specification.md), section 11, is silent,
once, here:

* Downpour +1 / +2: every other player draws, in order of play from the next; nobody loses
  a turn. As a first card: every player but the dealer draws (from the first player on), and
  its color is named as for a Wild. A final Downpour is still drawn (it is a draw card).
* The dispenser: a press fires with ``dispenser_hazard[k]`` (k: presses since the last fire)
  and then shoots a count drawn from ``dispenser_count``, both from stream ``DISPENSER``
  indexed by the round's press number (``press_index``). With the dispenser on, a voluntary
  draw is one press and ends the turn, and a UNO penalty is 2 presses; every other draw of
  the rules (+2, +4, a challenge, a Downpour) takes cards from it without pressing.
  Without it, a press is a draw of one card and a Hit-Fire draws one fire's count.
* Hit 2 (two presses) and Wild Hit-Fire (presses until it fires) hit the next player, who
  loses the turn; Wild All Hit makes every other player press once, in order of play, and
  skips nobody. A final hit still hits. As a first card a Hit 2 or Hit-Fire hits the first
  player (who loses the turn; a Hit-Fire's color is named first, as for a Wild) and an All
  Hit every player but the dealer.
* Targeted +2 / +4: its player names the victim (the target phase, any other seat). The
  victim draws 2 (4); one who was next loses the turn, otherwise play goes on after the
  card's player. A Targeted +4 keeps the +4's legality and bluff: only its victim may
  challenge (section 5's outcomes; a caught bluffer's penalty as ``caught_bluffer``; play
  then goes on after the bluffer). No stacking on or with them, and a Wild does not cancel
  them. A final targeted card still asks for its victim, who still draws. As a first card
  a Targeted +2 hits the first player like a +2.

The card effects (``_draw_penalty``, ``_targeted``, ``_downpour``, ``_hits``) are entries of
the reference's table (:data:`uno_rl.core.reference.CARD_EFFECTS`, which says what they
return).
"""

from __future__ import annotations

import numpy as np

from . import rng
from .cards import DRAW_TWO_RANK, WILD_DRAW_FOUR
from .layout import (
    ALL_HIT,
    DOWNPOUR_ONE,
    DOWNPOUR_TWO,
    HIT_FIRE,
    HIT_TWO,
    TARGETED_FOUR,
    TARGETED_TWO,
)
from .phases import COLOR, PLAY, RESPOND
from .phases import TARGET as TARGET_PHASE


def is_draw_two(kind: int) -> bool:
    """A classic +2 (kinds 0 .. 51 are the classic colored cards in every layout)."""
    return kind < 52 and kind % 13 == DRAW_TWO_RANK


class ReferenceDrawPenalties:
    """Draw cards and their answers for :class:`ReferenceGame`."""

    # ------------------------------------------------------------ the card effects
    def _draw_penalty(self, seat: int, kind: int, rank: int, count: int):
        """A +4, or ``count`` +2s (2 each), add to the pending draw; the victim answers in
        the respond phase where the rules give a choice, or draws at once and loses the turn."""
        rules = self.rules
        self.pending += 4 if kind == WILD_DRAW_FOUR else 2 * count
        self.cause = seat
        victim = self._next(seat)
        can_respond = (
            rules.stacking != "none"
            or rules.wild_cancels_draw
            or (kind == WILD_DRAW_FOUR and rules.challenge_enabled)
            or rules.boomerangs
        )
        if can_respond:
            return victim, RESPOND
        self._draw(victim, self.pending)
        self.pending = 0
        return self._next(victim), PLAY

    def _targeted(self, seat: int, kind: int, rank: int, count: int):
        """A Targeted +2 / +4: its player chooses the victim (the target phase)."""
        self.actor, self.phase = seat, TARGET_PHASE

    def _downpour(self, seat: int, kind: int, rank: int, count: int):
        """Downpour +1 / +2: every other player draws; play goes on."""
        self._downpour_draws(seat, 1 if rank == DOWNPOUR_ONE else 2)
        return self._next(seat), PLAY

    def _hits(self, seat: int, kind: int, rank: int, count: int):
        """Hit 2 / Hit-Fire: the next player is hit and loses the turn; All Hit: every other
        player presses once."""
        if rank == ALL_HIT:
            for i in range(1, self.num_players):
                self._press(self._next(seat, i), 1)
            return self._next(seat), PLAY
        victim = self._next(seat)
        self._hit(victim, rank)
        return self._next(victim), PLAY

    # ---------------------------------------------------------------- drawing
    def _downpour_draws(self, seat: int, amount: int, final: bool = False) -> None:
        """Every other player draws ``amount``, in order of play from ``seat``'s next
        (``downpour_includes_self``: ``seat`` too, last, unless it was their ``final``
        card); nobody loses a turn."""
        p = self.num_players
        victims = [self._next(seat, i) for i in range(1, p)]
        if self.rules.downpour_includes_self and not final:
            victims.append(seat)
        for victim in victims:
            self._draw(victim, amount)

    def _press(self, seat: int, presses: int) -> None:
        """``seat`` presses the dispenser ``presses`` times (without one: draws as many).

        Press number ``press_index`` of the round fires when
        ``uniform(key, DISPENSER, press_index, 0) < dispenser_hazard[presses so far]``; a fire
        shoots ``1 + searchsorted(cumsum(dispenser_count), uniform(..., 1), 'right')`` cards.
        """
        if not self.rules.dispenser_on:
            self._draw(seat, presses)
            return
        hazard = self.rules.dispenser_hazard
        for _ in range(presses):
            u = float(rng.uniform(self.key, rng.DISPENSER, self.press_index, 0))
            if u < hazard[min(self.presses, len(hazard) - 1)]:
                self._draw(seat, self._fire_count())
                self.presses = 0
            else:
                self.presses += 1
                self.press_index += 1

    def _fire_count(self) -> int:
        """Cards shot by the fire of press ``press_index`` (which it uses up)."""
        u = rng.uniform(self.key, rng.DISPENSER, self.press_index, 1)
        cdf = np.cumsum(self.rules.dispenser_count)
        self.press_index += 1
        return int(min(np.searchsorted(cdf, float(u), side="right"), len(cdf) - 1)) + 1

    def _hit(self, victim: int, rank: int) -> None:
        """A Hit 2 (two presses) or a Wild Hit-Fire (presses until it fires; without a
        dispenser: draws what one fire shoots) on ``victim``."""
        if rank == HIT_TWO:
            self._press(victim, 2)
        elif not self.rules.dispenser_on:
            self._draw(victim, self._fire_count())
        else:
            hazard = self.rules.dispenser_hazard
            while True:  # the last hazard is 1: at most len(hazard) presses
                u = float(rng.uniform(self.key, rng.DISPENSER, self.press_index, 0))
                if u < hazard[min(self.presses, len(hazard) - 1)]:
                    self._draw(victim, self._fire_count())
                    self.presses = 0
                    return
                self.presses += 1
                self.press_index += 1

    # ----------------------------------------------------------- the answers
    def _challenge(self, seat: int) -> None:
        """``seat`` challenges the +4 (or Targeted +4) of ``draw4_player``."""
        bluffer = self.draw4_player
        self.stats["challenges"][seat] += 1
        self.stats["draw4_challenged"][bluffer] += 1
        self.revealed = list(self.hands[bluffer])
        self.reveal_viewer, self.reveal_target = seat, bluffer
        if self.draw4_bluff:
            self.stats["challenges_won"][seat] += 1
            self.stats["bluffs_caught"][bluffer] += 1
            if self.rules.caught_bluffer == "takes-back":  # the +4 (or Targeted +4) goes back
                self.hands[bluffer][self.top] += 1
                self.discard[self.top] -= 1
                self.top, self.color = self.prev_top, self.prev_color
                self.prev_top = -1  # nothing lies under the restored card that could come back
            if self.rules.caught_bluffer == "loses-turn" and self.hand_size(bluffer):
                self.skip_turn[bluffer] += 1  # draws nothing, loses the next turn
            else:  # draws-4, takes-back, or a loses-turn bluffer caught on their last card
                self._draw(bluffer, self.pending)
            self.pending = 0
            self._start_turn(self._next(bluffer))  # the challenger, if they were next
        else:
            self._draw(seat, self.pending + 2)
            self.pending = 0
            self._after_penalty(self._after_victim(seat))

    def _target_draw(self, seat: int, victim: int) -> None:
        """A Targeted +2 / +4 of ``seat`` on ``victim``: they answer (a challenge of the
        +4, a Boomerang) where they can, or draw at once; if they were next they lose the
        turn, otherwise play goes on after ``seat``. A final card's round then ends."""
        self.pending = 2 if self.rules.effect_rank[self.top] == TARGETED_TWO else 4
        self.cause = seat
        final = self.hand_size(seat) == 0
        challenge = self.pending == 4 and self.rules.challenge_enabled
        if challenge or (self.rules.boomerangs and not final):
            self.actor, self.phase = victim, RESPOND
            return
        self._draw(victim, self.pending)
        self.pending = 0
        if final:
            self._end_round(seat)
        else:
            self._end_turn(seat, self._after_victim(victim), PLAY)

    # ------------------------------------------------------- last and first cards
    def _play_last_card(self, seat: int, kind: int) -> None:
        """``seat`` emptied their hand with ``kind``: a final draw card still acts (rules
        specification §7: its victims still draw; a final +4 may be challenged first, a
        targeted draw asks for its victim first), then the round ends."""
        victim = self._next(seat)
        if kind == WILD_DRAW_FOUR and self.rules.challenge_enabled and self.pending == 0:
            self.pending = 4
            self.actor, self.phase = victim, RESPOND
            return
        if kind == WILD_DRAW_FOUR or is_draw_two(kind):
            self._draw(victim, self.pending + (4 if kind == WILD_DRAW_FOUR else 2))
            self.pending = 0
        rank = int(self.rules.effect_rank[kind])
        if rank in (TARGETED_TWO, TARGETED_FOUR):
            self.actor, self.phase = seat, TARGET_PHASE
            return  # its victim is still to be chosen
        if rank in (DOWNPOUR_ONE, DOWNPOUR_TWO):
            self._downpour_draws(seat, 1 if rank == DOWNPOUR_ONE else 2, final=True)
        elif rank in (HIT_TWO, HIT_FIRE):
            self._hit(self._next(seat), rank)
        elif rank == ALL_HIT:
            for i in range(1, self.num_players):
                self._press(self._next(seat, i), 1)
        self._end_round(seat)

    def _first_card_draws(self, top: int, first: int, dealer: int) -> None:
        """An extended draw card turned first: a Downpour makes every player but the dealer
        draw and an All Hit every player but the dealer press (from the first player on); a
        Hit 2 or Hit-Fire hits the first player, who loses the turn."""
        p, rank = self.num_players, int(self.layout.kind_rank[top])
        if rank in (DOWNPOUR_ONE, DOWNPOUR_TWO):
            for j in range(1, p):
                self._draw((dealer + j) % p, 1 if rank == DOWNPOUR_ONE else 2)
        elif rank == ALL_HIT:
            for j in range(1, p):
                self._press((dealer + j) % p, 1)
        elif rank == TARGETED_TWO:  # hits the first player like a +2
            self._draw(first, 2)
            if self.rules.first_draw_two_skips:
                self.actor = self._next(first)
        elif rank in (HIT_TWO, HIT_FIRE):
            self._hit(first, rank)
            if self.phase == COLOR:  # play starts after the color is named
                self.resume_actor = self._next(first)
            else:
                self.actor = self._next(first)
