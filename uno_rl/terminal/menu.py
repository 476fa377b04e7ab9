"""The numbered choices a person gets for a decision, and reading their answer.

:func:`build_menu` turns the legal actions of the seat to act into a phase-specific question
and a numbered list of :class:`Choice` (legal actions only). A Wild or +4 is one choice
(``play [wild]``) followed by the question "Choose a color" (:func:`color_menu`), so each
card is listed once; a +4 that would be a bluff says so (``play [+4] (a bluff: you hold a red
card)``), as it can then be challenged. :func:`parse_answer` reads a typed answer: a number from the list, or
``q`` to quit; anything else gives a short explanation to show before asking again.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from uno_rl.core.actions import ACCEPT, CHALLENGE, CHOOSE_COLOR, DRAW, PASS, TARGET
from uno_rl.core.cards import RANK_NAMES, WILD
from uno_rl.core.layout import SWAP_HANDS, SYMBOLS, TARGETED_FOUR, TARGETED_TWO, Layout
from uno_rl.core.legality import draw_four_legal
from uno_rl.core.phases import COLOR, DRAWN, JUMP, MULTI, PLAY, RESPOND
from uno_rl.core.phases import TARGET as TARGET_PHASE
from uno_rl.core.state import State

from .style import Style
from .voice import Voice, capitalized

__all__ = ["QUIT", "Choice", "Menu", "build_menu", "color_menu", "parse_answer"]

#: What :func:`parse_answer` returns for "quit".
QUIT = "quit"


@dataclasses.dataclass(frozen=True)
class Choice:
    """One numbered entry.

    Attributes:
        label: what the entry says.
        action: the action it takes; for a Wild or +4, the action naming red (the color
            question then adds 0..3).
        needs_color: a color must still be chosen (:func:`color_menu`).
    """

    label: str
    action: int
    needs_color: bool = False


@dataclasses.dataclass(frozen=True)
class Menu:
    """A question and its numbered choices."""

    question: str
    choices: tuple[Choice, ...]


def _card_choices(
    legal: np.ndarray,
    style: Style,
    verb: str,
    layout: Layout,
    wild_verb: str | None = None,
    boomerang_verb: str | None = None,
    bluff: str = "",
) -> list[Choice]:
    """One choice per card the legal actions play (a card naming a color once, its color
    asked after), colored cards first, in kind order; ``wild_verb`` replaces ``verb`` for a
    plain Wild, ``boomerang_verb`` for a Boomerang; ``bluff`` follows a +4's name."""
    out, later = [], []
    for kind in np.unique(layout.action_card[np.flatnonzero(legal)]):
        if kind < 0:
            continue
        kind = int(kind)
        first = int(layout.first_action[kind])
        face = style.card(kind) + (bluff if layout.draw_four_like[kind] else "")
        if layout.names_color[kind]:
            says = wild_verb if kind == WILD and wild_verb else verb
            later.append(Choice(f"{says} {face}, then choose a color", first, True))
        elif layout.kind_color[kind] < 0:
            later.append(Choice(f"{boomerang_verb or verb} {face}", first))
        else:
            out.append(Choice(f"{verb} {face}", first))
    return out + later


def bluff_note(state: State, seat: int, style: Style) -> str:
    """`` (a bluff: you hold a red card)`` when a +4 (or Targeted +4) from ``seat`` would be
    a bluff now (:func:`~uno_rl.core.legality.draw_four_legal`), open to a challenge; empty
    when it would not, or when the rules allow no challenge."""
    rules = state.rules
    if not rules.challenge_enabled:
        return ""
    hand = state.hands[0:1, seat]
    if draw_four_legal(state, np.zeros(1, np.int64), hand)[0]:
        return ""
    if rules.draw_four_legal == "no-current-color":
        return f" (a bluff: you hold a {style.color_name(int(state.color[0]))} card)"
    return " (a bluff: you hold a playable card)"


def symbol_name(rank: int) -> str:
    """Readable name of a symbol: ``7``, ``skip``, ``discard all``."""
    return RANK_NAMES[rank] if rank < len(RANK_NAMES) else SYMBOLS[rank][0].replace("-", " ")


