"""Scenarios: stacking draw cards and a Wild cancelling a pending draw (rules specification §9)."""

from __future__ import annotations

from collections import Counter

import pytest

from uno_rl.core.cards import WILD, WILD_DRAW_FOUR, card_name, parse_card
from uno_rl.core.phases import DRAWN, OVER, PLAY, RESPOND

try:
    from .scenario import build, hand_of, rules, run_both
except ImportError:
    from scenario import build, hand_of, rules, run_both

FOURS = ["+4 naming red", "+4 naming yellow", "+4 naming green", "+4 naming blue"]
WILDS = ["wild naming red", "wild naming yellow", "wild naming green", "wild naming blue"]
PILE = [f"green {n}" for n in range(1, 10)]  # next drawn last: green 9, green 8, ...


def game(r, h0, h1, h2, top="red 5", **kw):
    return build(r, hands={0: h0, 1: h1, 2: h2}, top=top, pile=PILE, **kw)


# ------------------------------------------------------------------ stacking "same"
def test_stacking_same_draw_two_on_draw_two_chain_total_drawn_by_who_accepts():
    r = rules(players=3, stacking="same")
    g = game(r, ["red +2", "red 1"], ["blue +2", "+4", "red 9"], ["yellow 1", "yellow 2"])
    run = run_both(g, ["red +2"])
    assert run.game.phase == RESPOND and run.game.actor == 1 and run.game.pending == 2
    # Any +2 (any color) stacks on a +2; a +4 does not; there is no challenge.
    assert sorted(run.legal()) == ["accept the draw", "play blue +2"]
    run = run_both(run.game, ["blue +2"])
    assert run.game.actor == 2 and run.game.pending == 4 and run.game.phase == RESPOND
    assert run.legal() == ["accept the draw"]
    run = run_both(run.game, ["accept"])
    g = run.game
    assert hand_of(g, 2) == Counter(
        ["yellow 1", "yellow 2", "green 9", "green 8", "green 7", "green 6"]
    )
    assert g.pending == 0 and g.actor == 0 and g.phase == PLAY
    assert g.top == parse_card("blue +2") and g.color == 3


def test_stacking_same_draw_four_on_draw_four_only():
    r = rules(players=3, stacking="same")
    g = game(r, ["+4", "green 1"], ["+4", "blue +2", "red 9"], ["yellow 1", "yellow 2"])
    run = run_both(g, ["+4 green"])  # seat 1 holds no green: its +4 is legal
    assert run.game.phase == RESPOND and run.game.actor == 1
    assert sorted(run.legal()) == sorted(["accept the draw", *FOURS])
    run = run_both(run.game, ["+4 yellow", "accept"])
    g = run.game
    assert g.hand_size(2) == 2 + 8 and g.actor == 0 and g.color == 1


def test_stacking_on_no_challenge_and_illegal_draw_four_masked_in_play_phase():
    for stacking in ("same", "any"):
        r = rules(players=3, stacking=stacking)
        assert not r.challenge_enabled
        # Holding the current color: the +4 is not offered.
        run = run_both(game(r, ["+4", "red 1"], ["yellow 1"], ["blue 1"]))
        assert not set(FOURS) & set(run.legal())
        # Holding no card of the current color: offered, and not a bluff.
        run = run_both(game(r, ["+4", "green 1"], ["yellow 1"], ["blue 1"]), ["+4 blue"])
        assert run.game.draw4_bluff is False
        assert "challenge" not in run.legal()


@pytest.mark.parametrize("switch", ["no-current-color", "no-playable-card"])
def test_stacking_on_draw_four_legality_follows_the_legal_switch(switch):
    r = rules(players=3, stacking="any", draw_four_legal=switch)
    run = run_both(game(r, ["+4", "blue 5"], ["yellow 1"], ["blue 1"]))
    assert (set(FOURS) <= set(run.legal())) == (switch == "no-current-color")


# ------------------------------------------------------------------- stacking "any"
def test_stacking_any_draw_two_on_draw_four_must_match_the_named_color():
    r = rules(players=3, stacking="any")
    g = game(r, ["+4", "green 1"], ["blue +2", "red +2", "yellow 1"], ["yellow 2", "yellow 3"])
    run = run_both(g, ["+4 blue"])
    assert sorted(run.legal()) == sorted(["accept the draw", "play blue +2"])
    run = run_both(run.game, ["blue +2"])
    assert run.game.pending == 6 and run.game.actor == 2


