"""ScalarGame (fast one-game path of the single-game envs) against the reference oracle."""

import numpy as np
import pytest

from uno_rl.core import available_presets, load_rules
from uno_rl.core.actions import DRAW, PASS
from uno_rl.core.phases import OVER
from uno_rl.core.reference import ReferenceGame
from uno_rl.core.scalar import ScalarGame

SWITCHES = [
    {"last_card": "no-draw-four", "hand_size": 2},
    {"last_card": "no-wild", "hand_size": 2},
    {"draw_four_legal": "no-playable-card", "bluffing": "forbidden"},
    {"caught_bluffer": "takes-back", "uno_forget_prob": 0.5},
    {"multi_play": True, "wild_cancels_draw": True, "stacking": "same"},
    # rules specification §12
    {"caught_bluffer": "loses-turn", "uno_forget_prob": 0.5},
    {"multi_play": True, "multi_play_actions": True, "stacking": "any"},
    {
        "multi_play": True,
        "multi_play_actions": True,
        "jump_in": True,
        "caught_bluffer": "loses-turn",
    },
    {"match": True, "scoring": "losers-add", "match_rounds": 2, "max_turns": 200},
    {"match": True, "match_target": 200, "reward": "points"},
]


def play_side_by_side(rules, seed: int, games: int) -> int:
    """Play ``games`` rounds in both with the same actions; returns decisions compared."""
    gen = np.random.default_rng(seed)
    decisions = 0
    for _ in range(games):
        deal = int(gen.integers(2**62))
        fast, oracle = ScalarGame(rules, deal), ReferenceGame(rules, deal)
        while oracle.phase != OVER:
            legal = oracle.legal_actions()
            assert fast.legal_actions() == legal
            for seat in range(rules.players):
                np.testing.assert_array_equal(fast.observe(seat), oracle.observe(seat))
            plays = [a for a in legal if a not in (DRAW, PASS)]
            pool = plays if plays and gen.random() < 0.9 else legal
            action = pool[int(gen.integers(len(pool)))]
            assert fast.step(action) == oracle.step(action)
            assert fast.hands == oracle.hands and fast.pile == oracle.pile
            assert fast.skip_turn == oracle.skip_turn and fast.scores == oracle.scores
            decisions += 1
    return decisions


@pytest.mark.parametrize("preset", available_presets())
@pytest.mark.parametrize("players", [2, 3, 10])
def test_scalar_game_matches_reference_on_presets(preset, players):
    games = 6 if players < 10 else 2  # a 10-player round is long
    assert play_side_by_side(load_rules(preset, players=players), seed=players, games=games) > 0


@pytest.mark.parametrize("switches", SWITCHES, ids=lambda s: ",".join(s))
def test_scalar_game_matches_reference_on_switches(switches):
    assert play_side_by_side(load_rules("official", players=3, **switches), seed=1, games=10) > 0


def test_scalar_last_card_limit_masks_a_lone_draw_four():
    rules = load_rules("official", last_card="no-draw-four")
    game = ScalarGame(rules, 3)
    game.hands[game.actor] = [0] * 54
    game.hands[game.actor][53] = 1
    assert game.legal_actions() == [DRAW]
