"""The reference game's cards of rules specification §11 (a mixin of
:class:`~uno_rl.core.reference.ReferenceGame`): the executable specification of their effects.

Decisions taken where the rules specification (docs/specification.md), section 11, is silent,
once, here:

* A Wild Customizable is a plain Wild, or has the effect of ``customizable_as``; as a first
  card it is always a plain Wild.
* Downpour +1 / +2: every other player draws, in order of play from the next; nobody loses
  a turn. As a first card: every player but the dealer draws (from the first player on), and
  its color is named as for a Wild. A final Downpour is still drawn (it is a draw card).
* Wild Shuffle Hands: the cards of every hand, listed in kind order, are shuffled by stream
  ``SHUFFLE_HANDS`` (index: the decision number) and dealt one at a time from the player's
  left (clockwise); a player dealt no card has won (the first such in dealing order). The
  revealed hand and the last swap are forgotten.
* Wild Swap Hands: the player names a seat (the target phase, the seat actions); with
  nobody to choose (everyone else in UNO under ``swap_excludes_uno``) it is a plain Wild.
  A swap (of a Swap Hands or of a 7 under seven-zero) records both hands in the extended
  layout. A Shuffle or Swap Hands that empties its player's hand wins without its effect.
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
* Discard All: every other card of its color leaves the hand for the discard pile, under
  it (none has an effect); emptying the hand so wins. Under ``discard_all_may_go_out =
  false`` a hand made only of that color keeps the card of its lowest kind.
* Targeted +2 / +4: its player names the victim (the target phase, any other seat). The
  victim draws 2 (4); one who was next loses the turn, otherwise play goes on after the
  card's player. A Targeted +4 keeps the +4's legality and bluff: only its victim may
  challenge (section 5's outcomes; a caught bluffer's penalty as ``caught_bluffer``; play
  then goes on after the bluffer). No stacking on or with them, and a Wild does not cancel
  them. A final targeted card still asks for its victim, who still draws. As a first card
  a Targeted +2 hits the first player like a +2.
* Boomerang (decks holding it): every Skip, +2, +4 and targeted draw puts its victim in the
  respond phase, whether or not they hold one (so the decision shows nothing), where they
  accept or play the Boomerang: the pending draw goes back to the card's player (``cause``),
  who draws it (a returned +4 is not challenged), or a returned Skip costs them their next
  turn (as a caught ``loses-turn`` bluffer). The color stays; play goes on after the
  Boomerang's player. Combinations of n Skips (``multi_play_actions``) are not answered, nor
  are final cards (a final Boomerang still sends the draw back, then wins).
"""

from __future__ import annotations

import numpy as np

from . import rng
from .layout import (
    ALL_HIT,
    DOWNPOUR_ONE,
    DOWNPOUR_TWO,
    HIT_FIRE,
    HIT_TWO,
    SHUFFLE_HANDS,
    SWAP_HANDS,
    TARGETED_FOUR,
    TARGETED_TWO,
)
from .phases import COLOR, PLAY, RESPOND
from .phases import TARGET as TARGET_PHASE


