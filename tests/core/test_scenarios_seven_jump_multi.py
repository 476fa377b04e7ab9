"""Scenarios: seven-zero, jump-in and multi-play (rules specification §9)."""

from __future__ import annotations

from collections import Counter

import pytest

from uno_rl.core.cards import parse_card
from uno_rl.core.phases import JUMP, MULTI, OVER, PLAY, RESPOND
from uno_rl.core.phases import TARGET as TARGET_PHASE

try:
    from .scenario import build, hand_of, rules, run_both
except ImportError:
    from scenario import build, hand_of, rules, run_both

H1 = ["yellow 1"]
H2 = ["blue 1", "blue 2", "blue 3", "blue 4"]


# ---------------------------------------------------------------------- seven-zero
@pytest.mark.parametrize("direction", [1, -1])
def test_seven_swaps_hands_with_the_chosen_player(direction):
    r = rules(players=3, seven_zero=True)
    g = build(
        r,
        hands={0: ["red 7", "green 1", "green 2"], 1: H1, 2: H2},
        top="red 5",
        direction=direction,
    )
    run = run_both(g, ["red 7"])
    assert run.game.phase == TARGET_PHASE and run.game.actor == 0
    assert run.legal() == [
        "swap hands with the player 1 seat(s) clockwise",
        "swap hands with the player 2 seat(s) clockwise",
    ]
    run = run_both(run.game, ["target 2"])  # two seats clockwise: seat 2, whatever the direction
    g = run.game
    assert hand_of(g, 0) == Counter(H2)
    assert hand_of(g, 2) == Counter(["green 1", "green 2"])
    assert hand_of(g, 1) == Counter(H1)
    assert g.actor == (1 if direction == 1 else 2) and g.phase == PLAY
    assert g.top == parse_card("red 7")


def test_seven_target_one_with_four_players():
    r = rules(players=4, seven_zero=True)
    g = build(r, hands={0: ["red 7", "red 1"], 1: H1, 2: H2, 3: ["green 9"]}, top="red 5", actor=0)
    run = run_both(g, ["red 7", "target 3"])
    assert hand_of(run.game, 0) == Counter(["green 9"])
    assert hand_of(run.game, 3) == Counter(["red 1"])
    assert run.game.actor == 1


def test_seven_without_seven_zero_is_a_plain_number():
    g = build(rules(players=3), hands={0: ["red 7", "green 1"], 1: H1, 2: H2}, top="red 5")
    run = run_both(g, ["red 7"])
    assert run.game.phase == PLAY and run.game.actor == 1
    assert hand_of(run.game, 0) == Counter(["green 1"])


def test_seven_as_the_last_card_wins_without_a_swap():
    r = rules(players=3, seven_zero=True)
    g = build(r, hands={0: ["red 7"], 1: H1, 2: H2}, top="red 5")
    run = run_both(g, ["red 7"])
    assert run.last.round_over and run.last.winner == 0 and run.game.phase == OVER
    assert hand_of(run.game, 2) == Counter(H2)


@pytest.mark.parametrize("direction", [1, -1])
def test_zero_passes_every_hand_one_seat_along_the_direction_of_play(direction):
    r = rules(players=4, seven_zero=True)
    hands = {0: ["red 0", "green 1", "green 2"], 1: H1, 2: H2, 3: ["yellow 9", "yellow 8"]}
    g = build(r, hands=hands, top="red 5", direction=direction)
    run = run_both(g, ["red 0"])
    g = run.game
    before = {0: ["green 1", "green 2"], 1: H1, 2: H2, 3: ["yellow 9", "yellow 8"]}
    for seat in range(4):
        assert hand_of(g, (seat + direction) % 4) == Counter(before[seat])
    assert g.actor == direction % 4 and g.phase == PLAY


def test_zero_without_seven_zero_is_a_plain_number():
    g = build(rules(players=3), hands={0: ["red 0", "green 1"], 1: H1, 2: H2}, top="red 5")
    run = run_both(g, ["red 0"])
    assert hand_of(run.game, 0) == Counter(["green 1"]) and hand_of(run.game, 1) == Counter(H1)


