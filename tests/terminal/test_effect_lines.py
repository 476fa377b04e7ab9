"""What each card did, in words (:mod:`uno_rl.terminal.effect_lines`): one table from effect
symbol to sentence, the narration text unchanged by the split, and cards drawn by the layout."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from uno_rl.agents import make_agent
from uno_rl.core import load_rules
from uno_rl.core.cards import DRAW_TWO_RANK, REVERSE_RANK, SKIP_RANK
from uno_rl.core.layout import (
    ALL_HIT,
    BOOMERANG,
    CLASSIC,
    DOWNPOUR_ONE,
    DOWNPOUR_TWO,
    EXTENDED,
    HIT_FIRE,
    HIT_TWO,
    SHUFFLE_HANDS,
    SWAP_HANDS,
    TARGETED_TWO,
)
from uno_rl.render.text import color_card
from uno_rl.replays.record import AgentSeat, play_game
from uno_rl.terminal.effect_lines import EFFECT_LINES, FIRST_CARD_LINES
from uno_rl.terminal.narrate import Voice, narrate, narrate_deal
from uno_rl.terminal.style import Style

SPECS = ["rule", "color-first", "points-dumper", "aggressive", "bayes-challenger:bluff=0.5"]
RULES = {
    "classic": dict(players=4, seven_zero=True, jump_in=True, multi_play=True),
    "extreme": dict(players=3, deck="extreme"),
    "extension": dict(players=3, deck="extension", stacking="any"),
}
#: (sha256 first 16 digits, lines) of the narration of seeds 1 and 2: recorded, so that a
#: change in what the terminal says is seen.
RECORDED = {
    "classic": [("6e9c617299c440bb", 76), ("9565c6a47cdd67d2", 103)],
    "extreme": [("3a24f9acd2d56738", 42), ("6993de75088ad0c2", 39)],
    "extension": [("705ab5b572e2998f", 78), ("9afb002a56ece6d9", 43)],
}


def _narration_digest(rules, seed: int) -> tuple[str, int]:
    seats = [
        AgentSeat(make_agent(SPECS[s % len(SPECS)], rules), np.random.default_rng(s))
        for s in range(rules.players)
    ]
    voice, style = Voice([f"seat {s}" for s in range(rules.players)], you=0), Style(color=False)
    lines: list[str] = []

    def on_decision(decision):
        if decision.index == 0:
            lines.extend(e.text for e in narrate_deal(decision.before, voice, style))
        events = narrate(decision, voice, style)
        lines.extend(f"{e.text} {sorted(e.audience or [])}" for e in events)

    play_game(rules, seats, seed=seed, on_decision=on_decision)
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()[:16], len(lines)


@pytest.mark.parametrize("deck", sorted(RULES))
def test_narration_reads_as_recorded(deck):
    rules = load_rules("official", **RULES[deck])
    assert [_narration_digest(rules, seed) for seed in (1, 2)] == RECORDED[deck]


def test_one_table_holds_the_sentences_of_every_effect():
    assert set(EFFECT_LINES) == {
        0, SKIP_RANK, REVERSE_RANK, DRAW_TWO_RANK, 14, HIT_TWO, HIT_FIRE, ALL_HIT,
        DOWNPOUR_ONE, DOWNPOUR_TWO, SHUFFLE_HANDS, BOOMERANG, SWAP_HANDS,
    }  # fmt: skip
    assert set(FIRST_CARD_LINES) == {
        DRAW_TWO_RANK, SKIP_RANK, REVERSE_RANK, DOWNPOUR_ONE, DOWNPOUR_TWO, ALL_HIT,
        TARGETED_TWO, HIT_TWO, HIT_FIRE,
    }  # fmt: skip


@pytest.mark.parametrize("layout", [CLASSIC, EXTENDED], ids=lambda x: x.name)
def test_style_draws_every_kind_of_its_layout_as_the_renderer(layout):
    for color in (False, True):
        style = Style(color=color, layout=layout)
        for kind in range(layout.num_kinds):
            assert style.card(kind, 2) == color_card(kind, color, 2, layout)
    with pytest.raises(ValueError, match=f"card kind must be in \\[0, {layout.num_kinds}\\)"):
        Style(layout=layout).card(layout.num_kinds)
    with pytest.raises(ValueError, match="card kind must be in"):
        Style(layout=layout).card(-1)
