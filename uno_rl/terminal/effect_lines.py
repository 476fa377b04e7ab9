"""What a card did, in words: the sentences of every card's effect, by the card's effect symbol.

:class:`CardEffectLines` (mixed into the narration of one decision, :mod:`.narrate`) says what
the card that ends a play did, through one table from effect symbol to sentence
(:data:`EFFECT_LINES`): a 0 passing every hand on (``seven_zero``), a Skip, a Reverse, a +2 or
+4 (who faces or draws what), and the cards of rules specification §11: hits and the
dispenser (presses, cards shot, presses since its last fire), All Hit, Downpours, a shuffle of
every hand (each seat sees its own new hand), a Swap Hands with nobody to choose, a Boomerang
sending a draw or a Skip back. It also words what is chosen or shed on the way: a Discard
All's shed cards, a swap (the two seats see both hands), a targeted draw's victim and what
they face. Every hand shown is shown only to the seats that know it.

:func:`first_card_lines` says, through :data:`FIRST_CARD_LINES`, what a round's first card
did (``first_card_effects``).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from uno_rl.core.cards import DRAW_TWO_RANK, REVERSE_RANK, SKIP_RANK, WILD_DRAW_FOUR
from uno_rl.core.layout import (
    ALL_HIT,
    BOOMERANG,
    DOWNPOUR_ONE,
    DOWNPOUR_TWO,
    HIT_FIRE,
    HIT_TWO,
    SHUFFLE_HANDS,
    SWAP_HANDS,
    TARGETED_FOUR,
    TARGETED_TWO,
)
from uno_rl.core.phases import JUMP, RESPOND
from uno_rl.core.state import State

from .voice import Voice, capitalized, plural

__all__ = [
    "EFFECT_LINES",
    "FIRST_CARD_LINES",
    "TARGETED",
    "CardEffectLines",
    "first_card_lines",
    "shed_cards",
]

#: The symbol of the classic +4 (the colorless +4 kind's rank).
DRAW_FOUR_RANK = 14
DOWNPOURS = {DOWNPOUR_ONE: 1, DOWNPOUR_TWO: 2}
#: Targeted draws: the target phase names their victim.
TARGETED = (TARGETED_TWO, TARGETED_FOUR)


def shed_cards(hand: np.ndarray, kind: int, layout, may_go_out: bool) -> np.ndarray:
    """(K,) int64: the cards a Discard All of ``kind`` sheds from ``hand`` ((K,) counts,
    the Discard All itself already removed), as the engine does (``discard_all``)."""
    hand = np.asarray(hand, np.int64)
    same = layout.kind_color == layout.kind_color[kind]
    shed = np.where(same, hand, 0)
    if not may_go_out and shed.sum() == hand.sum() and shed.any():
        shed[np.flatnonzero(shed)[0]] -= 1
    return shed


class CardEffectLines:
    """The card-effect sentences of one decision; mixed into its narration (which provides
    ``b``, ``s`` (the state before and after), ``k`` (the seat that acted), ``phase``,
    ``rules``, ``voice``, ``style``, ``draw_reason``, ``redealt``, ``round_over``, ``add``
    and ``next_seat``)."""

    @property
    def layout(self):
        return self.rules.layout

    def effect_lines(self, kind: int) -> None:
        """The effects of ``kind``, the card that ends the play (after any multi-play), by its
        effect symbol (:data:`EFFECT_LINES`; nothing for a card without one)."""
        rank = int(self.rules.effect_rank[kind])
        lines = EFFECT_LINES.get(rank)
        if lines is not None:
            lines(self, kind, rank)

    # ------------------------------------------------------------------ classic effects
    def _hands_passed(self, kind: int, rank: int) -> None:
        if self.rules.seven_zero:
            way = "clockwise" if self.b.direction[0] > 0 else "counter-clockwise"
            self.add(f"Every hand passes one seat {way}.")

    def _skip(self, kind: int, rank: int) -> None:
        s = self.s
        if s.phase[0] == RESPOND and int(s.pending[0]) == 0:  # a Boomerang may answer it
            self.facing(int(s.actor[0]), 0, rank)
        else:
            self.add(self.voice.say(self.next_seat(self.k), "is", "are", "skipped."))

    def _reverse(self, kind: int, rank: int) -> None:
        s, k, v = self.s, self.k, self.voice
        handed_to = int(s.resume_actor[0] if s.phase[0] == JUMP else s.actor[0])
        if self.rules.players == 2 and handed_to == k and not self.round_over:
            other = self.next_seat(k)
            self.add(v.say(other, "is", "are", "skipped (a reverse with two players)."))
        else:
            way = "clockwise" if s.direction[0] > 0 else "counter-clockwise"
            self.add(f"Play now goes {way}.")

    def _draw(self, kind: int, rank: int) -> None:
        """A +2 or +4: its victim faces the cards (when they may answer) or draws them."""
        s, v, rules = self.s, self.voice, self.rules
        if s.phase[0] == RESPOND:
            victim, pending = int(s.actor[0]), int(s.pending[0])
            options = []
            if kind == WILD_DRAW_FOUR and rules.challenge_enabled:
                options.append("challenge")
            if rules.stacking != "none":
                options.append("stack")
            if rules.wild_cancels_draw:
                options.append("cancel with a wild")
            if rules.boomerangs:
                options.append("send it back with a boomerang")
            how = ", ".join(options + ["accept"])
            self.add(v.say(victim, "faces", "face", f"{plural(pending, 'card')} to draw ({how})."))
        else:
            victim = self.next_seat(self.k)
            self.draw_reason[victim] = f"and {v.be(victim)} skipped"

    # ------------------------------------------------------------------ section 11's effects
    def _hit(self, kind: int, rank: int) -> None:
        v = self.voice
        victim = self.next_seat(self.k)
        what = "hit (2 presses)" if rank == HIT_TWO else "hit (presses until the dispenser fires)"
        lose = "lose" if victim == v.you else "loses"
        self.add(v.say(victim, "is", "are", f"{what} and {lose} the turn."))
        self.draw_reason.setdefault(victim, "from the hit")

    def _all_hit(self, kind: int, rank: int) -> None:
        self.add("Every other player presses the dispenser once.")

    def _downpour(self, kind: int, rank: int) -> None:
        self.add(f"Downpour: every other player draws {DOWNPOURS[rank]}.")

    def _shuffle(self, kind: int, rank: int) -> None:
        if self.s.shuffled[0]:
            self.shuffle_lines()

    def _boomerang(self, kind: int, rank: int) -> None:
        b, v = self.b, self.voice
        if self.phase != RESPOND:
            return
        cause = int(b.cause[0])
        if int(b.pending[0]) > 0:
            self.add(f"The {int(b.pending[0])} cards go back to {v.who(cause)}.")
            self.draw_reason[cause] = "sent back by the boomerang"
        else:
            self.add(v.say(cause, "will", "will", "lose the next turn: the Skip came back."))

    def _swap_hands(self, kind: int, rank: int) -> None:
        s = self.s
        if s.phase[0] != RESPOND and int(s.actor[0]) != self.k:
            self.add("Nobody can be chosen to swap with: it is a plain wild.")

    # ------------------------------------------------------------------ on the way
    def presses(self) -> int:
        """Presses of the dispenser in this step (0 when it is off or the round was redealt)."""
        if self.redealt or not self.rules.dispenser_on:
            return 0
        return int(self.s.press_index[0]) - int(self.b.press_index[0])

    def shed(self, kind: int) -> np.ndarray:
        """(K,) int64: the cards the Discard All ``kind`` just laid by the actor shed."""
        hand = self.b.hands[0, self.k].astype(np.int64).copy()
        hand[kind] -= 1
        return shed_cards(hand, kind, self.layout, self.rules.discard_all_may_go_out)

    def discard_all_line(self, kind: int) -> None:
        """A Discard All just laid: the cards of its color it shed (public: they are
        discarded face up)."""
        shed = self.shed(kind)
        count = int(shed.sum())
        color = self.style.color_name(int(self.layout.kind_color[kind]))
        if count:
            cards = self.style.cards(shed)
            word = "card" if count == 1 else "cards"
            self.add(
                self.voice.say(self.k, "sheds", "shed", f"{count} more {color} {word}: {cards}.")
            )
        else:
            self.add(self.voice.say(self.k, "has", "have", f"no other {color} card to shed."))

    def shuffle_lines(self) -> None:
        """Every hand gathered, shuffled and dealt again; each seat sees its own new hand."""
        s, k, v = self.s, self.k, self.voice
        sizes = ", ".join(
            f"{v.who(seat)} {int(s.hand_size[0, seat])}" for seat in range(self.rules.players)
        )
        self.add(
            f"Every hand is shuffled together and dealt again from {v.whose(k)} left: {sizes}."
        )
        for seat in range(self.rules.players):
            hand = self.style.cards(s.hands[0, seat])
            self.add(f"({capitalized(v.whose(seat))} new hand: {hand}.)", [seat])

    def swap_lines(self, other: int) -> None:
        """A swap between the actor and ``other``: each sees what they gave and got (a line
        each, as every private event has one seat)."""
        b, k, v, st = self.b, self.k, self.voice, self.style
        for seat, partner in ((k, other), (other, k)):
            gave, got = st.cards(b.hands[0, seat]), st.cards(b.hands[0, partner])
            text = f"({capitalized(v.who(seat))} gave {v.who(partner)} {gave} and got {got}.)"
            self.add(text, [seat])

    def target_lines(self, victim: int) -> None:
        """The victim of a targeted draw was named."""
        s, k, v = self.s, self.k, self.voice
        card = self.style.card(int(self.b.top[0]))
        self.add(v.say(k, "targets", "target", f"{v.who(victim)} with {card}."))
        if int(s.phase[0]) == RESPOND and int(s.actor[0]) == victim:
            self.facing(victim, int(s.pending[0]), int(self.rules.effect_rank[self.b.top[0]]))
        else:
            self.draw_reason.setdefault(victim, "")

    def facing(self, victim: int, pending: int, rank: int) -> None:
        """``victim`` is in the respond phase facing ``pending`` cards (0: a Skip)."""
        rules, v = self.rules, self.voice
        options = []
        four = bool(self.layout.draw_four_like[self.s.top[0]])
        if four and rules.challenge_enabled and int(self.s.draw4_player[0]) >= 0:
            options.append("challenge")
        if pending and rules.stacking != "none" and rank not in TARGETED:
            options.append("stack")
        if pending and rules.wild_cancels_draw and rank not in TARGETED:
            options.append("cancel with a wild")
        if rules.boomerangs:
            options.append("send it back with a boomerang")
        how = ", ".join(options + ["accept"])
        if pending:
            self.add(v.say(victim, "faces", "face", f"{plural(pending, 'card')} to draw ({how})."))
        else:
            self.add(v.say(victim, "faces", "face", f"a Skip ({how})."))

    def dispenser_line(self) -> None:
        """How often the dispenser was pressed, whether it fired, and its presses since."""
        n = self.presses()
        if not n:
            return
        since = int(self.s.presses[0])
        fired = since < int(self.b.presses[0]) + n
        fire = "it fired" if fired else "it did not fire"
        word = "press" if n == 1 else "presses"
        self.add(f"Dispenser: {n} {word}, {fire}; {since} since its last fire.")


#: Effect symbol -> the sentences of what a card with that effect did when it ended a play
#: (a Targeted +2 / +4's come when its victim is named: :meth:`CardEffectLines.target_lines`).
EFFECT_LINES: dict[int, Callable[[CardEffectLines, int, int], None]] = {
    0: CardEffectLines._hands_passed,
    SKIP_RANK: CardEffectLines._skip,
    REVERSE_RANK: CardEffectLines._reverse,
    DRAW_TWO_RANK: CardEffectLines._draw,
    DRAW_FOUR_RANK: CardEffectLines._draw,
    HIT_TWO: CardEffectLines._hit,
    HIT_FIRE: CardEffectLines._hit,
    ALL_HIT: CardEffectLines._all_hit,
    DOWNPOUR_ONE: CardEffectLines._downpour,
    DOWNPOUR_TWO: CardEffectLines._downpour,
    SHUFFLE_HANDS: CardEffectLines._shuffle,
    BOOMERANG: CardEffectLines._boomerang,
    SWAP_HANDS: CardEffectLines._swap_hands,
}


# ---------------------------------------------------------------------- the first card
def _drawn_at_deal(state: State) -> list[int]:
    """Cards each seat holds over the deal's ``hand_size`` (what a first card made it draw)."""
    rules = state.rules
    return [int(state.hand_size[0, seat]) - rules.hand_size for seat in range(rules.players)]


