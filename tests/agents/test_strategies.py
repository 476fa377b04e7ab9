"""What each heuristic does in hand-made positions (built with the rule-test scenario helper)."""

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core"))
from scenario import act, build, rules  # noqa: E402

from uno_rl.agents import make_agent  # noqa: E402
from uno_rl.core import engine  # noqa: E402
from uno_rl.core.actions import TARGET, action_name  # noqa: E402
from uno_rl.core.convert import to_state  # noqa: E402
from uno_rl.core.observe import observe  # noqa: E402
from uno_rl.core.phases import DRAWN, RESPOND  # noqa: E402
from uno_rl.core.phases import TARGET as TARGET_PHASE  # noqa: E402


def decide(spec, game, times=1, seed=0):
    """The agent's actions in ``game`` (repeated ``times`` with one generator)."""
    r = game.rules
    agent = make_agent(spec, r)
    state = to_state([game] * times)
    mask = engine.legal_mask(state)
    actions = agent.act(observe(state, state.actor), mask, np.random.default_rng(seed))
    assert mask[np.arange(times), actions].all()
    return [action_name(a) for a in actions]


def test_color_first_plays_its_most_common_color_actions_first_wilds_last():
    g = build(
        rules(), {0: ["red 3", "blue 4", "blue 9", "blue skip", "wild"], 1: ["red 1"]}, "blue 1"
    )
    assert decide("color-first", g) == ["play blue skip"]
    g = build(rules(), {0: ["red 3", "red 4", "blue 9", "wild"], 1: ["red 1"]}, "green 9")
    assert decide("color-first", g) == ["play blue 9"]  # only playable colored card
    g = build(rules(), {0: ["red 3", "red 4", "wild", "+4"], 1: ["red 1"]}, "green 5")
    assert decide("color-first", g, times=20) == ["wild naming red"] * 20


def test_points_dumper_sheds_the_highest_value_card():
    g = build(rules(), {0: ["blue 2", "blue 9", "blue +2", "green 8"], 1: ["red 1"]}, "blue 1")
    assert decide("points-dumper", g) == ["play blue +2"]
    g = build(rules(), {0: ["blue 2", "blue +2", "wild"], 1: ["red 1"]}, "blue 1")
    assert decide("points-dumper", g) == ["wild naming blue"]


def test_aggressive_attacks_only_a_neighbor_close_to_uno():
    hand = ["red 3", "red skip", "red +2", "red 8"]
    calm = build(rules(), {0: hand, 1: ["blue 1"] * 2 + ["blue 2"] * 2}, "red 1")
    assert decide("aggressive", calm) == ["play red 8"]
    close = build(rules(), {0: hand, 1: ["blue 1", "blue 2"]}, "red 1")
    assert decide("aggressive", close)[0] in ("play red +2", "play red skip")
    assert decide("aggressive:attack_at=4", calm)[0] in ("play red +2", "play red skip")


def test_rule_agent_draws_only_when_nothing_is_playable_and_keeps_wilds_for_last():
    g = build(rules(), {0: ["red 3", "red 7", "wild", "+4"], 1: ["blue 1"]}, "red 1")
    assert set(decide("rule", g, times=200)) == {"play red 3", "play red 7"}
    g = build(rules(), {0: ["green 3", "+4", "wild"], 1: ["blue 1"]}, "red 1")
    names = decide("rule", g, times=200)
    assert {n.split()[0] for n in names} == {"wild"} and len(set(names)) == 4  # random color
    g = build(rules(), {0: ["green 3", "green 4", "+4"], 1: ["blue 1"]}, "red 1")
    assert decide("rule", g) == ["+4 naming green"]
    g = build(rules(), {0: ["green 3"], 1: ["blue 1"]}, "red 1")
    assert decide("rule", g) == ["draw"]


def test_random_playable_draws_only_when_it_must():
    g = build(rules(), {0: ["red 3", "green 4"], 1: ["blue 1"]}, "red 1")
    assert set(decide("random-playable", g, times=100)) == {"play red 3"}
    g = build(rules(), {0: ["green 4"], 1: ["blue 1"]}, "red 1")
    assert decide("random-playable", g) == ["draw"]


