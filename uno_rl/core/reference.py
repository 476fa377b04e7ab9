"""A small, slow, readable one-game implementation of the rules: the oracle for tests.

This module is the executable specification of every rule and switch. The batched
engine (:mod:`uno_rl.core.engine`) must agree with it exactly: same legal actions, same
observations, same rewards, same end states, for the same deal seed and actions
(``tests/core/test_differential.py``). Randomness comes from :mod:`uno_rl.core.rng`, a
pure function of the deal seed, so both draw the same numbers. The game's flow is here; its
legal moves are in :mod:`.reference_moves`; the cards' effects, by what they do, in
:mod:`.reference_draws` (draw cards and their answers), :mod:`.reference_turn_order` (Skip,
Reverse, Boomerang) and :mod:`.reference_hands` (seven-zero, Swap and Shuffle Hands, Discard
All), through one table (:data:`CARD_EFFECTS`); the close of a step (scoring, the match) is in
:mod:`.reference_scoring` and the observation in :mod:`.reference_observe`.

Order of events, decided once here:

* Setup: the deck is shuffled by the deal seed, the dealer drawn from it; 7 cards go to
  each player one at a time starting left of the dealer; the top of the pile is turned.
  A turned +4 goes back into the pile, which is reshuffled, and a new card is turned.
* Cards are drawn from the end of the pile. An empty pile is refilled by shuffling the
  discard pile except its top card (and, while a +4 lies on top under the take-back rule,
  except the card beneath it, which a take-back restores).
* A play: card leaves the hand, becomes the top card, the color is set; a player left
  with one card forgets to call UNO with probability ``uno_forget_prob`` and is then
  caught with probability ``uno_catch_prob`` (drawing ``uno_penalty``); a player left
  with none has won, once the next player has drawn a final +2/+4 (a final +4 can still
  be challenged first; a caught bluffer then plays on).
* The jump-in window opens when a colored card's effects are over, before the next
  player acts; candidates are asked one at a time in the direction of play. Without
  stacking, a +2 whose victim may answer (``wild_cancels_draw``) is over once the victim
  has accepted and drawn (so a jump-in +2 never adds to it: no stacking, rules specification
  §3); with stacking, the window opens right after the play and a jump-in +2 stacks.
* With stacking, a +4 cannot be challenged: one stacked in the respond phase must be
  legal (``draw_four_legal`` against the current color and top card, as in the play phase).
* ``drawn_card='auto-play'`` (RLCard): the drawn card is played within the draw decision,
  without a UNO check (the hand is as large as before the draw); a Wild or +4 so played
  names color ``bits(key, DRAWN_COLOR, decision number, 0) % 4``; the +4 makes nobody draw,
  opens no challenge and, while on top, shows the color before it and who played it.
  A ``random`` first-card Wild color is ``bits(key, FIRST_COLOR, 0, 0) % 4``.
* ``caught_bluffer='loses-turn'`` (``001``): a caught bluffer draws nothing (on their last
  card they draw the 4 instead) and owes a turn (``skip_turn``); the challenger plays. At
  the close of every step, a play phase that starts with a seat owing a turn passes to the
  next seat along, one owed turn spent, as often as needed (no decision counted).
* ``multi_play_actions``: a combination of ``count`` Skips, Reverses or +2s (``multi_count``)
  resolves as one card of that symbol: it skips ``count`` players, flips the direction
  ``count`` times, or adds ``2 * count`` to the pending draw.
* ``match_rounds``: the match ends when its last round ends, won or truncated.
"""

from __future__ import annotations

import numpy as np

from . import rng
from .actions import (
    ACCEPT,
    CHALLENGE,
    CHOOSE_COLOR,
    DRAW,
    PASS,
)
from .cards import DRAW_TWO_RANK, KIND_RANK, REVERSE_RANK, SKIP_RANK, WILD, WILD_DRAW_FOUR
from .layout import (
    ALL_HIT,
    BOOMERANG,
    DISCARD_ALL,
    DOWNPOUR_ONE,
    DOWNPOUR_TWO,
    HIT_FIRE,
    HIT_TWO,
    SHUFFLE_HANDS,
    SWAP_HANDS,
    TARGETED_FOUR,
    TARGETED_TWO,
)
from .phases import COLOR, DRAWN, JUMP, MULTI, OVER, PLAY, RESPOND
from .reference_draws import ReferenceDrawPenalties, is_draw_two
from .reference_hands import ReferenceHandChanges
from .reference_moves import ReferenceMoves
from .reference_observe import observe_reference
from .reference_scoring import ReferenceScoring, StepOutcome
from .reference_turn_order import ReferenceTurnOrder
from .rules import MAX_FIRST_CARD_ATTEMPTS, Rules
from .state import STAT_NAMES