def test_stacking_any_draw_four_on_draw_two_and_chain_total():
    r = rules(players=3, stacking="any")
    g = game(
        r,
        ["red +2", "blue +2", "green 1"],
        ["+4", "yellow 4", "yellow 1"],
        ["yellow 2", "yellow 3"],
    )
    run = run_both(g, ["red +2"])
    assert sorted(run.legal()) == sorted(["accept the draw", *FOURS])
    run = run_both(run.game, ["+4 blue"])
    assert run.game.pending == 6 and run.game.actor == 2
    assert run.legal() == ["accept the draw"]
    run = run_both(run.game, ["accept"])
    g = run.game
    assert hand_of(g, 2) == Counter(["yellow 2", "yellow 3"] + [f"green {n}" for n in range(4, 10)])
    assert g.actor == 0 and g.phase == PLAY and g.color == 3 and g.top == WILD_DRAW_FOUR


def test_stacking_any_three_card_chain_returns_to_the_first_player():
    r = rules(players=3, stacking="any")
    g = game(r, ["red +2", "red 2", "red 3"], ["+4", "yellow 1"], ["blue +2", "yellow 2"])
    run = run_both(g, ["red +2", "+4 blue", "blue +2"])
    assert run.game.actor == 0 and run.game.pending == 8
    assert run.legal() == ["accept the draw"]  # seat 0 holds no draw card any more
    run = run_both(run.game, ["accept"])
    assert run.game.hand_size(0) == 2 + 8 and run.game.actor == 1


@pytest.mark.parametrize(
    ("stacking", "first"), [("any", "red +2"), ("same", "+4 red"), ("any", "+4 red")]
)
@pytest.mark.parametrize("holds_red", [True, False])
def test_stacking_a_draw_four_in_response_must_be_legal(stacking, first, holds_red):
    """Rules specification §9: "with stacking on, a +4 cannot be challenged and its legality is
    enforced by the mask": in the respond phase too, a player holding the current color may not
    stack it."""
    r = rules(players=3, stacking=stacking)
    other = "red 1" if holds_red else "yellow 4"
    h0, top = (
        (["red +2", "blue 2"], "red 5") if first == "red +2" else (["+4", "blue 2"], "green 5")
    )
    g = game(r, h0, ["+4", other, "yellow 1"], ["yellow 2", "yellow 3"], top=top)
    run = run_both(g, [first])
    assert run.game.phase == RESPOND and run.game.actor == 1 and run.game.color == 0
    assert bool(set(FOURS) & set(run.legal())) is not holds_red
    if holds_red:
        assert run.legal() == ["accept the draw"]
        return
    run = run_both(run.game, ["+4 green"])
    assert run.game.actor == 2 and run.game.pending == (6 if first == "red +2" else 8)
    assert run.game.draw4_bluff is False and "challenge" not in run.legal()


@pytest.mark.parametrize("switch", ["no-current-color", "no-playable-card"])
def test_stacked_draw_four_legality_follows_the_legal_switch(switch):
    """On a red +2, a hand with a blue +2 and no red: legal under no-current-color, but the
    blue +2 is playable on the +2, so not under no-playable-card (the play phase's test)."""
    r = rules(players=3, stacking="any", draw_four_legal=switch)
    g = game(r, ["red +2", "red 2"], ["+4", "blue +2", "yellow 1"], ["yellow 2", "yellow 3"])
    run = run_both(g, ["red +2"])
    expected = ["accept the draw", "play blue +2"]
    if switch == "no-current-color":
        expected += FOURS
    assert sorted(run.legal()) == sorted(expected)


def test_stacking_a_draw_four_on_the_last_card_rules_still_apply():
    """The legality check and the last-card switch combine: a legal +4 as the last card is
    still refused under last_card='no-draw-four'."""
    r = rules(players=3, stacking="any", last_card="no-draw-four")
    g = game(r, ["red +2", "red 2"], ["+4"], ["yellow 2", "yellow 3"])
    run = run_both(g, ["red +2"])
    assert run.legal() == ["accept the draw"]


def test_stacking_last_card_draw_two_victim_draws_the_chain_and_round_ends():
    r = rules(players=3, stacking="same")
    g = game(r, ["red +2", "red 2"], ["blue +2"], ["yellow 2", "yellow 3"])
    run = run_both(g, ["red +2", "blue +2"])
    assert run.last.round_over and run.last.winner == 1 and run.game.phase == OVER
    assert run.game.hand_size(2) == 2 + 4 and run.game.pending == 0


def test_no_stacking_by_default_on_a_draw_four_either():
    g = game(rules(players=3), ["+4", "green 1"], ["+4", "yellow 1"], ["blue 1"])
    run = run_both(g, ["+4 blue"])
    assert run.legal() == ["challenge", "accept the draw"]


