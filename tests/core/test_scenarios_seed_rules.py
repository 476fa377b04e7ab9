"""Scenarios: the seed rules of the rules specification, §12 (a caught bluffer who loses a turn,
combinations of action cards, a match of a fixed number of rounds), each run through both
the reference and the engine (``run_both`` checks they agree after every action)."""

from __future__ import annotations

from collections import Counter

import pytest

from uno_rl.core import engine
from uno_rl.core.cards import WILD_DRAW_FOUR, parse_card
from uno_rl.core.phases import MULTI, OVER, PLAY, RESPOND
from uno_rl.core.rules import Rules, RulesError

try:
    from .scenario import build, hand_of, rules, run_both
except ImportError:
    from scenario import build, hand_of, rules, run_both

P1 = ["yellow 1", "yellow 2", "yellow 3"]
P2 = ["blue 1", "blue 2", "blue 3"]
PILE = ["green 3", "green 4", "green 5", "green 6", "green 7", "green 8"]  # next drawn last


# ------------------------------------------------------ caught_bluffer = "loses-turn"
def test_loses_turn_bluffer_draws_nothing_challenger_plays_bluffer_skipped():
    r = rules(players=3, caught_bluffer="loses-turn")
    g = build(r, hands={0: ["red 2", "+4"], 1: P1, 2: P2}, top="red 5", pile=PILE)
    run = run_both(g, ["+4 blue", "challenge"])
    g = run.game
    assert hand_of(g, 0) == Counter(["red 2"])  # draws nothing
    assert g.skip_turn == [1, 0, 0] and g.pending == 0
    assert g.top == WILD_DRAW_FOUR and g.color == 3  # the +4 and its color stand
    assert g.actor == 1 and g.phase == PLAY  # the challenger plays
    assert g.stats["bluffs_caught"] == [1, 0, 0] and g.stats["challenges_won"] == [0, 1, 0]
    # Seat 1 draws green 8 (unplayable on blue), seat 2 plays: seat 0's turn is lost.
    run = run_both(g, ["draw", "blue 1"])
    g = run.game
    assert g.actor == 1 and g.phase == PLAY and g.skip_turn == [0, 0, 0]
    # The lost turn is spent: next time round, seat 0 plays.
    run = run_both(g, ["draw", "blue 2"])
    assert run.game.actor == 0


def test_loses_turn_two_players_challenger_plays_twice():
    r = rules(caught_bluffer="loses-turn")
    g = build(r, hands={0: ["red 2", "+4"], 1: ["blue 7", "blue 8", "blue 9"]}, top="red 5")
    run = run_both(g, ["+4 blue", "challenge", "blue 7"])
    g = run.game
    assert g.actor == 1 and g.phase == PLAY and g.skip_turn == [0, 0]
    run = run_both(g, ["blue 8"])
    assert run.game.actor == 0


def test_loses_turn_not_spent_by_a_skip():
    r = rules(players=3, caught_bluffer="loses-turn")
    g = build(
        r,
        hands={0: ["red 2", "green 1"], 1: ["blue skip", "blue 5", "+4"], 2: P2},
        top="blue 4",
        pile=PILE,
        skip_turn=[1, 0, 0],
        actor=2,
    )
    # Seat 2 plays: seat 0 owes a turn, so seat 1 plays.
    run = run_both(g, ["blue 1"])
    assert run.game.actor == 1 and run.game.skip_turn == [0, 0, 0]
    # A Skip passing over the seat that owes a turn is no turn of theirs: still owed.
    g = build(
        r,
        hands={
            0: ["red 2", "green 1"],
            1: ["blue 5", "blue 6"],
            2: ["blue skip", "blue 2", "red 8"],
        },
        top="blue 4",
        pile=PILE,
        skip_turn=[1, 0, 0],
        actor=2,
    )
    run = run_both(g, ["blue skip"])
    assert run.game.actor == 1 and run.game.skip_turn == [1, 0, 0]
    run = run_both(run.game, ["blue 5", "blue 2"])  # seat 2 plays: seat 0's turn is lost
    assert run.game.actor == 1 and run.game.skip_turn == [0, 0, 0]


