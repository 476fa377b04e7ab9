"""Belief particles of the other hands (:mod:`uno_rl.agents.belief`).

* particles stay consistent with what the observer sees: hand sizes, no card the observer
  sees elsewhere, every card of the deck accounted for;
* they learn: against ``color-first`` their hands hold more of the true colors than uniform
  worlds do, and their weights follow the model's explanation of each decision;
* honest: the memory after an event does not depend on hidden cards, nor do the decisions;
* the worlds of a search decision take the other hands from the particles;
* resampling keeps each game's candidates in proportion to their weights.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from scenario import act, build, card  # noqa: E402
from scenario import rules as scenario_rules  # noqa: E402
from test_search import FAST, hide_differently  # noqa: E402

from uno_rl.agents import AgentError, make_agent  # noqa: E402
from uno_rl.agents.belief import (  # noqa: E402
    _resample_degenerate,
    current_belief,
    public_snapshot,
    resample,
    sync,
)
from uno_rl.agents.determinize import determinize  # noqa: E402
from uno_rl.agents.knowledge import constraints  # noqa: E402
from uno_rl.agents.search import Knowledge  # noqa: E402
from uno_rl.core import engine, load_rules  # noqa: E402
from uno_rl.core.convert import to_state  # noqa: E402
from uno_rl.core.phases import OVER  # noqa: E402


def watched_games(agent, players=2, games=64, steps=24, seed=0):
    """Games of ``color-first`` in every seat, seat 0's memory watching every step:
    ``(state, memory)``."""
    rules = load_rules("official", players=players)
    policy = make_agent("color-first", rules)
    rng = np.random.default_rng(seed)
    state = engine.reset(rules, np.arange(games, dtype=np.uint64) + 1000 * seed + 7)
    memory = agent.new_memory(games)
    ids = np.arange(games)
    for _ in range(steps):
        live = ids[state.phase != OVER]
        masks = engine.legal_mask(state, live)
        actions = policy.act_on_state(state, masks, rng, live)
        agent.watch(memory, live, state, live, np.zeros(live.size, np.int64), actions)
        engine.step(state, actions, games=live, validate=False)
    return state, memory


def color_overlap(hands, true, rules):
    """Share of the true hand's cards matched color for color (wilds as a fifth color)."""
    color = rules.layout.kind_color.astype(np.int64)

    def by_color(h):
        return np.stack([h[..., color == c].sum(-1) for c in range(-1, 4)], axis=-1)

    mine, theirs = by_color(hands.astype(np.int64)), by_color(true.astype(np.int64))
    return np.minimum(mine, theirs).sum(-1) / np.maximum(theirs.sum(-1), 1)


@pytest.mark.parametrize("players", [2, 4])
def test_particles_stay_consistent_with_what_the_observer_sees(players):
    agent = make_agent(f"pimc:{FAST}", load_rules("official", players=players))
    state, memory = watched_games(agent, players=players, games=40, steps=30, seed=players)
    live = np.flatnonzero(state.phase != OVER)
    observer = np.zeros(live.size, np.int64)
    before = memory["belief_hands"][live]
    # The last step's draws and plays are not in the particles yet: sync brings them in.
    hands = sync(before, state, live, observer, np.random.default_rng(1)).astype(np.int64)
    assert not hands[:, :, 0].any()  # the observer's own hand is not guessed
    sizes = state.hand_size[live].astype(np.int64)[:, None, :].repeat(hands.shape[1], axis=1)
    sizes[:, :, 0] = 0
    assert (hands.sum(axis=3) == sizes).all()
    deck = state.rules.deck_cards.copies.astype(np.int64)
    seen = state.hands[live, 0].astype(np.int64) + state.discard[live].astype(np.int64)
    assert (hands.sum(axis=2) + seen[:, None, :] <= deck).all()
    assert (hands >= 0).all()
    # A particle already consistent is left as it is.
    again = sync(hands.astype(np.int8), state, live, observer, np.random.default_rng(2))
    assert np.array_equal(again, hands)


