"""PettingZoo ``state()`` / ``state_space``: the privileged full-game vector (state_vector.py).

The state is rebuilt here independently from the batched-core copy of the game
(``privileged_game.state``, a :class:`~uno_rl.core.state.State`) piece by piece, checked
against known plays (the top card slice shows the card just played, ...), against
PettingZoo's own ``state_test``, for seeding, and on the AEC env and the parallel view.
"""

import re
import warnings

import numpy as np
import pytest
from pettingzoo.test import state_test

from uno_rl.core import available_presets
from uno_rl.core.actions import DRAW, PLAY_WILD
from uno_rl.core.cards import DECK_SIZE, KIND_COLOR, KIND_RANK, NUM_KINDS, WILD_DRAW_FOUR
from uno_rl.core.phases import DRAWN, JUMP, MULTI, OVER, PLAY
from uno_rl.envs import state_vector, uno_v1
from uno_rl.envs.state_vector import STATE_SIZE, STATE_SLICES

CONFIGS = [("official", 2), ("official", 4), ("party", 5), ("kids", 3), ("house", 10)]


def piece(state: np.ndarray, name: str) -> np.ndarray:
    return state[STATE_SLICES[name]]


def expected_state(env) -> np.ndarray:
    """The state built from the core State copy of the game, one piece at a time."""
    s = env.unwrapped.privileged_game.state
    rules = env.unwrapped.rules
    p, want = rules.players, np.zeros(STATE_SIZE, np.float32)

    def one_hot(name, index):
        piece(want, name)[int(index)] = 1.0

    piece(want, "hands")[: p * NUM_KINDS] = s.hands[0].reshape(-1)
    piece(want, "hand_sizes")[:p] = s.hand_size[0]
    one_hot("top_card", s.top[0])
    if s.color[0] >= 0:
        one_hot("color", s.color[0])
    piece(want, "direction")[0] = s.direction[0]
    phase = int(s.phase[0])
    one_hot("phase", phase)
    if phase != OVER:
        one_hot("actor", s.actor[0])
    piece(want, "pending_draw")[0] = s.pending[0]
    one_hot("players", p - 2)
    one_hot("dealer", s.dealer[0])
    piece(want, "discard")[:] = s.discard[0]
    size = int(s.pile_size[0])
    piece(want, "draw_pile")[:] = np.bincount(s.pile[0, :size], minlength=NUM_KINDS)
    piece(want, "draw_pile_size")[0] = size
    if phase == DRAWN:
        one_hot("drawn_card", s.drawn[0])
    if s.top[0] == WILD_DRAW_FOUR:
        one_hot("previous_color", s.prev_color[0])
        one_hot("draw4_player", s.draw4_player[0])
        piece(want, "draw4_bluff")[0] = float(s.draw4_bluff[0])
    if phase == MULTI and s.multi_rank[0] < 10:  # a symbol combination shows on the top card
        one_hot("multi_rank", s.multi_rank[0])
    if phase == JUMP:
        one_hot("jump_card", s.jump_card[0])
    piece(want, "scores")[:p] = s.scores[0] / rules.match_target
    piece(want, "progress")[0] = s.turn[0] / rules.max_turns
    return want


def legal_pick(mask: np.ndarray, gen: np.random.Generator) -> int:
    legal = np.flatnonzero(mask)
    plays = legal[legal != DRAW]
    pool = plays if plays.size and gen.random() < 0.8 else legal
    return int(pool[gen.integers(pool.size)])


# ----------------------------------------------------------------- layout
def test_layout_is_the_documented_table():
    assert STATE_SIZE == 900
    documented = re.findall(r"``(\w+)``\s+(\d+)\s+(\d+)\s", state_vector.__doc__)
    assert [(n, int(o), int(k)) for n, o, k in documented] == [
        (name, sl.start, sl.stop - sl.start) for name, sl in STATE_SLICES.items()
    ]
    env_doc = re.findall(r"\| `(\w+)`\s+\| (\d+)\s+\| (\d+)\s+\|", uno_v1.__doc__)
    env_doc = [(n, int(o), int(k)) for n, o, k in env_doc]
    assert env_doc == [(n, sl.start, sl.stop - sl.start) for n, sl in STATE_SLICES.items()]
    assert "PRIVILEGED" in uno_v1.raw_env.state.__doc__


def test_state_space_bounds():
    for preset, players in CONFIGS:
        space = uno_v1.env(preset=preset, players=players).state_space
        assert space.shape == (STATE_SIZE,) and space.dtype == np.float32
        assert np.all(space.low < space.high)
        assert np.all(np.isfinite(space.low)) and np.all(np.isfinite(space.high))
        assert space.low[STATE_SLICES["direction"]][0] == -1.0
        assert space.high[STATE_SLICES["hands"]].max() == 4  # copies of a Wild


