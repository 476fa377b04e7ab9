"""Scenarios: the switches behind the ``rlcard`` preset (RLCard 1.2.0's departures).

Each departure of RLCard's UNO from the official rules is one switch, tested here alone
(on the official rules) and, where it matters, inside the preset: ``voluntary_draw``,
``drawn_card='auto-play'``, ``two_player_reverse_skips``, ``first_draw_two_skips`` and
``first_wild_color_by='random'``. The preset's other departures are older switches
(``draw_four_legal='no-playable-card'``, ``bluffing='forbidden'``) tested elsewhere.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from uno_rl.core import rng
from uno_rl.core.cards import DRAW_TWO_RANK, KIND_RANK, WILD
from uno_rl.core.phases import PLAY, RESPOND
from uno_rl.core.rules import RulesError, load_rules

try:
    from .scenario import build, card, hand_of, rules, run_both
    from .test_scenarios_setup import dealt_and_compared, find_seed
except ImportError:
    from scenario import build, card, hand_of, rules, run_both
    from test_scenarios_setup import dealt_and_compared, find_seed

OTHERS = {1: ["yellow 1", "yellow 2", "yellow 3"], 2: ["blue 1", "blue 2", "blue 3"]}


def three(r, **kw):
    """A three-player position: seat 0 to act, seats 1 and 2 with three cards each."""
    return build(r, hands={**OTHERS, **kw.pop("hands", {})}, **kw)


def drawn_color(game) -> int:
    """The random color an auto-played Wild drawn now names (the game's own stream)."""
    return int(rng.bits(game.key, rng.DRAWN_COLOR, game.turn, 0) % np.uint64(4))


# ---------------------------------------------------------------- voluntary_draw


def test_voluntary_draw_off_no_draw_while_a_card_plays():
    g = three(rules(players=3, voluntary_draw=False), hands={0: ["red 2", "blue 9"]}, top="red 5")
    assert run_both(g).legal() == ["play red 2"]


def test_voluntary_draw_off_draw_when_stuck():
    g = three(rules(players=3, voluntary_draw=False), hands={0: ["green 1", "blue 9"]}, top="red 5")
    assert run_both(g).legal() == ["draw"]


def test_voluntary_draw_off_a_wild_counts_as_playable():
    g = three(rules(players=3, voluntary_draw=False), hands={0: ["green 1", "wild"]}, top="red 5")
    assert "draw" not in run_both(g).legal()


def test_voluntary_draw_off_a_card_the_last_card_rule_forbids_does_not_count():
    r = rules(players=3, voluntary_draw=False, last_card="no-wild")
    assert run_both(three(r, hands={0: ["wild"]}, top="red 5")).legal() == ["draw"]


def test_voluntary_draw_on_is_the_official_rule():
    g = three(rules(players=3), hands={0: ["red 2", "blue 9"]}, top="red 5")
    assert run_both(g).legal() == ["play red 2", "draw"]


# -------------------------------------------------------- drawn_card=auto-play


def test_auto_play_a_drawn_card_of_the_current_color_is_played_at_once():
    r = rules(players=3, drawn_card="auto-play")
    run = run_both(three(r, hands={0: ["green 1"]}, top="red 5", pile=["red 8"]), ["draw"])
    game = run.game
    assert game.top == card("red 8") and hand_of(game, 0) == Counter({"green 1": 1})
    assert game.actor == 1 and game.phase == PLAY and game.color == 0
    assert game.turn == 1  # drawing and playing the card was one decision


def test_auto_play_a_drawn_action_card_takes_effect():
    r = rules(players=3, drawn_card="auto-play")
    run = run_both(three(r, hands={0: ["green 1"]}, top="red 5", pile=["red skip"]), ["draw"])
    assert run.game.actor == 2  # seat 1 skipped
    run = run_both(three(r, hands={0: ["green 1"]}, top="red 5", pile=["red +2"]), ["draw"])
    assert run.game.hand_size(1) == 5 and run.game.actor == 2


def test_auto_play_a_symbol_match_of_another_color_is_kept():
    """RLCard plays a drawn card only if its color matches: a red 5 on a blue 5 stays in hand."""
    r = rules(players=3, drawn_card="auto-play")
    run = run_both(three(r, hands={0: ["green 1"]}, top="blue 5", pile=["red 5"]), ["draw"])
    assert hand_of(run.game, 0) == Counter({"green 1": 1, "red 5": 1})
    assert run.game.actor == 1 and run.game.top == card("blue 5")


def test_auto_play_a_drawn_card_of_another_color_is_kept():
    r = rules(players=3, drawn_card="auto-play")
    run = run_both(three(r, hands={0: ["green 1"]}, top="red 5", pile=["blue 8"]), ["draw"])
    assert hand_of(run.game, 0) == Counter({"green 1": 1, "blue 8": 1})
    assert run.game.actor == 1 and run.game.phase == PLAY


@pytest.mark.parametrize("drawn", ["wild", "+4"])
def test_auto_play_a_drawn_wild_names_a_random_color(drawn):
    r = rules(players=3, drawn_card="auto-play")
    g = three(r, hands={0: ["green 1"]}, top="red 5", pile=[drawn])
    expected = drawn_color(g)
    run = run_both(g, ["draw"])
    assert run.game.color == expected
    assert hand_of(run.game, 0) == Counter({"green 1": 1})
    # A +4 played this way is a plain Wild: nobody draws, nobody may challenge.
    assert run.game.hand_size(1) == 3 and run.game.actor == 1 and run.game.phase == PLAY
    assert run.game.pending == 0


def test_auto_play_colors_vary_with_the_game_and_the_decision():
    r = rules(players=3, drawn_card="auto-play")
    colors = set()
    for seed in range(40):
        g = three(r, hands={0: ["green 1"]}, top="red 5", pile=["wild"], seed=seed, turn=seed % 7)
        colors.add(run_both(g, ["draw"]).game.color)
    assert colors == {0, 1, 2, 3}


def test_auto_play_a_drawn_reverse_follows_the_two_player_switch():
    r = rules(players=2, drawn_card="auto-play", two_player_reverse_skips=False)
    g = build(r, hands={0: ["green 1"], 1: ["blue 3"]}, top="red 5", pile=["red reverse"])
    assert run_both(g, ["draw"]).game.actor == 1
    r = rules(players=2, drawn_card="auto-play")
    g = build(r, hands={0: ["green 1"], 1: ["blue 3"]}, top="red 5", pile=["red reverse"])
    assert run_both(g, ["draw"]).game.actor == 0


def test_auto_play_with_bluffing_a_drawn_plus_four_opens_no_challenge():
    r = rules(players=3, drawn_card="auto-play")
    run = run_both(three(r, hands={0: ["red 1"]}, top="red 5", pile=["+4"]), ["draw"])
    assert run.game.phase != RESPOND and run.game.stats["draw4_plays"] == [0, 0, 0]


def test_auto_play_cannot_be_combined_with_draw_until_playable():
    with pytest.raises(RulesError, match="draw_until_playable"):
        load_rules("official", drawn_card="auto-play", draw_until_playable=True)


# ---------------------------------------------------- two_player_reverse_skips


def test_two_player_reverse_does_not_skip_when_switched_off():
    r = rules(players=2, two_player_reverse_skips=False)
    g = build(r, hands={0: ["red reverse", "red 2"], 1: ["blue 3"]}, top="red 5")
    run = run_both(g, ["red reverse"])
    assert run.game.actor == 1 and run.game.direction == -1


def test_two_player_reverse_skips_by_default():
    g = build(rules(players=2), hands={0: ["red reverse", "red 2"], 1: ["blue 3"]}, top="red 5")
    assert run_both(g, ["red reverse"]).game.actor == 0


def test_reverse_switch_changes_nothing_with_three_players():
    for skips in (True, False):
        r = rules(players=3, two_player_reverse_skips=skips)
        run = run_both(three(r, hands={0: ["red reverse", "red 2"]}, top="red 5"), ["red reverse"])
        assert run.game.actor == 2


# ----------------------------------------------- first card: +2 and Wild color


@pytest.mark.parametrize("players", [2, 3])
def test_first_draw_two_without_the_skip(players):
    r = rules(players=players, first_draw_two_skips=False)
    seed = find_seed(players, lambda k: k < 52 and KIND_RANK[k] == DRAW_TWO_RANK)
    game = dealt_and_compared(r, seed)
    first = (game.dealer + 1) % players
    assert game.hand_size(first) == 9 and game.actor == first and game.phase == PLAY
    run_both(game, ["draw"])


@pytest.mark.parametrize("players", [2, 4])
def test_first_wild_gets_a_random_color_and_the_first_player_plays(players):
    r = rules(players=players, first_wild_color_by="random")
    seed = find_seed(players, lambda k: k == WILD)
    game = dealt_and_compared(r, seed)
    expected = int(rng.bits(seed, rng.FIRST_COLOR, 0, 0) % np.uint64(4))
    assert game.top == WILD and game.color == expected
    assert game.phase == PLAY and game.actor == (game.dealer + 1) % players
    run_both(game, ["draw"])


def test_first_wild_random_colors_cover_every_color():
    r = rules(players=2, first_wild_color_by="random")
    colors, seed = set(), 0
    while len(colors) < 4 and seed < 20_000:
        seed = find_seed(2, lambda k: k == WILD, start=seed) + 1
        colors.add(dealt_and_compared(r, seed - 1).color)
    assert colors == {0, 1, 2, 3}


# ------------------------------------------------------------------ the preset


def test_rlcard_preset_sets_every_departure():
    r = load_rules("rlcard")
    assert (r.players, r.hand_size, r.match, r.reward) == (2, 7, False, "win-loss")
    assert not r.voluntary_draw and r.drawn_card == "auto-play"
    assert r.draw_four_legal == "no-playable-card" and r.bluffing == "forbidden"
    assert not r.challenge_enabled and not r.respond_enabled
    assert not r.two_player_reverse_skips and not r.first_draw_two_skips
    assert r.first_wild_color_by == "random" and r.uno_forget_prob == 0.0


def test_rlcard_preset_plus_four_only_when_nothing_else_plays():
    r = load_rules("rlcard", players=3)
    g = three(r, hands={0: ["red 2", "+4"]}, top="red 5")
    assert run_both(g).legal() == ["play red 2"]
    g = three(r, hands={0: ["wild", "+4"]}, top="red 5")
    assert all(a.startswith("wild") for a in run_both(g).legal())
    g = three(r, hands={0: ["blue 2", "+4"]}, top="red 5")
    assert all(a.startswith("+4") for a in run_both(g).legal())


def test_rlcard_preset_a_plus_two_is_drawn_at_once():
    r = load_rules("rlcard", players=3)
    run = run_both(three(r, hands={0: ["red +2", "red 1"]}, top="red 5"), ["red +2"])
    assert run.game.hand_size(1) == 5 and run.game.actor == 2 and run.game.phase == PLAY
