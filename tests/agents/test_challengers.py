"""The search agents' model of the others' answers to a +4 (``challengers``).

* a challenge by another seat marks the game as wary for the rest of the match (the memory
  keeps it over rounds; a new match forgets it); the searcher's own challenges do not;
* in a wary game the play-outs answer the searcher's +4 with the ``challengers`` policy: a
  bluff is then worth less, an honest +4 more, than against the rollout agent's ``never``;
* without a challenge seen, the decisions are those of ``challengers=off`` (nothing changes
  against players who never challenge);
* rollout agents without a challenge policy (PPO) keep their own answers; a bad value gets
  one clear line.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from scenario import act, build  # noqa: E402
from scenario import rules as scenario_rules  # noqa: E402
from test_search import FAST, played_states  # noqa: E402

from uno_rl.agents import AgentError, make_agent  # noqa: E402
from uno_rl.agents.search import Knowledge, reshuffle_piles  # noqa: E402
from uno_rl.core import engine, load_rules  # noqa: E402
from uno_rl.core.convert import to_state  # noqa: E402
from uno_rl.core.phases import RESPOND  # noqa: E402


def draw_four_answered(seat_of_draw_four: int):
    """A position where seat ``seat_of_draw_four`` has just played a +4 (a bluff: it holds
    red 9 on red 5) and the other seat must answer."""
    rules = scenario_rules("official")
    hands = {seat_of_draw_four: ["+4", "red 9", "yellow 1", "blue 2"],
             1 - seat_of_draw_four: ["red 3", "blue 5", "green 1"]}  # fmt: skip
    g = build(rules, hands, top="red 5", actor=seat_of_draw_four, seed=4)
    g.step(act("+4 green"))
    state = to_state([g])
    assert state.phase[0] == RESPOND
    return rules, state


@pytest.mark.parametrize("observer,flagged", [(0, True), (1, False)])
def test_a_challenge_by_another_seat_makes_the_game_wary_for_the_match(observer, flagged):
    rules, state = draw_four_answered(seat_of_draw_four=0)
    agent = make_agent(f"pimc:{FAST}", rules)
    memory = agent.new_memory(3)
    rows, games = np.array([1]), np.arange(1)
    # Seat 1 challenges seat 0's +4; seen by `observer` (seat 1 sees its own challenge).
    agent.watch(memory, rows, state, games, np.array([observer]), np.array([act("challenge")]))
    assert memory["seen_challenge"].tolist() == [False, flagged, False]
    # An acceptance is no evidence; a new round of the match keeps the flag.
    agent.watch(memory, rows, state, games, np.array([observer]), np.array([act("accept")]))
    later = state.take(games)
    later.round_index[:] += 1
    agent.watch(memory, rows, later, games, np.array([observer]), np.array([act("accept")]))
    assert memory["seen_challenge"][1] == flagged
    agent.reset_memory(memory, rows)  # a new match
    assert not memory["seen_challenge"].any()


class Spy:
    """A rollout agent that records the answers it gives to a +4 (RESPOND phase)."""

    needs_state = False

    def __init__(self, agent):
        self.agent, self.answers = agent, []

    def act_on_state(self, state, masks, rng, rows=None):
        actions = self.agent.act_on_state(state, masks, rng, rows)
        phase = state.phase if rows is None else state.phase[rows]
        self.answers.extend(np.asarray(actions)[phase == RESPOND].tolist())
        return actions


def draw_four_worlds(bluff: bool, lanes: int):
    """``lanes`` copies of a position where seat 0 holds a +4 (a bluff on red 5 if it holds
    red 9), each with its own draw-pile order."""
    rules = scenario_rules("official")
    mine = ["+4", "red 9" if bluff else "blue 9", "yellow 1", "blue 2"]
    g = build(rules, {0: mine, 1: ["red 3", "blue 5", "green 1", "green 8", "yellow 7"]},
              top="red 5", actor=0, seed=4)  # fmt: skip
    worlds = to_state([g]).take(np.zeros(lanes, np.int64))
    reshuffle_piles(worlds, np.random.default_rng(1))
    return rules, worlds


@pytest.mark.parametrize("bluff", [True, False])
def test_wary_play_outs_answer_the_searchers_draw_four_with_the_challengers_policy(bluff):
    rules, worlds = draw_four_worlds(bluff, 2000)
    lanes = np.arange(worlds.num_games)
    actions = np.full(lanes.size, act("+4 green"), np.int64)
    agent = make_agent("pimc:challengers=bayes", rules)

    def values(wary):
        return agent.evaluate_actions(worlds, lanes, actions, np.random.default_rng(2), wary)

    trusting, wary = values(None), values(np.ones(lanes.size, bool))
    # bayes challenges this +4 (its player keeps 3 of 4 cards): a bluff is caught (the
    # searcher draws 4), an honest +4 costs the challenger 6; color-first never challenges.
    # Measured: 6.1 against -0.2 (bluff), 7.6 against 11.2 (honest).
    if bluff:
        assert wary.mean() < trusting.mean() - 3
    else:
        assert wary.mean() > trusting.mean() + 2


def test_only_the_wary_worlds_are_played_out_by_the_challengers_agent():
    rules, worlds = draw_four_worlds(True, 40)
    lanes = np.arange(worlds.num_games)
    actions = np.full(lanes.size, act("+4 green"), np.int64)
    agent = make_agent("pimc:challengers=always", rules)
    agent.policy, agent.wary_policy = Spy(agent.policy), Spy(agent.wary_policy)
    wary = np.arange(lanes.size) % 4 == 0
    agent.evaluate_actions(worlds, lanes, actions, np.random.default_rng(2), wary)
    first = act("challenge"), act("accept")
    assert agent.wary_policy.answers[:10] == [first[0]] * 10  # the 10 wary lanes' answers
    assert agent.policy.answers[:30] == [first[1]] * 30  # color-first: never


def test_without_a_challenge_seen_the_decisions_are_those_of_challengers_off():
    state = played_states("official", 2, games=24, seed=9)
    masks = engine.legal_mask(state)
    ids = np.arange(state.num_games)
    decisions = []
    for spec in (f"pimc:{FAST}", f"pimc:{FAST},challengers=off"):
        agent = make_agent(spec, state.rules)
        memory = agent.new_memory(ids.size)
        rng = np.random.default_rng(5)
        decisions.append(agent.act(None, masks, rng, memory, ids, state=state, games=ids))
    assert np.array_equal(*decisions)


def test_the_wary_flag_reaches_the_worlds_of_both_agents():
    known = Knowledge(wary=np.array([False, True, False]))
    assert known.wary_worlds(2).tolist() == [False, False, True, True, False, False]
    assert known.take(np.array([0, 2])).wary_worlds(3) is None  # none wary: no split
    assert Knowledge().wary_worlds(4) is None
    rules = load_rules("official")
    for spec in ("pimc", "ismcts"):
        agent = make_agent(f"{spec}:challengers=bayes", rules)
        assert agent.wary_policy.params["challenge"] == "bayes"
        assert type(agent.wary_policy) is type(agent.policy)
        assert {**agent.policy.params, "challenge": "bayes"} == agent.wary_policy.params
    assert make_agent("pimc:challengers=off", rules).wary_policy is None
    # The rollout agent already answers so: no second agent.
    assert make_agent("pimc:rollout=bayes-challenger", rules).wary_policy is None


def test_a_rollout_agent_without_a_challenge_policy_keeps_its_answers():
    rules = load_rules("official")
    assert make_agent("pimc:rollout=ppo-official-2p", rules).wary_policy is None


def test_a_bad_challengers_value_gets_one_clear_line():
    with pytest.raises(AgentError, match="challengers") as error:
        make_agent("pimc:challengers=sometimes", load_rules("official"))
    assert "\n" not in str(error.value)


def test_margin_s_own_choice_is_the_challengers_agent_s_in_a_wary_game():
    # pimc:margin plays its rollout agent's own choice where unsure: in a wary game that is
    # the challengers agent's (always: challenge), elsewhere color-first's (never).
    rules, state = draw_four_answered(0)
    state = state.take(np.zeros(6, np.int64))
    masks = engine.legal_mask(state)
    games = np.arange(6)
    agent = make_agent("pimc:challengers=always,margin=1", rules)
    wary = games % 2 == 0
    own = agent.own_choice(state, games, masks, np.random.default_rng(0), wary)
    assert own.tolist() == [act("challenge"), act("accept")] * 3