def test_loses_turn_owed_turn_survives_the_respond_phase():
    r = rules(players=3, caught_bluffer="loses-turn")
    g = build(
        r,
        hands={0: ["red 2", "green 1"], 1: ["blue 5", "+4", "red 4"], 2: P2},
        top="blue 4",
        pile=PILE,
        skip_turn=[1, 0, 0],
        actor=2,
        direction=-1,
    )
    # Direction -1: seat 2 -> seat 1 plays a +4 on seat 0, who answers (no turn spent).
    run = run_both(g, ["blue 1"])
    assert run.game.actor == 1
    run = run_both(run.game, ["+4 red"])
    assert run.game.phase == RESPOND and run.game.actor == 0 and run.game.skip_turn[0] == 1
    run = run_both(run.game, ["accept"])
    g = run.game
    assert hand_of(g, 0).total() == 6 and g.actor == 2 and g.skip_turn == [1, 0, 0]


def test_loses_turn_caught_on_the_last_card_draws_four_instead():
    r = rules(players=3, caught_bluffer="loses-turn")
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
    assert not run.last.round_over and g.actor == 1 and g.phase == PLAY
    assert hand_of(g, 0) == Counter(["green 8", "green 7", "green 6", "green 5"])
    assert g.skip_turn == [0, 0, 0]


def test_loses_turn_innocent_challenger_draws_six():
    r = rules(players=3, caught_bluffer="loses-turn")
    g = build(r, hands={0: ["green 1", "+4"], 1: P1, 2: P2}, top="red 5", pile=PILE)
    run = run_both(g, ["+4 blue", "challenge"])
    g = run.game
    assert hand_of(g, 1).total() == 9 and g.actor == 2 and g.skip_turn == [0, 0, 0]


# ------------------------------------------------------------------ multi_play_actions
def combo(hand, players=4, **kw):
    r = rules(players=players, multi_play=True, multi_play_actions=True, **kw)
    others = {s: [f"yellow {s}", f"yellow {s + 4}", f"blue {s + 5}"] for s in range(1, players)}
    return build(r, hands={0: hand, **others}, top="red 3", pile=PILE)


def test_two_skips_skip_two_players():
    run = run_both(combo(["red skip", "blue skip", "green 1"]), ["red skip"])
    assert run.game.phase == MULTI and run.game.actor == 0
    assert sorted(run.legal()) == ["pass", "play blue skip"]
    run = run_both(run.game, ["blue skip"])
    g = run.game
    assert g.actor == 3 and g.phase == PLAY and g.color == 3
    assert g.top == parse_card("blue skip") and hand_of(g, 0) == Counter(["green 1"])


def test_one_skip_then_pass_skips_one():
    run = run_both(combo(["red skip", "blue skip", "green 1"]), ["red skip", "pass"])
    assert run.game.actor == 2 and run.game.color == 0


def test_two_players_two_skips_give_the_turn_to_the_opponent():
    g = combo(["red skip", "blue skip", "green skip", "green 1"], players=2)
    run = run_both(g, ["red skip", "blue skip", "pass"])
    assert run.game.actor == 1
    run = run_both(
        combo(["red skip", "blue skip", "green skip", "green 1"], players=2),
        ["red skip", "blue skip", "green skip"],
    )
    assert run.game.actor == 0  # three skips: round the table and back


@pytest.mark.parametrize("count,direction,actor", [(1, -1, 3), (2, 1, 1), (3, -1, 3)])
def test_reverses_flip_the_direction_count_times(count, direction, actor):
    hand = ["red reverse", "blue reverse", "green reverse", "yellow reverse", "green 1"]
    plays = hand[:count] + (["pass"] if count < 4 else [])
    run = run_both(combo(hand), plays)
    assert run.game.direction == direction and run.game.actor == actor


@pytest.mark.parametrize("skips,actors", [(True, (0, 1, 0)), (False, (1, 1, 1))])
def test_two_players_reverses(skips, actors):
    hand = ["red reverse", "blue reverse", "green reverse", "green 1"]
    for count, actor in zip((1, 2, 3), actors, strict=True):
        g = combo(hand, players=2, two_player_reverse_skips=skips)
        run = run_both(g, hand[:count] + (["pass"] if count < 3 else []))
        assert run.game.actor == actor, count


def test_two_draw_twos_give_four_cards_and_skip():
    run = run_both(combo(["red +2", "blue +2", "green 1"], players=3), ["red +2", "blue +2"])
    g = run.game
    assert hand_of(g, 1).total() == 3 + 4 and g.actor == 2 and g.pending == 0


