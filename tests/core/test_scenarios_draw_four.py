"""Scenarios: the +4, its legality, bluffing and the challenge (rules specification §5, §7)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from uno_rl.core.cards import KIND_POINTS, WILD_DRAW_FOUR, parse_card
from uno_rl.core.observe import observe
from uno_rl.core.observe_layout import SLICES
from uno_rl.core.phases import OVER, PLAY, RESPOND

try:
    from .scenario import build, hand_of, rules, run_both
except ImportError:
    from scenario import build, hand_of, rules, run_both

FOURS = ["+4 naming red", "+4 naming yellow", "+4 naming green", "+4 naming blue"]
P1 = ["yellow 1", "yellow 2", "yellow 3"]
P2 = ["blue 1", "blue 2", "blue 3"]
PILE = ["green 3", "green 4", "green 5", "green 6", "green 7", "green 8"]  # next drawn last


def three(r=None, hand0=(), **kw):
    kw.setdefault("pile", PILE)
    kw.setdefault("top", "red 5")
    return build(r or rules(players=3), hands={0: list(hand0), 1: P1, 2: P2}, **kw)


# Whether a +4 from a hand is legal (not a bluff), top red 5, under each draw_four_legal switch.
LEGALITY = [
    # hand besides the +4         no-current-color   no-playable-card
    (["red 2", "green 1"], False, False),  # holds the current color
    (["blue 5", "green 1"], True, False),  # only a symbol match
    (["wild", "green 1"], True, False),  # only a Wild
    (["green 1", "yellow 9"], True, True),  # nothing playable
]


@pytest.mark.parametrize("hand,no_color,no_playable", LEGALITY)
@pytest.mark.parametrize("switch", ["no-current-color", "no-playable-card"])
def test_draw_four_legality_and_bluff(hand, no_color, no_playable, switch):
    legal = no_color if switch == "no-current-color" else no_playable
    r = rules(players=3, draw_four_legal=switch)
    g = three(r, [*hand, "+4"])
    assert g.draw_four_legal(0) == legal
    run = run_both(g, ["+4 green"])  # bluffing allowed: always a legal move
    assert run.game.draw4_bluff == (not legal)
    assert run.game.phase == RESPOND and run.game.actor == 1
    assert run.legal() == ["challenge", "accept the draw"]


@pytest.mark.parametrize("hand,no_color,no_playable", LEGALITY)
@pytest.mark.parametrize("switch", ["no-current-color", "no-playable-card"])
def test_bluffing_forbidden_masks_an_illegal_draw_four(hand, no_color, no_playable, switch):
    legal = no_color if switch == "no-current-color" else no_playable
    r = rules(players=3, draw_four_legal=switch, bluffing="forbidden")
    run = run_both(three(r, [*hand, "+4"]))
    assert (set(FOURS) <= set(run.legal())) == legal
    assert not (set(FOURS) & set(run.legal())) or legal


def test_bluffing_forbidden_no_challenge_victim_draws_at_once():
    r = rules(players=3, bluffing="forbidden")
    run = run_both(three(r, ["green 1", "+4"]), ["+4 blue"])
    assert hand_of(run.game, 1) == Counter(P1 + ["green 8", "green 7", "green 6", "green 5"])
    assert run.game.actor == 2 and run.game.phase == PLAY and run.game.color == 3


def test_accept_victim_draws_four_and_loses_the_turn():
    run = run_both(three(None, ["red 2", "+4"]), ["+4 blue", "accept"])
    g = run.game
    assert hand_of(g, 1) == Counter(P1 + ["green 8", "green 7", "green 6", "green 5"])
    assert g.actor == 2 and g.phase == PLAY
    assert g.top == WILD_DRAW_FOUR and g.color == 3 and g.pending == 0
    assert hand_of(g, 0) == Counter(["red 2"])


def test_victim_sees_previous_color_and_who_played_the_draw_four():
    run = run_both(three(None, ["red 2", "+4"]), ["+4 blue"])
    obs = observe(run.state, 1)[0]
    assert obs[SLICES["previous_color"]].tolist() == [1, 0, 0, 0]
    assert obs[SLICES["draw4_player"]][2] == 1  # seat 0 is two seats after seat 1
    assert obs[SLICES["pending_draw"]][0] == 4


def revealed(run, seat):
    obs = observe(run.state, seat)[0]
    return obs[SLICES["revealed_hand"]], obs[SLICES["revealed_seat"]]


def test_bluff_caught_draws_four_bluffer_draws_named_color_stands():
    r = rules(players=3, caught_bluffer="draws-4")
    run = run_both(three(r, ["red 2", "green 1", "+4"]), ["+4 blue", "challenge"])
    g = run.game
    assert hand_of(g, 0) == Counter(
        ["red 2", "green 1", "green 8", "green 7", "green 6", "green 5"]
    )
    assert hand_of(g, 1) == Counter(P1)
    assert g.top == WILD_DRAW_FOUR and g.color == 3
    # The victim then plays normally.
    assert g.actor == 1 and g.phase == PLAY
    assert g.stats["challenges"] == [0, 1, 0] and g.stats["challenges_won"] == [0, 1, 0]
    assert g.stats["bluffs"] == [1, 0, 0]
    assert g.stats["draw4_challenged"] == [1, 0, 0] and g.stats["bluffs_caught"] == [1, 0, 0]
    # The challenger saw the challenged hand (as it was when challenged); nobody else did.
    hand, seat = revealed(run, 1)
    expected = np.zeros(54)
    expected[[parse_card("red 2"), parse_card("green 1")]] = 1
    assert hand.tolist() == expected.tolist()
    assert seat.tolist() == [0, 0, 1] + [0] * 7  # seat 0, seen from seat 1
    for other in (0, 2):
        hand, seat = revealed(run, other)
        assert not hand.any() and not seat.any()


def test_bluff_caught_takes_back_previous_top_and_color_restored():
    r = rules(players=3, caught_bluffer="takes-back")
    g = three(r, ["red 2", "green 1", "+4"])
    run = run_both(g, ["+4 blue", "challenge"])
    g = run.game
    assert hand_of(g, 0) == Counter(
        ["red 2", "green 1", "+4", "green 8", "green 7", "green 6", "green 5"]
    )
    assert g.top == parse_card("red 5") and g.color == 0
    assert g.discard[WILD_DRAW_FOUR] == 0 and g.discard[parse_card("red 5")] == 1
    assert g.actor == 1 and g.phase == PLAY
    assert run.legal() == ["draw"]  # seat 1 holds only yellow cards, red 5 on top again
    hand, _ = revealed(run, 1)
    assert hand[WILD_DRAW_FOUR] == 0 and hand[parse_card("red 2")] == 1


@pytest.mark.parametrize("caught", ["draws-4", "takes-back"])
def test_innocent_challenge_victim_draws_six_and_loses_the_turn(caught):
    r = rules(players=3, caught_bluffer=caught)
    run = run_both(three(r, ["green 1", "+4"]), ["+4 blue", "challenge"])
    g = run.game
    assert hand_of(g, 1) == Counter(P1 + PILE)
    assert hand_of(g, 0) == Counter(["green 1"])
    assert g.actor == 2 and g.phase == PLAY
    assert g.top == WILD_DRAW_FOUR and g.color == 3
    assert g.stats["challenges"] == [0, 1, 0] and g.stats["challenges_won"] == [0, 0, 0]
    assert g.stats["draw4_challenged"] == [1, 0, 0] and g.stats["bluffs_caught"] == [0, 0, 0]
    hand, seat = revealed(run, 1)
    assert hand[parse_card("green 1")] == 1 and hand.sum() == 1 and seat[2] == 1


def test_challenge_checks_the_color_before_the_draw_four_not_the_named_one():
    # Holding blue and naming blue, on red: not a bluff.
    run = run_both(three(None, ["blue 9", "+4"]), ["+4 blue", "challenge"])
    assert run.game.hand_size(1) == 3 + 6 and run.game.actor == 2
    # Holding red and naming blue, on red: a bluff.
    run = run_both(three(None, ["red 9", "+4"]), ["+4 blue", "challenge"])
    assert run.game.hand_size(0) == 1 + 4 and run.game.actor == 1


def test_two_players_caught_bluffer_victim_plays_then_bluffer():
    g = build(rules(), hands={0: ["red 2", "+4"], 1: ["blue 7", "blue 8"]}, top="red 5", pile=PILE)
    run = run_both(g, ["+4 blue", "challenge"])
    assert run.game.actor == 1 and sorted(run.legal()) == ["draw", "play blue 7", "play blue 8"]
    run = run_both(run.game, ["blue 7"])
    assert run.game.actor == 0


def test_round_stats_count_draw_fours_bluffs_and_challenges():
    g = build(rules(), hands={0: ["red 2", "+4", "red 3"], 1: ["blue 7"]}, top="red 5", pile=PILE)
    run = run_both(g, ["+4 blue", "challenge", "blue 7"])
    out = run.last
    assert out.round_over and out.winner == 1
    assert out.draw4_plays == [1, 0] and out.bluffs == [1, 0]
    assert out.challenges == [0, 1] and out.challenges_won == [0, 1]
    assert out.draw4_challenged == [1, 0] and out.bluffs_caught == [1, 0]


# ------------------------------------------------------------ +4 as the last card
def last_draw_four(r=None, **kw):
    return build(
        r or rules(players=3),
        hands={0: ["+4"], 1: P1 + ["wild"], 2: P2},
        top="red 5",
        pile=PILE,
        **kw,
    )


def test_last_card_draw_four_is_still_answered_accept_ends_the_round():
    r = rules(players=3, wild_cancels_draw=True)
    run = run_both(last_draw_four(r), ["+4 red"])
    assert run.game.phase == RESPOND and run.game.actor == 1
    assert run.legal() == ["challenge", "accept the draw"]  # no Wild cancel on a final +4
    assert not run.last.round_over
    run = run_both(run.game, ["accept"])
    g, out = run.game, run.last
    assert out.round_over and out.winner == 0 and g.phase == OVER
    assert hand_of(g, 1) == Counter(P1 + ["wild", "green 8", "green 7", "green 6", "green 5"])
    expected = sum(KIND_POINTS[parse_card(c)] for c in P1 + P2 + ["wild"] + PILE[2:])
    assert out.points == expected


def test_last_card_draw_four_challenged_is_innocent_victim_draws_six_round_ends():
    run = run_both(last_draw_four(), ["+4 red", "challenge"])
    g, out = run.game, run.last
    assert out.round_over and out.winner == 0
    assert hand_of(g, 1) == Counter(P1 + ["wild"] + PILE)
    assert g.stats["challenges_won"] == [0, 0, 0]


def test_last_card_draw_four_is_never_a_bluff():
    # With one card in hand, nobody holds the current color: a final +4 is always legal.
    for switch in ("no-current-color", "no-playable-card"):
        run = run_both(last_draw_four(rules(players=3, draw_four_legal=switch)), ["+4 red"])
        assert run.game.draw4_bluff is False


@pytest.mark.parametrize("caught", ["draws-4", "takes-back"])
def test_last_card_draw_four_caught_play_goes_on(caught):
    """A caught final +4 (a constructed position: legal play cannot bluff with one card)."""
    r = rules(players=3, caught_bluffer=caught)
    g = build(
        r,
        hands={0: [], 1: P1, 2: P2},
        top="+4",
        color="blue",
        discard=["red 5"],
        pile=PILE,
        phase=RESPOND,
        actor=1,
        pending=4,
        draw4_player=0,
        draw4_bluff=True,
        prev_top=parse_card("red 5"),
        prev_color=0,
    )
    run = run_both(g, ["challenge"])
    g = run.game
    assert not run.last.round_over and g.phase == PLAY and g.actor == 1
    back = ["+4"] if caught == "takes-back" else []
    assert hand_of(g, 0) == Counter(back + ["green 8", "green 7", "green 6", "green 5"])
    assert g.color == (0 if caught == "takes-back" else 3)


def test_last_card_draw_four_without_challenge_victim_draws_at_once():
    r = rules(players=3, bluffing="forbidden")
    run = run_both(last_draw_four(r), ["+4 red"])
    assert run.last.round_over and run.last.winner == 0
    assert run.game.hand_size(1) == 4 + 4


# ------------------------------------------------------------ take-back and the piles
def test_take_back_reshuffle_keeps_the_card_under_the_draw_four():
    """Under take-back, the card a take-back restores is not shuffled into the new pile."""
    r = rules(players=2, caught_bluffer="takes-back")
    g = build(
        r,
        hands={0: ["red 2", "+4", "red 3"], 1: ["blue 1", "blue 2"]},
        top="red 5",
        pile=["green 1", "green 2"],
        rest="discard",
    )
    run = run_both(g, ["+4 blue", "accept"])  # the accept reshuffles after two cards
    g = run.game
    assert g.reshuffles == 1 and g.hand_size(1) == 6
    assert g.top == WILD_DRAW_FOUR
    assert [k for k in range(54) if g.discard[k]] == [parse_card("red 5"), WILD_DRAW_FOUR]


def test_take_back_of_a_draw_four_played_on_a_draw_four_keeps_108_cards():
    """+4 accepted, another +4 bluffed on it, caught and taken back, then a reshuffle."""
    r = rules(players=2, caught_bluffer="takes-back")
    g = build(
        r,
        hands={0: ["+4", "+4", "red 1", "red 2"], 1: ["blue 1", "blue 2", "+4", "+4"]},
        top="red 5",
        pile=PILE,
        rest="discard",
    )
    # Seat 1 accepts the first +4 (4 of the 6 pile cards); seat 0 bluffs a second +4 on it
    # (holding red); seat 1 challenges: seat 0 takes the +4 back (the first +4 is on top
    # again) and draws 4, which needs a reshuffle. run_both checks the deck stays 108 cards.
    run = run_both(g, ["+4 red", "accept", "+4 blue", "challenge"])
    g = run.game
    assert g.top == WILD_DRAW_FOUR and g.color == 0
    assert g.hand_size(0) == 3 + 4 and g.hands[0][WILD_DRAW_FOUR] == 1


def test_no_bluff_preset_masks_the_illegal_draw_four():
    r = rules("no-bluff", players=3)
    assert r.bluffing == "forbidden" and not r.challenge_enabled
    assert not set(FOURS) & set(run_both(three(r, ["red 2", "+4"])).legal())
    run = run_both(three(r, ["green 2", "+4"]), ["+4 red"])
    assert run.game.hand_size(1) == 3 + 4 and run.game.actor == 2