def test_seven_zero_preset():
    r = rules("seven-zero", players=3)
    g = build(r, hands={0: ["red 7", "green 1"], 1: H1, 2: H2}, top="red 5")
    assert run_both(g, ["red 7"]).game.phase == TARGET_PHASE


# ------------------------------------------------------------------------- jump-in
def jump_rules(players=3, **kw):
    return rules(players=players, jump_in=True, **kw)


def test_jump_in_holder_of_the_identical_card_plays_out_of_turn():
    g = build(
        jump_rules(), hands={0: ["red 5", "green 1"], 1: H1, 2: ["red 5", "blue 1"]}, top="red 3"
    )
    run = run_both(g, ["red 5"])
    assert run.game.phase == JUMP and run.game.actor == 2
    assert run.legal() == ["play red 5", "pass"]
    run = run_both(run.game, ["red 5"])
    g = run.game
    # Play continues from the jumper: seat 0 is next after seat 2; seat 1 lost its turn.
    assert g.actor == 0 and g.phase == PLAY
    assert hand_of(g, 2) == Counter(["blue 1"]) and g.discard[parse_card("red 5")] == 2


def test_jump_in_declined_normal_play_resumes():
    g = build(
        jump_rules(), hands={0: ["red 5", "green 1"], 1: H1, 2: ["red 5", "blue 1"]}, top="red 3"
    )
    run = run_both(g, ["red 5", "pass"])
    assert run.game.actor == 1 and run.game.phase == PLAY
    assert hand_of(run.game, 2) == Counter(["red 5", "blue 1"])


def test_jump_in_nobody_holds_the_card_normal_play():
    g = build(jump_rules(), hands={0: ["red 5", "green 1"], 1: H1, 2: H2}, top="red 3")
    run = run_both(g, ["red 5"])
    assert run.game.actor == 1 and run.game.phase == PLAY


def test_jump_in_by_the_next_player_of_a_skip_skips_the_one_after():
    g = build(
        jump_rules(),
        hands={0: ["red skip", "green 1"], 1: ["red skip", "yellow 1"], 2: H2},
        top="red 3",
    )
    run = run_both(g, ["red skip"])
    assert run.game.phase == JUMP and run.game.actor == 1
    run = run_both(run.game, ["red skip"])
    assert run.game.actor == 0 and run.game.phase == PLAY  # seat 2 skipped


def test_jump_in_on_a_draw_two_after_the_victim_drew():
    g = build(
        jump_rules(),
        hands={0: ["red +2", "green 1"], 1: H1, 2: ["red +2", "blue 1"]},
        top="red 3",
        pile=["green 5", "green 6", "green 7", "green 8"],
    )
    run = run_both(g, ["red +2"])
    assert run.game.hand_size(1) == 3 and run.game.phase == JUMP and run.game.actor == 2
    run = run_both(run.game, ["red +2"])
    g = run.game
    assert hand_of(g, 0) == Counter(["green 1", "green 6", "green 5"])
    assert g.actor == 1 and g.phase == PLAY


def test_jump_in_on_a_draw_two_the_victim_may_answer_waits_for_the_answer():
    """No stacking (rules specification §3): with wild_cancels_draw the victim of a +2 answers
    first; the window opens once it has drawn (the +2's effects are over), so a jump-in +2 is a
    new +2 for the next player, never a second +2 for the same victim (no one draws 4)."""
    g = build(
        jump_rules(wild_cancels_draw=True),
        hands={0: ["red +2", "green 1"], 1: H1, 2: ["red +2", "blue 1"]},
        top="red 3",
        pile=["green 5", "green 6", "green 7", "green 8"],
    )
    run = run_both(g, ["red +2"])
    assert run.game.phase == RESPOND and run.game.actor == 1 and run.game.pending == 2
    assert run.legal() == ["accept the draw"]
    run = run_both(run.game, ["accept"])
    assert hand_of(run.game, 1) == Counter(["yellow 1", "green 8", "green 7"])
    assert run.game.phase == JUMP and run.game.actor == 2  # now the window opens
    run = run_both(run.game, ["red +2"])
    g = run.game
    assert g.phase == RESPOND and g.actor == 0 and g.pending == 2  # not 4
    run = run_both(g, ["accept"])
    g = run.game
    assert hand_of(g, 0) == Counter(["green 1", "green 6", "green 5"])
    assert hand_of(g, 1) == Counter(["yellow 1", "green 8", "green 7"])
    assert g.actor == 1 and g.phase == PLAY and g.pending == 0


