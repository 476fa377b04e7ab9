"""The single-game envs' game (SingleGame) against the reference, under both engines.

Under the compiled engine a decision is one compiled call (the step, the next actor's mask
and observation together); under the NumPy engine the batched API at N = 1. Here every
decision of random games is compared with :class:`~uno_rl.core.reference.ReferenceGame`:
legal mask, every seat's observation, step outcome and the whole game state.
"""

import copy
import pickle

import numpy as np
import pytest

from uno_rl.core import available_presets, backend, load_rules
from uno_rl.core.actions import DRAW, NUM_ACTIONS, PASS
from uno_rl.core.convert import states_equal, to_reference
from uno_rl.core.phases import OVER, PLAY
from uno_rl.core.reference import ReferenceGame
from uno_rl.envs import uno_v1
from uno_rl.envs.game import SingleGame

SWITCHES = [
    {"last_card": "no-draw-four", "hand_size": 2},
    {"last_card": "no-wild", "hand_size": 2},
    {"draw_four_legal": "no-playable-card", "bluffing": "forbidden"},
    {"caught_bluffer": "takes-back", "uno_forget_prob": 0.5},
    {"multi_play": True, "wild_cancels_draw": True, "stacking": "same"},
    # rules specification §12
    {"caught_bluffer": "loses-turn", "uno_forget_prob": 0.5},
    {"multi_play": True, "multi_play_actions": True, "stacking": "any"},
    {
        "multi_play": True,
        "multi_play_actions": True,
        "jump_in": True,
        "caught_bluffer": "loses-turn",
    },
    {"match": True, "scoring": "losers-add", "match_rounds": 2, "max_turns": 200},
    {"seven_zero": True, "jump_in": True, "stacking": "any"},
    {"draw_until_playable": True, "drawn_card": "must-play"},
    {"match": True, "match_target": 200, "reward": "points"},
    {"match": True, "match_target": 3, "scoring": "rounds", "max_turns": 60},
]


@pytest.fixture
def numpy_engine(monkeypatch):
    """The NumPy engine for one test, the engine in use before it afterwards."""
    saved = backend._compiled
    monkeypatch.setenv("UNO_RL_ENGINE", "")  # select_engine sets it: put it back afterwards
    monkeypatch.delenv("UNO_RL_ENGINE")
    backend.select_engine("numpy")
    yield
    backend._compiled = saved


def play_side_by_side(rules, seed: int, games: int, seen: set | None = None) -> int:
    """Play ``games`` episodes in a SingleGame and the reference with the same actions;
    ``seen`` collects the phases and situations met."""
    gen = np.random.default_rng(seed)
    single, decisions = SingleGame(rules), 0
    seen = set() if seen is None else seen
    for _ in range(games):
        deal = int(gen.integers(2**62))
        single.reset(gen, deal_seed=deal)
        oracle = ReferenceGame(rules, deal)
        while oracle.phase != OVER and not oracle.match_over:
            seen.add(oracle.phase)
            seen.update({"reverse"} if oracle.direction < 0 else set())
            seen.update({"pending"} if oracle.pending else set())
            seen.update({"scores"} if any(oracle.scores) else set())
            legal = oracle.legal_actions()
            mask = single.legal_mask()
            assert mask.dtype == np.int8 and not mask.flags.writeable
            assert np.flatnonzero(mask).tolist() == legal
            assert single.actor == oracle.actor and single.phase == oracle.phase
            for seat in np.random.default_rng(decisions).permutation(rules.players).tolist():
                want = oracle.observe(seat)
                got = single.observe(seat)
                assert got.dtype == np.float32 and got.shape == want.shape
                np.testing.assert_array_equal(got, want)
            plays = [a for a in legal if a not in (DRAW, PASS)]
            pool = plays if plays and gen.random() < 0.9 else legal
            action = pool[int(gen.integers(len(pool)))]
            if gen.random() < 0.2:
                action = np.int64(action)  # checked by check_action first
            assert single.step(action) == oracle.step(int(action))
            assert states_equal(single.live_state, 0, oracle) == []
            decisions += 1
        assert single.over == (oracle.phase == OVER)
        assert single.over or rules.match
        if single.over:
            assert not single.legal_mask().any()
    return decisions


