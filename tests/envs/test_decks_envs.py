"""Every env on every shipped deck (rules specification §11): spaces, conformance, play, render.

The envs follow the deck's card layout (``rules.layout``): a classic deck keeps the 77
actions and 583 observation values, a deck with section-11 cards plays in the extended
layout (122 actions, 877 values, a 1397-value state). Checked here on each shipped deck at
2 and 4 players: PettingZoo's ``api_test`` / ``parallel_api_test``, Gymnasium's
``check_env``, random legal play (masks never empty, observations and states inside their
spaces), both renderings, the vector env, error messages named by the layout, and the
extended state's pieces against the core State copy.
"""

from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, parallel_api_test

from uno_rl.core.convert import to_state
from uno_rl.core.decks import available_decks
from uno_rl.core.layout import CLASSIC, EXTENDED
from uno_rl.core.phases import OVER
from uno_rl.envs import uno_v1
from uno_rl.envs.game import SingleGame, check_action
from uno_rl.envs.gym_env import UnoEnv
from uno_rl.envs.state_vector import MAX_SEATS, STATE_SIZE, state_layout
from uno_rl.envs.vector import UnoVectorEnv
from uno_rl.render.card_art import NEW_LABELS, card_image, card_label
from uno_rl.render.frames import FRAME_SHAPE, _legal_lines, render_frame
from uno_rl.render.text import color_card, render_text, strip_ansi

DECKS = ("classic", "modern-112", "swap-112", "extension", "extreme")
CONFIGS = [(deck, players) for deck in DECKS for players in (2, 4)]
KNOWN_WARNINGS = (
    "Observation space for each agent probably should be",
    "Observation is not a NumPy array",
    "Action mask numpy array is all zeros",
)


def _ids(config) -> str:
    return f"{config[0]}-{config[1]}p"


def test_every_shipped_deck_is_tested():
    assert set(DECKS) <= set(available_decks())


def _check_warnings(caught) -> None:
    unexpected = [str(w.message) for w in caught if not str(w.message).startswith(KNOWN_WARNINGS)]
    assert not unexpected, unexpected


# ------------------------------------------------------------------ spaces
@pytest.mark.parametrize("config", CONFIGS, ids=_ids)
def test_spaces_follow_the_deck(config):
    deck, players = config
    layout = CLASSIC if deck == "classic" else EXTENDED
    aec = uno_v1.raw_env(players=players, deck=deck)
    assert aec.layout is layout
    space = aec.observation_space("player_0")
    assert aec.action_space("player_0").n == layout.num_actions
    assert space["observation"].shape == (layout.obs_size,)
    assert space["action_mask"].shape == (layout.num_actions,)
    assert aec.state_space.shape == (state_layout(layout).size,)
    gym = UnoEnv(players=players, deck=deck)
    assert gym.action_space.n == layout.num_actions
    assert gym.observation_space.shape == (layout.obs_size,)
    vec = UnoVectorEnv(num_envs=3, players=players, deck=deck)
    assert vec.single_action_space.n == layout.num_actions
    assert vec.observation_space.shape == (3, layout.obs_size)


def test_classic_deck_keeps_todays_spaces():
    aec = uno_v1.raw_env(deck="classic")
    assert aec.action_space("player_0").n == 77
    assert aec.observation_space("player_0")["observation"].shape == (583,)
    assert aec.state_space.shape == (STATE_SIZE,) == (900,)
    assert (CLASSIC.num_actions, CLASSIC.obs_size) == (77, 583)
    assert (EXTENDED.num_actions, EXTENDED.obs_size, state_layout(EXTENDED).size) == (
        122,
        877,
        1397,
    )


# ------------------------------------------------------------- conformance
@pytest.mark.parametrize("config", CONFIGS, ids=_ids)
def test_pettingzoo_api_test_on_each_deck(config):
    deck, players = config
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(uno_v1.env(players=players, deck=deck), num_cycles=200)
    _check_warnings(caught)


