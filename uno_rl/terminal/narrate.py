"""What happened in a decision, in words: the events of one engine step for a one-game state.

:func:`narrate` compares the state before and after a :class:`~uno_rl.replays.Decision`
and lists :class:`Event` lines: who played what (and the color a wild named), who drew how
many cards (and which, for the drawer), skips, reverses, hands swapped or passed on, UNO
calls and penalties, challenges with their verdict and the hand they revealed, reshuffles,
the end of a round with its points and the next deal of a match, on every deck
(``rules.layout``). What each card did (a Skip, a Reverse, a draw, and the cards of rules
specification §11: Discard All, hits and the dispenser, Downpours, shuffled and swapped
hands, targeted draws, Boomerangs) is worded by :mod:`.effect_lines`, one sentence maker per
effect. :func:`narrate_deal` describes a deal (dealer, first card and its effect).
:class:`Event` and :class:`Voice`, the lines and the way players are named, come from
:mod:`.voice`.

Each event says who may see it (:attr:`Event.audience`): the cards a player draws, a hand a
challenge reveals to the challenger, and decisions that would give away hidden cards (keeping
a playable drawn card, declining a jump-in, ending a multi-play) are private. A viewer sees
the events :meth:`Event.visible_to` them; an open view (``viewer=None``) sees all.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

from uno_rl.core import engine
from uno_rl.core.actions import ACCEPT, CHALLENGE, CHOOSE_COLOR, DRAW, PASS, TARGET
from uno_rl.core.cards import WILD, WILD_DRAW_FOUR
from uno_rl.core.layout import BOOMERANG, DISCARD_ALL, SHUFFLE_HANDS
from uno_rl.core.phases import COLOR, DRAWN, JUMP, MULTI, PLAY, RESPOND
from uno_rl.core.phases import TARGET as TARGET_PHASE
from uno_rl.core.rules import Rules
from uno_rl.core.state import State
from uno_rl.replays.format import Outcome
from uno_rl.replays.rerun import Decision

from .effect_lines import TARGETED, CardEffectLines, first_card_lines
from .style import Style
from .voice import Event, Voice, capitalized, plural

__all__ = ["Event", "Voice", "capitalized", "describe_outcome", "narrate", "narrate_deal"]


def _next_seat(state: State, seat: int, steps: int = 1) -> int:
    return (seat + steps * int(state.direction[0])) % state.rules.players


def narrate_deal(state: State, voice: Voice, style: Style) -> list[Event]:
    """The deal of the round now in ``state``: dealer, first card, its effect, who starts."""
    s, rules = state, state.rules
    dealer, top = int(s.dealer[0]), int(s.top[0])
    first = (dealer + 1) % rules.players
    head = f"Round {int(s.round_index[0]) + 1}: " if rules.match else ""
    events = [
        Event(f"{head}{voice.say(dealer, 'deals', 'deal')}; the first card is {style.card(top)}.")
    ]
    if s.phase[0] == COLOR:
        chooser = int(s.actor[0])
        events.append(Event(voice.say(chooser, "names", "name", "its color.")))
    elif rules.layout.names_color[top]:
        events.append(Event(f"Its color is {style.color_name(int(s.color[0]))}."))
    events += [Event(text) for text in first_card_lines(state, voice, first, dealer)]
    return events


def describe_outcome(outcome: Outcome, rules: Rules, voice: Voice) -> str:
    """One line on how a game ended: the winner and the points (or match scores)."""
    if not outcome.finished:
        return f"The game stopped unfinished after {outcome.decisions} decisions."
    if outcome.truncated:
        return f"The round was cut off after {rules.max_turns} decisions: a draw."
    if rules.match:
        unit = "rounds won" if rules.scoring == "rounds" else "points"
        scores = ", ".join(f"{voice.who(s)} {p}" for s, p in enumerate(outcome.scores))
        return voice.say(outcome.winner, "wins", "win", f"the match! Final {unit}: {scores}.")
    points = ", ".join(f"{voice.who(s)} {p:+d}" for s, p in enumerate(outcome.points))
    return voice.say(outcome.winner, "wins", "win", f"the round! Points: {points}.")


def narrate(decision: Decision, voice: Voice, style: Style) -> list[Event]:
    """The events of one decision (see the module docstring)."""
    return _Narration(decision, voice, style).events


class _Narration(CardEffectLines):
    """Builds the events of one decision; one instance per decision."""

    def __init__(self, decision: Decision, voice: Voice, style: Style):
        self.d, self.voice, self.style = decision, voice, style
        self.b, self.s = decision.before, decision.after
        self.rules = self.b.rules
        self.card_of = self.rules.layout.action_card
        self.k, self.a = decision.seat, decision.action
        self.phase = int(self.b.phase[0])
        result = decision.result
        self.round_over = bool(result.round_over[0])
        #: the step ended a round of a match that goes on: ``after`` is already the next deal
        self.redealt = self.round_over and self.rules.match and not bool(result.match_over[0])
        #: reasons given for seats' draws, by seat
        self.draw_reason: dict[int, str] = {}
        self.events: list[Event] = []
        self._action()
        if not self.redealt:
            self._draws()
            self.dispenser_line()
            if self.s.reshuffles[0] > self.b.reshuffles[0]:
                self.add("The discard pile is shuffled into a new draw pile.")
        if self.round_over:
            self._round_end()

    def add(self, text: str, audience: Sequence[int] | None = None) -> None:
        self.events.append(Event(text, None if audience is None else frozenset(audience)))

    def next_seat(self, seat: int) -> int:
        return _next_seat(self.b, seat)

    def is_play(self) -> bool:
        return bool(self.card_of[self.a] >= 0)

    def target_rank(self) -> int:
        """The effect symbol of the top card a target action answers for."""
        return int(self.rules.effect_rank[self.b.top[0]])

    # ------------------------------------------------------------------ the action
    def _action(self) -> None:
        a, k, v, st = self.a, self.k, self.voice, self.style
        if self.is_play():
            layout = self.rules.layout
            self._play(int(self.card_of[a]), int(layout.action_color[a]))
        elif a == DRAW:
            auto = self.auto_played()
            if auto >= 0:  # drawn_card='auto-play': the drawn card went straight on the pile
                rest = f"a card and {'play' if k == v.you else 'plays'} it at once: {st.card(auto)}"
                if self.rules.layout.names_color[auto]:
                    rest += f", naming {st.color_name(int(self.s.color[0]))}"
                self.add(v.say(k, "draws", "draw", rest + "."))
                self.effect_lines(auto)
            elif self.draw_count(k) == 0 and self.presses():
                self.add(v.say(k, "presses", "press", "the dispenser: nothing comes out."))
            elif self.draw_count(k) == 0:
                self.add(v.say(k, "cannot", "cannot", "draw: both piles are empty."))
            elif self.presses():
                self.draw_reason[k] = "from the dispenser"
            else:
                self.draw_reason[k] = ""
        elif a == PASS:
            if self.phase == DRAWN:
                self.add(v.say(k, "keeps", "keep", "the drawn card."), [k])
            elif self.phase == MULTI:
                self.add(v.say(k, "stops", "stop", "adding cards."), [k])
                self.effect_lines(int(self.b.top[0]))
            else:  # JUMP
                self.add(v.say(k, "does", "do", "not jump in."), [k])
        elif a == CHALLENGE:
            self._challenge()
        elif a == ACCEPT:
            pending = int(self.b.pending[0])
            if pending:
                self.add(v.say(k, "accepts", "accept", f"the {plural(pending, 'card')} pending."))
                aimed = self.target_rank() in TARGETED and self.next_seat(int(self.b.cause[0])) != k
                self.draw_reason[k] = "" if aimed else self._loses_turn(k)  # not next: no turn lost
            else:
                lose = "lose" if k == v.you else "loses"
                self.add(v.say(k, "accepts", "accept", f"the Skip and {lose} the turn."))
        elif a >= CHOOSE_COLOR:
            color = st.color_name(a - CHOOSE_COLOR)
            self.add(v.say(k, "names", "name", f"{color} as the first card's color."))
        elif a >= TARGET:
            other = (k + int(self.rules.layout.action_target[a])) % self.rules.players
            if self.target_rank() in TARGETED:
                self.target_lines(other)
            else:
                self.add(v.say(k, "swaps", "swap", f"hands with {v.who(other)}."))
                self.swap_lines(other)

    def _play(self, kind: int, named: int) -> None:
        k, v, st = self.k, self.voice, self.style
        card = st.card(kind)
        verb = {
            PLAY: ("plays", "play", card),
            DRAWN: ("plays", "play", f"the drawn card {card}"),
            MULTI: ("adds", "add", card),
            JUMP: ("jumps in with", "jump in with", card),
        }.get(self.phase)
        layout = self.rules.layout
        if self.phase == RESPOND:
            cancel = kind == WILD and self.rules.wild_cancels_draw
            verb = ("cancels the draw with", "cancel the draw with", card) if cancel else (
                "stacks", "stack", card)  # fmt: skip
            if self.rules.effect_rank[kind] == BOOMERANG:
                verb = ("sends it back with", "send it back with", card)
        third, second, rest = verb
        if layout.names_color[kind]:
            rest += f", naming {st.color_name(named)}"
        bound = int(self.rules.effect_rank[kind])
        if bound != int(layout.kind_rank[kind]) and self.rules.customizable_as != "wild":
            rest += f" (acting as {self.rules.customizable_as})"
        last = int(self.b.hand_size[0, k]) == 1
        self.add(v.say(k, third, second, rest + (": the last card!" if last else ".")))
        if layout.draw_four_like[kind] and self.rules.challenge_enabled and not self.redealt:
            if self.s.draw4_bluff[0]:
                self.add(f"(A bluff: the {card} was not legal with {v.whose(k)} hand.)", [k])
        if bound == DISCARD_ALL and not last:
            self.discard_all_line(kind)
        if last:
            self._last_card(kind)
            return
        if self.s.phase[0] in (MULTI, TARGET_PHASE) and int(self.s.actor[0]) == k:
            self._uno_call()
            return  # the play goes on: its effect comes later
        self._uno_call()
        self.effect_lines(kind)

    def _uno_call(self) -> None:
        k, v = self.k, self.voice
        penalty = self.draw_count(k)
        if penalty:
            self.draw_reason[k] = "for not calling UNO (caught)"
        elif int(self.b.hand_size[0, k]) == 2:
            self.add(v.say(k, "calls", "call", "UNO!"))

    def _last_card(self, kind: int) -> None:
        s, v = self.s, self.voice
        if not self.round_over and s.phase[0] == RESPOND:
            victim = int(s.actor[0])
            self.add(v.say(victim, "may", "may", "still challenge the +4 before the round ends."))
        elif not self.round_over and s.phase[0] == TARGET_PHASE:
            self.add(v.say(self.k, "still names", "still name", "who draws."))
        elif not self.redealt:
            victim = _next_seat(self.b, self.k)
            if self.draw_count(victim):
                self.draw_reason[victim] = ""

    def _challenge(self) -> None:
        b, k, v, st = self.b, self.k, self.voice, self.style
        bluffer = int(b.draw4_player[0])
        self.add(
            v.say(
                k,
                "challenges",
                "challenge",
                f"{v.whose(bluffer)} {self.rules.layout.card_name(int(b.top[0]))}.",
            )
        )
        self.add(f"{capitalized(v.whose(bluffer))} hand: {st.cards(b.hands[0, bluffer])}", [k])
        if b.draw4_bluff[0]:
            self.add(v.say(bluffer, "was", "were", "bluffing!"))
            self.draw_reason[bluffer] = "as the caught bluffer"
            if self.rules.caught_bluffer == "takes-back":
                top, color = int(b.prev_top[0]), int(b.prev_color[0])
                self.add(
                    v.say(bluffer, "takes", "take", "the +4 back: ")
                    + f"the top card is {st.card(top)} again, color {st.color_name(color)}."
                )
            else:
                self.add(f"The named color {st.color_name(int(b.color[0]))} stands.")
            after = int(self.s.actor[0])
            if after == k or self.round_over:
                self.add(v.say(k, "plays", "play", "on."))
            else:
                self.add(v.say(after, "plays", "play", "next."))
        else:
            self.add(v.say(bluffer, "was", "were", "not bluffing."))
            self.draw_reason[k] = self._loses_turn(k)

    def _loses_turn(self, seat: int) -> str:
        return "and lose your turn" if seat == self.voice.you else "and loses the turn"

    # ------------------------------------------------------------------ draws
    @functools.cached_property
    def gained(self) -> np.ndarray:
        """(P, K) int64: cards each seat drew in this step (hands moved by a 0 put back, the
        cards a Discard All shed taken out); zeros when the step ended a round of a match and
        dealt the next one, swapped or shuffled hands."""
        b, s, a, k = self.b, self.s, self.a, self.k
        before = b.hands[0].astype(np.int64).copy()
        after = s.hands[0].astype(np.int64)
        swap = TARGET <= a < CHOOSE_COLOR and self.target_rank() not in TARGETED
        shuffle = self._finished_rank() == SHUFFLE_HANDS and bool(s.shuffled[0])
        if self.redealt or swap or shuffle:  # a new deal; a swap or shuffle draws nothing
            return np.zeros_like(before)
        if self.is_play():
            kind = int(self.card_of[a])
            before[k, kind] -= 1
            if self.rules.effect_rank[kind] == DISCARD_ALL:
                before[k] -= self.shed(kind)
        if a == CHALLENGE and b.draw4_bluff[0] and self.rules.caught_bluffer == "takes-back":
            before[int(b.draw4_player[0]), WILD_DRAW_FOUR] += 1
        rotated = self.rules.seven_zero and self._finished_rank() == 0
        if rotated:  # every hand moved one seat along: put them back to compare
            seats = np.arange(self.rules.players)
            after = after[(seats + int(b.direction[0])) % self.rules.players]
        return np.maximum(after - before, 0)

    def auto_played(self) -> int:
        """The card a DRAW played at once (``drawn_card='auto-play'``), else -1: the card the
        discard pile gained in the step."""
        b, s = self.b, self.s
        if self.a != DRAW or self.redealt:
            return -1
        before = b.discard[0].astype(np.int64)
        if s.reshuffles[0] > b.reshuffles[0]:  # the pile was refilled: only the top stayed
            before = np.zeros_like(before)
            before[b.top[0]] = 1
            if self.rules.caught_bluffer == "takes-back" and b.top[0] == WILD_DRAW_FOUR:
                if b.prev_top[0] >= 0:
                    before[b.prev_top[0]] += 1  # kept for a take-back (piles.reshuffle)
        gained = np.flatnonzero(s.discard[0].astype(np.int64) > before)
        return int(gained[0]) if gained.size else -1

    def _finished_rank(self) -> int:
        """Rank of the card whose effects applied in this step (-1 if none did)."""
        a, s, k = self.a, self.s, self.k
        ranks = self.rules.effect_rank
        if a == PASS and self.phase == MULTI:
            return int(ranks[self.b.top[0]])
        if a == DRAW:
            auto = self.auto_played()
            return -1 if auto < 0 else int(ranks[auto])
        if not self.is_play() or int(self.b.hand_size[0, k]) == 1:
            return -1
        if s.phase[0] in (MULTI, TARGET_PHASE) and int(s.actor[0]) == k:
            return -1
        return int(ranks[self.card_of[a]])

    def draw_count(self, seat: int) -> int:
        """Cards ``seat`` drew in this step."""
        return int(self.gained[seat].sum())

    def _draws(self) -> None:
        v, st = self.voice, self.style
        for seat in range(self.rules.players):
            count = self.draw_count(seat)
            if not count:
                continue
            reason = self.draw_reason.get(seat, "")
            text = v.say(seat, "draws", "draw", plural(count, "card"))
            self.add(text + (f" {reason}" if reason else "") + ".")
            cards = np.repeat(np.arange(self.gained.shape[1]), self.gained[seat])
            self.add(f"({capitalized(v.who(seat))} drew {st.card_list(cards)}.)", [seat])

    # ------------------------------------------------------------------ round end
    def _round_end(self) -> None:
        s, v, rules = self.s, self.voice, self.rules
        result = self.d.result
        if result.truncated[0]:
            self.add(
                f"The round is cut off after {rules.max_turns} decisions: a draw, nobody scores."
            )
        else:
            winner, points = int(result.winner[0]), int(result.points[0])
            if rules.scoring == "winner-takes":
                gain = f", scoring {points} points"
            elif rules.scoring == "rounds":
                gain = ""
            else:
                gain = " (each other player adds the points left in their hand)"
            self.add(self.style.bold(v.say(winner, "wins", "win", f"the round{gain}.")))
        if rules.match:
            scores = ", ".join(f"{v.who(seat)} {int(x)}" for seat, x in enumerate(s.scores[0]))
            unit = "rounds won" if rules.scoring == "rounds" else "points"
            length = (
                f"{rules.match_rounds} rounds, lowest total wins"
                if rules.match_rounds
                else f"target {rules.match_target}"
            )
            self.add(f"Match scores ({unit}, {length}): {scores}.")
            if result.match_over[0]:
                champion = int(engine.match_winner(s)[0])
                self.add(self.style.bold(v.say(champion, "wins", "win", "the match!")))
            else:
                self.events.extend(narrate_deal(s, v, self.style))
