"""Text rendering of one game: a readable table with ANSI-colored cards.

:func:`render_text` shows the top card and the current color, the direction of play, the
draw pile, pending draws, every player's hand size (and match score), who acts and in which
phase, and one seat's view: the viewer's hand (by default the player to act) and, when the
viewer is to act, their legal actions and the card they just drew. Every deck renders
(rules specification §11): cards and actions are named by the deck's layout
(``rules.layout.card_name`` / ``action_name``), the dispenser's presses since it last fired
are shown when it is on, and so are the two seats of the round's last hand swap (public);
the two hands swapped are shown only to a viewer who was one of the two. Nothing else hidden
is ever shown (no other hand, not the draw pile's order, no seed), so the text is what the
viewer may see. Cards are colored with ANSI escape codes
(red, yellow, green, blue; wilds in bold); pass ``color=False`` for plain text, and
:func:`strip_ansi` removes the codes from a rendered string.

What is shown is gathered once by :func:`table_view` into a :class:`TableView`, the only
thing read from the state; :func:`render_text` writes it as text and
:func:`uno_rl.render.frames.render_frame` draws it as an RGB image, so both show the same.

Example (colors removed)::

    UNO uno_v1 | 2 players | decision 3
    top card: [red 7]  color: red  direction: clockwise  draw pile: 92  pending draw: 0
      player_0   7 cards
    > player_1   8 cards   to act, phase 'play'
    hand of player_1: [red 1] [red 7] [yellow skip] [wild] ...
    legal: 1 (play red 1), 7 (play red 7), 52 (wild naming red), ..., 60 (draw)
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

import numpy as np

from uno_rl.core import engine
from uno_rl.core.cards import COLOR_NAMES
from uno_rl.core.layout import CLASSIC, EXTENDED, Layout
from uno_rl.core.phases import DRAWN, OVER, PHASE_NAMES
from uno_rl.core.state import State
from uno_rl.plumbing.safe_text import printable

__all__ = [
    "SeatView",
    "TableView",
    "color_card",
    "present",
    "render_text",
    "strip_ansi",
    "table_view",
    "view_text",
]

#: ANSI foreground codes of red, yellow, green, blue.
_COLOR_CODES = ("31", "33", "32", "34")
_WILD_CODE = "1;35"
_RESET = "\x1b[0m"
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


@dataclasses.dataclass(frozen=True)
class SeatView:
    """One row of the player table: what everyone may see of a seat."""

    name: str  # printable name
    size: int  # cards in hand
    score: int | None  # match score (None outside a match)
    acting: bool  # this seat is to act (never once the round is over)
    winner: bool  # this seat won the round


@dataclasses.dataclass(frozen=True)
class TableView:
    """Everything :func:`render_text` shows of one game, seen by one viewer.

    The hand, drawn card and legal actions are the viewer's own (``None`` when not shown);
    nothing here is hidden from the viewer.
    """

    title: str
    players: int
    decision: int  # decisions taken this round
    match_round: int | None  # 1-based round of a match (None outside a match)
    match_target: int | None  # the match's target (None outside a match)
    match_rounds: int  # rounds of a fixed-length match (rules.match_rounds; 0: to the target)
    top: int  # kind of the top card
    color: int  # current color 0..3, -1 none yet
    direction: int  # +1 clockwise, -1 counter-clockwise
    pile_size: int  # cards in the draw pile
    pending: int  # cards the victim of a +2/+4 (chain) will draw
    phase: str  # name of the phase (uno_rl.core.phases.PHASE_NAMES)
    seats: tuple[SeatView, ...]
    over: bool  # the round is over
    outcome: str | None  # "round over: ..." once over (None while playing, or no winner)
    viewer: int | None  # seat whose hand is shown (None: no hand shown)
    hand: tuple[tuple[int, int], ...]  # the viewer's (kind, count) pairs, by kind
    drawn: int | None  # kind the viewer just drew (drawn phase, viewer to act)
    legal: tuple[int, ...] | None  # the viewer's legal actions (None: not the viewer's turn)
    layout: Layout = CLASSIC  # the deck's layout: names of its cards and actions
    presses: int | None = None  # dispenser presses since it last fired (None: no dispenser)
    swap: tuple[int, int] | None = None  # seats of the last hand swap this round (public)
    swap_gave: tuple[tuple[int, int], ...] | None = None  # the viewer's hand given in it
    swap_got: tuple[tuple[int, int], ...] | None = None  # and the hand it received


def table_view(
    state: State,
    game: int = 0,
    names: Sequence[str] | None = None,
    title: str = "UNO",
    show_hand: bool = True,
    viewer: int | None = None,
) -> TableView:
    """What :func:`render_text` shows of game ``game`` (same arguments, without ``color``)."""
    s, i = state, game
    p = s.rules.players
    names = (
        [printable(n) for n in names] if names is not None else [f"player_{k}" for k in range(p)]
    )
    phase = int(s.phase[i])
    over = phase == OVER
    actor = int(s.actor[i])
    match = bool(s.rules.match)
    seats = tuple(
        SeatView(
            name=names[seat],
            size=int(s.hand_size[i, seat]),
            score=int(s.scores[i, seat]) if match else None,
            acting=seat == actor and not over,
            winner=seat == int(s.winner[i]),
        )
        for seat in range(p)
    )
    outcome = None
    if over:
        if bool(s.truncated[i]):
            outcome = f"round over: truncated at max_turns={s.rules.max_turns} (a draw)"
        elif s.winner[i] >= 0:
            outcome = f"round over: {names[int(s.winner[i])]} wins"
    shown, hand, drawn, legal = None, (), None, None
    if show_hand and not over:
        shown = actor if viewer is None else int(viewer)
        counts = s.hands[i, shown]
        hand = _pairs(counts)
        if shown == actor:
            if phase == DRAWN:
                drawn = int(s.drawn[i])
            legal = tuple(int(a) for a in np.flatnonzero(engine.legal_mask(s)[i]))
    swap, gave, got = None, None, None
    if s.swap_given.shape[2] and s.swap_seats[i, 0] >= 0:  # the extended layout's swap
        swap = (int(s.swap_seats[i, 0]), int(s.swap_seats[i, 1]))
        if shown in swap:  # only a swapper knows both hands
            side = swap.index(shown)
            gave, got = _pairs(s.swap_given[i, side]), _pairs(s.swap_given[i, 1 - side])
    return TableView(
        title=title,
        players=p,
        decision=int(s.turn[i]),
        match_round=int(s.round_index[i]) + 1 if match else None,
        match_target=int(s.rules.match_target) if match else None,
        match_rounds=int(s.rules.match_rounds) if match else 0,
        top=int(s.top[i]),
        color=int(s.color[i]),
        direction=1 if s.direction[i] > 0 else -1,
        pile_size=int(s.pile_size[i]),
        pending=int(s.pending[i]),
        phase=PHASE_NAMES[phase],
        seats=seats,
        over=over,
        outcome=outcome,
        viewer=shown,
        hand=hand,
        drawn=drawn,
        legal=legal,
        layout=s.rules.layout,
        presses=int(s.presses[i]) if s.rules.dispenser_on else None,
        swap=swap,
        swap_gave=gave,
        swap_got=got,
    )


def _pairs(counts: np.ndarray) -> tuple[tuple[int, int], ...]:
    """(kind, count) pairs of the nonzero entries of ``counts`` (K,), by kind."""
    return tuple((int(k), int(counts[k])) for k in np.flatnonzero(counts))


def _paint(text: str, code: str, color: bool) -> str:
    return f"\x1b[{code}m{text}{_RESET}" if color else text


def color_card(kind: int, color: bool = True, count: int = 1, layout: Layout | None = None) -> str:
    """``[red 7]`` (``[red 7] x2`` for two copies), colored by the card's color.

    ``kind`` is named by ``layout`` (default: the extended layout, whose kinds 0 .. 53 are
    the classic ones): ``[blue discard all]``, ``[wild swap hands]``, ...
    """
    layout = EXTENDED if layout is None else layout
    c = int(layout.kind_color[kind])
    text = f"[{layout.card_name(kind)}]"
    text = _paint(text, _COLOR_CODES[c] if c >= 0 else _WILD_CODE, color)
    return text if count == 1 else f"{text} x{count}"


def strip_ansi(text: str) -> str:
    """``text`` without ANSI escape codes."""
    return _ANSI.sub("", text)


def render_text(
    state: State,
    game: int = 0,
    names: Sequence[str] | None = None,
    title: str = "UNO",
    color: bool = True,
    show_hand: bool = True,
    viewer: int | None = None,
) -> str:
    """A readable multi-line picture of game ``game`` of ``state``.

    Args:
        state: the batched state.
        game: which game of the batch.
        names: player names by seat (default ``player_0`` ...); control characters are
            escaped (:func:`uno_rl.plumbing.safe_text.printable`).
        title: first word of the header line.
        color: ANSI colors on.
        show_hand: also show the viewer's hand (and, if the viewer is to act, the card just
            drawn and the legal actions); other hands are never shown.
        viewer: the seat whose view this is; ``None``: the player to act.
    """
    return view_text(table_view(state, game, names, title, show_hand, viewer), color)


def match_length(v: TableView) -> str:
    """How long the match of ``v`` runs, after its round number: ``of a match to 500``, or
    ``of 5 (lowest total wins)`` under ``match_rounds``."""
    if v.match_rounds:
        return f"of {v.match_rounds} (lowest total wins)"
    return f"of a match to {v.match_target}"


def view_text(view: TableView, color: bool = True) -> str:
    """The text of :func:`render_text` for a :class:`TableView`."""
    v = view
    cur = v.color
    color_text = _paint(COLOR_NAMES[cur], _COLOR_CODES[cur], color) if cur >= 0 else "none yet"
    direction = "clockwise" if v.direction > 0 else "counter-clockwise"
    header = f"{v.title} | {v.players} players | decision {v.decision}"
    if v.match_round is not None:
        header += f" | round {v.match_round} {match_length(v)}"
    layout = v.layout
    pile = f"draw pile: {v.pile_size}"
    if v.presses is not None:
        pile = f"dispenser: {v.pile_size} cards, {v.presses} presses since it fired"
    lines = [
        header,
        f"top card: {color_card(v.top, color, layout=layout)}  color: {color_text}  "
        f"direction: {direction}  {pile}  pending draw: {v.pending}",
    ]
    width = max(len(seat.name) for seat in v.seats)
    for seat in v.seats:
        mark = ">" if seat.acting else " "
        row = f"{mark} {seat.name:<{width}}  {seat.size:2d} card{'s' if seat.size != 1 else ' '}"
        if seat.score is not None:
            row += f"  score {seat.score}"
        if seat.acting:
            row += f"  to act, phase '{v.phase}'"
        if seat.winner:
            row += "  WINNER"
        lines.append(row)
    if v.swap is not None:
        lines.append(f"last hand swap: {v.seats[v.swap[0]].name} <-> {v.seats[v.swap[1]].name}")
    if v.outcome is not None:
        lines.append(v.outcome)
    if v.viewer is not None:

        def cards(pairs) -> str:
            return " ".join(color_card(k, color, n, layout) for k, n in pairs) or "(none)"

        lines.append(f"hand of {v.seats[v.viewer].name}: {cards(v.hand)}")
        if v.swap_gave is not None:
            lines.append(f"gave in the swap: {cards(v.swap_gave)}")
            lines.append(f"received in it: {cards(v.swap_got)}")
        if v.drawn is not None:
            lines.append(f"just drew: {color_card(v.drawn, color, layout=layout)}")
        if v.legal is not None:
            named = (f"{a} ({layout.action_name(a)})" for a in v.legal)
            lines.append("legal: " + ", ".join(named))
    return "\n".join(lines)


def present(text: str, render_mode: str) -> str | None:
    """What an env's ``render()`` gives: the text in ``"ansi"`` mode; printed in ``"human"``."""
    if render_mode == "ansi":
        return text
    print(text + "\n")
    return None