def test_jump_in_on_a_draw_two_declined_after_the_answer_play_goes_on():
    g = build(
        jump_rules(wild_cancels_draw=True),
        hands={0: ["red +2", "green 1"], 1: H1, 2: ["red +2", "blue 1"]},
        top="red 3",
        pile=["green 5", "green 6", "green 7", "green 8"],
    )
    run = run_both(g, ["red +2", "accept", "pass"])
    assert run.game.actor == 2 and run.game.phase == PLAY  # seat 1 drew 2 and lost its turn
    assert run.game.hand_size(1) == 3 and run.game.hand_size(2) == 2


def test_jump_in_on_a_draw_two_cancelled_by_a_wild_has_no_window():
    g = build(
        jump_rules(wild_cancels_draw=True),
        hands={0: ["red +2", "green 1"], 1: ["wild", "yellow 1"], 2: ["red +2", "blue 1"]},
        top="red 3",
    )
    run = run_both(g, ["red +2", "wild blue"])
    g = run.game
    assert g.actor == 2 and g.phase == PLAY and g.pending == 0 and g.hand_size(1) == 1


def test_jump_in_on_a_draw_two_with_stacking_stacks():
    """With stacking on, a +2 on a pending +2 is allowed: a jump-in +2 before the victim
    answers adds to the chain (the window opens right after the play)."""
    g = build(
        jump_rules(stacking="same"),
        hands={0: ["red +2", "green 1"], 1: H1, 2: ["red +2", "blue 1"]},
        top="red 3",
        pile=["green 5", "green 6", "green 7", "green 8"],
    )
    run = run_both(g, ["red +2"])
    assert run.game.phase == JUMP and run.game.actor == 2
    run = run_both(run.game, ["red +2"])
    assert run.game.phase == RESPOND and run.game.actor == 0 and run.game.pending == 4
    run = run_both(run.game, ["accept"])
    assert run.game.hand_size(0) == 1 + 4 and run.game.actor == 1 and run.game.phase == PLAY


def test_jump_in_with_the_last_card_wins():
    g = build(jump_rules(), hands={0: ["red 5", "green 1"], 1: H1, 2: ["red 5"]}, top="red 3")
    run = run_both(g, ["red 5", "red 5"])
    assert run.last.round_over and run.last.winner == 2


def test_no_jump_in_window_after_a_wild():
    """Reference semantics: only a colored card opens the window (``jump_in``, rules
    specification §9)."""
    g = build(
        jump_rules(), hands={0: ["wild", "green 1"], 1: H1, 2: ["wild", "blue 1"]}, top="red 3"
    )
    run = run_both(g, ["wild blue"])
    assert run.game.actor == 1 and run.game.phase == PLAY


def test_jump_in_off_no_window():
    g = build(
        rules(players=3),
        hands={0: ["red 5", "green 1"], 1: H1, 2: ["red 5", "blue 1"]},
        top="red 3",
    )
    run = run_both(g, ["red 5"])
    assert run.game.actor == 1 and run.game.phase == PLAY


@pytest.mark.parametrize("direction", [1, -1])
def test_jump_in_pass_moves_to_the_next_holder(direction):
    """A non-standard deck (three red 5s) to have two holders: asked in the direction of play."""
    hands = {0: ["red 5", "green 1"], 1: H1, 2: ["red 5", "blue 1"], 3: ["red 5", "yellow 9"]}
    g = build(
        jump_rules(4), hands=hands, top="red 3", rest=None, extra_copies=True, direction=direction
    )
    run = run_both(g, ["red 5"])
    first, second = (2, 3) if direction == 1 else (3, 2)
    assert run.game.phase == JUMP and run.game.actor == first
    run = run_both(run.game, ["pass"])
    assert run.game.phase == JUMP and run.game.actor == second
    run = run_both(run.game, ["pass"])
    assert run.game.phase == PLAY and run.game.actor == direction % 4