#: Symbols above this one are the cards of rules specification §11 (:mod:`.layout`).
WILD_DRAW_FOUR_RANK = int(KIND_RANK[WILD_DRAW_FOUR])

#: Effect symbol -> what the card does once its play is over (the engine's
#: :data:`uno_rl.core.effects.CARD_EFFECTS`): ``effect(game, seat, kind, rank, count)``, for
#: ``count`` cards of that symbol played together (``multi_play_actions``; 1 otherwise),
#: returns the hand-over ``(next actor, next phase)``, or None when the effect has itself
#: said who acts (a target phase) or ended the round. A card with no entry (a number, a Wild,
#: a Discard All, a Boomerang: what they do happens as they are laid) hands over to the next
#: seat. The 7 and the 0 have theirs only under ``seven_zero``. A Wild Customizable has the
#: effect of ``customizable_as`` (its effect symbol); as a first card it is a plain Wild.
CARD_EFFECTS = {
    0: ReferenceHandChanges._zero,
    7: ReferenceHandChanges._seven,
    SKIP_RANK: ReferenceTurnOrder._skip,
    REVERSE_RANK: ReferenceTurnOrder._reverse,
    DRAW_TWO_RANK: ReferenceDrawPenalties._draw_penalty,
    WILD_DRAW_FOUR_RANK: ReferenceDrawPenalties._draw_penalty,
    TARGETED_TWO: ReferenceDrawPenalties._targeted,
    TARGETED_FOUR: ReferenceDrawPenalties._targeted,
    DOWNPOUR_ONE: ReferenceDrawPenalties._downpour,
    DOWNPOUR_TWO: ReferenceDrawPenalties._downpour,
    HIT_TWO: ReferenceDrawPenalties._hits,
    HIT_FIRE: ReferenceDrawPenalties._hits,
    ALL_HIT: ReferenceDrawPenalties._hits,
    SWAP_HANDS: ReferenceHandChanges._swap_card,
    SHUFFLE_HANDS: ReferenceHandChanges._shuffle_card,
}


