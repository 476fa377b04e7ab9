"""Scenarios: a turn, action cards and drawing (rules specification §3, §4 and the drawn-card
switches)."""

from __future__ import annotations

from collections import Counter

import pytest

from uno_rl.core.phases import DRAWN, PLAY

try:
    from .scenario import build, hand_of, rules, run_both
except ImportError:
    from scenario import build, hand_of, rules, run_both

FOURS = ["+4 naming red", "+4 naming yellow", "+4 naming green", "+4 naming blue"]
OTHERS = {1: ["yellow 1", "yellow 2", "yellow 3"], 2: ["blue 1", "blue 2", "blue 3"]}


def three(r=None, **kw):
    """A three-player position: seat 0 to act, seats 1 and 2 with three cards each."""
    hands = {**OTHERS, **kw.pop("hands", {})}
    return build(r or rules(players=3), hands=hands, **kw)


def wild_names():
    return [f"wild naming {c}" for c in ("red", "yellow", "green", "blue")]


def test_playable_by_color_symbol_or_wild_and_draw_always_allowed():
    g = three(hands={0: ["red 2", "blue 5", "green 9", "yellow skip", "wild", "+4"]}, top="red 5")
    legal = run_both(g).legal()
    assert sorted(legal) == sorted(["play red 2", "play blue 5", "draw", *wild_names(), *FOURS])


def test_symbol_match_on_action_cards():
    g = three(hands={0: ["blue skip", "blue reverse", "green +2"]}, top="red skip")
    assert sorted(run_both(g).legal()) == ["draw", "play blue skip"]


def test_wild_on_top_only_the_named_color_matches():
    g = three(hands={0: ["blue 5", "red 5", "wild"]}, top="wild", color="blue")
    assert sorted(run_both(g).legal()) == sorted(["draw", "play blue 5", *wild_names()])


def test_no_playable_card_only_draw():
    g = three(hands={0: ["green 1", "blue 9"]}, top="red 5")
    assert run_both(g).legal() == ["draw"]


def test_number_card_passes_the_turn_clockwise_and_counterclockwise():
    run = run_both(three(hands={0: ["red 1", "red 2"]}, top="red 5"), ["red 1"])
    assert run.game.actor == 1 and run.game.top == 1 and run.game.color == 0
    run = run_both(three(hands={0: ["red 1", "red 2"]}, top="red 5", direction=-1), ["red 1"])
    assert run.game.actor == 2 and run.game.direction == -1


def test_skip_next_player_loses_the_turn():
    run = run_both(three(hands={0: ["red skip", "red 2"]}, top="red 5"), ["red skip"])
    assert run.game.actor == 2 and run.game.phase == PLAY


def test_skip_wraps_around_ten_players():
    hands = {s: [f"green {s + 1}", f"blue {s + 1}"] for s in range(9)}
    hands[9] = ["red skip", "red 2"]
    g = build(rules(players=10), hands=hands, top="red 5", actor=9)
    assert run_both(g, ["red skip"]).game.actor == 1


def test_reverse_flips_the_direction_with_three_players():
    g = three(hands={0: ["red reverse", "red 2"], 2: ["red 3", "red 4"]}, top="red 5")
    run = run_both(g, ["red reverse"])
    assert run.game.direction == -1 and run.game.actor == 2
    run = run_both(run.game, ["red 3"])
    assert run.game.actor == 1


def test_reverse_with_two_players_acts_as_skip():
    g = build(rules(players=2), hands={0: ["red reverse", "red 2"], 1: ["blue 1"]}, top="red 5")
    run = run_both(g, ["red reverse"])
    assert run.game.actor == 0 and run.game.direction == -1 and run.game.phase == PLAY


def test_draw_two_next_player_draws_two_and_loses_the_turn():
    g = three(hands={0: ["red +2", "red 2"]}, top="red 5", pile=["green 7", "green 8"])
    run = run_both(g, ["red +2"])
    assert hand_of(run.game, 1) == Counter(
        ["yellow 1", "yellow 2", "yellow 3", "green 7", "green 8"]
    )
    assert run.game.actor == 2 and run.game.phase == PLAY and run.game.pending == 0


def test_draw_two_with_two_players_comes_back_to_the_player():
    g = build(rules(), hands={0: ["red +2", "red 2"], 1: ["blue 1"]}, top="red 5")
    run = run_both(g, ["red +2"])
    assert run.game.hand_size(1) == 3 and run.game.actor == 0


def test_no_stacking_by_default_victim_draws_at_once():
    g = three(hands={0: ["red +2", "red 2"], 1: ["blue +2", "yellow 1"]}, top="red 5")
    run = run_both(g, ["red +2"])
    assert run.game.hand_size(1) == 4 and run.game.actor == 2


def test_wild_names_any_color_including_the_current_one():
    g = three(hands={0: ["wild", "red 2"], 1: ["red 9", "blue 9", "yellow 1"]}, top="red 5")
    run = run_both(g)
    assert set(wild_names()) <= set(run.legal())
    run = run_both(g, ["wild red"])
    assert run.game.color == 0 and run.game.actor == 1
    assert sorted(run.legal()) == ["draw", "play red 9"]


def test_wild_sets_the_named_color_for_the_next_player():
    g = three(hands={0: ["wild", "red 2"], 1: ["red 9", "blue 9", "yellow 1"]}, top="red 5")
    run = run_both(g, ["wild blue"])
    assert run.game.color == 3 and run.game.top == 52
    assert sorted(run.legal()) == ["draw", "play blue 9"]