def test_party_preset():
    r = rules("party", players=3)
    assert r.jump_in and r.seven_zero and r.stacking == "any"
    g = build(r, hands={0: ["red 7", "green 1"], 1: ["red 7", "yellow 1"], 2: H2}, top="red 3")
    run = run_both(g, ["red 7", "target 1"])
    # After the swap the other red 7 is back with seat 0, who opened the window: nobody is asked.
    assert run.game.phase == PLAY and run.game.actor == 1
    assert hand_of(run.game, 0) == Counter(["red 7", "yellow 1"])


# ---------------------------------------------------------------------- multi-play
def multi(hand, **kw):
    r = rules(players=3, multi_play=True, **kw)
    return build(r, hands={0: hand, 1: H1, 2: H2}, top="red 3")


def test_multi_play_several_cards_of_one_number_last_sets_the_color():
    run = run_both(multi(["red 5", "blue 5", "green 5", "yellow 2"]), ["red 5"])
    assert run.game.phase == MULTI and run.game.actor == 0
    assert sorted(run.legal()) == ["pass", "play blue 5", "play green 5"]
    run = run_both(run.game, ["blue 5"])
    assert run.game.phase == MULTI and sorted(run.legal()) == ["pass", "play green 5"]
    run = run_both(run.game, ["green 5"])
    g = run.game
    assert g.phase == PLAY and g.actor == 1
    assert g.top == parse_card("green 5") and g.color == 2
    assert hand_of(g, 0) == Counter(["yellow 2"])


def test_multi_play_stop_with_pass():
    run = run_both(multi(["red 5", "blue 5", "yellow 2"]), ["red 5", "pass"])
    g = run.game
    assert g.actor == 1 and g.color == 0 and g.top == parse_card("red 5")
    assert hand_of(g, 0) == Counter(["blue 5", "yellow 2"])


def test_multi_play_may_not_empty_the_hand():
    # Two fives: the second would empty the hand, so no multi phase.
    run = run_both(multi(["red 5", "blue 5"]), ["red 5"])
    assert run.game.phase == PLAY and run.game.actor == 1
    # Three fives: at most two go down together.
    run = run_both(multi(["red 5", "blue 5", "green 5"]), ["red 5", "blue 5"])
    assert run.game.phase == PLAY and run.game.actor == 1
    assert hand_of(run.game, 0) == Counter(["green 5"])


def test_multi_play_only_numbers():
    run = run_both(multi(["red skip", "blue skip", "green 1"]), ["red skip"])
    assert run.game.phase == PLAY and run.game.actor == 2


def test_multi_play_off():
    g = build(
        rules(players=3), hands={0: ["red 5", "blue 5", "green 5"], 1: H1, 2: H2}, top="red 3"
    )
    run = run_both(g, ["red 5"])
    assert run.game.phase == PLAY and run.game.actor == 1


def test_multi_play_not_after_playing_a_drawn_card():
    g = build(
        rules(players=3, multi_play=True),
        hands={0: ["blue 5", "green 1"], 1: H1, 2: H2},
        top="red 3",
        pile=["red 5"],
    )
    run = run_both(g, ["draw", "red 5"])
    assert run.game.phase == PLAY and run.game.actor == 1


def test_multi_play_of_sevens_swaps_once():
    r = rules(players=3, multi_play=True, seven_zero=True)
    g = build(r, hands={0: ["red 7", "blue 7", "green 1"], 1: H1, 2: H2}, top="red 3")
    run = run_both(g, ["red 7", "blue 7"])
    assert run.game.phase == TARGET_PHASE and run.game.color == 3
    run = run_both(run.game, ["target 1"])
    assert hand_of(run.game, 1) == Counter(["green 1"]) and run.game.actor == 1