# ------------------------------------------------------------------ wild cancels draw
def test_wild_cancels_a_pending_draw_two():
    r = rules(players=3, wild_cancels_draw=True)
    g = game(r, ["red +2", "red 2"], ["wild", "yellow 1"], ["yellow 2", "yellow 3"])
    run = run_both(g, ["red +2"])
    assert run.game.phase == RESPOND and sorted(run.legal()) == sorted(["accept the draw", *WILDS])
    run = run_both(run.game, ["wild green"])
    g = run.game
    assert g.pending == 0 and g.top == WILD and g.color == 2
    assert hand_of(g, 1) == Counter(["yellow 1"])
    assert g.hand_size(2) == 2 and g.actor == 2 and g.phase == PLAY


def test_wild_cancels_a_pending_draw_four_beside_challenge():
    r = rules(players=3, wild_cancels_draw=True)
    g = game(r, ["+4", "red 2"], ["wild", "yellow 1"], ["yellow 2", "yellow 3"])
    run = run_both(g, ["+4 blue"])
    assert sorted(run.legal()) == sorted(["challenge", "accept the draw", *WILDS])
    run = run_both(run.game, ["wild yellow"])
    g = run.game
    assert g.pending == 0 and g.color == 1 and g.actor == 2
    assert g.hand_size(0) == 1 and g.hand_size(1) == 1 and g.hand_size(2) == 2


def test_wild_cancel_with_two_players_returns_to_the_draw_player():
    r = rules(players=2, wild_cancels_draw=True)
    g = build(r, hands={0: ["red +2", "red 2"], 1: ["wild", "yellow 1"]}, top="red 5", pile=PILE)
    run = run_both(g, ["red +2", "wild red"])
    assert run.game.actor == 0 and run.game.hand_size(0) == 1


def test_wild_cancel_off_the_victim_draws_at_once():
    g = game(rules(players=3), ["red +2", "red 2"], ["wild", "yellow 1"], ["yellow 2", "yellow 3"])
    run = run_both(g, ["red +2"])
    assert run.game.hand_size(1) == 4 and run.game.actor == 2


def test_wild_cancel_with_stacking_a_draw_two_or_a_wild():
    r = rules(players=3, wild_cancels_draw=True, stacking="same")
    g = game(r, ["red +2", "red 2"], ["wild", "blue +2", "yellow 1"], ["yellow 2", "yellow 3"])
    run = run_both(g, ["red +2"])
    assert sorted(run.legal()) == sorted(["accept the draw", "play blue +2", *WILDS])


def test_wild_cancel_as_the_last_card_wins_and_nobody_draws():
    r = rules(players=3, wild_cancels_draw=True)
    g = game(r, ["red +2", "red 2"], ["wild"], ["yellow 2", "yellow 3"])
    run = run_both(g, ["red +2", "wild blue"])
    assert run.last.round_over and run.last.winner == 1
    assert run.game.hand_size(0) == 1 and run.game.hand_size(2) == 2


def test_wild_cancel_as_the_last_card_respects_last_card_no_wild():
    r = rules(players=3, wild_cancels_draw=True, last_card="no-wild")
    g = game(r, ["red +2", "red 2"], ["wild"], ["yellow 2", "yellow 3"])
    run = run_both(g, ["red +2"])
    assert run.legal() == ["accept the draw"]
    run = run_both(run.game, ["accept"])
    assert run.game.hand_size(1) == 3 and run.game.actor == 2


def test_house_preset_stacks_any_draws_until_playable_and_has_no_challenge():
    r = rules("house", players=3)
    assert r.stacking == "any" and r.draw_until_playable and not r.challenge_enabled
    g = game(r, ["+4", "green 1"], ["blue +2", "yellow 1"], ["yellow 2"])
    run = run_both(g, ["+4 blue"])
    assert sorted(run.legal()) == ["accept the draw", "play blue +2"]
    run = run_both(run.game, ["blue +2", "accept"])
    assert run.game.hand_size(2) == 1 + 6 and run.game.actor == 0
    # Seat 0 draws until a playable card comes: green 3, green 2, green 1 are not.
    run = run_both(run.game, ["draw"])
    g = run.game
    assert g.phase == DRAWN and g.actor == 0 and g.hand_size(0) >= 1 + 4
    assert g.hands[0][parse_card("green 3")] == 1 and g.hands[0][parse_card("green 1")] == 2
    drawn = card_name(g.drawn)  # the first playable card: blue, a +2, a Wild or a (legal) +4
    assert drawn.startswith(("blue", "wild", "+4")) or drawn.endswith("+2")