def test_draw_two_combination_answered_as_one_draw_two_when_stacking():
    g = combo(["red +2", "blue +2", "green 1"], players=3, stacking="same")
    g.hands[1][parse_card("yellow +2")] += 1
    g.pile.remove(parse_card("yellow +2"))
    run = run_both(g, ["red +2", "blue +2"])
    g = run.game
    assert g.phase == RESPOND and g.actor == 1 and g.pending == 4
    assert sorted(run.legal()) == ["accept the draw", "play yellow +2"]
    run = run_both(g, ["yellow +2"])  # a stacked answer is one card, no combination
    assert run.game.phase == RESPOND and run.game.actor == 2 and run.game.pending == 6


def test_action_combination_may_not_empty_the_hand_and_needs_the_switch():
    run = run_both(combo(["red skip", "blue skip"]), ["red skip"])
    assert run.game.phase == PLAY and run.game.actor == 2
    g = build(
        rules(players=3, multi_play=True),
        hands={0: ["red skip", "blue skip", "green 1"], 1: P1, 2: P2},
        top="red 3",
    )
    run = run_both(g, ["red skip"])
    assert run.game.phase == PLAY and run.game.actor == 2
    numbers = run_both(combo(["red 3", "blue 3", "green 1"]), ["red 3"])
    assert numbers.game.phase == MULTI  # numbers still combine


# ------------------------------------------------------------------------ match_rounds
H1 = ["red 7", "blue skip", "green reverse", "yellow +2", "wild", "+4", "red 0"]  # 167 points
H2 = ["blue 9"]


def going_out(r, **kw):
    return build(r, hands={0: ["red 9"], 1: H1, 2: H2}, top="red 5", **kw)


def fixed(rounds=3, **kw):
    return rules(players=3, match=True, scoring="losers-add", match_rounds=rounds, **kw)


def test_match_rounds_ends_after_the_last_round_lowest_total_wins():
    run = run_both(going_out(fixed(), scores=[100, 20, 50], round_index=2), ["red 9"])
    g = run.game
    assert run.last.match_over and g.match_over and g.phase == OVER
    assert g.scores == [100, 187, 59]
    assert g.match_winner() == 2 and engine.match_winner(run.state).tolist() == [2]


def test_match_rounds_goes_on_past_the_target_until_the_last_round():
    run = run_both(going_out(fixed(), scores=[0, 900, 0], round_index=0), ["red 9"])
    g = run.game
    assert run.last.round_over and not run.last.match_over and not g.match_over
    assert g.round_index == 1 and g.phase != OVER and g.scores == [0, 1067, 9]
    assert g.match_winner() == -1 and engine.match_winner(run.state).tolist() == [-1]


def test_match_rounds_a_truncated_round_counts():
    r = fixed(2, max_turns=10)
    g = build(
        r,
        hands={0: ["red 9", "red 1"], 1: H1, 2: H2},
        top="red 5",
        round_index=1,
        turn=9,
        scores=[5, 3, 4],
    )
    run = run_both(g, ["red 9"])
    assert run.last.truncated and run.last.match_over and run.game.scores == [5, 3, 4]
    assert run.game.match_winner() == 1


def test_match_of_one_round():
    run = run_both(going_out(fixed(1)), ["red 9"])
    assert run.last.match_over and run.game.match_winner() == 0


# --------------------------------------------------------------------------- bad values
@pytest.mark.parametrize(
    "values,words",
    [
        (dict(match_rounds=3), ["match_rounds=3", "match=true", "losers-add"]),
        (dict(match_rounds=3, match=True), ["match_rounds=3", "scoring='winner-takes'"]),
        (dict(match_rounds=3, match=True, scoring="rounds"), ["match_rounds", "'rounds'"]),
        (dict(match_rounds=-1), ["match_rounds", "[0, 1000]"]),
        (dict(match_rounds=2.5), ["match_rounds", "an integer"]),
        (dict(multi_play_actions=True), ["multi_play_actions=true", "multi_play=true"]),
        (dict(multi_play_actions=1, multi_play=True), ["multi_play_actions", "true or false"]),
        (dict(caught_bluffer="loses-a-turn"), ["caught_bluffer", "'loses-turn'"]),
    ],
)
def test_bad_values_name_the_switch(values, words):
    with pytest.raises(RulesError) as error:
        Rules(**values)
    for word in words:
        assert word in str(error.value)


def test_new_switches_valid():
    r = Rules(
        match=True,
        scoring="losers-add",
        match_rounds=5,
        caught_bluffer="loses-turn",
        multi_play=True,
        multi_play_actions=True,
    )
    assert r.match_rounds == 5 and Rules().match_rounds == 0
