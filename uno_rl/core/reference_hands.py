"""The reference game's cards that change whole hands: the 7 and 0 of seven-zero, Wild Swap
Hands, Wild Shuffle Hands and Discard All (a mixin of
:class:`~uno_rl.core.reference.ReferenceGame`); the executable specification of the
engine's :mod:`.hand_changes`.

Decisions taken where the rules specification (docs/specification.md), section 11, is silent,
once, here:

* Wild Shuffle Hands: the cards of every hand, listed in kind order, are shuffled by stream
  ``SHUFFLE_HANDS`` (index: the decision number) and dealt one at a time from the player's
  left (clockwise); a player dealt no card has won (the first such in dealing order). The
  revealed hand and the last swap are forgotten.
* Wild Swap Hands: the player names a seat (the target phase, the seat actions); with
  nobody to choose (everyone else in UNO under ``swap_excludes_uno``) it is a plain Wild.
  A swap (of a Swap Hands or of a 7 under seven-zero) records both hands in the extended
  layout. A Shuffle or Swap Hands that empties its player's hand wins without its effect.
* Discard All: every other card of its color leaves the hand for the discard pile, under
  it (none has an effect); emptying the hand so wins. Under ``discard_all_may_go_out =
  false`` a hand made only of that color keeps the card of its lowest kind.

``_seven``, ``_zero``, ``_swap_card`` and ``_shuffle_card`` are entries of the reference's
table (:data:`uno_rl.core.reference.CARD_EFFECTS`, which says what they return).
"""

from __future__ import annotations

from . import rng
from .phases import PLAY
from .phases import TARGET as TARGET_PHASE


class ReferenceHandChanges:
    """Hand swaps, passes, shuffles and discards for :class:`ReferenceGame`."""

    # ------------------------------------------------------------ the card effects
    def _seven(self, seat: int, kind: int, rank: int, count: int):
        """A 7 (seven-zero): its player chooses whom to swap hands with (the target phase)."""
        self.actor, self.phase = seat, TARGET_PHASE

    def _zero(self, seat: int, kind: int, rank: int, count: int):
        """A 0 (seven-zero): every hand passes one seat on in the direction of play."""
        p = self.num_players
        old = self.hands
        self.hands = [old[(i - self.direction) % p] for i in range(p)]
        voids = list(zip(self.void_color, self.void_symbol, strict=True))  # go with the hands
        moved = [voids[(i - self.direction) % p] for i in range(p)]
        self.void_color, self.void_symbol = [v[0] for v in moved], [v[1] for v in moved]
        return self._next(seat), PLAY

    def _swap_card(self, seat: int, kind: int, rank: int, count: int):
        """Wild Swap Hands: its player chooses whom to swap with (the target phase), or it
        is a plain Wild with nobody to choose."""
        if self._swap_targets(seat):
            return seat, TARGET_PHASE
        return self._next(seat), PLAY

    def _shuffle_card(self, seat: int, kind: int, rank: int, count: int):
        """Wild Shuffle Hands: the hands are shuffled (:meth:`_shuffle_hands`); play goes on
        unless a hand came out empty (the round is over)."""
        if self._shuffle_hands(seat):
            return None
        return self._next(seat), PLAY

    # ----------------------------------------------------------------- the hands
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
        self.void_color, self.void_symbol = [-1] * p, [-1] * p
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
        if self.layout.extended:
            self.swap_seats = [seat, target]
            self.swap_given = [list(self.hands[seat]), list(self.hands[target])]
        self.hands[seat], self.hands[target] = self.hands[target], self.hands[seat]
        for field in (self.void_color, self.void_symbol):  # what a hand lacked goes with it
            field[seat], field[target] = field[target], field[seat]

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
