"""Scenarios: last-card restrictions, calling UNO, going out, running out of cards
(rules specification §4, §6, §7 and the last-card and UNO switches)."""

from __future__ import annotations

from collections import Counter

import pytest

from uno_rl.core.cards import KIND_POINTS, parse_card
from uno_rl.core.phases import OVER, PLAY

try:
    from .scenario import build, cards, hand_of, rules, run_both
except ImportError:
    from scenario import build, cards, hand_of, rules, run_both

FOURS = ["+4 naming red", "+4 naming yellow", "+4 naming green", "+4 naming blue"]
WILDS = ["wild naming red", "wild naming yellow", "wild naming green", "wild naming blue"]
H1 = ["yellow 1", "yellow 2"]
H2 = ["blue 1", "blue 2", "blue 3"]


def three(r, hand0, **kw):
    kw.setdefault("top", "red 5")
    return build(r, hands={0: hand0, 1: kw.pop("h1", H1), 2: kw.pop("h2", H2)}, **kw)


# ---------------------------------------------------------------------- last card
@pytest.mark.parametrize(
    "last_card,hand,expected",
    [
        ("any", ["+4"], ["draw", *FOURS]),
        ("any", ["wild"], ["draw", *WILDS]),
        ("no-draw-four", ["+4"], ["draw"]),
        ("no-draw-four", ["wild"], ["draw", *WILDS]),
        ("no-wild", ["+4"], ["draw"]),
        ("no-wild", ["wild"], ["draw"]),
        ("no-wild", ["red 9"], ["draw", "play red 9"]),
        ("no-draw-four", ["+4", "green 1"], ["draw", *FOURS]),
        ("no-wild", ["wild", "green 1"], ["draw", *WILDS]),
    ],
)
def test_last_card_restrictions(last_card, hand, expected):
    run = run_both(three(rules(players=3, last_card=last_card), hand))
    assert sorted(run.legal()) == sorted(expected)


def test_last_card_no_draw_four_also_when_stacking():
    r = rules(players=3, stacking="same", last_card="no-draw-four")
    g = three(r, ["+4", "green 1"], h1=["+4"])
    run = run_both(g, ["+4 green"])
    assert run.legal() == ["accept the draw"]


def test_last_card_no_draw_four_holder_must_draw_then_may_play_the_drawn_card():
    r = rules(players=3, last_card="no-draw-four")
    run = run_both(three(r, ["+4"], pile=["red 9"]), ["draw"])
    assert sorted(run.legal()) == ["pass", "play red 9"]
    run = run_both(run.game, ["pass"])
    assert hand_of(run.game, 0) == Counter(["+4", "red 9"]) and run.game.actor == 1


# ----------------------------------------------------------------------- going out
def test_going_out_wins_the_round_at_once():
    run = run_both(three(rules(players=3), ["red 9"]), ["red 9"])
    out = run.last
    assert out.round_over and out.winner == 0 and run.game.phase == OVER
    assert run.game.legal_actions() == []
    assert out.points == sum(KIND_POINTS[k] for k in cards(H1 + H2))


def test_going_out_with_a_draw_two_the_next_player_still_draws():
    g = three(rules(players=3), ["red +2"], pile=["green 8", "green 9"])
    run = run_both(g, ["red +2"])
    out = run.last
    assert out.round_over and out.winner == 0
    assert hand_of(run.game, 1) == Counter(H1 + ["green 8", "green 9"])
    assert out.points == sum(KIND_POINTS[k] for k in cards(H1 + H2 + ["green 8", "green 9"]))


# ---------------------------------------------------------------------- calling UNO
@pytest.mark.parametrize("penalty", [1, 2, 4])
def test_uno_forgotten_and_caught_draws_the_penalty(penalty):
    r = rules(players=3, uno_forget_prob=1.0, uno_catch_prob=1.0, uno_penalty=penalty)
    pile = ["green 9", "green 8", "green 7", "green 6"]
    run = run_both(three(r, ["red 1", "red 2"], pile=pile), ["red 1"])
    assert hand_of(run.game, 0) == Counter(["red 2"] + pile[::-1][:penalty])
    assert run.game.actor == 1 and run.game.phase == PLAY


@pytest.mark.parametrize("forget,catch", [(0.0, 1.0), (1.0, 0.0)])
def test_uno_never_penalised_without_forgetting_or_catching(forget, catch):
    r = rules(players=3, uno_forget_prob=forget, uno_catch_prob=catch)
    run = run_both(three(r, ["red 1", "red 2"]), ["red 1"])
    assert hand_of(run.game, 0) == Counter(["red 2"])