# ----------------------------------------------------- the state, decision by decision
MULTI_JUMP = {"multi_play": True, "jump_in": True, "caught_bluffer": "takes-back"}
#: rules specification §12: symbol combinations, lost turns, a match of fixed rounds (scores past
#: the target stay in the state space)
SEED_RULES = {
    "multi_play": True,
    "multi_play_actions": True,
    "caught_bluffer": "loses-turn",
    "match": True,
    "scoring": "losers-add",
    "match_rounds": 4,
    "match_target": 20,
}


@pytest.mark.parametrize(
    ("preset", "players", "switches"),
    [(preset, players, {}) for preset, players in CONFIGS]
    + [("official", 3, MULTI_JUMP), ("official", 3, SEED_RULES)],
)
def test_state_matches_the_game_at_every_decision(preset, players, switches):
    aec = uno_v1.env(preset=preset, players=players, **switches)
    gen = np.random.default_rng(players)
    decisions, phases, bluffs = 0, set(), 0
    for episode in range(2):
        aec.reset(seed=episode)
        for agent in aec.agent_iter(3000):
            state = aec.state()
            assert state.dtype == np.float32 and state.shape == (STATE_SIZE,)
            assert aec.state_space.contains(state)
            np.testing.assert_array_equal(state, expected_state(aec))
            phases.add(int(np.flatnonzero(piece(state, "phase"))[0]))
            bluffs += int(piece(state, "draw4_bluff")[0])
            # every card is somewhere: hands, discard pile, draw pile
            total = piece(state, "hand_sizes").sum() + piece(state, "discard").sum()
            assert total + piece(state, "draw_pile_size")[0] == DECK_SIZE
            assert piece(state, "draw_pile").sum() == piece(state, "draw_pile_size")[0]
            obs, _, termination, truncation, _ = aec.last()
            if switches == SEED_RULES:  # scores past the target: still in the observation space
                assert aec.observation_space(agent).contains(obs)
            if termination or truncation:
                aec.step(None)
                continue
            if not aec.unwrapped.privileged_game.over:
                seat = aec.unwrapped.possible_agents.index(agent)
                assert piece(state, "actor")[seat] == 1.0
            aec.step(legal_pick(obs["action_mask"], gen))
            decisions += 1
    assert decisions > 50
    if switches == MULTI_JUMP:
        assert {MULTI, JUMP}.issubset(phases) and bluffs > 0
    if switches == SEED_RULES:
        assert MULTI in phases


def test_state_after_known_plays_and_draws():
    """A colored play shows on top and leaves the hand; a Wild names its color; a draw
    moves one card from the pile to the hand."""
    raw = uno_v1.raw_env(players=3)
    gen = np.random.default_rng(0)
    checked = {"colored": 0, "wild": 0, "draw": 0, "reverse": 0, "draw4": 0}
    for seed in range(40):
        raw.reset(seed=seed)
        game = raw.privileged_game
        while not game.over:
            before, seat = raw.state(), game.actor
            hand_before = piece(before, "hands")[seat * NUM_KINDS : (seat + 1) * NUM_KINDS]
            action = legal_pick(game.legal_mask(), gen)
            phase = game.phase
            raw.step(action)
            if game.over or phase != PLAY:
                continue
            after = raw.state()
            hand = piece(after, "hands")[seat * NUM_KINDS : (seat + 1) * NUM_KINDS]
            if action < DRAW:  # a card was played (0 ... 59)
                kind = action if action < PLAY_WILD else (52 if action < 56 else WILD_DRAW_FOUR)
                if piece(before, "hand_sizes")[seat] < 2:
                    continue
                assert piece(after, "top_card").tolist() == np.eye(NUM_KINDS)[kind].tolist()
                assert hand[kind] == hand_before[kind] - 1
                assert piece(after, "discard")[kind] == piece(before, "discard")[kind] + 1
                color = KIND_COLOR[kind] if kind < 52 else (action - PLAY_WILD) % 4
                assert piece(after, "color").tolist() == np.eye(4)[color].tolist()
                if kind < 52:
                    checked["colored"] += 1
                else:
                    checked["wild"] += 1
                if kind < 52 and KIND_RANK[kind] == 11:
                    assert piece(after, "direction")[0] == -piece(before, "direction")[0]
                    checked["reverse"] += 1
                if kind == WILD_DRAW_FOUR:
                    assert (
                        piece(after, "previous_color").tolist() == piece(before, "color").tolist()
                    )
                    assert piece(after, "draw4_player")[seat] == 1.0
                    bluff = game.game.draw4_bluff
                    assert piece(after, "draw4_bluff")[0] == float(bluff)
                    assert piece(after, "pending_draw")[0] == 4  # the victim may challenge
                    checked["draw4"] += 1
            elif action == DRAW:
                size = piece(before, "draw_pile_size")[0]
                if size == 0:
                    continue
                assert piece(after, "hand_sizes")[seat] == piece(before, "hand_sizes")[seat] + 1
                if piece(after, "draw_pile_size")[0] == size - 1:  # no reshuffle
                    drawn = int(np.flatnonzero(hand - hand_before)[0])
                    assert piece(after, "draw_pile")[drawn] == piece(before, "draw_pile")[drawn] - 1
                    if game.phase == DRAWN:
                        assert piece(after, "drawn_card")[drawn] == 1.0
                checked["draw"] += 1
    assert min(checked.values()) > 0, checked