@pytest.mark.parametrize("bluff,expected", [(0.0, {"play red 3"}), (1.0, {"+4 naming red"})])
def test_bluff_probability_decides_an_illegal_plus_four(bluff, expected):
    # Holding red (the current color) makes the +4 a bluff: never at 0, always at 1.
    g = build(rules(), {0: ["red 3", "+4"], 1: ["blue 1"]}, "red 1")
    assert set(decide(f"points-dumper:bluff={bluff}", g, times=50)) == expected


def test_a_legal_plus_four_is_ranked_by_the_strategy_not_the_bluff_coin():
    g = build(rules(), {0: ["blue 1", "+4"], 1: ["red 1"]}, "red 1")  # no red: +4 is legal
    assert decide("points-dumper", g) == ["+4 naming blue"]  # 50 points beats 1
    assert decide("color-first", g) == ["play blue 1"]  # wilds last


def test_half_bluffer_bluffs_about_half_the_time():
    g = build(rules(), {0: ["red 3", "+4"], 1: ["blue 1"]}, "red 1")
    names = decide("color-first:bluff=0.5", g, times=2000)
    share = names.count("+4 naming red") / 2000
    assert 0.45 < share < 0.55


def respond_game(bluffer_cards, **kw):
    """Seat 0 must respond to a +4 that seat 1 played on a red top."""
    g = build(
        rules(**kw),
        {0: ["green 3", "green 5"], 1: bluffer_cards},
        "+4",
        "blue",
        actor=0,
        phase=RESPOND,
    )
    g.pending = 4
    g.prev_color = 0  # red was current before the +4
    g.prev_top = act("red 5")
    g.draw4_player = 1
    return g


@pytest.mark.parametrize(
    "policy,expected",
    [("never", "accept the draw"), ("always", "challenge")],
)
def test_never_and_always(policy, expected):
    assert decide(f"color-first:challenge={policy}", respond_game(["red 1"])) == [expected]


def test_threshold_by_hand_size_and_by_color():
    many = respond_game(["blue 1"] * 2 + ["blue 2"] * 2)
    few = respond_game(["blue 1"])
    assert decide("color-first:challenge=threshold,challenge_hand=4", many) == ["challenge"]
    assert decide("color-first:challenge=threshold,challenge_hand=4", few) == ["accept the draw"]
    same = respond_game(["blue 1"])
    same.color = 0  # the +4 named red again, the color before it
    spec = "color-first:challenge=threshold,challenge_hand=0,challenge_color=true"
    assert decide(spec, same) == ["challenge"]
    assert decide(spec, few) == ["accept the draw"]


def test_bayes_challenges_big_hands_and_trusts_small_ones():
    big = respond_game(["blue 1", "blue 2", "blue 3", "blue 4", "blue 5", "blue 6", "blue 7"])
    small = respond_game(["blue 1"])
    assert decide("color-first:challenge=bayes", big) == ["challenge"]
    assert decide("color-first:challenge=bayes", small) == ["accept the draw"]


def test_stacking_response_and_stack_switch():
    g = build(rules(stacking="any"), {0: ["blue +2", "red 9"], 1: ["red 1"]}, "red +2", actor=0)
    g.phase, g.pending = RESPOND, 2
    assert decide("color-first", g) == ["play blue +2"]
    assert decide("color-first:stack=false", g) == ["accept the draw"]


def test_drawn_card_is_played_or_kept():
    g = build(rules(), {0: ["blue 4", "red 3"], 1: ["green 1"]}, "red 1", phase=DRAWN)
    g.drawn = act("red 3")
    assert decide("color-first", g) == ["play red 3"]
    assert decide("color-first:play_drawn=false", g) == ["pass"]


def test_seven_zero_target_is_the_smallest_hand():
    r3 = rules(seven_zero=True, players=3)
    g = build(r3, {0: ["blue 4", "blue 5"], 1: ["red 1", "red 2", "red 3"], 2: ["green 3"]},
              "red 7", phase=TARGET_PHASE)  # fmt: skip
    assert decide("color-first", g) == [action_name(TARGET + 1)]  # seat 2 holds one card


def test_same_generator_same_choices():
    g = build(rules(), {0: ["red 3", "red 7", "red 8", "wild"], 1: ["blue 1"]}, "red 1")
    assert decide("rule", g, times=50, seed=3) == decide("rule", g, times=50, seed=3)
    assert decide("rule", g, times=50, seed=3) != decide("rule", g, times=50, seed=4)