def _first_draw_two(state: State, voice: Voice, first: int, dealer: int) -> list[str]:
    skipped = f" and {voice.be(first)} skipped" if int(state.actor[0]) != first else ""
    return [voice.say(first, "draws", "draw", f"2 cards{skipped}.")]


def _first_skip(state: State, voice: Voice, first: int, dealer: int) -> list[str]:
    return [voice.say(first, "is", "are", "skipped.")]


def _first_reverse(state: State, voice: Voice, first: int, dealer: int) -> list[str]:
    return [f"The direction is counter-clockwise; {voice.who(dealer)} plays first."]


def _first_everyone(state: State, voice: Voice, first: int, dealer: int) -> list[str]:
    """A Downpour or All Hit first: every player but the dealer draws (All Hit: presses)."""
    rank = int(state.rules.layout.kind_rank[state.top[0]])
    drawn = _drawn_at_deal(state)
    how = "draws" if rank != ALL_HIT else "presses the dispenser once and draws"
    got = ", ".join(f"{voice.who(x)} {drawn[x]}" for x in range(state.rules.players) if x != dealer)
    return [f"Every player but the dealer {how}: {got}."]


def _first_targeted_two(state: State, voice: Voice, first: int, dealer: int) -> list[str]:
    return [voice.say(first, "draws", "draw", "2 cards.")]


