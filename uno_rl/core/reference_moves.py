"""The reference game's legal moves: which cards match, which +4 is a bluff, and the legal
actions of each phase (a mixin of :class:`~uno_rl.core.reference.ReferenceGame`).

Plain Python over one game, readable top to bottom, as the rest of the reference. The
layout's tables (:mod:`.layout`) say what each kind is; kinds 0 .. 53 are the classic
cards in every layout, the extended kinds follow (rules specification §11).
"""

from __future__ import annotations

from .actions import ACCEPT, CHALLENGE, CHOOSE_COLOR, DRAW, PASS, TARGET
from .cards import WILD, WILD_DRAW_FOUR
from .layout import SWAP_HANDS
from .phases import COLOR, DRAWN, JUMP, MULTI, PLAY, RESPOND
from .phases import TARGET as TARGET_PHASE
from .reference_draws import is_draw_two


class ReferenceMoves:
    """Legality for :class:`ReferenceGame` (which holds ``layout``, ``hands``, ``top``, ...)."""

    def _matches(self, kind: int) -> bool:
        """Colored card matching the current color or the top card's symbol."""
        layout = self.layout
        if layout.kind_color[kind] < 0:
            return False
        return layout.kind_color[kind] == self.color or bool(layout.same_symbol[self.top, kind])

    def draw_four_legal(self, seat: int) -> bool:
        """Whether a +4 (or Targeted +4) from ``seat`` is legal now (not a bluff) under
        ``draw_four_legal``: no card of the current color (``no-current-color``), or no
        playable card but another +4 (``no-playable-card``)."""
        hand, layout = self.hands[seat], self.layout
        kinds = range(layout.num_kinds)
        if self.rules.draw_four_legal == "no-current-color":
            return not any(hand[k] and layout.kind_color[k] == self.color for k in kinds)
        if not layout.extended:
            return not (hand[WILD] or any(hand[k] and self._matches(k) for k in range(52)))
        return not any(hand[k] and (self._matches(k) or layout.always_playable[k]) for k in kinds)

    def _playable(self, seat: int, kind: int) -> bool:
        """Whether ``kind`` may be played in the play phase (ignoring last-card limits)."""
        layout = self.layout
        if layout.draw_four_like[kind]:
            return self.rules.challenge_enabled or self.draw_four_legal(seat)
        if layout.always_playable[kind]:
            return True
        return self._matches(kind)

    def _last_card_allows(self, seat: int, kind: int) -> bool:
        if self.hand_size(seat) != 1:
            return True
        rule = self.rules.last_card
        if rule == "no-draw-four":
            return not self.layout.draw_four_like[kind]
        if rule == "no-wild":
            return self.layout.kind_color[kind] >= 0
        return True

    def _actions_for(self, kind: int) -> list[int]:
        """The actions that play ``kind`` (one per named color for a wild)."""
        return [int(a) for a in self.layout.play_actions[self.layout.play_kinds == kind]]

    def legal_actions(self) -> list[int]:
        """Sorted legal actions of the player to act (empty once the game is over)."""
        seat, hand, legal = self.actor, self.hands[self.actor], []
        if self.phase == PLAY:
            for k in range(self.layout.num_kinds):
                if hand[k] and self._playable(seat, k) and self._last_card_allows(seat, k):
                    legal += self._actions_for(k)
            if self.rules.voluntary_draw or not legal:
                legal.append(DRAW)
        elif self.phase == DRAWN:
            legal += self._actions_for(self.drawn)
            if self.rules.drawn_card != "must-play":
                legal.append(PASS)
        elif self.phase == RESPOND:
            legal += self._respond_actions(seat)
        elif self.phase == TARGET_PHASE:  # after a 7, a Swap Hands or a targeted draw
            if self.rules.effect_rank[self.top] == SWAP_HANDS:
                legal += [TARGET + k - 1 for k in self._swap_targets(seat)]
            else:
                legal += [TARGET + k - 1 for k in range(1, self.num_players)]
        elif self.phase == MULTI:
            if self.hand_size(seat) >= 2:
                ranks = self.layout.kind_rank
                legal += [k for k in range(52) if hand[k] and ranks[k] == self.multi_rank]
            legal.append(PASS)
        elif self.phase == COLOR:
            legal += [CHOOSE_COLOR + c for c in range(4)]
        elif self.phase == JUMP:
            legal += [*self._actions_for(self.jump_card), PASS]
        return sorted(legal)

    def _respond_actions(self, seat: int) -> list[int]:
        hand, rules, legal = self.hands[seat], self.rules, [ACCEPT]
        on_draw_four = bool(self.layout.draw_four_like[self.top])
        if rules.challenge_enabled and on_draw_four:
            legal.append(CHALLENGE)
        if on_draw_four and self.hand_size(self.draw4_player) == 0:
            return legal  # the +4 was its player's last card: only accept or challenge
        boomerang = self.layout.num_kinds - 1  # the extended layout's last kind
        if rules.boomerangs and hand[boomerang] and self._last_card_allows(seat, boomerang):
            legal += self._actions_for(boomerang)
        if self.top != WILD_DRAW_FOUR and not is_draw_two(self.top):
            return legal  # a Skip or a targeted draw: accept or return it
        cards = []
        if rules.stacking != "none":  # the classic +2 and +4 only
            if is_draw_two(self.top):
                cards += [k for k in range(52) if is_draw_two(k)]
                if rules.stacking == "any":
                    cards.append(WILD_DRAW_FOUR)
            else:
                cards.append(WILD_DRAW_FOUR)
                if rules.stacking == "any":
                    colors = self.layout.kind_color
                    cards += [k for k in range(52) if is_draw_two(k) and colors[k] == self.color]
        if rules.wild_cancels_draw:
            cards.append(WILD)
        for k in cards:
            if k == WILD_DRAW_FOUR and not self.draw_four_legal(seat):
                continue  # a stacked +4 cannot be challenged: only a legal one is offered
            if hand[k] and self._last_card_allows(seat, k):
                legal += self._actions_for(k)
        return legal