def build_menu(state: State, legal: np.ndarray, voice: Voice, style: Style) -> Menu:
    """The question and choices for the seat to act in the one-game ``state``.

    Args:
        state: one game, not over.
        legal: (A,) bool legal actions of the seat to act (A: ``rules.layout.num_actions``).
        voice: names of the players.
        style: colors.
    """
    s, rules = state, state.rules
    layout = rules.layout
    if np.shape(legal) != (layout.num_actions,):
        raise ValueError(
            f"legal must be a ({layout.num_actions},) mask for the deck {rules.deck!r}, "
            f"got shape {np.shape(legal)}"
        )
    phase = int(s.phase[0])
    seat = int(s.actor[0])
    choices: list[Choice] = []
    bluff = bluff_note(s, seat, style)
    if phase == PLAY:
        question = "Your turn: play a card or draw."
        choices = _card_choices(legal, style, "play", layout, bluff=bluff)
        if legal[DRAW]:  # not when a card must be played (voluntary_draw off)
            what = "press the dispenser" if rules.dispenser_on else "draw a card"
            choices.append(Choice(what, DRAW))
    elif phase == DRAWN:
        drawn = int(s.drawn[0])
        question = f"You drew {style.card(drawn)}. Play the drawn card?"
        choices = _card_choices(legal, style, "play it:", layout, bluff=bluff)
        if legal[PASS]:
            choices.append(Choice("keep it (your turn ends)", PASS))
    elif phase == RESPOND:
        pending = int(s.pending[0])
        if legal[CHALLENGE]:
            bluffer = int(s.draw4_player[0])
            before = style.color_name(int(s.prev_color[0]))
            name = layout.card_name(int(s.top[0]))
            question = (
                f"Challenge the {name}? {capitalized(voice.who(bluffer))} played it; the color "
                f"before it was {before}. A bluff caught: they draw {pending}. "
                f"Not a bluff: you draw {pending + 2}."
            )
            choices.append(Choice(f"challenge the {name}", CHALLENGE))
        elif pending:
            question = f"{pending} cards to draw are coming your way: answer or accept?"
        else:
            question = "A Skip is coming your way: send it back with a boomerang or accept?"
        cancel = "cancel the draw with" if rules.wild_cancels_draw else None
        back = "send it back with"
        choices += _card_choices(legal, style, "stack", layout, cancel, back, bluff)
        targeted = int(rules.effect_rank[s.top[0]]) in (TARGETED_TWO, TARGETED_FOUR)
        cause = int(s.cause[0])
        after_cause = (cause + int(s.direction[0])) % rules.players
        if pending and targeted and after_cause != seat:  # not next: the turn is not lost
            choices.append(Choice(f"accept: draw {pending} cards", ACCEPT))
        elif pending:
            choices.append(Choice(f"accept: draw {pending} cards and lose your turn", ACCEPT))
        else:
            choices.append(Choice("accept: lose your turn", ACCEPT))
    elif phase == TARGET_PHASE:
        rank = int(rules.effect_rank[s.top[0]])
        if rank in (TARGETED_TWO, TARGETED_FOUR):
            count = 2 if rank == TARGETED_TWO else 4
            question = f"Whom do you target with {style.card(int(s.top[0]))}? They draw {count}."
        elif rank == SWAP_HANDS:
            question = "Swap hands with whom? (wild swap hands)"
        else:
            question = "Swap hands with whom? (seven-zero)"
        for action in np.flatnonzero(legal[TARGET : TARGET + 9]) + TARGET:
            other = (seat + int(action) - TARGET + 1) % rules.players
            size = int(s.hand_size[0, other])
            choices.append(
                Choice(f"{voice.who(other)}: {size} card{'s' * (size != 1)}", int(action))
            )
    elif phase == MULTI:
        rank = symbol_name(int(s.multi_rank[0]))
        question = f"Play another {rank} in the same turn?"
        choices = _card_choices(legal, style, "add", layout)
        choices.append(Choice("stop here", PASS))
    elif phase == COLOR:
        question = f"The first card is {style.card(int(s.top[0]))}: choose its color."
        for color in range(4):
            choices.append(Choice(_color_label(s, seat, color, style), CHOOSE_COLOR + color))
    elif phase == JUMP:
        card = int(s.jump_card[0])
        question = f"Jump in with {style.card(card)}? You hold the identical card."
        jump = int(layout.first_action[card])
        choices = [Choice(f"jump in: play {style.card(card)}", jump), Choice("let it pass", PASS)]
    else:
        raise ValueError(f"nobody decides in phase {phase} (the game is over)")
    _check_covers(choices, legal)
    return Menu(question, tuple(choices))


def _color_label(state: State, seat: int, color: int, style: Style) -> str:
    hand = state.hands[0, seat]
    held = int(hand[state.rules.layout.kind_color == color].sum())
    return f"{style.color_name(color)} ({held} in your hand)"


def color_menu(state: State, card_action: int, style: Style) -> Menu:
    """Choose the color a card naming one names (``card_action``: the action naming red)."""
    seat = int(state.actor[0])
    kind = int(state.rules.layout.action_card[card_action])
    choices = tuple(
        Choice(_color_label(state, seat, color, style), card_action + color) for color in range(4)
    )
    return Menu(f"Choose a color for your {style.card(kind)}:", choices)


def _check_covers(choices: list[Choice], legal: np.ndarray) -> None:
    """Every legal action is reachable from the menu and nothing else is (a bug otherwise)."""
    offered = np.zeros_like(legal)
    for c in choices:
        offered[c.action : c.action + (4 if c.needs_color else 1)] = True
    if not np.array_equal(offered, legal):
        raise RuntimeError(
            f"the menu offers actions {np.flatnonzero(offered).tolist()} but the legal ones are "
            f"{np.flatnonzero(legal).tolist()}"
        )


def parse_answer(text: str, count: int) -> int | str:
    """The 0-based choice a typed answer picks, :data:`QUIT`, or an explanation (a str).

    Accepted: a number from 1 to ``count`` (spaces around are fine), ``q`` or ``quit``.
    """
    answer = text.strip().lower()
    span = f"a number from 1 to {count}" if count > 1 else "1"
    if answer in ("q", "quit", "exit"):
        return QUIT
    if not answer:
        return f"Please type {span} (or q to quit)."
    if not (answer.isascii() and answer.isdigit()):  # "²" and "٣" are digits to str.isdigit
        return f"{text.strip()!r} is not a number: type {span} (or q to quit)."
    if len(answer.lstrip("0")) > 6:  # int() refuses 4,300+ digits; no menu is this long
        return f"There is no choice {answer[:12]}...: type {span}."
    number = int(answer)
    if not 1 <= number <= count:
        return f"There is no choice {number}: type {span}."
    return number - 1
