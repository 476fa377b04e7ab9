"""The table as one player sees it (or with every hand open), as text.

:func:`table_text` shows the top card and the current color, the direction of play, the draw
pile, cards pending for the victim of a +2/+4, the dispenser's presses since it last fired
(when it is on), every player's hand size (UNO marked, match
scores in a match) with the player to act marked, and the viewer's own hand. With
``viewer=None`` every hand is shown: the spectator's view of a replay. Nothing else hidden is
ever printed.
"""

from __future__ import annotations

from collections.abc import Sequence

from uno_rl.agents.labels import agent_labels
from uno_rl.core.phases import DRAWN, OVER, PHASE_NAMES
from uno_rl.core.state import State
from uno_rl.plumbing.safe_text import printable

from .style import Style
from .voice import Voice, capitalized

__all__ = ["seat_names", "spec_notes", "table_text"]


def seat_names(seats: Sequence[str]) -> list[str]:
    """Display names by seat: ``seat 1 (rule)``, each agent spec by its label among the
    table's (:func:`uno_rl.agents.labels.agent_labels`: ``seat 1 (color-first)`` for
    ``color-first:bluff=1`` unless another seat plays another ``color-first``), control
    characters escaped (:func:`~uno_rl.plumbing.safe_text.printable`: a replay's names reach the
    terminal)."""
    labels = agent_labels(seats)
    return [f"seat {i} ({printable(labels[name])})" for i, name in enumerate(seats)]


def spec_notes(seats: Sequence[str]) -> list[str]:
    """For each spec whose label (:func:`seat_names`) is not the spec, its seats and the full
    spec, escaped: ``Seat 1 (color-first) plays color-first:bluff=1.``, ``Seat 1 (pimc) and
    seat 2 (pimc) play pimc:rollouts=1.``"""
    labels = agent_labels(seats)
    by_spec: dict[str, list[str]] = {}
    for name, spec in zip(seat_names(seats), seats):
        if labels[spec] != spec:
            by_spec.setdefault(spec, []).append(name)
    return [
        f"{capitalized(' and '.join(names))} play{'s' * (len(names) == 1)} {printable(spec)}."
        for spec, names in by_spec.items()
    ]


def table_text(state: State, voice: Voice, style: Style, viewer: int | None) -> str:
    """The table of the one-game ``state`` for seat ``viewer`` (None: every hand open)."""
    s, rules = state, state.rules
    p = rules.players
    phase, actor = int(s.phase[0]), int(s.actor[0])
    over = phase == OVER
    arrow = "clockwise ->" if s.direction[0] > 0 else "counter-clockwise <-"
    line = (
        f"Top card {style.card(int(s.top[0]))}  color {style.color_name(int(s.color[0]))}  "
        f"direction {arrow}  draw pile {int(s.pile_size[0])}"
    )
    if s.pending[0]:
        line += f"  pending draw {int(s.pending[0])}"
    if rules.dispenser_on:
        presses = int(s.presses[0])
        line += f"  dispenser: {presses} press{'es' * (presses != 1)} since it fired"
    lines = [line]
    labels = [voice.who(seat) for seat in range(p)]
    width = max(len(label) for label in labels)
    for seat in range(p):
        size = int(s.hand_size[0, seat])
        mark = ">" if seat == actor and not over else " "
        row = f" {mark} {labels[seat]:<{width}}  {size:2d} card{'s' if size != 1 else ' '}"
        if size == 1:
            row += "  UNO!"
        if rules.match:
            row += f"  score {int(s.scores[0, seat])}"
        if seat == actor and not over and viewer is None:
            row += f"  to act ({PHASE_NAMES[phase]})"
        if viewer is None:
            row += "  " + style.cards(s.hands[0, seat])
        lines.append(row)
    if viewer is not None:
        hand = style.cards(s.hands[0, viewer])
        owner = "Your hand" if viewer == voice.you else f"Hand of {voice.who(viewer)}"
        lines.append(f"{owner}: {hand}")
        if phase == DRAWN and actor == viewer:
            lines.append(f"Just drawn: {style.card(int(s.drawn[0]))}")
    return "\n".join(lines)
