"""The compiled turn-order and hand cards (:mod:`uno_rl.core.compiled.nb_hand_effects`) and
the table of card effects (:mod:`uno_rl.core.compiled.nb_card_effects`) against the
reference's (:mod:`uno_rl.core.reference_turn_order`, :mod:`uno_rl.core.reference_hands`,
``CARD_EFFECTS``), at the positions random play reaches.

Every call the reference makes (a card's effect through the table, a Boomerang, a swap, a
Discard All, a Shuffle Hands, the seats a Swap Hands may choose) is checked as it happens
(:mod:`nb_effect_harness`); probes add, at a sample of play positions, the effect of cards of
the deck as if the player had just ended a play with them (combinations of 1 to 3 under
``multi_play_actions``), a swap with every other seat, a Shuffle Hands and a Discard All
of each color, and a Boomerang wherever a victim may answer with one.
"""

from __future__ import annotations

import pytest
from nb_effect_harness import DECKS, explore, play

from uno_rl.core.layout import DISCARD_ALL
from uno_rl.core.phases import PLAY, RESPOND
from uno_rl.core.rules import load_rules

EVERYTHING = str(DECKS / "everything.toml")
CHAOS = str(DECKS / "chaos.toml")

#: (preset, players, overrides, what each case must reach).
CASES = [
    ("seven-zero", 2, {}, {"zero", "seven", "swap", "reverse", "skip"}),
    ("seven-zero", 4, dict(hand_size=4), {"zero", "seven", "swap"}),
    ("seven-zero", 6, {}, {"zero", "seven", "swap"}),
    ("party", 6, {}, {"zero", "seven", "swap"}),
    (
        "official",
        4,
        dict(seven_zero=True, multi_play=True, multi_play_actions=True, jump_in=True),
        {"zero", "seven", "swap", "skip", "reverse"},
    ),
    (
        "official",
        2,
        dict(multi_play=True, multi_play_actions=True, two_player_reverse_skips=False),
        {"skip", "reverse"},
    ),
    ("official", 2, {}, {"skip", "reverse"}),
    (
        "official",
        2,
        dict(multi_play=True, multi_play_actions=True, seven_zero=True, hand_size=5),
        {"skip", "reverse", "zero", "seven"},
    ),
    ("rlcard", 2, {}, {"skip", "reverse"}),
    ("kids", 4, {}, {"skip", "reverse"}),
    (
        "official",
        6,
        dict(deck="swap-112", customizable_as="wild-swap-hands", hand_size=3),
        {"swap_card", "swap", "swap_targets"},
    ),
    (
        "official",
        4,
        dict(deck="swap-112", customizable_as="wild-swap-hands", swap_excludes_uno=False),
        {"swap_card", "swap", "swap_targets"},
    ),
    (
        "official",
        4,
        dict(deck="modern-112", customizable_as="wild-shuffle-hands", hand_size=3),
        {"shuffle_card", "shuffle_hands"},
    ),
    (
        "official",
        4,
        dict(
            deck=CHAOS,
            customizable_as="wild-shuffle-hands",
            downpour_includes_self=True,
            swap_excludes_uno=False,
            multi_play=True,
            caught_bluffer="takes-back",
        ),
        {"shuffle_card", "shuffle_hands", "swap_card", "swap"},
    ),
    (
        "official",
        2,
        dict(deck=CHAOS, seven_zero=True, jump_in=True, hand_size=3),
        {"shuffle_card", "swap_card", "zero", "seven", "swap"},
    ),
    (
        "official",
        2,
        dict(deck="extreme", discard_all_may_go_out=False, hand_size=3),
        {"discard_all"},
    ),
    (
        "official",
        4,
        dict(deck="extreme", discard_all_may_go_out=False, uno_forget_prob=0.5),
        {"discard_all"},
    ),
    ("official", 6, dict(deck="extreme", hand_size=4), {"discard_all"}),
    (
        "official",
        4,
        dict(deck=EVERYTHING, seven_zero=True),
        {"boomerang", "skip", "swap_card", "shuffle_card", "discard_all", "zero", "seven"},
    ),
    (
        "official",
        2,
        dict(deck=EVERYTHING, dispenser="off", hand_size=3),
        {"boomerang", "skip", "reverse", "discard_all"},
    ),
    (
        "official",
        6,
        dict(deck=EVERYTHING, multi_play=True, multi_play_actions=True, hand_size=4),
        {"boomerang", "skip", "reverse"},
    ),
    ("official", 6, dict(deck="extension", stacking="any"), {"boomerang", "skip"}),
    ("official", 2, dict(deck="extension", caught_bluffer="loses-turn"), {"boomerang"}),
]


def _case_id(case) -> str:
    preset, players, overrides, _ = case
    parts = [preset, f"{players}p"] + [f"{k}={v}" for k, v in overrides.items()]
    return ",".join(p.rsplit("/", 1)[-1] for p in parts)


def probe(checker, game, gen) -> None:
    """Card effects, swaps, a Shuffle Hands and Discard Alls at a sample of play positions;
    a Boomerang where a victim may answer; other decisions than the one taken."""
    seat, rules = game.actor, game.rules
    layout, p = rules.layout, rules.players
    if game.phase == RESPOND and rules.boomerangs:
        checker.method("_boomerang", game)
    if game.phase == PLAY and gen.random() < 0.3:
        kinds = [k for k in range(layout.num_kinds) if rules.deck_cards.copies[k]]
        for kind in gen.choice(kinds, size=2):
            count = int(gen.integers(1, 4)) if rules.multi_play_actions and kind < 52 else 1
            checker.finish(game, seat, int(kind), count)
        checker.method("_swap_targets", game, seat)
        for k in range(1, p):
            checker.method("_swap", game, seat, (seat + k) % p)
        if layout.extended:
            checker.method("_shuffle_hands", game, seat)
            for kind in range(layout.num_kinds):
                if rules.effect_rank[kind] == DISCARD_ALL:
                    checker.method("_discard_all", game, seat, kind)
    explore(checker, game, gen, 1 if gen.random() < 0.3 else 0)


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_hand_effects_match_reference(case):
    preset, players, overrides, wanted = case
    rules = load_rules(preset, players=players, **overrides)
    checker = play(rules, seed=300 + CASES.index(case), steps=250, probe=probe)
    wanted = wanted | {"card_effect", "swap", "swap_targets"}
    missing = {name for name in wanted if not checker.counts[name]}
    assert not missing, f"never checked: {missing} (checked: {dict(checker.counts)})"
