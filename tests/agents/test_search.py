"""The search agents (pimc, ismcts) and their determinizations: honest, consistent, tested.

* a world keeps everything the acting seat sees and redraws the rest: card conservation, the
  observer's hand, hand sizes, the unseen cards exactly, known cards and voids respected;
* honesty: two states that differ only in hidden cards (other hands, pile order, the deal
  seed and what follows from them) give identical worlds and identical decisions;
* the +4 answer: ``bluff_belief`` sets the share of worlds where the pending +4 is a bluff;
* a challenge's revealed hand stays known (memory) until cards of it reach the discard pile;
* play-outs: zero-sum values, round wins in {0, 1}, a value cut-off;
* the agents pick a sure win, are deterministic for a seed, play through the evaluator for
  any number of workers, and refuse bad parameters in one line.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core"))

from scenario import act, build  # noqa: E402
from scenario import rules as scenario_rules  # noqa: E402

from uno_rl.agents import AgentError, make_agent  # noqa: E402
from uno_rl.agents.determinize import bluff_kinds, determinize, unseen_cards  # noqa: E402
from uno_rl.agents.knowledge import constraints, playable_kinds, watch  # noqa: E402
from uno_rl.agents.playout import play_out  # noqa: E402
from uno_rl.agents.search import Knowledge  # noqa: E402
from uno_rl.core import engine, load_rules  # noqa: E402
from uno_rl.core.convert import to_state  # noqa: E402
from uno_rl.core.legality import draw_four_legal  # noqa: E402
from uno_rl.core.phases import OVER, RESPOND  # noqa: E402
from uno_rl.core.sampling import sample_legal_actions  # noqa: E402

FAST = "determinizations=4,rollouts=2"


def played_states(preset="official", players=2, games=48, steps=30, seed=0, **switches):
    """Games after ``steps`` random decisions (the running ones)."""
    rules = load_rules(preset, players=players, **switches)
    rng = np.random.default_rng(seed)
    state = engine.reset(rules, np.arange(games, dtype=np.uint64) + 100 * seed + 1)
    for _ in range(steps):
        live = np.flatnonzero(state.phase != OVER)
        actions = sample_legal_actions(engine.legal_mask(state, live), rng)
        engine.step(state, actions, games=live, validate=False)
    live = np.flatnonzero(state.phase != OVER)
    return state.take(live)


def pile_counts(state):
    kinds = state.hands.shape[2]
    width = state.pile.shape[1]
    inside = np.arange(width)[None, :] < state.pile_size[:, None]
    flat = (np.arange(state.num_games)[:, None] * kinds + state.pile.astype(np.int64))[inside]
    return np.bincount(flat, minlength=state.num_games * kinds).reshape(-1, kinds)


def hide_differently(state, rng):
    """The same games with the hidden cards dealt anew: each seat other than the actor gets
    as many cards as before, the pile as many, a new deal seed, a pending +4's bluff flag
    recomputed from the new hand (a per-game loop: a test, not the agent)."""
    other = state.copy()
    for g in range(other.num_games):
        actor = int(other.actor[g])
        pool = []
        for seat in range(other.num_players):
            if seat != actor:
                pool += np.repeat(np.arange(other.hands.shape[2]), other.hands[g, seat]).tolist()
        pool += other.pile[g, : other.pile_size[g]].tolist()
        pool = rng.permutation(np.asarray(pool, np.int64))
        start = 0
        for seat in range(other.num_players):
            if seat == actor:
                continue
            size = int(other.hand_size[g, seat])
            other.hands[g, seat] = np.bincount(
                pool[start : start + size], minlength=other.hands.shape[2]
            )
            start += size
        other.pile[g, : other.pile_size[g]] = pool[start:]
    other.key[:] = rng.integers(0, 2**62, other.num_games).astype(np.uint64)
    player = other.draw4_player.astype(np.int64)
    pending = np.flatnonzero((player >= 0) & (other.prev_top >= 0))
    if pending.size:
        top, color = other.top[pending].copy(), other.color[pending].copy()
        other.top[pending], other.color[pending] = (
            other.prev_top[pending],
            other.prev_color[pending],
        )
        other.draw4_bluff[pending] = ~draw_four_legal(
            other, pending, other.hands[pending, player[pending]]
        )
        other.top[pending], other.color[pending] = top, color
    # Others' bluff counters are hidden too (the actor knows its own).
    actor = other.actor.astype(np.int64)
    own = other.stats[np.arange(other.num_games), 1, actor].copy()
    other.stats[:, 1] = rng.integers(0, 3, other.stats[:, 1].shape)
    other.stats[np.arange(other.num_games), 1, actor] = own
    other.invalidate()
    return other


# ---------------------------------------------------------------- determinizations


@pytest.mark.parametrize("preset,players", [("official", 2), ("official", 4), ("house", 3)])
def test_worlds_keep_what_the_observer_sees_and_redraw_the_unseen_cards(preset, players):
    state = played_states(preset, players)
    games = np.arange(state.num_games)
    seat = state.actor.astype(np.int64)
    copies = 6
    worlds = determinize(state, games, seat, copies, np.random.default_rng(1))
    rep = np.repeat(games, copies)
    lane_seat = np.repeat(seat, copies)
    lanes = np.arange(worlds.num_games)
    deck = state.rules.deck_cards.copies
    total = worlds.hands.sum(axis=1) + pile_counts(worlds) + worlds.discard
    assert (total == deck).all()  # every card of the deck, once
    assert (worlds.hands.sum(axis=2) == worlds.hand_size).all()
    assert (worlds.hand_size == state.hand_size[rep]).all()
    assert (worlds.hands[lanes, lane_seat] == state.hands[rep, lane_seat]).all()
    assert (worlds.pile_size == state.pile_size[rep]).all()
    for field in ("discard", "top", "color", "phase", "actor", "direction", "pending", "turn",
                  "scores", "prev_color", "draw4_player"):  # fmt: skip
        assert (getattr(worlds, field) == getattr(state, field)[rep]).all(), field
    # The other hands and the pile hold exactly the cards the observer has not seen.
    others = worlds.hands.sum(axis=1) - worlds.hands[lanes, lane_seat] + pile_counts(worlds)
    assert (others == np.repeat(unseen_cards(state, games, seat), copies, axis=0)).all()
    assert (worlds.key != state.key[rep]).all()  # a new deal seed: the future is redrawn
    assert (engine.legal_mask(worlds).any(axis=1)).all()


def test_worlds_are_uniform_over_the_unseen_cards():
    state = played_states("official", 2, games=1, steps=4)
    seat = state.actor.astype(np.int64)
    worlds = determinize(state, np.arange(1), seat, 20_000, np.random.default_rng(2))
    opponent = 1 - int(seat[0])
    unseen = unseen_cards(state, np.arange(1), seat)[0]
    expected = unseen / unseen.sum() * state.hand_size[0, opponent]
    observed = worlds.hands[:, opponent].mean(axis=0)
    assert np.abs(observed - expected).max() < 0.02


def test_known_cards_and_voids_are_respected():
    state = played_states("official", 3, games=8)
    games = np.arange(state.num_games)
    seat = state.actor.astype(np.int64)
    p, kinds = 3, state.hands.shape[2]
    unseen = unseen_cards(state, games, seat)
    known = np.zeros((games.size, p, kinds), np.int16)
    void = np.zeros((games.size, p, kinds), bool)
    target = (seat + 1) % p
    blocked = (seat + 2) % p
    for g in games:  # the first unseen kind is known to be in target's hand
        kind = int(np.flatnonzero(unseen[g])[0])
        known[g, target[g], kind] = 1
        void[g, blocked[g], :13] = True  # no red card
    worlds = determinize(state, games, seat, 50, np.random.default_rng(3), known, void)
    rep = np.repeat(games, 50)
    lanes = np.arange(worlds.num_games)
    kind_of = np.repeat([int(np.flatnonzero(unseen[g])[0]) for g in games], 50)
    assert (worlds.hands[lanes, np.repeat(target, 50), kind_of] >= 1).all()
    # The void holds wherever enough non-red cards were unseen to fill that hand.
    enough = (unseen[:, 13:].sum(axis=1) - 1) >= state.hand_size[games, blocked]
    reds = worlds.hands[lanes, np.repeat(blocked, 50), :13].sum(axis=1)
    assert (reds[np.repeat(enough, 50)] == 0).all() and enough.any()
    assert (worlds.hands.sum(axis=2) == state.hand_size[rep]).all()


def test_worlds_and_decisions_do_not_depend_on_hidden_cards():
    state = played_states("official", 2, games=40, steps=25, seed=4)
    other = hide_differently(state, np.random.default_rng(5))
    assert not np.array_equal(state.hands, other.hands)  # the hidden cards did change
    games = np.arange(state.num_games)
    seat = state.actor.astype(np.int64)
    a = determinize(state, games, seat, 8, np.random.default_rng(6))
    b = determinize(other, games, seat, 8, np.random.default_rng(6))
    for name, array in a.arrays().items():
        assert np.array_equal(array, getattr(b, name)), name
    masks = engine.legal_mask(state)
    for spec in (
        f"pimc:{FAST}",
        "ismcts:iterations=8,wave=4",
        f"pimc:{FAST},margin=1",
        f"pimc:{FAST},margin=1,rollout=ppo-official-2p",
    ):
        agent = make_agent(spec, state.rules)
        first = agent.act(None, masks, np.random.default_rng(7), state=state, games=games)
        second = agent.act(None, masks, np.random.default_rng(7), state=other, games=games)
        assert np.array_equal(first, second), spec


def test_honest_while_a_draw_four_awaits_the_answer():
    # Many positions where a +4 awaits its victim (whose bluff flag is hidden).
    rules = scenario_rules("official")
    games = []
    for seed in range(12):
        hands = {0: ["red 3", "blue 5", "green 7"], 1: ["+4", "red 9", "yellow 1"][: 2 + seed % 2]}
        g = build(rules, hands, top="red 5", actor=1, seed=seed)
        g.step(act("+4 blue"))
        games.append(g)
    state = to_state(games)
    assert (state.phase == RESPOND).all()
    other = hide_differently(state, np.random.default_rng(8))
    agent = make_agent(f"pimc:{FAST},bluff_belief=0.5", rules)
    masks = engine.legal_mask(state)
    ids = np.arange(state.num_games)
    first = agent.act(None, masks, np.random.default_rng(9), state=state, games=ids)
    second = agent.act(None, masks, np.random.default_rng(9), state=other, games=ids)
    assert np.array_equal(first, second)


@pytest.mark.parametrize("belief", [0.0, 0.4, 1.0])
def test_bluff_belief_sets_the_share_of_worlds_holding_a_bluff(belief):
    rules = scenario_rules("official")
    g = build(rules, {0: ["red 3", "blue 5"], 1: ["+4", "green 2", "yellow 4", "blue 8"]},
              top="red 5", actor=1, seed=3)  # fmt: skip
    g.step(act("+4 green"))
    state = to_state([g])
    agent = make_agent(f"pimc:{FAST},bluff_belief={belief}", rules)
    seat = state.actor.astype(np.int64)
    known, void, covered = agent.answer_constraints(
        state, np.arange(1), seat, 4000, np.random.default_rng(1), Knowledge()
    )
    worlds = determinize(
        state, np.arange(1), seat, 4000, np.random.default_rng(2), known, void, covered
    )
    kinds = bluff_kinds(state, np.arange(1))[0]
    holds = (worlds.hands[:, 1][:, kinds] > 0).any(axis=1)
    assert (worlds.draw4_bluff == holds).all()  # the world's flag follows the world's hand
    assert abs(holds.mean() - belief) < 0.03


def test_a_challenge_reveal_stays_known_until_its_cards_are_played():
    rules = scenario_rules("official")
    g = build(rules, {0: ["red 3", "blue 5", "green 1"], 1: ["+4", "red 9", "yellow 1", "blue 2"]},
              top="red 5", actor=1, seed=5)  # fmt: skip
    g.step(act("+4 green"))
    state = to_state([g])
    agent = make_agent(f"pimc:{FAST}", rules)
    memory = agent.new_memory(1)
    rows = np.zeros(1, np.int64)
    constraints(memory, rows, state, np.arange(1))  # the challenge decision
    engine.step(state, np.array([act("challenge")]))  # caught: red 9 held
    # Seat 1 was caught bluffing and drew 4; seat 0 now acts and knows red 9, yellow 1, blue 2.
    assert state.reveal_viewer[0] == 0 and int(state.actor[0]) == 0
    known, _, _ = constraints(memory, rows, state, np.arange(1))
    revealed = state.revealed[0].astype(np.int16)
    assert (known[0, 1] == revealed).all() and revealed.sum() == 3
    worlds = determinize(
        state, np.arange(1), np.zeros(1, np.int64), 200, np.random.default_rng(1), known
    )
    assert (worlds.hands[:, 1] >= revealed).all()
    # Once a card of a revealed kind reaches the discard pile, it is no longer sure.
    kind = int(np.flatnonzero(revealed)[0])
    state.discard[0, kind] += 1
    known, _, _ = constraints(memory, rows, state, np.arange(1))
    assert known[0, 1, kind] == revealed[kind] - 1


def test_a_draw_in_the_play_phase_leaves_a_void_over_the_cards_held_then():
    rules = scenario_rules("official")
    g = build(rules, {0: ["red 3", "blue 5", "green 1"], 1: ["yellow 2", "yellow 4", "green 8"]},
              top="red 5", actor=1, seed=7)  # fmt: skip
    state = to_state([g])
    agent = make_agent(f"pimc:{FAST}", rules)
    memory, rows, ids = agent.new_memory(1), np.zeros(1, np.int64), np.arange(1)
    observer = np.zeros(1, np.int64)
    expected = playable_kinds(state, ids)[0]  # reds, fives, wilds, +4s
    agent.watch(memory, rows, state, ids, observer, np.array([act("draw")]))
    engine.step(state, np.array([act("draw")]))
    if state.phase[0] != 0:  # the drawn card is playable: seat 1 keeps it
        engine.step(state, np.array([act("pass")]))
    _, void, covered = constraints(memory, rows, state, ids)
    assert (void[0, 1] == expected).all() and covered[0, 1] == 3
    assert not void[0, 0].any() and covered[0, 0] == 0
    # Seat 0 acts: in every world, seat 1's hand holds at most one card the void forbids (the
    # drawn one), the three old ones none.
    worlds = agent.worlds(
        state, ids, 500, np.random.default_rng(1), Knowledge(*constraints(memory, rows, state, ids))
    )
    assert (worlds.hands[:, 1][:, expected].sum(axis=1) <= 1).all()
    assert (worlds.hands[:, 1].sum(axis=1) == 4).all()
    # A card the void allows may have been an old one: one fewer is covered.
    watch(memory, rows, state, ids, observer, np.array([act("green 1")]))  # seat 0: no change
    state.actor[0] = 1
    watch(memory, rows, state, ids, observer, np.array([act("yellow 2")]))
    assert memory["old"][0, 1] == 2


@pytest.mark.parametrize("infer", [True, False])
def test_a_wild_played_leaves_a_void_over_the_colored_matches_kept(infer):
    rules = scenario_rules("official")
    g = build(rules, {0: ["red 3", "blue 5", "green 1"],
                      1: ["wild", "yellow 2", "green 8", "blue 9"]},
              top="red 5", actor=1, seed=7)  # fmt: skip
    state = to_state([g])
    agent = make_agent(f"pimc:{FAST},infer_wilds={str(infer).lower()}", rules)
    memory, rows, ids = agent.new_memory(1), np.zeros(1, np.int64), np.arange(1)
    observer = np.zeros(1, np.int64)
    layout = rules.layout
    colored_matches = playable_kinds(state, ids)[0] & ~layout.names_color  # reds and fives
    agent.watch(memory, rows, state, ids, observer, np.array([act("wild blue")]))
    engine.step(state, np.array([act("wild blue")]))
    _, void, covered = constraints(memory, rows, state, ids)
    if not infer:
        assert not void.any() and covered[0, 1] == 0
        return
    assert (void[0, 1] == colored_matches).all() and covered[0, 1] == 3
    assert not void[0, 1, layout.names_color].any()  # it may still hold wilds
    worlds = agent.worlds(
        state, ids, 500, np.random.default_rng(1), Knowledge(*constraints(memory, rows, state, ids))
    )
    assert (worlds.hands[:, 1].sum(axis=1) == 3).all()
    assert not worlds.hands[:, 1][:, colored_matches].any()
    # After a draw, the old void covers the three old cards only and a new wild play joins it.
    state.actor[0] = 1
    watch(memory, rows, state, ids, observer, np.array([act("draw")]), infer_wilds=True)
    assert memory["old"][0, 1] == 3
    state.hand_size[0, 1] += 1  # the drawn card
    state.phase[0] = 0
    watch(memory, rows, state, ids, observer, np.array([act("wild red")]), infer_wilds=True)
    assert memory["old"][0, 1] == 3 and memory["void"][0, 1][colored_matches].all()


def test_voids_are_forgotten_at_a_new_round_of_a_match():
    rules = load_rules("official", players=2, match=True)
    state = played_states("official", 2, games=4, match=True)
    agent = make_agent(f"pimc:{FAST}", rules)
    memory = agent.new_memory(4)
    rows = np.arange(4)
    memory["round"][:] = state.round_index
    memory["void"][:, :, :5] = True
    memory["old"][:] = 3
    state.round_index[:2] += 1  # two games are in a later round now
    _, void, covered = constraints(memory, rows, state, rows)
    assert not void[:2].any() and void[2:, :, :5].all()


# ---------------------------------------------------------------- play-outs


def test_play_outs_are_zero_sum_and_end_every_lane():
    state = played_states("official", 3, games=30)
    policy = make_agent("color-first", state.rules)
    values = {}
    for seat in range(3):
        values[seat] = play_out(state.copy(), policy, np.random.default_rng(4),
                                np.full(state.num_games, seat))  # fmt: skip
    total = values[0] + values[1] + values[2]
    assert np.allclose(total, 0.0)
    wins = play_out(
        state.copy(), policy, np.random.default_rng(4), np.zeros(state.num_games, np.int64), "win"
    )
    assert set(np.unique(wins)) <= {0.0, 1.0}
    cut = play_out(state.copy(), policy, np.random.default_rng(4), np.zeros(state.num_games, np.int64),
                   max_decisions=1)  # fmt: skip
    assert cut.shape == (state.num_games,)


def test_play_out_refuses_a_match_objective_without_match_rules():
    state = played_states("official", 2, games=2)
    with pytest.raises(ValueError, match="objective 'match' needs match rules"):
        play_out(
            state,
            make_agent("random", state.rules),
            np.random.default_rng(0),
            np.zeros(2, np.int64),
            "match",
        )


# ---------------------------------------------------------------- the agents


def winning_card_actions(spec):
    """The actions of ``spec`` in 6 games where seat 0 can play its last card, a red 7."""
    rules = scenario_rules("official")
    games = [
        build(rules, {0: ["red 7"], 1: ["blue 3", "green 4", "+4"]}, top="red 5", seed=s)
        for s in range(6)
    ]
    state = to_state(games)
    masks = engine.legal_mask(state)
    agent = make_agent(spec, rules)
    return agent.act(None, masks, np.random.default_rng(0), state=state, games=np.arange(6))


# ISMCTS's play-outs are unpaired (a world each): it needs more of them to see the win.
@pytest.mark.parametrize("spec", [f"pimc:{FAST}", "ismcts:iterations=64,wave=16"])
def test_search_takes_the_winning_card(spec):
    assert (winning_card_actions(spec) == act("red 7")).all()


def test_margin_corrects_the_rollout_agent_only_where_the_play_outs_are_sure():
    # `random` draws half the time with a winning card in hand (and then often plays it).
    spec = "pimc:determinizations=16,rollouts=2,rollout=random,margin=0.5"
    assert (winning_card_actions(spec) == act("red 7")).all()
    # Pairs (game, action): game 0 has actions 3 (the agent's own), 5 and 8, game 1 2 (its
    # own) and 4. Against 3, action 5 gains 1.5 a lane with a standard error of 1.44 and
    # the best mean; action 8 gains 1 on every lane (no spread: sure). Game 1's other action
    # is noise around +0.25.
    pair_game, pair_action = np.array([0, 0, 0, 1, 1]), np.array([3, 5, 8, 2, 4])
    lanes = np.array([[0.0, 2.0, 4.0, 6.0], [4.0, 1.0, 8.0, 5.0], [1.0, 3.0, 5.0, 7.0],
                      [0.0, 0.0, 0.0, 0.0], [9.0, -9.0, 9.0, -8.0]])  # fmt: skip
    own = np.array([3, 2])
    for margin, expected in [(0.5, [5, 2]), (2.0, [8, 2]), (50.0, [8, 2])]:
        agent = make_agent(f"pimc:margin={margin}", load_rules("official", players=2))
        chosen = agent._correct(own, lanes, lanes.mean(axis=1), pair_game, pair_action, 2)
        assert chosen.tolist() == expected, margin
    shipped = make_agent("pimc-ppo-official-2p", load_rules("official", players=2))
    assert shipped.params["margin"] == 1.0
    assert shipped.policy.label == "ppo-official-2p:greedy=false"  # the bot, sampling
    with pytest.raises(AgentError, match="'margin' must be in"):
        make_agent("pimc:margin=-1", load_rules("official", players=2))


@pytest.mark.parametrize(
    "spec",
    [f"pimc:{FAST}", "ismcts:iterations=8,wave=4", f"pimc:{FAST},objective=win",
     f"pimc:{FAST},margin=1"],
)  # fmt: skip
def test_search_is_deterministic_and_legal(spec):
    state = played_states("official", 2, games=24, seed=6)
    masks = engine.legal_mask(state)
    agent = make_agent(spec, state.rules)
    ids = np.arange(state.num_games)
    a = agent.act(None, masks, np.random.default_rng(3), state=state, games=ids)
    b = agent.act(None, masks, np.random.default_rng(3), state=state, games=ids)
    assert np.array_equal(a, b)
    assert masks[ids, a].all()


@pytest.mark.parametrize(
    ("players", "pimc_worlds", "ismcts_iterations"), [(2, 32, 128), (4, 128, 512)]
)
def test_the_default_budget_grows_with_the_hidden_hands(players, pimc_worlds, ismcts_iterations):
    state = played_states("official", players, games=6, steps=12, seed=2)
    masks = engine.legal_mask(state)
    ids = np.arange(state.num_games)
    for auto, explicit in [
        ("pimc:rollouts=1", f"pimc:rollouts=1,determinizations={pimc_worlds}"),
        ("ismcts:wave=64", f"ismcts:wave=64,iterations={ismcts_iterations}"),
    ]:
        a, b = (
            make_agent(spec, state.rules).act(
                None, masks, np.random.default_rng(5), state=state, games=ids
            )
            for spec in (auto, explicit)
        )
        assert np.array_equal(a, b), auto
    assert make_agent("pimc", state.rules).auto_worlds() == pimc_worlds


def test_search_agents_play_through_the_evaluator_for_any_number_of_workers():
    import pandas as pd

    from uno_rl.eval.run import evaluate

    # Small chunks (slots=4): several chunks, spread over the workers.
    one, two = (
        evaluate(
            [f"pimc:{FAST}", "color-first"],
            rounds=8,
            seed=11,
            workers=workers,
            progress=False,
            slots=4,
        )  # fmt: skip
        for workers in (1, 2)
    )
    pd.testing.assert_frame_equal(one.seats, two.seats)
    assert one.agents["rounds"].iloc[0] == 8


def test_match_objective_plays_whole_matches():
    rules = load_rules("official", players=2, match=True, match_target=60)
    state = engine.reset(rules, np.arange(4, dtype=np.uint64) + 3)
    agent = make_agent("pimc:determinizations=2,rollouts=1,objective=match", rules)
    masks = engine.legal_mask(state)
    actions = agent.act(None, masks, np.random.default_rng(0), state=state, games=np.arange(4))
    assert masks[np.arange(4), actions].all()


def test_bad_search_parameters_get_one_clear_line():
    rules = load_rules("official", players=2)
    with pytest.raises(AgentError, match="objective 'match' needs match rules"):
        make_agent("pimc:objective=match", rules)
    with pytest.raises(AgentError, match="cannot be a search agent"):
        make_agent("pimc:rollout=ismcts", rules)
    with pytest.raises(AgentError, match="cutoff=5 needs a rollout agent that estimates"):
        make_agent("pimc:cutoff=5", rules)
    with pytest.raises(AgentError, match="parameter 'determinizations' must be in"):
        make_agent("pimc:determinizations=-1", rules)
    with pytest.raises(AgentError, match="unknown agent|no agent|not found|no strategy"):
        make_agent("pimc:rollout=no-such-agent", rules)
    agent = make_agent(f"pimc:{FAST}", rules)
    state = engine.reset(rules, np.arange(2, dtype=np.uint64))
    with pytest.raises(ValueError, match="needs the engine state"):
        agent.act(None, engine.legal_mask(state), np.random.default_rng(0))


def test_ismcts_waves_follow_ucb1_within_the_budget():
    from uno_rl.agents.ismcts import _lane_actions

    rules = load_rules("official", players=2)
    agent = make_agent("ismcts:exploration=0.5", rules)
    masks = np.zeros((2, rules.layout.num_actions), bool)
    masks[0, [3, 7, 60]] = True
    masks[1, [5, 60]] = True
    visits = np.where(masks, 16.0, 0.0)
    total = np.zeros_like(visits)
    total[0, 7] = 16 * 30.0  # action 7 is clearly better in game 0
    total[1, 5], total[1, 60] = 16 * 5.0, 16 * 5.0  # a tie in game 1
    squares = np.array([16 * 30.0**2, 32 * 5.0**2 + 100.0])
    budget = masks.sum(axis=1) * 16
    allocation = agent._allocate(visits, total, squares, masks, budget)
    assert (allocation.sum(axis=1) == budget).all() and not allocation[~masks].any()
    assert allocation[0, 7] > allocation[0, 3] and allocation[0, 7] > allocation[0, 60]
    assert abs(allocation[1, 5] - allocation[1, 60]) <= 1
    lanes = _lane_actions(allocation.astype(np.int64), masks)
    assert lanes.size == budget.sum() and (lanes[: budget[0]] != 5).all()


def test_search_line_ups_play_the_same_deals_in_small_pieces():
    from uno_rl.eval.tournament import (
        SEARCH_CHUNK_DEALS,
        Matchup,
        chunk_count,
        iter_chunks,
    )

    rules = load_rules("official", players=2)
    matchups = [Matchup(("pimc", "color-first")), Matchup(("rule", "color-first"))]
    chunks = list(iter_chunks(rules, matchups, 5000, seed=2))
    assert len(chunks) == chunk_count(rules, matchups, 5000)
    search = [c for c in chunks if c.matchup_index == 0]
    plain = [c for c in chunks if c.matchup_index == 1]
    assert max(c.deals for c in search) == SEARCH_CHUNK_DEALS and len(plain) == 2
    for whole in plain:  # the pieces of a chunk deal exactly its deals, in order
        pieces = [c for c in search if c.chunk_index == whole.chunk_index]
        joined = np.concatenate([c.deal_seeds() for c in pieces])
        np.testing.assert_array_equal(joined, whole.deal_seeds())
        assert [c.first_deal for c in pieces] == list(
            range(whole.first_deal, whole.first_deal + whole.deals, SEARCH_CHUNK_DEALS)
        )
    generators = {tuple(c.agent_generator().integers(0, 2**62, 2)) for c in search}
    assert len(generators) == len(search)  # each piece its own agent stream


def test_small_search_runs_are_cut_into_small_pieces():
    from uno_rl.eval.tournament import Matchup, chunk_count, iter_chunks, search_piece_deals

    rules = load_rules("official", players=2, match=True)
    matchups = [Matchup(("pimc", "color-first"))]
    chunks = list(iter_chunks(rules, matchups, 200, seed=4))  # 200 matches: 100 deals
    assert search_piece_deals(100) == 13 and len(chunks) == 8
    assert len(chunks) == chunk_count(rules, matchups, 200)
    assert [c.deals for c in chunks] == [13] * 7 + [9]
    np.testing.assert_array_equal(
        np.concatenate([c.deal_seeds() for c in chunks]),
        next(iter_chunks(rules, [Matchup(("rule", "color-first"))], 200, seed=4)).deal_seeds(),
    )
    assert [search_piece_deals(d) for d in (1, 128, 1000, 2048, 10**6)] == [8, 16, 125, 256, 256]


def test_ppo_rollouts_and_a_value_cut_off():
    rules = load_rules("official", players=2)
    agent = make_agent("pimc:determinizations=2,rollouts=1,rollout=ppo-official-2p,cutoff=4", rules)
    state = played_states("official", 2, games=6, seed=8)
    masks = engine.legal_mask(state)
    ids = np.arange(state.num_games)
    actions = agent.act(None, masks, np.random.default_rng(0), state=state, games=ids)
    assert masks[ids, actions].all()
    # The bot was trained on points (reward_scale 1/50): its estimate is in points.
    seat = state.actor.astype(np.int64)
    points = agent.policy.estimate(state, seat, "points")
    assert points.shape == (state.num_games,) and np.abs(points).max() < 500
    with pytest.raises(AgentError, match="trained on points, not round wins"):
        make_agent("pimc:rollout=ppo-official-2p,cutoff=4,objective=win", rules)
    with pytest.raises(AgentError, match="'ppo-official-2p-rounds' cannot: it was trained on"):
        make_agent("pimc:rollout=ppo-official-2p-rounds,cutoff=4", rules)
    wins = make_agent("pimc:rollout=ppo-official-2p-rounds,cutoff=4,objective=win", rules)
    p_win = wins.policy.estimate(state, seat, "win")
    assert ((p_win >= 0) & (p_win <= 1)).all()


def test_the_horizon_counts_long_play_outs_as_draws():
    rules = load_rules("official", players=2)
    state = played_states("official", 2, games=40, steps=4, seed=12)
    lanes = np.arange(state.num_games)
    actions = engine.legal_mask(state).argmax(axis=1).astype(np.int64)

    def values(spec):
        agent = make_agent(spec, rules)
        return agent.evaluate_actions(state, lanes, actions, np.random.default_rng(3))

    whole, cut = values("pimc:horizon=0"), values("pimc:horizon=6")
    # A lane that ends within the horizon is valued as without it (same generator: the
    # play-outs are the same up to the cut); the others count as draws (0 points).
    ended = cut != 0
    np.testing.assert_array_equal(cut[ended], whole[ended])
    assert (cut == 0).sum() > (whole == 0).sum() + 10
    assert make_agent("pimc", rules).play_out_limit() == (100, None)
    matches = load_rules("official", players=2, match=True)
    assert make_agent("pimc:objective=match", matches).play_out_limit() == (0, None)
    with pytest.raises(AgentError, match="horizon"):
        make_agent("pimc:horizon=-1", rules)


def test_a_ppo_rollout_observes_the_live_lanes_in_place_with_the_same_values():
    """An observing rollout agent reads the running lanes in place (``observe`` with
    ``games``): the values of a play-out that copies the running lanes out at every step
    and observes them all, draw for draw."""
    from uno_rl.core import observe as observing

    state = played_states("official", 2, games=40, seed=11)
    policy = make_agent("ppo-official-2p", state.rules)
    seat = np.arange(state.num_games) % 2
    values = play_out(state.copy(), policy, np.random.default_rng(9), seat)

    lanes, index, rng = state.copy(), np.arange(state.num_games), np.random.default_rng(9)
    expected = np.full(state.num_games, np.nan)
    while lanes.num_games:
        masks = engine.legal_mask(lanes, validate=False)
        obs = observing.observe(lanes, lanes.actor.astype(np.int64))
        result = engine.step(lanes, policy.act(obs, masks, rng), validate=False)
        over = np.flatnonzero(result.round_over)
        expected[index[over]] = result.net_points[over, seat[index[over]]]
        running = np.flatnonzero(~result.round_over)
        lanes, index = lanes.take(running), index[running]
    np.testing.assert_array_equal(values, expected)

    games, seats = np.array([5, 0, 33, 5]), np.array([1, 0, 0, 1])
    wanted = observing.observe_numpy(state.take(games), seats)
    np.testing.assert_array_equal(observing.observe(state, seats, games=games), wanted)
    with pytest.raises(ValueError, match="games must be in"):
        observing.observe(state, 0, games=np.array([state.num_games]))