@pytest.mark.parametrize("config", CONFIGS, ids=_ids)
def test_parallel_api_test_on_each_deck(config):
    deck, players = config
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        parallel_api_test(uno_v1.parallel_env(players=players, deck=deck), num_cycles=200)
    _check_warnings(caught)


@pytest.mark.parametrize("config", CONFIGS, ids=_ids)
def test_gymnasium_check_env_on_each_deck(config):
    deck, players = config
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(UnoEnv(players=players, deck=deck), skip_render_check=True)


# ------------------------------------------------------------------- play
@pytest.mark.parametrize("config", CONFIGS, ids=_ids)
def test_random_legal_play_and_render_on_each_deck(config):
    """Random legal play for 300 decisions: the acting agent's mask is never empty, every
    observation and state lies in its space, and both renderings work at every 25th step."""
    deck, players = config
    aec = uno_v1.raw_env(players=players, deck=deck, render_mode="ansi")
    frames = uno_v1.raw_env(players=players, deck=deck, render_mode="rgb_array")
    obs_space = aec.observation_space("player_0")
    gen = np.random.default_rng(7)
    aec.reset(seed=3)
    frames.reset(seed=3)
    seen = set()
    for step in range(300):
        agent = aec.agent_selection
        if aec.terminations[agent] or aec.truncations[agent]:
            aec.reset(seed=int(gen.integers(1 << 30)))
            frames.reset(seed=0)
            continue
        obs = aec.observe(agent)
        assert obs_space.contains(obs), f"{deck}: observation out of its space at step {step}"
        assert aec.state_space.contains(aec.state())
        legal = np.flatnonzero(obs["action_mask"])
        assert legal.size, f"{deck}: empty mask for the agent to act at step {step}"
        seen.update(int(k) for k in np.flatnonzero(aec.privileged_game.game.discard))
        if step % 25 == 0:
            text = strip_ansi(aec.render())
            assert "top card:" in text
            frames._game.game = aec._game.game  # the same game, drawn
            frames._game.invalidate()
            assert frames.render().shape == FRAME_SHAPE
        aec.step(int(legal[gen.integers(legal.size)]))
    if deck != "classic":
        assert max(seen) >= 54 or deck == "extreme", f"no new card was played on {deck}"


@pytest.mark.parametrize("deck", DECKS)
def test_vector_env_random_play_on_each_deck(deck):
    env = UnoVectorEnv(num_envs=8, players=3, deck=deck)
    obs, info = env.reset(seed=1)
    gen = np.random.default_rng(0)
    for _ in range(40):
        masks = info["action_mask"]
        assert masks.shape == (8, env.layout.num_actions) and masks.any(axis=1).all()
        assert env.observation_space.contains(obs)
        actions = np.array([gen.choice(np.flatnonzero(m)) for m in masks])
        obs, _, _, _, info = env.step(actions)


# ------------------------------------------------------------------ errors
def test_actions_are_checked_against_the_layout():
    assert check_action(121, EXTENDED.num_actions) == 121
    with pytest.raises(ValueError, match=r"out of range \[0, 122\)"):
        check_action(122, EXTENDED.num_actions)
    with pytest.raises(ValueError, match=r"out of range \[0, 77\)"):
        check_action(77)
    game = SingleGame(uno_v1.raw_env(deck="extension").rules)
    game.reset(np.random.default_rng(0))
    illegal = next(a for a in range(77, 122) if not game.legal_mask()[a])
    name = EXTENDED.action_name(illegal)
    with pytest.raises(ValueError, match=rf"illegal action {illegal} \({name}\)"):
        game.step(illegal)
    with pytest.raises(ValueError, match=r"out of range \[0, 122\)"):
        game.step(122)
    env = UnoEnv(deck="extension", illegal_action="raise")
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"\[0, 122\)"):
        env.step(200)
    vec = UnoVectorEnv(num_envs=2, deck="extension")
    vec.reset(seed=0)
    with pytest.raises(ValueError, match=r"game 1: action 122 is out of range \[0, 122\)"):
        vec.step(np.array([60, 122]))
    aec = uno_v1.env(deck="extension")
    aec.reset(seed=0)
    with pytest.raises(ValueError, match=r"\[0, 122\)"):
        aec.step(122)
    classic = uno_v1.env()
    classic.reset(seed=0)
    with pytest.raises(ValueError, match=r"\[0, 77\)"):
        classic.step(77)


