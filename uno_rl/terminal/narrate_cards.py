"""Narration of the cards of rules specification §11 (a mixin of :class:`.narrate._Narration`).

Discard All (the cards shed), hits and the dispenser (presses, cards shot, presses since its
last fire), Downpours, a shuffle of every hand (each seat sees its own new hand), a swap (the
two seats see both hands), targeted draws (who was targeted), and a Boomerang sending a draw
or a Skip back. Every hand shown is shown only to the seats that know it.
"""

from __future__ import annotations

import numpy as np

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
from uno_rl.core.phases import RESPOND

__all__ = ["NewCards", "shed_cards"]

DOWNPOURS = {DOWNPOUR_ONE: 1, DOWNPOUR_TWO: 2}
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


class NewCards:
    """The section-11 events; mixed into the narration of one decision (its attributes:
    ``b``, ``s``, ``k``, ``a``, ``rules``, ``voice``, ``style``, ``draw_reason``)."""

    @property
    def layout(self):
        return self.rules.layout

    def presses(self) -> int:
        """Presses of the dispenser in this step (0 when it is off or the round was redealt)."""
        if self.redealt or not self.rules.dispenser_on:
            return 0
        return int(self.s.press_index[0]) - int(self.b.press_index[0])

    def _shed(self, kind: int) -> np.ndarray:
        hand = self.b.hands[0, self.k].astype(np.int64).copy()
        hand[kind] -= 1
        return shed_cards(hand, kind, self.layout, self.rules.discard_all_may_go_out)

    def discard_all_line(self, kind: int) -> None:
        """A Discard All just laid: the cards of its color it shed (public: they are
        discarded face up)."""
        shed = self._shed(kind)
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

    def new_effects(self, rank: int) -> None:
        """Effects of a section-11 card that ends the play (``rank``: its effect symbol)."""
        b, s, k, v = self.b, self.s, self.k, self.voice
        if rank in (HIT_TWO, HIT_FIRE):
            victim = self.next_seat(k)
            what = (
                "hit (2 presses)" if rank == HIT_TWO else "hit (presses until the dispenser fires)"
            )
            self.add(
                v.say(
                    victim,
                    "is",
                    "are",
                    f"{what} and {'lose' if victim == v.you else 'loses'} the turn.",
                )
            )
            self.draw_reason.setdefault(victim, "from the hit")
        elif rank == ALL_HIT:
            self.add("Every other player presses the dispenser once.")
        elif rank in DOWNPOURS:
            count = DOWNPOURS[rank]
            self.add(f"Downpour: every other player draws {count}.")
        elif rank == SHUFFLE_HANDS and s.shuffled[0]:
            self.shuffle_lines()
        elif rank == BOOMERANG and self.phase == RESPOND:
            cause = int(b.cause[0])
            if int(b.pending[0]) > 0:
                self.add(f"The {int(b.pending[0])} cards go back to {v.who(cause)}.")
                self.draw_reason[cause] = "sent back by the boomerang"
            else:
                self.add(v.say(cause, "will", "will", "lose the next turn: the Skip came back."))
        elif rank == SWAP_HANDS and s.phase[0] != RESPOND and int(s.actor[0]) != k:
            self.add("Nobody can be chosen to swap with: it is a plain wild.")

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
            self.add(f"({capital(v.whose(seat))} new hand: {hand}.)", [seat])

    def swap_lines(self, other: int) -> None:
        """A swap between the actor and ``other``: each sees what they gave and got (a line
        each, as every private event has one seat)."""
        b, k, v, st = self.b, self.k, self.voice, self.style
        for seat, partner in ((k, other), (other, k)):
            gave, got = st.cards(b.hands[0, seat]), st.cards(b.hands[0, partner])
            text = f"({capital(v.who(seat))} gave {v.who(partner)} {gave} and got {got}.)"
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
            word = "card" if pending == 1 else "cards"
            self.add(v.say(victim, "faces", "face", f"{pending} {word} to draw ({how})."))
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


def capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def first_new_card(state, voice, rank: int, first: int, dealer: int) -> list[str]:
    """The lines of what a first card of section 11 did (``rank``: its symbol; the cards
    drawn are the hand sizes over the deal's ``hand_size``)."""
    s, rules = state, state.rules
    drawn = [int(s.hand_size[0, seat]) - rules.hand_size for seat in range(rules.players)]
    if rank in DOWNPOURS or rank == ALL_HIT:
        how = "draws" if rank != ALL_HIT else "presses the dispenser once and draws"
        got = ", ".join(f"{voice.who(x)} {drawn[x]}" for x in range(rules.players) if x != dealer)
        return [f"Every player but the dealer {how}: {got}."]
    if rank == TARGETED_TWO:
        return [voice.say(first, "draws", "draw", "2 cards.")]
    if rank in (HIT_TWO, HIT_FIRE):
        you = first == voice.you
        count = f"{drawn[first]} card" + ("" if drawn[first] == 1 else "s")
        rest = (
            f"hit: {'draw' if you else 'draws'} {count} and {'lose' if you else 'loses'} the turn."
        )
        return [voice.say(first, "is", "are", rest)]
    return []
