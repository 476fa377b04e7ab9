"""The reference game's cards that change the order of play: Skip, Reverse and Boomerang (a
mixin of :class:`~uno_rl.core.reference.ReferenceGame`); the executable specification of the
engine's :mod:`.turn_order`.

Decisions taken where the rules specification (docs/specification.md), section 11, is silent,
once, here:

* Boomerang (decks holding it): every Skip, +2, +4 and targeted draw puts its victim in the
  respond phase, whether or not they hold one (so the decision shows nothing), where they
  accept or play the Boomerang: the pending draw goes back to the card's player (``cause``),
  who draws it (a returned +4 is not challenged), or a returned Skip costs them their next
  turn (as a caught ``loses-turn`` bluffer). The color stays; play goes on after the
  Boomerang's player. Combinations of n Skips (``multi_play_actions``) are not answered, nor
  are final cards (a final Boomerang still sends the draw back, then wins).

``_skip`` and ``_reverse`` are entries of the reference's table
(:data:`uno_rl.core.reference.CARD_EFFECTS`, which says what they return).
"""

from __future__ import annotations

from .phases import PLAY, RESPOND


class ReferenceTurnOrder:
    """Skips, Reverses and Boomerangs for :class:`ReferenceGame`."""

    def _skip(self, seat: int, kind: int, rank: int, count: int):
        """``count`` Skips skip ``count`` players; with Boomerangs in the deck a single Skip's
        victim may answer it first (``cause`` is its player)."""
        if self.rules.boomerangs and count == 1:
            self.cause = seat
            return self._next(seat), RESPOND
        return self._next(seat, 1 + count), PLAY

    def _reverse(self, seat: int, kind: int, rank: int, count: int):
        """``count`` Reverses turn the direction ``count`` times; with two players (and
        ``two_player_reverse_skips``) an odd number gives the turn back to ``seat``."""
        self.direction *= (-1) ** count
        skips = self.num_players == 2 and self.rules.two_player_reverse_skips and count % 2
        return (seat if skips else self._next(seat)), PLAY

    def _boomerang(self) -> None:
        """A Boomerang just played by the victim: the pending draw goes back to ``cause``
        (who draws it, unchallengeable), or a pending Skip costs ``cause`` their next turn."""
        if self.pending:
            self._draw(self.cause, self.pending)
            self.pending = 0
        else:
            self.skip_turn[self.cause] += 1

    def _after_victim(self, victim: int) -> int:
        """Who plays once ``victim`` has taken a pending draw or Skip of ``cause``: the seat
        after the victim if they were next, else the seat after ``cause`` (play goes on)."""
        return self._next(victim) if victim == self._next(self.cause) else self._next(self.cause)