@pytest.mark.parametrize("preset", available_presets())
@pytest.mark.parametrize("players", [2, 3, 7])
def test_single_game_matches_reference_on_presets(preset, players):
    assert play_side_by_side(load_rules(preset, players=players), seed=players, games=4) > 0


@pytest.mark.parametrize("switches", SWITCHES, ids=lambda s: ",".join(s))
def test_single_game_matches_reference_on_switches(switches):
    rules = load_rules("official", players=3, **switches)
    assert play_side_by_side(rules, seed=5, games=4) > 0


@pytest.mark.parametrize("deck", ["classic", "extension"])
def test_single_game_matches_reference_under_the_numpy_engine(deck, numpy_engine):
    assert backend.engine_name() == "numpy"
    rules = load_rules("official", players=3, deck=deck, stacking="any", match=True)
    seen: set = set()
    assert play_side_by_side(rules, seed=8, games=2, seen=seen) > 0
    assert {PLAY, "pending"} <= seen


def test_observations_in_every_situation():
    """Negative direction, pending draws, the drawn and color phases, scores of a match."""
    rules = load_rules("official", players=4, match=True, stacking="any", match_target=100)
    seen: set = set()
    play_side_by_side(rules, seed=0, games=6, seen=seen)
    assert {"reverse", "pending", "scores", PLAY, 1, 2}.issubset(seen)


def test_illegal_and_malformed_actions_change_nothing():
    single = SingleGame(load_rules("official"))
    single.reset(np.random.default_rng(0), deal_seed=7)
    legal = single.legal_actions()
    illegal = next(a for a in range(NUM_ACTIONS) if a not in legal)
    before = single.state
    with pytest.raises(ValueError, match=f"illegal action {illegal}"):
        single.step(illegal)
    with pytest.raises(TypeError, match="must be an integer"):
        single.step(True)
    with pytest.raises(ValueError, match="out of range"):
        single.step(NUM_ACTIONS + 3)
    assert single.state.arrays().keys() == before.arrays().keys()
    for name, array in before.arrays().items():
        assert np.array_equal(single.live_state.arrays()[name], array), name
    assert (
        single.legal_actions() == legal == ReferenceGame(load_rules("official"), 7).legal_actions()
    )


def test_game_over_raises_and_invalidate_forgets_the_cache():
    rules = load_rules("official", max_turns=10)
    single = SingleGame(rules)
    single.reset(np.random.default_rng(0), deal_seed=11)
    cached = single.legal_mask()
    assert single.legal_mask() is cached  # computed once per decision
    state, seat = single.live_state, single.actor
    state.hands[0, seat] = 0
    state.hands[0, seat, 0] = 1  # a red 0 only
    state.hand_size[0, seat] = 1
    single.invalidate()
    assert single.legal_actions() == to_reference(state, 0).legal_actions()
    assert single.legal_mask() is not cached
    np.testing.assert_array_equal(single.observe(seat), to_reference(state, 0).observe(seat))
    while not single.over:
        single.step(single.legal_actions()[0])
    with pytest.raises(ValueError, match="the game is over"):
        single.step(DRAW)


def test_single_game_errors():
    single = SingleGame(load_rules("official"))
    with pytest.raises(RuntimeError, match="reset"):
        single.step(0)
    with pytest.raises(RuntimeError, match="reset"):
        single.legal_mask()
    assert not single.started and single.state is None and not single.is_legal(0)
    with pytest.raises(TypeError, match="action must be an integer"):
        single.step(None)
    single.reset(np.random.default_rng(1))
    illegal = next(a for a in range(NUM_ACTIONS) if not single.legal_mask()[a])
    with pytest.raises(ValueError, match=f"illegal action {illegal} .* legal actions:"):
        single.step(illegal)
    with pytest.raises(ValueError, match="out of range"):
        single.step(-1)
    with pytest.raises(ValueError, match="seat must be in"):
        single.observe(2)
    assert not single.is_legal(-1) and not single.is_legal(illegal)
    assert all(single.is_legal(a) for a in single.legal_actions())


def test_handed_out_arrays_are_never_overwritten():
    single = SingleGame(load_rules("official", players=3))
    single.reset(np.random.default_rng(2), deal_seed=5)
    masks, views = [], []
    for _ in range(30):
        if single.over:
            break
        mask = single.legal_mask()
        obs = single.observe(single.actor)
        masks.append((mask, mask.copy()))
        views.append((obs, obs.copy()))
        obs[:] = -7.0  # the caller's own array
        np.testing.assert_array_equal(single.observe(single.actor), views[-1][1])
        single.step(single.legal_actions()[-1])
    for kept, value in masks + views:
        np.testing.assert_array_equal(kept if kept.dtype == np.int8 else value, value)
    assert all(not kept.flags.writeable for kept, _ in masks)