def test_match_scores_show_in_the_state():
    aec = uno_v1.env(preset="kids", players=3)
    gen = np.random.default_rng(2)
    aec.reset(seed=2)
    target = aec.unwrapped.rules.match_target
    scored = False
    for _ in aec.agent_iter(20000):
        obs, _, termination, truncation, _ = aec.last()
        aec.step(None if termination or truncation else legal_pick(obs["action_mask"], gen))
        scores = aec.unwrapped.privileged_game.game.scores
        state = aec.state()
        np.testing.assert_allclose(piece(state, "scores")[:3], np.array(scores) / target)
        scored |= any(scores)
    assert scored


# ------------------------------------------------------------------ seeding
def play_states(make, seed: int, steps: int = 300) -> list[np.ndarray]:
    aec = make()
    aec.reset(seed=seed)
    gen = np.random.default_rng(seed)
    states = [aec.state()]
    for _ in aec.agent_iter(steps):
        obs, _, termination, truncation, _ = aec.last()
        aec.step(None if termination or truncation else legal_pick(obs["action_mask"], gen))
        states.append(aec.state())
    return states


def test_same_seed_same_states():
    make = lambda: uno_v1.env(players=4)  # noqa: E731
    a, b, c = play_states(make, 7), play_states(make, 7), play_states(make, 8)
    assert len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b))
    assert not np.array_equal(a[0], c[0])


def test_parallel_view_state_same_seed_and_space():
    def run(seed):
        par = uno_v1.parallel_env(players=3)
        assert par.state_space == uno_v1.env(players=3).state_space
        observations, _ = par.reset(seed=seed)
        gen = np.random.default_rng(seed)
        states = [par.state()]
        actor = next(a for a, o in observations.items() if o["action_mask"].any())
        for _ in range(200):
            if not par.agents:
                break
            observations, _, _, _, infos = par.step(
                {actor: legal_pick(observations[actor]["action_mask"], gen)}
            )
            state = par.state()
            assert par.state_space.contains(state)
            np.testing.assert_array_equal(state, expected_state(par.aec_env))
            states.append(state)
            if par.agents:
                actor = infos[par.agents[0]]["active_agent"]
        return states

    a, b = run(5), run(5)
    assert len(a) > 10 and all(np.array_equal(x, y) for x, y in zip(a, b))
    assert not np.array_equal(a[0], run(6)[0])


# ------------------------------------------------------- PettingZoo's own checks
@pytest.mark.parametrize(("preset", "players"), CONFIGS)
def test_pettingzoo_state_test(preset, players):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        state_test(
            uno_v1.env(preset=preset, players=players),
            uno_v1.parallel_env(preset=preset, players=players),
            num_cycles=300,
        )
    assert [str(w.message) for w in caught] == []


def test_state_before_reset_is_an_error():
    with pytest.raises(AssertionError, match="reset"):
        uno_v1.env().state()
    with pytest.raises(RuntimeError, match="reset"):
        uno_v1.raw_env().state()


def test_every_preset_state_in_space():
    for preset in available_presets():
        for states in (play_states(lambda p=preset: uno_v1.env(preset=p, players=3), 1, 200),):
            space = uno_v1.env(preset=preset, players=3).state_space
            assert all(space.contains(s) for s in states)


@pytest.mark.parametrize("deck", ["classic", "swap-112"])
def test_the_state_of_any_game_of_a_batch(deck):
    """``game_state(state, g)`` reads game ``g`` of a batch: the vector of that game alone."""
    from uno_rl.core import engine, load_rules, sample_legal_actions

    rules = load_rules("official", players=4, deck=deck, match=True)
    state = engine.reset(rules, np.arange(6, dtype=np.uint64))
    gen = np.random.default_rng(3)
    for _ in range(150):
        engine.step(state, sample_legal_actions(engine.legal_mask(state), gen))
        over = np.flatnonzero(state.phase == OVER)
        engine.reset_games(state, over, over.astype(np.uint64) + 50)
    for g in range(6):
        alone = state_vector.game_state(state.take([g]))
        np.testing.assert_array_equal(state_vector.game_state(state, g), alone)
        assert alone.dtype == np.float32 and alone.shape == (
            state_vector.state_layout(rules.layout).size,
        )
    assert len({state_vector.game_state(state, g).tobytes() for g in range(6)}) == 6
