"""Scenarios: scoring schools, rewards, the match and truncation (rules specification §4, §8,
§9)."""

from __future__ import annotations

import numpy as np
import pytest

from uno_rl.core import engine, rng
from uno_rl.core.actions import DRAW, PASS
from uno_rl.core.phases import OVER
from uno_rl.core.reference import ReferenceGame

try:
    from .scenario import build, rules, run_both
except ImportError:
    from scenario import build, rules, run_both

# Seat 1's hand is worth 7 + 20 + 20 + 20 + 50 + 50 + 0 = 167, seat 2's 9: 176 in all.
H1 = ["red 7", "blue skip", "green reverse", "yellow +2", "wild", "+4", "red 0"]
H2 = ["blue 9"]


def going_out(r, **kw):
    """Seat 0 goes out with its last card (red 9 on red 5)."""
    return build(r, hands={0: ["red 9"], 1: H1, 2: H2}, top="red 5", **kw)


def test_card_points_and_round_points():
    run = run_both(going_out(rules(players=3)), ["red 9"])
    assert run.last.round_over and run.last.winner == 0 and run.last.points == 176


@pytest.mark.parametrize(
    "scoring,scores",
    [("winner-takes", [176, 0, 0]), ("losers-add", [0, 167, 9]), ("rounds", [1, 0, 0])],
)
def test_scoring_schools(scoring, scores):
    target = 3 if scoring == "rounds" else 500
    run = run_both(going_out(rules(players=3, scoring=scoring, match_target=target)), ["red 9"])
    assert run.game.scores == scores
    assert run.state.scores[0].tolist() == scores


def test_reward_win_loss_is_zero_sum():
    run = run_both(going_out(rules(players=3)), ["red 9"])
    assert run.last.rewards == [1.0, -0.5, -0.5]
    hands = {0: ["red 9"], 1: H1, 2: H2, 3: ["green 1"]}
    run = run_both(build(rules(players=4), hands=hands, top="red 5"), ["red 9"])
    assert run.last.rewards == pytest.approx([1.0, -1 / 3, -1 / 3, -1 / 3])
    assert sum(run.last.rewards) == pytest.approx(0.0)


@pytest.mark.parametrize("scoring", ["winner-takes", "losers-add", "rounds"])
def test_reward_points_is_zero_sum_whatever_the_scoring(scoring):
    target = 3 if scoring == "rounds" else 500
    r = rules(players=3, reward="points", scoring=scoring, match_target=target)
    run = run_both(going_out(r), ["red 9"])
    assert run.last.rewards == [176.0, -167.0, -9.0]
    assert np.asarray(run.results[-1].rewards).sum() == 0.0


def test_rewards_are_zero_before_the_round_ends():
    g = build(
        rules(players=3, reward="points"), hands={0: ["red 9", "red 1"], 1: H1, 2: H2}, top="red 5"
    )
    run = run_both(g, ["red 9"])
    assert not run.last.round_over and run.last.rewards == [0.0, 0.0, 0.0]


# ----------------------------------------------------------------------- the match
def test_match_ends_when_a_score_reaches_the_target():
    r = rules(players=3, match=True)
    run = run_both(going_out(r, scores=[400, 0, 0]), ["red 9"])
    g, out = run.game, run.last
    assert out.round_over and out.match_over and g.match_over
    assert g.scores == [576, 0, 0] and g.phase == OVER
    assert g.match_winner() == 0 and engine.match_winner(run.state).tolist() == [0]


def test_match_goes_on_next_round_dealt_and_scores_carried():
    r = rules(players=3, match=True)
    g = going_out(r, scores=[100, 50, 0], seed=7, dealer=2)
    run = run_both(g, ["red 9"])
    g, out = run.game, run.last
    assert out.round_over and out.winner == 0 and out.rewards == [1.0, -0.5, -0.5]
    assert not out.match_over and not g.match_over
    assert g.scores == [276, 50, 0] and g.round_index == 1
    assert g.phase != OVER and g.turn == 0 and g.winner == -1
    # The next round is the deal of the seed derived from this round's key.
    nxt = ReferenceGame(
        r, int(rng.bits(7, rng.NEXT_ROUND, 0, 0)), scores=[276, 50, 0], round_index=1
    )
    assert g.hands == nxt.hands and g.pile == nxt.pile and g.top == nxt.top
    assert g.dealer == nxt.dealer and g.actor == nxt.actor
    assert sum(g.hand_size(s) for s in range(3)) in (21, 23)
    assert engine.match_winner(run.state).tolist() == [-1]