def test_uno_penalty_only_on_going_down_to_one_card():
    r = rules(players=3, uno_forget_prob=1.0, uno_catch_prob=1.0)
    run = run_both(three(r, ["red 1", "red 2", "red 3"]), ["red 1"])
    assert run.game.hand_size(0) == 2
    run = run_both(three(r, ["red 1"]), ["red 1"])
    assert run.last.round_over and run.game.hand_size(0) == 0


def test_uno_penalty_after_a_multi_play_down_to_one_card():
    r = rules(players=3, uno_forget_prob=1.0, uno_catch_prob=1.0, multi_play=True)
    pile = ["green 9", "green 8"]
    run = run_both(three(r, ["red 5", "blue 5", "yellow 2"], pile=pile), ["red 5", "blue 5"])
    assert hand_of(run.game, 0) == Counter(["yellow 2", "green 8", "green 9"])
    assert run.game.actor == 1 and run.game.color == 3


def test_uno_forget_probability_is_drawn_from_the_deal_seed():
    r = rules(players=3, uno_forget_prob=0.5, uno_catch_prob=1.0)
    sizes = set()
    for seed in range(12):
        run = run_both(three(r, ["red 1", "red 2"], seed=seed), ["red 1"])
        sizes.add(run.game.hand_size(0))
    assert sizes == {1, 3}


# -------------------------------------------------------------- running out of cards
def test_empty_pile_reshuffles_the_discard_pile_but_keeps_the_top_card():
    under = ["green 1", "green 2", "blue 9"]
    # Seat 2 holds every other card: the piles hold only the cards given.
    g = three(rules(players=3), ["yellow 9"], discard=under, h2=[], rest=2)
    run = run_both(g, ["draw"])
    g = run.game
    assert g.reshuffles == 1 and g.top == parse_card("red 5")
    assert g.discard == [int(k == parse_card("red 5")) for k in range(54)]
    drawn = [k for k in range(54) if g.hands[0][k] and k != parse_card("yellow 9")]
    assert len(drawn) == 1 and len(g.pile) == 2
    assert sorted(g.pile + drawn) == sorted(cards(under))


def test_reshuffle_in_the_middle_of_a_penalty_draw():
    # The pile holds one card; the +2 goes on top, the old top (red 5) is reshuffled in.
    g = three(
        rules(players=3), ["red +2", "red 1"], pile=["green 7"], discard=["blue 9"], h2=[], rest=2
    )
    run = run_both(g, ["red +2"])
    g = run.game
    assert g.hand_size(1) == 2 + 2 and g.hands[1][parse_card("green 7")] == 1
    assert g.top == parse_card("red +2") and g.reshuffles == 1
    second = [k for k in range(54) if g.hands[1][k] and k not in cards(H1 + ["green 7"])]
    assert sorted(g.pile + second) == sorted(cards(["red 5", "blue 9"]))
    assert g.actor == 2


def test_reshuffle_with_every_other_card_in_the_discard_pile():
    g = three(rules(players=3), ["green 1"], pile=["green 2"], rest="discard")
    run = run_both(g, ["draw", "draw"])  # run_both checks the 108 cards stay 108
    g = run.game
    assert g.reshuffles == 1 and sum(g.discard) == 1 and g.top == parse_card("red 5")
    assert len(g.pile) == 108 - (2 + 3 + 3) - 1  # all but the hands and the top card


def test_both_piles_empty_a_player_who_must_draw_passes():
    g = three(rules(players=3), ["green 1"], h2=[], rest=2)
    run = run_both(g, ["draw"])
    g = run.game
    assert hand_of(g, 0) == Counter(["green 1"]) and g.actor == 1 and g.phase == PLAY
    assert g.pile == [] and g.reshuffles == 0


def test_both_piles_empty_a_penalty_draws_what_there_is():
    g = three(rules(players=3), ["red +2", "red 1"], h2=[], rest=2)
    run = run_both(g, ["red +2"])
    g = run.game
    # Only the old top (red 5) could be reshuffled: seat 1 draws it and loses the turn.
    assert hand_of(g, 1) == Counter(H1 + ["red 5"]) and g.actor == 2
    assert g.pile == [] and g.discard[parse_card("red +2")] == 1
