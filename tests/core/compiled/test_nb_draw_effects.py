"""The compiled draw cards (:mod:`uno_rl.core.compiled.nb_draw_effects`) against the
reference's (:mod:`uno_rl.core.reference_draws`), at the positions random play reaches.

Every call the reference makes to a draw effect (a +2 / +4's pending draw, a targeted draw,
a Downpour, a hit, a press of the dispenser, a challenge, a final or a first card's draws)
is checked as it happens (:mod:`nb_effect_harness`); probes add a challenge at every
position where one is legal, each victim of a targeted draw, and presses, hits and
Downpours at a sample of play positions.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from nb_effect_harness import DECKS, deal_many, explore, play, snapshot

from uno_rl.core.actions import CHALLENGE
from uno_rl.core.cards import DRAW_TWO_RANK
from uno_rl.core.layout import (
    ALL_HIT,
    DOWNPOUR_ONE,
    DOWNPOUR_TWO,
    HIT_FIRE,
    HIT_TWO,
    TARGETED_FOUR,
    TARGETED_TWO,
)
from uno_rl.core.phases import PLAY, RESPOND
from uno_rl.core.phases import TARGET as TARGET_PHASE
from uno_rl.core.reference import WILD_DRAW_FOUR_RANK
from uno_rl.core.rules import load_rules

EVERYTHING = str(DECKS / "everything.toml")
CHAOS = str(DECKS / "chaos.toml")
NO_ZEROS = str(DECKS / "no-zeros.toml")
#: This folder's deck of §11's draw cards without Boomerangs.
TARGETS = str(Path(__file__).parent / "decks" / "targets.toml")

#: (preset, players, overrides, effects each case must reach). Small hands end rounds often,
#: so that final cards (play_last_card) come up.
CASES = [
    ("official", 2, {}, {"draw_penalty", "challenge", "play_last_card"}),
    ("official", 4, dict(caught_bluffer="takes-back", hand_size=4), {"challenge", "draw_penalty"}),
    ("official", 6, dict(caught_bluffer="loses-turn", hand_size=3), {"challenge"}),
    (
        "official",
        4,
        dict(caught_bluffer="loses-turn", last_card="any", hand_size=2, uno_forget_prob=0.5),
        {"challenge", "play_last_card"},
    ),
    ("official", 2, dict(caught_bluffer="takes-back", hand_size=2, uno_forget_prob=1.0), set()),
    ("house", 4, {}, {"draw_penalty"}),
    ("official", 2, dict(stacking="same", wild_cancels_draw=True, hand_size=3), {"draw_penalty"}),
    ("official", 4, dict(wild_cancels_draw=True, jump_in=True), {"draw_penalty"}),
    ("party", 6, {}, {"draw_penalty"}),
    ("no-bluff", 4, dict(hand_size=3), {"draw_penalty", "play_last_card"}),
    ("kids", 2, {}, {"draw_penalty"}),
    ("rlcard", 2, {}, {"draw_penalty"}),
    ("seven-zero", 4, {}, {"draw_penalty"}),
    (
        "official",
        4,
        dict(multi_play=True, multi_play_actions=True, stacking="any"),
        {"draw_penalty"},
    ),
    ("official", 4, dict(deck=NO_ZEROS, stacking="any", hand_size=3), {"draw_penalty"}),
    ("official", 4, dict(deck="extreme"), {"hits", "hit", "press", "fire_count"}),
    (
        "official",
        2,
        dict(deck="extreme", dispenser="off", uno_forget_prob=0.5, hand_size=3),
        {"hits", "hit", "press", "fire_count", "play_last_card"},
    ),
    (
        "official",
        6,
        dict(deck="extreme", dispenser_hazard=[0.354, 1.0], dispenser_count=[0.25, 0.25, 0.5]),
        {"hits", "press", "fire_count"},
    ),
    (
        "official",
        4,
        dict(deck=EVERYTHING, caught_bluffer="takes-back", hand_size=4),
        {"targeted", "target_draw", "downpour", "hits", "challenge", "press"},
    ),
    (
        "official",
        2,
        dict(deck=EVERYTHING, dispenser="off", caught_bluffer="loses-turn", hand_size=3),
        {"targeted", "target_draw", "downpour", "hits", "challenge", "play_last_card"},
    ),
    (
        "official",
        6,
        dict(deck=EVERYTHING, downpour_includes_self=True, hand_size=3),
        {"downpour", "downpour_draws", "target_draw"},
    ),
    (
        "official",
        4,
        dict(deck="modern-112", dispenser="on", customizable_as="wild-hit-fire"),
        {"hits", "hit", "press", "draw_penalty"},
    ),
    (
        "official",
        6,
        dict(deck="modern-112", customizable_as="wild-all-hit", uno_forget_prob=0.5),
        {"hits", "press"},
    ),
    (
        "official",
        2,
        dict(deck="modern-112", customizable_as="downpour+2", downpour_includes_self=True),
        {"downpour", "downpour_draws"},
    ),
    (
        "official",
        4,
        dict(deck="extension", stacking="any", jump_in=True, hand_size=4),
        {"targeted", "target_draw", "draw_penalty"},
    ),
    (
        "official",
        2,
        dict(deck="extension", caught_bluffer="takes-back", wild_cancels_draw=True, hand_size=3),
        {"targeted", "target_draw", "challenge"},
    ),
    (
        "official",
        4,
        dict(deck=CHAOS, customizable_as="downpour+1", downpour_includes_self=True, hand_size=3),
        {"downpour", "downpour_draws", "draw_penalty"},
    ),
    # One or two cards a hand: every round ends soon, on any kind of final card.
    ("official", 2, dict(deck=TARGETS, hand_size=1), {"play_last_card", "target_draw"}),
    (
        "official",
        4,
        dict(deck=TARGETS, hand_size=2, bluffing="forbidden"),
        {"play_last_card", "target_draw", "hits", "downpour"},
    ),
    (
        "official",
        6,
        dict(deck=TARGETS, hand_size=2, dispenser="on", caught_bluffer="loses-turn"),
        {"target_draw", "challenge", "hits"},
    ),
    (
        "official",
        4,
        dict(deck=TARGETS, hand_size=1, caught_bluffer="takes-back", downpour_includes_self=True),
        {"play_last_card", "target_draw"},
    ),
    ("official", 4, dict(deck=EVERYTHING, hand_size=1), {"play_last_card"}),
    ("official", 2, dict(deck="extreme", hand_size=1), {"play_last_card", "hit"}),
]


def _case_id(case) -> str:
    preset, players, overrides, _ = case
    parts = [preset, f"{players}p"] + [f"{k}={v}" for k, v in overrides.items()]
    return ",".join(Path(p).name if "/" in str(p) else str(p) for p in parts)


def probe(checker, game, gen) -> None:
    """Challenges, targeted draws' victims, presses, hits and Downpours the position allows;
    other decisions than the one taken (every last card that may be played)."""
    seat, rules = game.actor, game.rules
    if game.phase == RESPOND and CHALLENGE in game.legal_actions():
        checker.method("_challenge", game, seat)
        if game.draw4_bluff:  # a position built from this one: the bluffer has no card left
            empty = snapshot(game)  # (a loses-turn bluffer caught so draws the pending 4)
            bluffer = empty.draw4_player
            empty.discard = [n + m for n, m in zip(empty.discard, empty.hands[bluffer])]
            empty.hands[bluffer] = [0] * len(empty.discard)
            checker.method("_challenge", empty, seat)
    rank = int(rules.effect_rank[game.top])
    if game.phase == TARGET_PHASE and rank in (TARGETED_TWO, TARGETED_FOUR):
        for k in range(1, rules.players):
            checker.method("_target_draw", game, seat, (seat + k) % rules.players)
    if game.phase == PLAY and gen.random() < 0.25:
        checker.method("_press", game, seat, int(gen.integers(1, 4)))
        checker.method("_fire_count", game)
        checker.method("_downpour_draws", game, seat, int(gen.integers(1, 3)), gen.random() < 0.3)
        if rules.layout.extended:
            checker.method(
                "_hit", game, game._next(seat), HIT_TWO if gen.random() < 0.5 else HIT_FIRE
            )
    explore(checker, game, gen, 1 if gen.random() < 0.3 else 0)


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_draw_effects_match_reference(case):
    preset, players, overrides, wanted = case
    rules = load_rules(preset, players=players, **overrides)
    checker = play(rules, seed=CASES.index(case), steps=300, probe=probe)
    wanted = wanted | {"card_effect", "press", "downpour_draws"}
    missing = {name for name in wanted if not checker.counts[name]}
    assert not missing, f"never checked: {missing} (checked: {dict(checker.counts)})"


#: Rule sets whose first card may be an extended draw card (the first player, or every player
#: but the dealer, draws or presses).
FIRST_CARDS = [
    ("official", 2, dict(deck=EVERYTHING)),
    ("official", 4, dict(deck=EVERYTHING, dispenser="off", first_draw_two_skips=False)),
    ("official", 6, dict(deck=EVERYTHING, first_wild_color_by="random", hand_size=4)),
    ("official", 4, dict(deck=EVERYTHING, first_wild_color_by="dealer")),
    ("official", 4, dict(deck="extreme")),
    ("official", 6, dict(deck="extreme", dispenser="off", first_wild_color_by="random")),
    ("official", 2, dict(deck="extension", first_draw_two_skips=False)),
    ("official", 4, dict(deck=CHAOS, customizable_as="downpour+2")),
]


@pytest.mark.parametrize("case", FIRST_CARDS, ids=lambda c: _case_id((*c, None)))
def test_first_card_draws_match_reference(case):
    preset, players, overrides = case
    rules = load_rules(preset, players=players, **overrides)
    checker = deal_many(rules, seed=100 + FIRST_CARDS.index(case), deals=250)
    assert checker.counts["first_card_draws"] >= 5, dict(checker.counts)


#: The effect symbols of the draw cards.
DRAW_RANKS = {DRAW_TWO_RANK, WILD_DRAW_FOUR_RANK, HIT_TWO, TARGETED_TWO, HIT_FIRE, ALL_HIT,
              TARGETED_FOUR, DOWNPOUR_ONE, DOWNPOUR_TWO}  # fmt: skip
#: Rule sets dealt one card a hand: the first player's card, when it may be played, is final.
FINAL_CARDS = [
    ("official", 2, dict(deck=TARGETS, hand_size=1)),
    ("official", 4, dict(deck=TARGETS, hand_size=1, dispenser="on", downpour_includes_self=True)),
    ("official", 6, dict(deck=TARGETS, hand_size=1, bluffing="forbidden")),
    ("official", 4, dict(deck=EVERYTHING, hand_size=1, caught_bluffer="takes-back")),
    ("official", 2, dict(deck="extreme", hand_size=1)),
    ("official", 6, dict(deck="extreme", hand_size=1, dispenser="off")),
    ("house", 4, dict(hand_size=1)),
    ("official", 2, dict(hand_size=1, wild_cancels_draw=True)),
]


@pytest.mark.parametrize("case", FINAL_CARDS, ids=lambda c: _case_id((*c, None)))
def test_final_cards_match_reference(case):
    preset, players, overrides = case
    rules = load_rules(preset, players=players, **overrides)
    played = set()

    def probe(checker, game, gen):
        seat = game.actor
        if game.phase == PLAY:
            kind = game.hands[seat].index(1)
            if any(rules.layout.action_card[a] == kind for a in game.legal_actions()):
                played.add(int(rules.effect_rank[kind]))
        explore(checker, game, gen, 0)  # every legal play of the only card

    checker = deal_many(rules, seed=200 + FINAL_CARDS.index(case), deals=600, probe=probe)
    assert checker.counts["play_last_card"] >= 30, dict(checker.counts)
    copies = rules.deck_cards.copies
    in_deck = {int(r) for r, n in zip(rules.effect_rank, copies, strict=True) if n}
    missing = (in_deck & DRAW_RANKS) - played
    assert not missing, f"final draw cards never played: {missing}"