def test_match_dealer_rotates():
    r = rules(players=3, match=True, dealer="rotate")
    run = run_both(going_out(r, dealer=2), ["red 9"])
    assert run.game.dealer == 0 and run.game.round_index == 1


def test_match_losers_add_lowest_total_wins():
    r = rules(players=3, match=True, scoring="losers-add")
    run = run_both(going_out(r, scores=[300, 490, 100]), ["red 9"])
    g = run.game
    assert run.last.match_over and g.scores == [300, 657, 109]
    assert g.match_winner() == 2 and engine.match_winner(run.state).tolist() == [2]


def test_match_rounds_kids_preset_first_to_three_rounds():
    r = rules("kids", players=3)
    assert r.scoring == "rounds" and r.match_target == 3 and r.match
    run = run_both(going_out(r, scores=[2, 2, 0]), ["red 9"])
    assert run.last.match_over and run.game.scores == [3, 2, 0] and run.game.match_winner() == 0
    run = run_both(going_out(r, scores=[1, 2, 0]), ["red 9"])
    assert not run.last.match_over and run.game.scores == [2, 2, 0]


def test_match_target_switch():
    r = rules(players=3, match=True, match_target=150)
    run = run_both(going_out(r), ["red 9"])
    assert run.last.match_over and run.game.match_winner() == 0


def test_match_played_round_after_round_until_over():
    """Greedy random play through whole matches; both implementations agree throughout."""
    r = rules(players=2, match=True, match_target=150, max_turns=300)
    for seed in range(2):
        chooser = np.random.default_rng(seed)
        actions, probe = [], ReferenceGame(r, seed)
        while not probe.match_over:
            legal = probe.legal_actions()
            plays = [a for a in legal if a not in (DRAW, PASS)] or legal
            actions.append(int(chooser.choice(plays)))
            probe.step(actions[-1])
        run = run_both(ReferenceGame(r, seed), actions)
        assert run.last.match_over and max(run.game.scores) >= 150
        assert run.game.round_index == sum(o.round_over for o in run.outcomes) - 1 >= 1


# ----------------------------------------------------------------------- truncation
def test_truncated_at_max_turns_rewards_zero():
    r = rules(players=3, max_turns=10, reward="points")
    g = build(r, hands={0: ["red 9", "red 1"], 1: H1, 2: H2}, top="red 5", turn=9)
    run = run_both(g, ["red 9"])
    out = run.last
    assert out.round_over and out.truncated and out.winner == -1
    assert out.rewards == [0.0, 0.0, 0.0] and out.points == 0 and out.decisions == 10
    assert run.game.phase == OVER and run.game.truncated and run.game.scores == [0, 0, 0]


def test_winning_on_the_last_allowed_decision_is_not_truncated():
    r = rules(players=3, max_turns=10)
    run = run_both(going_out(r, turn=9), ["red 9"])
    assert run.last.winner == 0 and not run.last.truncated


def test_truncation_counts_decisions_from_the_start():
    r = rules(players=2, max_turns=10)
    g = build(
        r,
        hands={0: ["green 1"], 1: ["blue 1"]},
        top="red 5",
        pile=[f"yellow {n}" for n in (1, 2, 3, 4, 6, 7, 8, 9, 1, 2)],
    )
    run = run_both(g, ["draw"] * 10)
    assert [o.truncated for o in run.outcomes] == [False] * 9 + [True]


def test_truncated_round_in_a_match_is_redealt_scores_unchanged():
    r = rules(players=3, max_turns=10, match=True)
    g = build(
        r, hands={0: ["red 9", "red 1"], 1: H1, 2: H2}, top="red 5", turn=9, scores=[10, 20, 30]
    )
    run = run_both(g, ["red 9"])
    assert run.last.truncated and not run.last.match_over
    assert run.game.scores == [10, 20, 30] and run.game.round_index == 1
    assert run.game.phase != OVER and run.game.turn == 0