def test_particles_learn_the_colors_of_the_other_hand():
    rules = load_rules("official")
    agent = make_agent("pimc:explain=0.01", rules)
    state, memory = watched_games(agent, games=200, steps=40, seed=1)
    live = np.flatnonzero(state.phase != OVER)
    true = state.hands[live, 1]
    belief = current_belief(memory, live, state, live)
    w = np.exp(belief.log_weight - belief.log_weight.max(axis=1, keepdims=True))
    w /= w.sum(axis=1, keepdims=True)
    learned = (color_overlap(belief.hands[:, :, 1], true[:, None], rules) * w).sum(axis=1)
    uniform = determinize(state, live, np.zeros(live.size, np.int64), 64,
                          np.random.default_rng(2))  # fmt: skip
    drawn = uniform.hands[:, 1].reshape(live.size, 64, -1)
    blind = color_overlap(drawn, true[:, None], rules).mean(axis=1)
    # Measured: about 0.60 against 0.47 (seed 0, 200 games).
    assert learned.mean() > blind.mean() + 0.06


def test_a_decision_the_model_would_not_take_lowers_the_weight():
    rules = scenario_rules("official")
    g = build(rules, {0: ["red 3", "blue 5", "green 1"],
                      1: ["red 9", "red 2", "red 4", "yellow 4", "green 8"]},
              top="red 5", actor=1, seed=3)  # fmt: skip
    state = to_state([g])
    agent = make_agent(f"pimc:{FAST},explain=0.1,particles=256", rules)
    memory, rows, ids = agent.new_memory(1), np.zeros(1, np.int64), np.arange(1)
    # color-first plays the color it holds most of, action cards before numbers.
    agent.watch(memory, rows, state, ids, np.zeros(1, np.int64), np.array([act("red 9")]))
    hands = memory["belief_hands"][0, :, 1].astype(np.int64)
    log_w = memory["belief_log_weight"][0, :, 1]
    # Every particle held the red 9 (those without one swapped a card for it) and lost it.
    assert hands.sum(axis=1).tolist() == [4] * 256
    assert log_w.min() < np.log(0.2) and log_w.max() == 0.0  # some explained it, some not
    # A red action card would have gone before the red 9 (action cards before numbers).
    red_action = hands[:, [card("red skip"), card("red reverse"), card("red +2")]].sum(axis=1) > 0
    assert red_action.any() and (log_w[red_action] < np.log(0.2)).all()
    assert not red_action[log_w == 0.0].any()


def hidden_from_seat_0(state, rng):
    """The same games with every card seat 0 cannot see dealt anew (whoever acts)."""
    actor = state.actor.copy()
    state = state.copy()
    state.actor[:] = 0
    other = hide_differently(state, rng)
    other.actor[:] = actor
    other.invalidate()
    return other


def test_the_memory_and_the_decisions_do_not_depend_on_hidden_cards():
    rules = load_rules("official")
    agent = make_agent(f"pimc:{FAST}", rules)
    state, memory = watched_games(agent, games=64, steps=17, seed=2)
    live = np.flatnonzero(state.phase != OVER)
    view = state.take(live)
    other = hidden_from_seat_0(view, np.random.default_rng(4))
    assert not np.array_equal(view.hands, other.hands)
    assert np.array_equal(view.hands[:, 0], other.hands[:, 0])
    ids = np.arange(live.size)
    actions = engine.legal_mask(view).argmax(axis=1)  # the same public actions in both
    observer = np.zeros(live.size, np.int64)
    watched = []
    for s in (view, other):
        mem = {key: array[live].copy() for key, array in memory.items()}
        agent.watch(mem, ids, s, ids, observer, actions)
        watched.append(mem)
    for key in memory:
        assert np.array_equal(watched[0][key], watched[1][key]), key
    # The decisions of seat 0 where it acts.
    mine = np.flatnonzero(view.actor == 0)
    assert mine.size >= 5
    masks = engine.legal_mask(view.take(mine))

    def decide(s):
        mem = {key: array[live[mine]].copy() for key, array in memory.items()}
        games = np.arange(mine.size)
        return agent.act(None, masks, np.random.default_rng(5), mem, games,
                         state=s.take(mine), games=games)  # fmt: skip

    assert np.array_equal(decide(view), decide(other))