def test_classic_last_before_reset_and_numpy_actions_match_the_stack():
    for make in (uno_v1.env, uno_v1.classic_stack):
        aec = make()
        with pytest.raises(AttributeError, match="agent_selection cannot be accessed before reset"):
            aec.last()
    fused, stack = uno_v1.env(), uno_v1.classic_stack()
    for aec in (fused, stack):
        aec.reset(seed=3)
    for _ in range(40):
        if not fused.agents:
            break
        a, b = fused.last(), stack.last()
        for key in ("observation", "action_mask"):
            np.testing.assert_array_equal(a[0][key], b[0][key])
        assert a[1:] == b[1:]
        if a[2] or a[3]:
            action = None
        else:
            action = np.int32(np.flatnonzero(a[0]["action_mask"])[0])
        fused.step(action)
        stack.step(action)
    # a NumPy integer that is illegal ends the game as the stack does
    fused.reset(seed=4)
    stack.reset(seed=4)
    illegal = np.int64(np.flatnonzero(fused.last()[0]["action_mask"] == 0)[0])
    fused.step(illegal)
    stack.step(illegal)
    assert min(fused.rewards.values()) == -1
    assert fused.rewards == stack.rewards and fused.terminations == stack.terminations


def test_copied_games_and_envs_play_on_their_own():
    """deepcopy / pickle give each copy its own game, stepping as the original does."""
    gen = np.random.default_rng(9)
    game = SingleGame(load_rules("official", players=3))
    game.reset(gen, deal_seed=21)
    for copy_of in (copy.deepcopy, lambda g: pickle.loads(pickle.dumps(g))):
        twin = copy_of(game)
        for _ in range(30):
            if game.over:
                break
            legal = game.legal_actions()
            action = legal[int(gen.integers(len(legal)))]
            assert twin.legal_actions() == legal
            game.step(action)
            twin.step(action)
            for seat in range(3):
                np.testing.assert_array_equal(twin.observe(seat), game.observe(seat))
            assert states_equal(twin.live_state, 0, to_reference(game.live_state, 0)) == []
    aec = uno_v1.env(players=2)
    aec.reset(seed=1)
    clone = copy.deepcopy(aec)
    for _ in range(20):
        obs, *_ = aec.last()
        twin_obs, *_ = clone.last()
        np.testing.assert_array_equal(obs["observation"], twin_obs["observation"])
        action = int(np.flatnonzero(obs["action_mask"])[0])
        aec.step(action)
        clone.step(action)


def test_structures_of_another_type_play_through_the_batched_api(monkeypatch):
    """Where a structure is not of the type the single-game kernels read, SingleGame plays
    through the batched API: the same game."""
    from uno_rl.core.compiled import nb_session

    calls = []
    monkeypatch.setattr(nb_session, "addresses", lambda *structures: calls.append(1))
    rules = load_rules("official", players=3, stacking="any")
    assert play_side_by_side(rules, seed=12, games=2) > 0
    assert len(calls) == 2  # asked once an episode, and refused


def test_a_game_stepped_from_several_threads():
    """The rule tables' work arrays belong to a thread: a game handed between threads finds
    the calling thread's, and plays on as the reference does."""
    from concurrent.futures import ThreadPoolExecutor

    rules = load_rules("official", players=4)
    single, oracle = SingleGame(rules), ReferenceGame(rules, 99)
    single.reset(np.random.default_rng(0), deal_seed=99)
    gen = np.random.default_rng(4)
    with ThreadPoolExecutor(max_workers=2) as pool:
        for turn in range(200):
            if single.over:
                break
            legal = oracle.legal_actions()
            action = legal[int(gen.integers(len(legal)))]
            if turn % 3:
                outcome = pool.submit(single.step, action).result()
            else:
                outcome = single.step(action)
            assert outcome == oracle.step(action)
            assert single.legal_actions() == (oracle.legal_actions() if not single.over else [])
            np.testing.assert_array_equal(
                single.observe(single.actor), oracle.observe(oracle.actor)
            )
    assert turn > 50
