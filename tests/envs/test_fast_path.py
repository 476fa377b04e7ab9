"""The AEC env's fast one-game path (FastGame, SingleGame) against the reference.

``uno_rl.envs.game`` caches the legal actions per decision, takes the play and draw branches
of ``step`` itself and writes the observation as bytes; here every decision of random games
is compared with :class:`~uno_rl.core.reference.ReferenceGame`: legal mask, every seat's
observation, step outcome, hands and pile.
"""

import copy
import pickle

import numpy as np
import pytest

from uno_rl.core import available_presets, load_rules
from uno_rl.core.actions import DRAW, NUM_ACTIONS, PASS
from uno_rl.core.phases import OVER, PLAY
from uno_rl.core.reference import ReferenceGame
from uno_rl.core.scalar import ScalarGame
from uno_rl.envs import uno_v1
from uno_rl.envs.game import FastGame, SingleGame

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


def play_side_by_side(rules, seed: int, games: int) -> int:
    """Play ``games`` episodes in a SingleGame and the reference with the same actions."""
    gen = np.random.default_rng(seed)
    single, decisions = SingleGame(rules), 0
    for _ in range(games):
        deal = int(gen.integers(2**62))
        single.reset(gen, deal_seed=deal)
        oracle = ReferenceGame(rules, deal)
        while oracle.phase != OVER:
            legal = oracle.legal_actions()
            mask = single.legal_mask()
            assert np.flatnonzero(mask).tolist() == legal
            assert single.actor == oracle.actor and single.phase == oracle.phase
            for seat in range(rules.players):
                want = oracle.observe(seat)
                got = single.observe(seat)
                assert got.dtype == np.float32 and got.shape == want.shape
                np.testing.assert_array_equal(got, want)
            plays = [a for a in legal if a not in (DRAW, PASS)]
            pool = plays if plays and gen.random() < 0.9 else legal
            action = pool[int(gen.integers(len(pool)))]
            if gen.random() < 0.2:
                action = np.int64(action)  # NumPy integers take the reference's own path
            assert single.step(action) == oracle.step(int(action))
            assert single.game.hands == oracle.hands and single.game.pile == oracle.pile
            assert single.game.scores == oracle.scores
            assert single.game.skip_turn == oracle.skip_turn
            assert single.game.multi_count == oracle.multi_count
            decisions += 1
        assert single.over and not single.legal_mask().any()
    return decisions


@pytest.mark.parametrize("preset", available_presets())
@pytest.mark.parametrize("players", [2, 3, 7])
def test_fast_path_matches_reference_on_presets(preset, players):
    assert play_side_by_side(load_rules(preset, players=players), seed=players, games=4) > 0


@pytest.mark.parametrize("switches", SWITCHES, ids=lambda s: ",".join(s))
def test_fast_path_matches_reference_on_switches(switches):
    rules = load_rules("official", players=3, **switches)
    assert play_side_by_side(rules, seed=5, games=4) > 0


def test_fast_observe_equals_the_scalar_observation_in_every_phase():
    """Negative direction, pending draws, drawn card, a +4 on top, a revealed hand, scores."""
    rules = load_rules("official", players=4, match=True, stacking="any", match_target=100)
    gen = np.random.default_rng(0)
    seen = set()
    for deal in range(30):
        game = FastGame(rules, deal)
        while game.phase != OVER and not game.match_over:
            seen.add(game.phase)
            seen.update({"reverse"} if game.direction < 0 else set())
            seen.update({"pending"} if game.pending else set())
            seen.update({"scores"} if any(game.scores) else set())
            for seat in range(rules.players):
                np.testing.assert_array_equal(game.observe(seat), ScalarGame.observe(game, seat))
            legal = game.legal_actions()
            game.step(legal[int(gen.integers(len(legal)))])
    assert {"reverse", "pending", "scores", PLAY, 1, 2}.issubset(seen)


def test_fast_game_illegal_and_malformed_actions_change_nothing():
    game = FastGame(load_rules("official"), 7)
    legal = list(game.legal_actions())
    illegal = next(a for a in range(NUM_ACTIONS) if a not in legal)
    before = (list(map(list, game.hands)), list(game.pile), game.turn, game.actor)
    with pytest.raises(ValueError, match=f"illegal action {illegal}"):
        game.step(illegal)
    with pytest.raises(ValueError, match="must be an integer"):
        game.step(True)
    with pytest.raises(ValueError, match="illegal action"):
        game.step(NUM_ACTIONS + 3)
    assert (list(map(list, game.hands)), list(game.pile), game.turn, game.actor) == before
    assert game.legal_actions() == legal == ReferenceGame(load_rules("official"), 7).legal_actions()


def test_fast_game_over_raises_and_invalidate_forgets_the_cache():
    rules = load_rules("official", max_turns=10)
    single = SingleGame(rules)
    single.reset(np.random.default_rng(0), deal_seed=11)
    game = single.game
    cached = game.legal_actions()
    assert game.legal_actions() is cached  # computed once per decision
    seat = game.actor
    game.hands[seat] = [0] * 54
    game.hands[seat][0] = 1  # a red 0 only
    single.invalidate()
    assert game.legal_actions() == ReferenceGame.legal_actions(game)
    assert single.legal_mask().sum() == len(game.legal_actions())
    while not single.over:
        single.step(single.legal_actions()[0])
    with pytest.raises(ValueError, match="the game is over"):
        single.step(DRAW)
    with pytest.raises(ValueError, match="the game is over"):
        game.step(DRAW)


def test_single_game_errors_unchanged_by_the_fast_path():
    single = SingleGame(load_rules("official"))
    with pytest.raises(RuntimeError, match="reset"):
        single.step(0)
    with pytest.raises(TypeError, match="action must be an integer"):
        single.step(None)
    single.reset(np.random.default_rng(1))
    illegal = next(a for a in range(NUM_ACTIONS) if not single.legal_mask()[a])
    with pytest.raises(ValueError, match=f"illegal action {illegal} .* legal actions:"):
        single.step(illegal)
    with pytest.raises(ValueError, match="out of range"):
        single.step(-1)
    assert not single.is_legal(-1) and not single.is_legal(illegal)
    assert all(single.is_legal(a) for a in single.legal_actions())


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


def test_copied_games_and_envs_observe_their_own_state():
    """deepcopy / pickle give each copy its own observation workspace."""
    gen = np.random.default_rng(9)
    game = FastGame(load_rules("official", players=3), 21)
    for copy_of in (copy.deepcopy, lambda g: pickle.loads(pickle.dumps(g))):
        twin = copy_of(game)
        for _ in range(30):
            if game.phase == OVER:
                break
            legal = game.legal_actions()
            action = legal[int(gen.integers(len(legal)))]
            assert twin.legal_actions() == legal
            game.step(action)
            for seat in range(3):
                np.testing.assert_array_equal(game.observe(seat), ScalarGame.observe(game, seat))
            twin.step(action)
            for seat in range(3):
                np.testing.assert_array_equal(twin.observe(seat), game.observe(seat))
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