def test_public_snapshots_blank_every_hidden_card():
    state, _ = watched_games(make_agent(f"pimc:{FAST}", load_rules("official")), steps=9)
    snap = public_snapshot(state, np.arange(5), np.zeros(5, np.int64))
    for name in ("hands", "pile", "key", "revealed", "draw4_bluff"):
        assert not getattr(snap, name).any(), name
    assert np.array_equal(snap.hand_size, state.hand_size[:5])
    assert np.array_equal(snap.discard, state.discard[:5])


def test_worlds_take_the_other_hands_from_the_particles():
    rules = load_rules("official")
    agent = make_agent(f"pimc:{FAST},particles=8", rules)
    state, memory = watched_games(agent, games=64, steps=20, seed=3)
    games = np.flatnonzero((state.phase != OVER) & (state.actor == 0))
    # Sync the particles with the state after the last step, as the next event would.
    agent.watch(memory, games, state, games, np.zeros(games.size, np.int64),
                engine.legal_mask(state, games).argmax(axis=1))  # fmt: skip
    belief = current_belief(memory, games, state, games)
    known = Knowledge(None, None, None, belief)
    worlds = agent.worlds(state, games, 16, np.random.default_rng(1), known)
    hands = worlds.hands[:, 1].reshape(games.size, 16, -1)
    from_particle = (hands[:, :, None, :] == belief.hands[:, None, :, 1]).all(axis=3).any(axis=2)
    assert from_particle.mean() > 0.95
    assert (worlds.hand_size == np.repeat(state.hand_size[games], 16, axis=0)).all()


def test_resampling_follows_the_weights():
    rng = np.random.default_rng(0)
    log_w = np.zeros((3, 8))
    log_w[0, :4] = -np.inf
    log_w[1, 1:] = -700.0
    log_w[2, :4] = np.log(0.5)
    kept = resample(log_w.ravel(), 3, 8, 4000, rng).reshape(3, 4000)
    assert (kept // 8 == np.arange(3)[:, None]).all()  # each game keeps its own candidates
    kept %= 8
    assert set(np.unique(kept[0])) == {4, 5, 6, 7} and set(np.unique(kept[1])) == {0}
    assert abs(np.isin(kept[2], [0, 1, 2, 3]).mean() - 1 / 3) < 0.01  # 0.5 against 1
    assert sorted(resample(np.zeros(8), 1, 8, 8, rng)) == list(range(8))  # systematic


def test_particles_start_again_at_a_new_round():
    agent = make_agent(f"pimc:{FAST}", load_rules("official"))
    state, memory = watched_games(agent, games=16, steps=6, seed=4)
    live = np.flatnonzero(state.phase != OVER)
    memory["belief_log_weight"][live] = -3.0
    state.round_index[live] += 1
    assert not current_belief(memory, live, state, live).on.any()
    agent.watch(memory, live, state, live, np.zeros(live.size, np.int64),
                engine.legal_mask(state, live).argmax(axis=1))  # fmt: skip
    assert current_belief(memory, live, state, live).on.all()


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("pimc:explain=2", "parameter 'explain' must be in"),
        ("pimc:explain=-0.5", "parameter 'explain' must be -1 \\(by the player count\\) or in"),
        ("pimc:particles=0", "parameter 'particles' must be in"),
        ("pimc:samples=0", "parameter 'samples' must be in"),
        ("pimc:model=no-such-agent", "unknown agent 'no-such-agent'"),
        ("pimc:model=pimc", "the model cannot be a search agent"),
    ],
)
def test_bad_belief_parameters_get_one_clear_line(spec, message):
    with pytest.raises(AgentError, match=message):
        make_agent(spec, load_rules("official"))


def synced_at_observer_turns(agent, players, games, steps, seed):
    """``(state, memory, live)``: games watched by seat 0, its particles brought up to the
    position of ``live`` (the games where seat 0 acts now)."""
    state, memory = watched_games(agent, players=players, games=games, steps=steps, seed=seed)
    live = np.flatnonzero((state.phase != OVER) & (state.actor == 0))
    agent.watch(memory, live, state, live, np.zeros(live.size, np.int64),
                engine.legal_mask(state, live).argmax(axis=1))  # fmt: skip
    return state, memory, live