class ReferenceNewCards:
    """Effects of the section-11 cards for :class:`ReferenceGame`."""

    def _new_card(self, seat: int, rank: int) -> None:
        """The effect of a section-11 card (``rank`` its effect's symbol) played by ``seat``."""
        if rank in (DOWNPOUR_ONE, DOWNPOUR_TWO):
            self._downpour(seat, 1 if rank == DOWNPOUR_ONE else 2)
        elif rank in (HIT_TWO, HIT_FIRE):  # the next player is hit and loses the turn
            victim = self._next(seat)
            self._hit(victim, rank)
            self._end_turn(seat, self._next(victim), PLAY)
            return
        elif rank == ALL_HIT:
            for i in range(1, self.num_players):
                self._press(self._next(seat, i), 1)
        elif rank in (TARGETED_TWO, TARGETED_FOUR):
            self.actor, self.phase = seat, TARGET_PHASE  # its player chooses the victim
            return
        elif rank == SHUFFLE_HANDS:
            if self._shuffle_hands(seat):
                return  # a hand came out empty: the round is over
        elif rank == SWAP_HANDS and self._swap_targets(seat):
            self._end_turn(seat, seat, TARGET_PHASE)  # its player chooses whom to swap with
            return
        self._end_turn(seat, self._next(seat), PLAY)

    def _downpour(self, seat: int, amount: int, final: bool = False) -> None:
        """Every other player draws ``amount``, in order of play from ``seat``'s next
        (``downpour_includes_self``: ``seat`` too, last, unless it was their ``final``
        card); nobody loses a turn."""
        p = self.num_players
        victims = [self._next(seat, i) for i in range(1, p)]
        if self.rules.downpour_includes_self and not final:
            victims.append(seat)
        for victim in victims:
            self._draw(victim, amount)

    def _shuffle_hands(self, seat: int) -> bool:
        """Gather every hand, shuffle (stream SHUFFLE_HANDS, this decision's number) and deal
        one card at a time from ``seat``'s left (clockwise). What was seen of other hands is
        gone. True when a hand comes out empty: the first such seat (in dealing order) wins."""
        p, kinds = self.num_players, self.layout.num_kinds
        cards = sorted(k for hand in self.hands for k in range(kinds) for _ in range(hand[k]))
        self.hands = [[0] * kinds for _ in range(p)]
        for j, card in enumerate(self._shuffled(cards, rng.SHUFFLE_HANDS, self.turn)):
            self.hands[(seat + 1 + j) % p][card] += 1
        self.shuffled = True
        self.revealed = [0] * kinds
        self.reveal_viewer, self.reveal_target = -1, -1
        self.swap_seats = [-1, -1]
        self.swap_given = [[0] * kinds, [0] * kinds]
        empty = [(seat + 1 + j) % p for j in range(p) if not self.hand_size((seat + 1 + j) % p)]
        if empty:
            self._end_round(empty[0])
        return bool(empty)

    def _swap_targets(self, seat: int) -> list[int]:
        """Seat offsets (1 .. P-1, clockwise) ``seat`` may swap hands with: under
        ``swap_excludes_uno``, nobody holding one card (a Swap Hands with no target is a Wild)."""
        offsets = range(1, self.num_players)
        if not self.rules.swap_excludes_uno:
            return list(offsets)
        return [k for k in offsets if self.hand_size((seat + k) % self.num_players) != 1]

    def _swap(self, seat: int, target: int) -> None:
        """``seat`` and ``target`` exchange hands (a 7 or a Swap Hands); in the extended
        layout both hands are remembered (``swap_seats``, ``swap_given``)."""
        if self.layout.name != "classic":
            self.swap_seats = [seat, target]
            self.swap_given = [list(self.hands[seat]), list(self.hands[target])]
        self.hands[seat], self.hands[target] = self.hands[target], self.hands[seat]

    # ------------------------------------------------------------ the extreme cards
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

    def _discard_all(self, seat: int, kind: int) -> None:
        """A Discard All: every other card of its color goes onto the discard pile under it
        (no effect); under ``discard_all_may_go_out = false`` a hand made only of that color
        keeps its lowest kind."""
        hand, colors = self.hands[seat], self.layout.kind_color
        shed = [k for k in range(len(hand)) if colors[k] == colors[kind] for _ in range(hand[k])]
        if not self.rules.discard_all_may_go_out and len(shed) == self.hand_size(seat) and shed:
            shed = shed[1:]
        for k in shed:
            hand[k] -= 1
            self.discard[k] += 1

    def _final_new_card(self, seat: int, rank: int) -> bool:
        """What a section-11 card that emptied ``seat``'s hand still does: a Downpour is
        drawn, a hit hits (rules specification §7: a final draw card's victims still draw), a
        targeted draw asks for its victim first (True: the round is not over yet)."""
        if rank in (TARGETED_TWO, TARGETED_FOUR):
            self.actor, self.phase = seat, TARGET_PHASE
            return True
        if rank in (DOWNPOUR_ONE, DOWNPOUR_TWO):
            self._downpour(seat, 1 if rank == DOWNPOUR_ONE else 2, final=True)
        elif rank in (HIT_TWO, HIT_FIRE):
            self._hit(self._next(seat), rank)
        elif rank == ALL_HIT:
            for i in range(1, self.num_players):
                self._press(self._next(seat, i), 1)
        return False

    def _first_card_new(self, top: int, first: int, dealer: int) -> None:
        """A first card of section 11: a Downpour makes every player but the dealer draw
        and an All Hit every player but the dealer press (from the first player on); a Hit 2
        or Hit-Fire hits the first player, who loses the turn."""
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

    # ----------------------------------------------- targeted draws and the Boomerang
    def _after_victim(self, victim: int) -> int:
        """Who plays once ``victim`` has taken a pending draw or Skip of ``cause``: the seat
        after the victim if they were next, else the seat after ``cause`` (play goes on)."""
        return self._next(victim) if victim == self._next(self.cause) else self._next(self.cause)

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

    def _boomerang(self) -> None:
        """A Boomerang just played by the victim: the pending draw goes back to ``cause``
        (who draws it, unchallengeable), or a pending Skip costs ``cause`` their next turn."""
        if self.pending:
            self._draw(self.cause, self.pending)
            self.pending = 0
        else:
            self.skip_turn[self.cause] += 1