# ------------------------------------------------------------------ render
def test_new_cards_are_named_and_drawn():
    labels = [card_label(k) for k in range(54, EXTENDED.num_kinds)]
    assert labels[:4] == ["DISCARD ALL"] * 4 and labels[4] == "HIT 2" and labels[8] == "+2?"
    assert set(labels) == set(NEW_LABELS.values())
    with pytest.raises(ValueError, match="card kind"):
        card_label(75)
    assert strip_ansi(color_card(57)) == "[blue discard all]"
    assert strip_ansi(color_card(74, count=2)) == "[boomerang] x2"
    assert strip_ansi(color_card(7, layout=CLASSIC)) == "[red 7]"
    faces = {card_image(k, 60, 90, False).tobytes() for k in range(EXTENDED.num_kinds)}
    assert len(faces) == EXTENDED.num_kinds  # every kind its own face
    red, wild = card_image(54, 60, 90, False), card_image(68, 60, 90, False)
    assert red.getpixel((12, 15))[:3] == (215, 38, 0)  # a red Discard All: red
    assert wild.getpixel((12, 15))[:3] == (24, 24, 24)  # a new wild: black
    lines = _legal_lines([60, 64, 65, 77, 89, 92, 121], EXTENDED)
    assert lines == [
        "play red DISCARD ALL",
        "wild hit-fire naming red/blue",
        "draw",
        "play boomerang",
        "target the player 1/2 seat(s) clockwise",
    ]
    assert _legal_lines([64, 65]) == ["swap hands with the player 1/2 seat(s) clockwise"]


def _play_until(env, condition, seed=0, limit=3000):
    """Random legal play on the AEC ``env`` until ``condition(fast_game)``; the game."""
    gen = np.random.default_rng(seed)
    env.reset(seed=seed)
    for _ in range(limit):
        game = env.privileged_game.game
        if game.phase == OVER:
            env.reset(seed=int(gen.integers(1 << 30)))
            continue
        if condition(game):
            return game
        legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
        env.step(int(legal[gen.integers(legal.size)]))
    raise AssertionError("the condition never held")


def test_render_shows_the_dispenser_presses():
    env = uno_v1.raw_env(players=3, deck="extreme", render_mode="ansi")
    game = _play_until(env, lambda g: g.presses > 0)
    text = strip_ansi(env.render())
    assert f"{game.presses} presses since it fired" in text and "dispenser:" in text
    frame = uno_v1.raw_env(players=3, deck="extreme", render_mode="rgb_array")
    frame.reset(seed=0)
    frame._game.game = env._game.game
    frame._game.invalidate()
    assert frame.render().shape == FRAME_SHAPE
    classic = uno_v1.raw_env(players=3, render_mode="ansi")
    classic.reset(seed=0)
    assert "dispenser" not in classic.render() and "draw pile:" in classic.render()


def test_render_shows_a_swap_to_the_swappers_only():
    env = uno_v1.raw_env(players=4, deck="swap-112", seven_zero=True, render_mode="ansi")
    game = _play_until(env, lambda g: g.swap_seats[0] >= 0 and g.phase != OVER, seed=1)
    a, b = game.swap_seats
    state = env.privileged_game.state
    for seat in range(4):
        text = strip_ansi(render_text(state, 0, viewer=seat))
        assert f"last hand swap: player_{a} <-> player_{b}" in text
        assert ("gave in the swap:" in text) == (seat in (a, b))
        assert render_frame(state, 0, viewer=seat).shape == FRAME_SHAPE