class ReferenceGame(
    ReferenceMoves,
    ReferenceDrawPenalties,
    ReferenceTurnOrder,
    ReferenceHandChanges,
    ReferenceScoring,
):
    """One UNO game (a round, or a match of rounds) in plain Python."""

    def __init__(
        self,
        rules: Rules,
        seed: int,
        scores: list[int] | None = None,
        round_index: int = 0,
        dealer: int | None = None,
    ) -> None:
        self.rules = rules
        self.num_players = rules.players
        self.scores = list(scores) if scores is not None else [0] * rules.players
        self.round_index = round_index
        self.match_over = False
        self._deal(int(seed), dealer)

    # ----------------------------------------------------------------- setup
    def _deal(self, seed: int, dealer: int | None) -> None:
        p, layout = self.num_players, self.layout
        kinds, deck = layout.num_kinds, self.rules.deck_cards.cards
        self.key = seed
        order = np.argsort(rng.sort_keys(seed, rng.DEAL, 0, len(deck)), kind="stable")
        self.pile = [int(c) for c in deck[order]]
        if dealer is None:
            dealer = int(rng.bits(seed, rng.DEALER, 0, 0) % np.uint64(p))
        self.dealer = dealer
        self.hands = [[0] * kinds for _ in range(p)]
        for j in range(p * self.rules.hand_size):
            self.hands[(dealer + 1 + j) % p][self.pile.pop()] += 1
        self.reshuffles = 0
        attempt = 0
        top = self.pile.pop()
        while layout.returns_as_first_card[top]:  # a +4 (or such) goes back into the pile
            self.pile = self._shuffled(sorted(self.pile + [top]), rng.FIRST_DRAW4, attempt)
            attempt += 1
            top = self.pile.pop()
            if layout.returns_as_first_card[top] and attempt >= MAX_FIRST_CARD_ATTEMPTS:
                raise RuntimeError(f"no card could be turned first after {attempt:,} reshuffles")
        self.discard = [0] * kinds
        self.discard[top] = 1
        self.top = top
        self.color = int(layout.kind_color[top])
        self.direction = 1
        self.pending = 0
        self.drawn = -1
        self.prev_top, self.prev_color = -1, -1
        self.draw4_player, self.draw4_bluff = -1, False
        self.multi_rank, self.multi_count = -1, 0
        self.skip_turn = [0] * p
        self.jump_card, self.jump_from, self.jump_cursor = -1, -1, 0
        self.resume_actor, self.resume_phase = -1, PLAY
        self.revealed = [0] * kinds
        self.reveal_viewer, self.reveal_target = -1, -1
        self.presses = 0
        self.press_index = 0
        self.cause = -1
        self.swap_seats = [-1, -1]
        self.swap_given = [[0] * kinds, [0] * kinds] if layout.extended else [[], []]
        self.shuffled = False
        self.turn = 0
        self.winner = -1
        self.truncated = False
        self.stats = {name: [0] * p for name in STAT_NAMES}
        self.void_color, self.void_symbol = [-1] * p, [-1] * p
        self.played = [[0] * 5 for _ in range(p)]
        self.named = [-1] * p
        first = (dealer + 1) % p
        self.actor, self.phase = first, PLAY
        effects = self.rules.first_card_effects
        names_color = bool(layout.names_color[top])
        if names_color and self.rules.first_wild_color_by == "random":
            self.color = int(rng.bits(seed, rng.FIRST_COLOR, 0, 0) % np.uint64(4))
        elif names_color:
            self.phase = COLOR
            self.actor = dealer if self.rules.first_wild_color_by == "dealer" else first
        elif effects and is_draw_two(top):
            self._draw(first, 2)
            if self.rules.first_draw_two_skips:
                self.actor = self._next(first)
        if effects and layout.kind_rank[top] > WILD_DRAW_FOUR_RANK:
            self._first_card_draws(top, first, dealer)
        elif effects and layout.kind_rank[top] == SKIP_RANK:
            self.actor = self._next(first)
        elif effects and layout.kind_rank[top] == REVERSE_RANK:
            self.direction = -1
            self.actor = dealer

    def _shuffled(self, cards: list[int], stream: int, index: int) -> list[int]:
        keys = rng.sort_keys(self.key, stream, index, len(cards))
        return [cards[i] for i in np.argsort(keys, kind="stable")]

    # --------------------------------------------------------------- helpers
    def _next(self, seat: int, steps: int = 1) -> int:
        return (seat + steps * self.direction) % self.num_players

    def hand_size(self, seat: int) -> int:
        return sum(self.hands[seat])

    def _draw_one(self, seat: int) -> int:
        """Move one card from the pile to ``seat``'s hand; -1 if both piles are empty."""
        if not self.pile:
            cards = list(self.discard)
            cards[self.top] -= 1
            if self._keeps_card_under_top():
                cards[self.prev_top] -= 1
            flat = [k for k in range(len(cards)) for _ in range(cards[k])]
            if not flat:
                return -1
            self.pile = self._shuffled(flat, rng.RESHUFFLE, self.reshuffles)
            self.reshuffles += 1
            self.discard = [self.discard[k] - cards[k] for k in range(len(cards))]
        card = self.pile.pop()
        self.hands[seat][card] += 1
        self.void_color[seat] = self.void_symbol[seat] = -1  # it may hold anything again
        return card

    def _keeps_card_under_top(self) -> bool:
        return (
            self.layout.draw_four_like[self.top]  # a +4 or Targeted +4
            and self.prev_top >= 0
            and self.rules.caught_bluffer == "takes-back"
            and self.rules.challenge_enabled
        )

    def _draw(self, seat: int, count: int) -> None:
        for _ in range(count):
            if self._draw_one(seat) < 0:
                return

    # ------------------------------------------------------------------ step
    def step(self, action: int) -> StepOutcome:
        """Apply the acting player's action; returns what the step produced.

        Raises ``ValueError`` for an illegal action, naming it and the legal ones.
        """
        if self.phase == OVER:
            raise ValueError("the game is over; reset it before stepping")
        if isinstance(action, bool | np.bool_) or not isinstance(action, int | np.integer):
            raise ValueError(f"action must be an integer, got {action!r} ({type(action).__name__})")
        action = int(action)
        legal = self.legal_actions()
        if action not in legal:
            raise ValueError(
                f"illegal action {action} ({self._action_name(action)}) "
                f"for player {self.actor} in phase {self.phase}; legal: "
                + ", ".join(f"{a} ({self._action_name(a)})" for a in legal)
            )
        seat, phase = self.actor, self.phase
        layout = self.layout
        kind = int(layout.action_card[action])
        if kind >= 0:
            self._play(seat, kind, int(layout.action_color[action]), phase)
        elif action == DRAW:
            self._draw_action(seat)
        elif action == PASS:
            if phase == DRAWN:
                self._start_turn(self._next(seat))
            elif phase == MULTI:
                self._finish_play(seat, self.top, self.multi_count)
            else:  # JUMP
                self._ask_jump(self.jump_cursor + 1)
        elif action == ACCEPT:
            self._draw(seat, self.pending)
            self.pending = 0
            self._after_penalty(self._after_victim(seat), victim=seat)
        elif action == CHALLENGE:
            self._challenge(seat)
        elif action >= CHOOSE_COLOR:
            self.color = int(layout.action_color[action])
            start = self.resume_actor  # a first Wild Hit-Fire's victim has lost the turn
            if start < 0:
                start = (self.dealer + 1) % self.num_players
            self.actor, self.phase = start, PLAY
        else:  # a target: of a 7 (seven-zero), a Swap Hands or a targeted draw
            target = (seat + int(layout.action_target[action])) % self.num_players
            if self.rules.effect_rank[self.top] in (TARGETED_TWO, TARGETED_FOUR):
                self._target_draw(seat, target)
            else:
                self._swap(seat, target)
                self._end_turn(seat, self._next(seat), PLAY)
        return self._close_step()

    @property
    def layout(self):
        """The deck's :class:`~uno_rl.core.layout.Layout`."""
        return self.rules.layout

    def _action_name(self, action: int) -> str:
        return self.layout.action_name(action) if 0 <= action < self.layout.num_actions else "?"

    def _start_turn(self, seat: int) -> None:
        self.actor, self.phase = seat, PLAY

    def _draw_action(self, seat: int) -> None:
        """``seat`` draws; in the play phase it so shows it holds nothing of the color and
        nothing of the colored top card's symbol (until it next draws)."""
        void = None
        if self.phase == PLAY:
            colored = self.layout.kind_color[self.top] >= 0
            void = self.color, int(self.layout.kind_rank[self.top]) if colored else -1
        self._draw_cards_on_action(seat)
        if void is not None:
            self.void_color[seat], self.void_symbol[seat] = void

    def _draw_cards_on_action(self, seat: int) -> None:
        if self.rules.dispenser_on:  # one press of the dispenser, and the turn is over
            self._press(seat, 1)
            self._start_turn(self._next(seat))
            return
        card = self._draw_one(seat)
        if self.rules.drawn_card == "auto-play":
            self._auto_play(seat, card)
            return
        while card >= 0 and self.rules.draw_until_playable and not self._playable(seat, card):
            card = self._draw_one(seat)
        if card >= 0 and self.rules.drawn_card != "may-not-play" and self._playable(seat, card):
            self.actor, self.phase, self.drawn = seat, DRAWN, card
        else:
            self._start_turn(self._next(seat))

    def _auto_play(self, seat: int, card: int) -> None:
        """RLCard's drawn card: a Wild, +4 or card of the current color is played at once."""
        colors = self.layout.kind_color
        if card < 0 or (not self.layout.names_color[card] and colors[card] != self.color):
            self._start_turn(self._next(seat))
            return
        if card == WILD_DRAW_FOUR:  # shown while it is on top; nothing can be taken back
            self.prev_top, self.prev_color = -1, self.color
            self.draw4_player, self.draw4_bluff = seat, False
        self.hands[seat][card] -= 1
        self.discard[card] += 1
        self.top = card
        if self.layout.names_color[card]:
            self.color = int(rng.bits(self.key, rng.DRAWN_COLOR, self.turn, 0) % np.uint64(4))
        else:
            self.color = int(colors[card])
        self._record_play(seat, card)
        if card == WILD_DRAW_FOUR:  # played as a plain Wild: nobody draws
            self._start_turn(self._next(seat))
        else:
            self._finish_play(seat, card)

    def _play(self, seat: int, kind: int, color: int, phase: int) -> None:
        if self.layout.draw_four_like[kind]:  # a +4 or a Targeted +4: who, and was it a bluff
            self.draw4_bluff = self.rules.challenge_enabled and not self.draw_four_legal(seat)
            self.draw4_player = seat
            self.prev_top, self.prev_color = self.top, self.color
            self.stats["draw4_plays"][seat] += 1
            self.stats["bluffs"][seat] += int(self.draw4_bluff)
        self.hands[seat][kind] -= 1
        self.discard[kind] += 1
        self.top = kind
        own = int(self.layout.kind_color[kind])
        if self.layout.names_color[kind]:
            self.color = color
        elif own >= 0:  # a colorless card that names nothing (Boomerang) keeps the color
            self.color = own
        self._record_play(seat, kind)
        self.drawn = -1
        if self.rules.effect_rank[kind] == DISCARD_ALL:
            self._discard_all(seat, kind)
        elif self.rules.effect_rank[kind] == BOOMERANG:
            self._boomerang()
        if phase == RESPOND and kind == WILD:
            self.pending = 0  # a Wild cancels the pending draws
        if self.hand_size(seat) == 1 and self.rules.uno_forget_prob > 0:
            forgets = (
                rng.uniform(self.key, rng.FORGET_UNO, self.turn, 0) < self.rules.uno_forget_prob
            )
            caught = rng.uniform(self.key, rng.FORGET_UNO, self.turn, 1) < self.rules.uno_catch_prob
            if forgets and caught:
                if self.rules.dispenser_on:
                    self._press(seat, 2)
                else:
                    self._draw(seat, self.rules.uno_penalty)
        if self.hand_size(seat) == 0:
            self._play_last_card(seat, kind)
            return
        count = self.multi_count + 1 if phase == MULTI else 1  # cards of this combination
        ranks = self.layout.kind_rank
        combines = ranks[kind] < (13 if self.rules.multi_play_actions else 10)
        if (
            self.rules.multi_play
            and phase in (PLAY, MULTI)
            and kind < 52
            and combines
            and self.hand_size(seat) >= 2
            and any(self.hands[seat][k] for k in range(52) if ranks[k] == ranks[kind])
        ):
            self.actor, self.phase, self.multi_rank = seat, MULTI, int(ranks[kind])
            self.multi_count = count
            return
        self._finish_play(seat, kind, count)

    def _record_play(self, seat: int, kind: int) -> None:
        """What ``seat`` played, for all to see: the card's color (4: none), the color named."""
        own = int(self.layout.kind_color[kind])
        self.played[seat][own if own >= 0 else 4] += 1
        if self.layout.names_color[kind]:
            self.named[seat] = self.color

    def _finish_play(self, seat: int, kind: int, count: int = 1) -> None:
        """Effects of the card that ends ``seat``'s play, a combination of ``count`` cards of
        its symbol (``multi_play_actions``), through :data:`CARD_EFFECTS`, then the hand-over."""
        rank = int(self.rules.effect_rank[kind])
        effect = CARD_EFFECTS.get(rank)
        if rank in (0, 7) and not self.rules.seven_zero:
            effect = None
        handover = effect(self, seat, kind, rank, count) if effect else (self._next(seat), PLAY)
        if handover is not None:
            self._end_turn(seat, *handover)

    def _end_turn(self, seat: int, next_actor: int, next_phase: int) -> None:
        """Hand over to ``next_actor``, through a jump-in window after a colored card.

        Without stacking, a +2 whose victim answers (``wild_cancels_draw``) has effects that
        are not over yet: its window opens once the victim accepts (:meth:`_after_penalty`).
        """
        self.resume_actor, self.resume_phase = next_actor, next_phase
        answer_first = next_phase == RESPOND and self.rules.stacking == "none"
        colored = self.layout.kind_color[self.top] >= 0
        if self.rules.jump_in and colored and not answer_first:
            self.jump_card, self.jump_from = self.top, seat
            self._ask_jump(1)
        else:
            self.actor, self.phase = next_actor, next_phase

    def _ask_jump(self, cursor: int) -> None:
        """Offer the jump-in to the first holder of the card at ``cursor`` seats or more along."""
        for offset in range(cursor, self.num_players):
            seat = self._next(self.jump_from, offset)
            if self.hands[seat][self.jump_card]:
                self.actor, self.phase, self.jump_cursor = seat, JUMP, offset
                return
        self.actor, self.phase = self.resume_actor, self.resume_phase

    def _after_penalty(self, next_seat: int, victim: int | None = None) -> None:
        """After a victim drew: the round ends if the +4 was the last card, else play goes on.

        Without stacking, the ``victim`` who accepted a +2 has drawn: its effects are over,
        and its jump-in window opens now, from the seat that played it.
        """
        winner = next((s for s in range(self.num_players) if self.hand_size(s) == 0), -1)
        if winner >= 0:
            self._end_round(winner)
        elif (
            victim is not None
            and self.rules.jump_in
            and self.rules.stacking == "none"
            and self.layout.kind_color[self.top] >= 0
        ):
            self._end_turn(self.cause, next_seat, PLAY)
        else:
            self._start_turn(next_seat)

    # ------------------------------------------------------------ round end
    def _end_round(self, winner: int) -> None:
        self.winner = winner
        self.phase = OVER

    def observe(self, seat: int) -> np.ndarray:
        """The observation of ``seat`` as a flat float32 vector (:mod:`.reference_observe`)."""
        return observe_reference(self, seat)