# ------------------------------------------------------------------- drawing
def test_draw_a_playable_card_may_play_it_at_once():
    g = three(hands={0: ["green 1"]}, top="red 5", pile=["red 9"])
    run = run_both(g, ["draw"])
    assert run.game.phase == DRAWN and run.game.actor == 0
    assert sorted(run.legal()) == ["pass", "play red 9"]
    run = run_both(run.game, ["red 9"])
    assert run.game.top == 9 and hand_of(run.game, 0) == Counter(["green 1"])
    assert run.game.actor == 1


def test_draw_a_playable_card_and_keep_it():
    g = three(hands={0: ["green 1"]}, top="red 5", pile=["red 9"])
    run = run_both(g, ["draw", "pass"])
    assert hand_of(run.game, 0) == Counter(["green 1", "red 9"])
    assert run.game.actor == 1 and run.game.phase == PLAY and run.game.top == 5


def test_draw_even_while_holding_a_playable_card():
    g = three(hands={0: ["red 1"]}, top="red 5", pile=["green 9"])
    run = run_both(g, ["draw"])
    assert hand_of(run.game, 0) == Counter(["red 1", "green 9"])
    assert run.game.actor == 1 and run.game.phase == PLAY


def test_drawn_card_only_the_drawn_card_may_be_played():
    g = three(hands={0: ["red 1"]}, top="red 5", pile=["red 9"])
    assert sorted(run_both(g, ["draw"]).legal()) == ["pass", "play red 9"]


def test_draw_an_unplayable_card_ends_the_turn():
    g = three(hands={0: ["green 1"]}, top="red 5", pile=["blue 9"])
    run = run_both(g, ["draw"])
    assert run.game.actor == 1 and run.game.phase == PLAY
    assert hand_of(run.game, 0) == Counter(["green 1", "blue 9"])


def test_drawn_wild_names_a_color():
    g = three(hands={0: ["green 1"]}, top="red 5", pile=["wild"])
    run = run_both(g, ["draw"])
    assert sorted(run.legal()) == sorted(["pass", *wild_names()])
    run = run_both(run.game, ["wild green"])
    assert run.game.color == 2 and run.game.actor == 1


def test_drawn_card_must_play():
    r = rules(players=3, drawn_card="must-play")
    run = run_both(three(r, hands={0: ["green 1"]}, top="red 5", pile=["red 9"]), ["draw"])
    assert run.legal() == ["play red 9"]
    run = run_both(run.game, ["red 9"])
    assert run.game.actor == 1
    # An unplayable drawn card still ends the turn.
    run = run_both(three(r, hands={0: ["green 1"]}, top="red 5", pile=["blue 9"]), ["draw"])
    assert run.game.actor == 1 and run.game.phase == PLAY


def test_drawn_card_may_not_play():
    r = rules(players=3, drawn_card="may-not-play")
    run = run_both(three(r, hands={0: ["green 1"]}, top="red 5", pile=["red 9"]), ["draw"])
    assert run.game.actor == 1 and run.game.phase == PLAY
    assert hand_of(run.game, 0) == Counter(["green 1", "red 9"])


@pytest.mark.parametrize("drawn_card", ["may-play", "must-play"])
def test_draw_until_playable(drawn_card):
    r = rules(players=3, draw_until_playable=True, drawn_card=drawn_card)
    g = three(r, hands={0: ["green 1"]}, top="red 5", pile=["red 9", "yellow 2", "blue 3"])
    run = run_both(g, ["draw"])
    assert hand_of(run.game, 0) == Counter(["green 1", "blue 3", "yellow 2", "red 9"])
    assert run.game.phase == DRAWN and run.game.actor == 0
    expected = ["pass", "play red 9"] if drawn_card == "may-play" else ["play red 9"]
    assert sorted(run.legal()) == expected
    run = run_both(run.game, ["red 9"])
    assert run.game.actor == 1 and run.game.top == 9


def test_draw_until_playable_off_draws_one():
    g = three(hands={0: ["green 1"]}, top="red 5", pile=["red 9", "yellow 2", "blue 3"])
    run = run_both(g, ["draw"])
    assert run.game.hand_size(0) == 2 and run.game.actor == 1


def test_draw_until_playable_stops_when_both_piles_are_empty():
    r = rules(players=3, draw_until_playable=True)
    # Seat 1 holds every card not placed: the piles hold only what is given.
    g = build(
        r, hands={0: ["green 1"], 2: ["blue 1"]}, top="red 5", pile=["yellow 2", "blue 3"], rest=1
    )
    run = run_both(g, ["draw"])
    assert hand_of(run.game, 0) == Counter(["green 1", "blue 3", "yellow 2"])
    assert run.game.pile == [] and run.game.actor == 1 and run.game.phase == PLAY


def test_drawn_draw_four_playable_depends_on_bluffing():
    g = three(hands={0: ["red 1"]}, top="red 5", pile=["+4"])
    run = run_both(g, ["draw"])  # a bluff, but bluffing is allowed
    assert sorted(run.legal()) == sorted(["pass", *FOURS])
    r = rules(players=3, bluffing="forbidden")
    run = run_both(three(r, hands={0: ["red 1"]}, top="red 5", pile=["+4"]), ["draw"])
    assert run.game.actor == 1 and run.game.phase == PLAY
    run = run_both(three(r, hands={0: ["blue 1"]}, top="red 5", pile=["+4"]), ["draw"])
    assert sorted(run.legal()) == sorted(["pass", *FOURS])