# ------------------------------------------------------------------- state
def test_extended_state_pieces_match_the_core_state():
    env = uno_v1.raw_env(players=4, deck="swap-112", seven_zero=True)
    game = _play_until(env, lambda g: g.swap_seats[0] >= 0, seed=2)
    at = state_layout(EXTENDED)
    state, s = env.state(), env.privileged_game.state

    def piece(name):
        return state[at.slices[name]]

    k = EXTENDED.num_kinds
    np.testing.assert_array_equal(piece("hands")[: 4 * k], s.hands[0].reshape(-1))
    pile = np.bincount(s.pile[0, : s.pile_size[0]], minlength=k)
    np.testing.assert_array_equal(piece("draw_pile"), pile)
    np.testing.assert_array_equal(piece("discard"), s.discard[0])
    seats = piece("swap_seats").reshape(2, MAX_SEATS)
    assert [int(np.argmax(row)) for row in seats] == s.swap_seats[0].tolist()
    np.testing.assert_array_equal(piece("swap_given"), s.swap_given[0].reshape(-1))
    assert piece("shuffled")[0] == float(s.shuffled[0])
    assert piece("dispenser_presses")[0] == s.presses[0]
    assert piece("cause").sum() == (1.0 if game.cause >= 0 else 0.0)
    assert env.state_space.contains(state)


# -------------------------------------------------------------------- leaks
def _hide_differently(game, seat: int, gen: np.random.Generator) -> bool:
    """Change in ``game`` only what ``seat`` cannot see: a card of another hand exchanged
    with a draw-pile card of another kind, and the hands of a swap between two others."""
    changed = False
    others = [s for s in range(game.num_players) if s != seat and sum(game.hands[s])]
    if others and game.pile:
        owner = others[int(gen.integers(len(others)))]
        kind = int(gen.choice(np.flatnonzero(game.hands[owner])))
        spots = [j for j, card in enumerate(game.pile) if card != kind]
        if spots:
            j = spots[int(gen.integers(len(spots)))]
            game.hands[owner][kind] -= 1
            game.hands[owner][game.pile[j]] += 1
            game.pile[j] = kind
            changed = True
    if game.swap_seats[0] >= 0 and seat not in game.swap_seats:
        game.swap_given = [list(game.swap_given[1]), [0] * len(game.swap_given[0])]
        changed = True
    return changed


def test_extended_observation_and_render_hide_what_a_seat_may_not_know():
    """Twins of a game that differ only in other seats' hidden cards (or in the hands of a
    swap between two other seats) give a seat the same observation and the same text; the
    hands of a swap the seat made are in its observation."""
    env = uno_v1.raw_env(players=4, deck="swap-112", seven_zero=True)
    twin_game = SingleGame(env.rules)
    gen = np.random.default_rng(5)
    env.reset(seed=11)
    checked = swaps = known = 0
    for _ in range(400):
        game = env.privileged_game.game
        if game.phase == OVER:
            env.reset(seed=int(gen.integers(1 << 30)))
            continue
        for seat in range(4):
            twin = copy.deepcopy(game)
            if not _hide_differently(twin, seat, gen):
                continue
            twin_game.game = twin  # the env's own observation of the twin
            np.testing.assert_array_equal(
                twin_game.observe(seat), env.privileged_game.observe(seat)
            )
            if checked % 10 == 0:
                text = render_text(to_state([game]), 0, viewer=seat)
                assert render_text(to_state([twin]), 0, viewer=seat) == text
            checked += 1
            swaps += game.swap_seats[0] >= 0 and seat not in game.swap_seats
        if game.swap_seats[0] >= 0:  # a swapper sees both hands of its swap
            seat = game.swap_seats[0]
            twin = copy.deepcopy(game)
            twin.swap_given = [list(twin.swap_given[1]), list(twin.swap_given[0])]
            if twin.swap_given[0] != game.swap_given[0]:
                assert not np.array_equal(twin.observe(seat), game.observe(seat))
                known += 1
        legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
        env.step(int(legal[gen.integers(legal.size)]))
    assert checked > 500 and swaps > 20 and known > 5, (checked, swaps, known)
