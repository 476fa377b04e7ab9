"""The terminal game on hand-built positions (tests/core/scenario.py): a long hand breaks
between cards at the terminal width, and the +4 entry says when playing it would be a bluff."""

from __future__ import annotations

import io

import pytest
from core.scenario import build, rules

from uno_rl.core import engine
from uno_rl.core.convert import to_state
from uno_rl.render.text import strip_ansi
from uno_rl.terminal.console import TerminalPlayer
from uno_rl.terminal.menu import build_menu
from uno_rl.terminal.narrate import Voice
from uno_rl.terminal.style import Style

NAMES = ["seat 0 (you)", "seat 1 (rule)", "seat 2 (random)"]
PLAIN = Style(color=False)
LONG_HAND = [
    "red 1", "red 3", "red skip", "red skip", "red reverse", "red +2", "yellow 9",
    "yellow reverse", "green skip", "green reverse", "blue 9", "blue reverse", "blue +2",
    "wild", "+4",
]  # fmt: skip


def screen(state, width: int, style: Style) -> str:
    """What seat 0 sees at its decision on ``state``, at ``width`` columns."""
    out = io.StringIO()
    player = TerminalPlayer(0, Voice(NAMES, you=0), style, out, lambda: "1", width=width)
    player.decide(state, engine.legal_mask(state)[0])
    return out.getvalue()


@pytest.mark.parametrize("width", [40, 60, 120])
@pytest.mark.parametrize("color", [False, True])
def test_a_long_hand_breaks_between_cards_at_the_width(width, color):
    game = build(rules(players=3), {0: LONG_HAND, 1: ["blue 1"], 2: ["green 1"]}, top="red 5")
    text = screen(to_state([game]), width, Style(color=color))
    lines = [strip_ansi(line) for line in text.splitlines()]
    assert all(len(line) <= width for line in lines), [ln for ln in lines if len(ln) > width]
    assert all(line.count("[") == line.count("]") for line in lines)  # no card cut in two
    start = next(i for i, line in enumerate(lines) if line.startswith("Your hand:"))
    shown = " ".join(lines[start : start + 6])
    for face in ("[red skip] x2", "[red reverse]", "[yellow reverse]", "[blue reverse]", "[+4]"):
        assert face in shown


def plus_four_label(game) -> str:
    state = to_state([game])
    voice = Voice(NAMES[: state.rules.players], you=0)
    menu = build_menu(state, engine.legal_mask(state)[0], voice, PLAIN)
    labels = [c.label for c in menu.choices if "[+4]" in c.label]
    assert len(labels) == 1, [c.label for c in menu.choices]
    return labels[0]


def test_the_plus_four_entry_says_when_it_is_a_bluff():
    hands = {1: ["blue 1"], 2: ["green 1"]}
    bluff = build(rules(players=3), {0: ["+4", "red 8", "blue 2"], **hands}, top="red 5")
    assert plus_four_label(bluff) == (
        "play [+4] (a bluff: you hold a red card), then choose a color"
    )
    honest = build(rules(players=3), {0: ["+4", "blue 5", "blue 2"], **hands}, top="red 5")
    assert plus_four_label(honest) == "play [+4], then choose a color"


def test_a_bluff_under_no_playable_card_names_no_color():
    game = build(rules(players=3, draw_four_legal="no-playable-card"),
                 {0: ["+4", "blue 5"], 1: ["blue 1"], 2: ["green 1"]}, top="red 5")  # fmt: skip
    assert plus_four_label(game) == (
        "play [+4] (a bluff: you hold a playable card), then choose a color"
    )


def test_no_bluff_entry_when_the_rules_forbid_bluffing():
    game = build(rules(players=3, bluffing="forbidden"), {0: ["+4", "red 8"], 1: ["blue 1"]},
                 top="red 5")  # fmt: skip
    state = to_state([game])
    voice = Voice(NAMES, you=0)
    menu = build_menu(state, engine.legal_mask(state)[0], voice, PLAIN)
    assert not any("+4" in c.label or "bluff" in c.label for c in menu.choices)