def _first_hit(state: State, voice: Voice, first: int, dealer: int) -> list[str]:
    drawn = _drawn_at_deal(state)
    you = first == voice.you
    count = f"{drawn[first]} card" + ("" if drawn[first] == 1 else "s")
    rest = f"hit: {'draw' if you else 'draws'} {count} and {'lose' if you else 'loses'} the turn."
    return [voice.say(first, "is", "are", rest)]


#: A first card's symbol (its own, ``kind_rank``) -> the lines of what it did to the first
#: player (``first``) or to everyone but the ``dealer``.
FIRST_CARD_LINES: dict[int, Callable[[State, Voice, int, int], list[str]]] = {
    DRAW_TWO_RANK: _first_draw_two,
    SKIP_RANK: _first_skip,
    REVERSE_RANK: _first_reverse,
    DOWNPOUR_ONE: _first_everyone,
    DOWNPOUR_TWO: _first_everyone,
    ALL_HIT: _first_everyone,
    TARGETED_TWO: _first_targeted_two,
    HIT_TWO: _first_hit,
    HIT_FIRE: _first_hit,
}


def first_card_lines(state: State, voice: Voice, first: int, dealer: int) -> list[str]:
    """The lines of what the first card of the round now in ``state`` did under
    ``first_card_effects`` (none without it, or for a card without a first-card effect)."""
    if not state.rules.first_card_effects:
        return []
    lines = FIRST_CARD_LINES.get(int(state.rules.layout.kind_rank[state.top[0]]))
    return [] if lines is None else lines(state, voice, first, dealer)