def test_each_seat_keeps_its_own_weights_and_is_resampled_alone():
    rules = load_rules("official", players=4)
    agent = make_agent(f"pimc:{FAST},particles=32", rules)
    state, memory, live = synced_at_observer_turns(agent, 4, 64, 14, seed=5)
    assert live.size >= 8
    log_w = memory["belief_log_weight"]
    assert log_w.shape == (64, 32, 4)
    assert not log_w[:, :, 0].any() and log_w[live][:, :, 1:].min() < 0  # others' decisions
    # The particle weight the worlds draw by is the product of the seats' weights.
    belief = current_belief(memory, live, state, live)
    assert np.allclose(belief.log_weight, log_w[live].sum(axis=2))
    # Seat 1's weight on particle 0 alone: its hands are resampled, the others' stay.
    log_w[live, :, 1] = -700.0
    log_w[live, 0, 1] = 0.0
    others = log_w[live][:, :, 2:].copy()
    before = memory["belief_hands"][live].astype(np.int64)
    observer = np.zeros(live.size, np.int64)
    _resample_degenerate(memory, live, np.ones(live.size, np.int64), state, live, observer,
                         np.random.default_rng(3))  # fmt: skip
    after = memory["belief_hands"][live].astype(np.int64)
    assert (after[:, :, 1] == before[:, :1, 1]).all()  # seat 1 holds particle 0's guess
    assert not log_w[live, :, 1].any() and np.array_equal(log_w[live][:, :, 2:], others)
    # Seats 2 and 3 keep their guesses, but for cards seat 1's new hand now claims.
    kept = (after[:, :, 2:] == before[:, :, 2:]).all(axis=3).mean()
    assert 0.2 < kept < 1.0
    deck = rules.deck_cards.copies.astype(np.int64)
    seen = state.hands[live, 0].astype(np.int64) + state.discard[live].astype(np.int64)
    assert (after.sum(axis=2) + seen[:, None, :] <= deck).all()
    sizes = state.hand_size[live].astype(np.int64)[:, None, 1:]
    assert (after[:, :, 1:].sum(axis=3) == sizes).all()


def test_particles_learn_the_other_hands_at_4_players():
    rules = load_rules("official", players=4)
    agent = make_agent("pimc:explain=0.01", rules)
    state, memory, live = synced_at_observer_turns(agent, 4, 240, 41, seed=6)
    belief = current_belief(memory, live, state, live)
    w = np.exp(belief.log_weight - belief.log_weight.max(axis=1, keepdims=True))
    w /= w.sum(axis=1, keepdims=True)
    true = state.hands[live].astype(np.int64)[:, None, 1:]  # (k, 1, 3, K)
    guessed = belief.hands[:, :, 1:].astype(np.int64)
    share = np.minimum(guessed, true).sum(axis=3) / np.maximum(true.sum(axis=3), 1)
    learned = (share.mean(axis=2) * w).sum(axis=1)
    known = Knowledge(*constraints(memory, live, state, live), None)
    uniform = agent.worlds(state, live, 64, np.random.default_rng(2), known)
    drawn = uniform.hands.reshape(live.size, 64, 4, -1)[:, :, 1:].astype(np.int64)
    blind = (np.minimum(drawn, true).sum(axis=3) / np.maximum(true.sum(axis=3), 1)).mean()
    print(f"cards of the true hands guessed: particles {learned.mean():.3f}, uniform {blind:.3f}")
    assert learned.mean() > blind + 0.02


@pytest.mark.parametrize(("spec", "players", "floor"), [
    ("pimc", 2, 0.1), ("pimc", 4, 0.01), ("ismcts", 3, 0.01), ("pimc:explain=0.3", 4, 0.3),
    ("pimc:explain=0", 2, 0.0),
])  # fmt: skip
def test_the_weight_floor_follows_the_player_count_by_default(spec, players, floor):
    agent = make_agent(spec, load_rules("official", players=players))
    assert agent.explain_floor == floor and agent.explains
    assert not make_agent("pimc:explain=1", load_rules("official", players=players)).explains
