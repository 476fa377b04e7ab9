"""Nothing hidden leaks: what an env shows a seat is unchanged when only hidden cards change.

Each test plays twin copies of an env (Gymnasium single-agent, the vector env, PettingZoo AEC
and parallel) from the same seed, then changes in the second twin only what the learner's
seat cannot see: an opponent's card swapped with one low in the draw pile, two opponents'
cards swapped, the bottom half of the draw pile reordered, the deal seed and the key every
later reshuffle derives from. Both twins then play on with the same learner decisions, and
for as long as the two games agree on everything the seat can see (:func:`visible`, read from
the raw state, independent of the observation code) the seat's observation, reward, flags,
``info`` and ``render()`` text must be identical. Opponents draw and never play
(:func:`drawer_choice`), so the hidden cards stay hidden for a long stretch of play.

Separately, no ``info`` key names a seed, and no value in ``info`` or the rendered text is a
deal seed.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from uno_rl.core.cards import KIND_POINTS, WILD_DRAW_FOUR
from uno_rl.core.phases import DRAWN, OVER
from uno_rl.core.state import State
from uno_rl.envs import uno_v1
from uno_rl.envs.game import SingleGame
from uno_rl.envs.gym_env import UnoEnv
from uno_rl.envs.vector import UnoVectorEnv

DRAW, PASS, ACCEPT = 60, 61, 63
#: XORed into the twin's deal seed and key: later reshuffles (hidden) differ.
OTHER_KEY = 0x9E37_79B9_7F4A_7C15
SETUPS = [("official", 2), ("official", 3), ("official", 4), ("party", 4), ("kids", 2)]


# ----------------------------------------------------------------- players
def drawer_choice(mask: np.ndarray) -> int:
    """Draw, keep the drawn card, accept the draws: a choice that depends on the phase alone,
    so an opponent's hidden hand never changes what the others see."""
    for action in (DRAW, PASS, ACCEPT):
        if mask[action]:
            return action
    return int(np.flatnonzero(mask)[0])


def drawer(observation, mask, rng) -> int:
    return drawer_choice(mask)


drawer.needs_observation = False


def batched_drawer(observations, masks, rng) -> np.ndarray:
    return np.array([drawer_choice(m) for m in masks], np.int64)


batched_drawer.needs_observation = False


def learner_choice(mask: np.ndarray, rng: np.random.Generator) -> int:
    """Mostly plays a card (so rounds end), sometimes draws."""
    legal = np.flatnonzero(mask)
    plays = legal[legal != DRAW]
    if plays.size and rng.random() < 0.8:
        return int(rng.choice(plays))
    return int(rng.choice(legal))


# ------------------------------------------------------------ hidden changes
def _swap_hand_and_pile(hand, pile, bottom: int) -> bool:
    """Swap a card of ``hand`` with a different card of equal points in ``pile[:bottom]``."""
    for kind in np.flatnonzero(np.asarray(hand)):
        for j in range(bottom):
            other = int(pile[j])
            if other != kind and KIND_POINTS[other] == KIND_POINTS[kind]:
                hand[kind] -= 1
                hand[other] += 1
                pile[j] = kind
                return True
    return False


def _swap_hands(first, second) -> bool:
    """Exchange a card of ``first`` with a different card of equal points of ``second``."""
    for kind in np.flatnonzero(np.asarray(first)):
        for other in np.flatnonzero(np.asarray(second)):
            if other != kind and KIND_POINTS[other] == KIND_POINTS[kind]:
                first[kind] -= 1
                first[other] += 1
                second[other] -= 1
                second[kind] += 1
                return True
    return False


def hide(hands, pile, size: int, learner: int, rng: np.random.Generator) -> list[str]:
    """Change, in place, cards the seat ``learner`` cannot see; what was changed.

    ``hands`` is (P, 54) counts (rows item-assignable), ``pile`` the draw pile (index 0 the
    bottom) holding ``size`` cards. Swaps keep hand sizes and card points.
    """
    others = [s for s in range(len(hands)) if s != learner]
    done = []
    opponent = others[int(rng.integers(len(others)))]
    if _swap_hand_and_pile(hands[opponent], pile, size // 2):
        done.append("an opponent's card <-> the draw pile")
    if len(others) >= 2:
        first, second = rng.choice(others, 2, replace=False)
        if _swap_hands(hands[int(first)], hands[int(second)]):
            done.append("two opponents' cards")
    bottom = [int(pile[j]) for j in range(size // 2)]
    order = rng.permutation(len(bottom))
    for j, q in enumerate(order):
        pile[j] = bottom[q]
    if [int(pile[j]) for j in range(size // 2)] != bottom:
        done.append("the draw pile's order")
    return done


def hide_single(single: SingleGame, learner: int, rng: np.random.Generator) -> list[str]:
    game = single.game  # a copy: assigned back below
    done = hide(game.hands, game.pile, len(game.pile), learner, rng)
    game.key ^= OTHER_KEY
    single.game = game
    single.deal_seed ^= OTHER_KEY
    return [*done, "the deal seed and key"]


def hide_state(state: State, seats: np.ndarray, rng: np.random.Generator) -> list[str]:
    done = []
    for g in range(state.num_games):
        done += hide(state.hands[g], state.pile[g], int(state.pile_size[g]), int(seats[g]), rng)
    state.key ^= np.uint64(OTHER_KEY)
    state.invalidate()
    return [*done, "the deal seeds and keys"]


# --------------------------------------------------------------- the oracle
def visible(state: State, g: int, seat: int) -> tuple:
    """Everything seat ``seat`` may know of game ``g``, read from the raw state."""
    s = state
    phase, actor = int(s.phase[g]), int(s.actor[g])
    view: list[Any] = [
        s.hands[g, seat].tobytes(), s.hand_size[g].tobytes(), s.discard[g].tobytes(),
        int(s.top[g]), int(s.color[g]), int(s.direction[g]), phase,
        actor if phase != OVER else -1, int(s.pending[g]), int(s.pile_size[g]),
        int(s.turn[g]), s.scores[g].tobytes(), int(s.round_index[g]), int(s.winner[g]),
        bool(s.truncated[g]), int(s.dealer[g]),
    ]  # fmt: skip
    if phase == DRAWN and actor == seat:
        view.append(int(s.drawn[g]))
    if s.top[g] == WILD_DRAW_FOUR:
        view += [int(s.prev_color[g]), int(s.draw4_player[g])]
    if s.reveal_viewer[g] == seat:
        view += [s.revealed[g].tobytes(), int(s.reveal_target[g])]
    if phase == OVER:  # hands are counted for the score, in the open
        view.append((s.hands[g].astype(np.int64) @ KIND_POINTS).tobytes())
    return tuple(view)


# -------------------------------------------------------------- comparisons
def assert_same(a: Any, b: Any, where: str) -> None:
    """``a`` and ``b`` equal: dicts key by key, arrays by dtype, shape and values."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys(), where
        for key in a:
            assert_same(a[key], b[key], f"{where}[{key!r}]")
    elif isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray), where
        assert a.dtype == b.dtype and a.shape == b.shape, where
        assert np.array_equal(a, b), where
    elif isinstance(a, tuple | list):
        assert type(a) is type(b) and len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            assert_same(x, y, f"{where}[{i}]")
    else:
        assert type(a) is type(b) and a == b, f"{where}: {a!r} != {b!r}"


class Tally:
    """Counts the comparisons a test makes (each compared item of a view is one)."""

    def __init__(self) -> None:
        self.count = 0

    def same(self, a: Any, b: Any, where: str) -> None:
        assert_same(a, b, where)
        self.count += 1


def _rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


# ------------------------------------------------------------------- the envs
@pytest.mark.parametrize("preset, players", SETUPS)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_gymnasium_env_shows_nothing_hidden(preset, players, seed):
    def make() -> UnoEnv:
        return UnoEnv(preset, players=players, learner_seat="random", opponents=drawer,
                      render_mode="ansi")  # fmt: skip

    a, b = make(), make()
    out_a, out_b = a.reset(seed=seed), b.reset(seed=seed)
    seat = a.learner_seat
    changed = hide_single(b.privileged_game, seat, _rng(seed))
    assert len(changed) >= 2, changed
    assert a.privileged_game.game.hands != b.privileged_game.game.hands or (
        a.privileged_game.game.pile != b.privileged_game.game.pile
    )
    tally, rng_a, rng_b, over = Tally(), _rng(seed + 10), _rng(seed + 10), False
    for step in range(400):
        if visible(a.privileged_game.state, 0, seat) != visible(b.privileged_game.state, 0, seat):
            break  # the seat now sees a difference (it drew a reordered card): views may differ
        tally.same(out_a, out_b, f"step {step}")  # observation, (reward, flags,) info
        tally.same(a.render(), b.render(), f"step {step} render")
        tally.same(a.action_masks(), b.action_masks(), f"step {step} action_masks")
        if over:
            break
        out_a = a.step(learner_choice(out_a[-1]["action_mask"], rng_a))
        out_b = b.step(learner_choice(out_b[-1]["action_mask"], rng_b))
        over = out_a[2] or out_a[3]
    assert tally.count >= 30, tally.count


@pytest.mark.parametrize("preset, players", SETUPS)
def test_vector_env_shows_nothing_hidden(preset, players):
    n = 64

    def make() -> UnoVectorEnv:
        return UnoVectorEnv(n, preset, players=players, learner_seat="random",
                            opponents=batched_drawer)  # fmt: skip

    a, b = make(), make()
    out_a, out_b = a.reset(seed=5), b.reset(seed=5)
    changed = hide_state(b.privileged_state, b.seat, _rng(5))
    assert len(changed) > n, changed
    tally, rng, alive = Tally(), _rng(6), np.ones(n, bool)
    for step in range(60):
        for g in np.flatnonzero(alive):
            seat = int(a.seat[g])
            if visible(a.privileged_state, g, seat) != visible(b.privileged_state, g, seat):
                alive[g] = False
        rows = np.flatnonzero(alive)
        if not rows.size:
            break
        obs_a, info_a, obs_b, info_b = out_a[0], out_a[-1], out_b[0], out_b[-1]
        for g in rows:
            tally.same(obs_a[g], obs_b[g], f"step {step} game {g} observation")
            for key in info_a:
                tally.same(info_a[key][g], info_b[key][g], f"step {step} game {g} info {key}")
            if len(out_a) == 5:
                for k, name in ((1, "reward"), (2, "terminated"), (3, "truncated")):
                    tally.same(out_a[k][g], out_b[k][g], f"step {step} game {g} {name}")
        assert info_a.keys() == info_b.keys()
        actions_a = np.array([learner_choice(m, rng) for m in info_a["action_mask"]])
        actions_b = np.where(alive, actions_a, [drawer_choice(m) for m in info_b["action_mask"]])
        out_a, out_b = a.step(actions_a), b.step(actions_b)
        alive &= ~(out_a[2] | out_a[3])  # their next deal is not the changed one: done with them
    assert tally.count >= 2000, tally.count


@pytest.mark.parametrize("preset, players", SETUPS)
@pytest.mark.parametrize("seed", [0, 1])
def test_pettingzoo_aec_env_shows_nothing_hidden(preset, players, seed):
    a, b = (
        uno_v1.env(preset=preset, players=players, render_mode="ansi", render_agent="player_0")
        for _ in range(2)
    )
    a.reset(seed=seed)
    b.reset(seed=seed)
    learner, seat = "player_0", 0
    hide_single(b.unwrapped.privileged_game, seat, _rng(seed))
    tally, rng_a, rng_b = Tally(), _rng(seed + 20), _rng(seed + 20)
    for step in range(2000):
        game_a, game_b = a.unwrapped.privileged_game, b.unwrapped.privileged_game
        if visible(game_a.state, 0, seat) != visible(game_b.state, 0, seat) or not a.agents:
            break
        tally.same(a.agent_selection, b.agent_selection, f"step {step} agent_selection")
        tally.same(a.render(), b.render(), f"step {step} render")  # player_0's view, any turn
        tally.same(a.observe(learner), b.observe(learner), f"step {step} observation")
        for name in ("rewards", "terminations", "truncations", "infos", "_cumulative_rewards"):
            mine_a, mine_b = getattr(a, name).get(learner), getattr(b, name).get(learner)
            tally.same(mine_a, mine_b, f"step {step} {name}")
        agent = a.agent_selection
        done = a.terminations[agent] or a.truncations[agent]
        if agent == learner:
            tally.same(a.last(), b.last(), f"step {step} last()")
        if done:
            a.step(None)
            b.step(None)
        elif agent == learner:
            a.step(learner_choice(a.observe(agent)["action_mask"], rng_a))
            b.step(learner_choice(b.observe(agent)["action_mask"], rng_b))
        else:
            a.step(drawer_choice(a.observe(agent)["action_mask"]))
            b.step(drawer_choice(b.observe(agent)["action_mask"]))
    assert tally.count >= 100, tally.count


@pytest.mark.parametrize("preset, players", SETUPS)
def test_pettingzoo_parallel_env_shows_nothing_hidden(preset, players):
    a, b = (uno_v1.parallel_env(preset=preset, players=players) for _ in range(2))
    out_a, out_b = a.reset(seed=3), b.reset(seed=3)
    learner, seat = "player_0", 0
    hide_single(b.unwrapped.privileged_game, seat, _rng(3))
    tally, rng_a, rng_b = Tally(), _rng(30), _rng(30)

    def actions(env, observations, rng) -> dict[str, int]:
        active = env.aec_env.agent_selection
        mask = observations[active]["action_mask"]
        choice = learner_choice(mask, rng) if active == learner else drawer_choice(mask)
        return {agent: choice if agent == active else DRAW for agent in env.agents}

    for step in range(2000):
        game_a, game_b = a.unwrapped.privileged_game, b.unwrapped.privileged_game
        if visible(game_a.state, 0, seat) != visible(game_b.state, 0, seat):
            break
        for k, part in enumerate(zip(out_a, out_b)):
            tally.same(part[0].get(learner), part[1].get(learner), f"step {step} part {k}")
        if not a.agents:
            break
        out_a = a.step(actions(a, out_a[0], rng_a))
        out_b = b.step(actions(b, out_b[0], rng_b))
    assert tally.count >= 100, tally.count


# ---------------------------------------------------------------------- seeds
def _walk(value: Any, path: str = "info") -> Iterator[tuple[str, Any]]:
    """Every (path, leaf) of nested dicts, lists and arrays."""
    if isinstance(value, dict):
        for key, item in value.items():
            assert "seed" not in str(key).lower() and "key" not in str(key).lower(), key
            yield from _walk(item, f"{path}[{key!r}]")
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value):
            yield from _walk(item, f"{path}[{i}]")
    elif isinstance(value, np.ndarray):
        for i, item in enumerate(value.reshape(-1).tolist()):
            yield f"{path}.flat[{i}]", item
    else:
        yield path, value


def assert_no_seed(info: dict, seeds: set[int]) -> int:
    """No key of ``info`` names a seed and no value in it is one of ``seeds``; leaves checked."""
    leaves = list(_walk(info))
    for path, leaf in leaves:
        if isinstance(leaf, int | np.integer) and not isinstance(leaf, bool):
            assert int(leaf) not in seeds, f"{path} holds a deal seed"
    return len(leaves)


def test_gymnasium_info_and_render_hold_no_seed():
    env = UnoEnv("kids", opponents=drawer, render_mode="ansi")  # a match: several deals
    rng, checked = _rng(0), 0
    for episode in range(3):
        obs, info = env.reset(seed=episode)
        over = False
        while True:
            seeds = {env.privileged_deal_seed, int(env.privileged_game.game.key)}
            checked += assert_no_seed(info, seeds)
            text = env.render()
            assert not any(str(s) in text for s in seeds)
            if over:
                break
            obs, _, terminated, truncated, info = env.step(learner_choice(info["action_mask"], rng))
            over = terminated or truncated
    assert checked > 100


def test_vector_info_holds_no_seed():
    env = UnoVectorEnv(32, "kids", opponents=batched_drawer)
    _, info = env.reset(seed=0)
    rng, checked = _rng(1), 0
    for _ in range(50):
        checked += assert_no_seed(info, {int(k) for k in env.privileged_state.key})
        actions = np.array([learner_choice(m, rng) for m in info["action_mask"]])
        *_, info = env.step(actions)
    assert checked > 1000


def test_pettingzoo_infos_and_render_hold_no_seed():
    aec = uno_v1.env(preset="kids", render_mode="ansi")
    rng, checked = _rng(2), 0
    for episode in range(3):
        aec.reset(seed=episode)
        for _agent in aec.agent_iter():
            game = aec.unwrapped.privileged_game
            seeds = {game.deal_seed, int(game.game.key)}
            observation, _, termination, truncation, info = aec.last()
            checked += assert_no_seed(dict(aec.infos), seeds)
            assert not any(str(s) in aec.render() for s in seeds)
            if termination or truncation:
                aec.step(None)
            else:
                aec.step(learner_choice(observation["action_mask"], rng))
    assert checked > 10


def test_render_shows_the_learners_hand_only():
    env = UnoEnv(players=3, learner_seat=1, opponents=drawer, render_mode="ansi")
    env.reset(seed=4)
    text = env.render()
    assert "hand of learner:" in text
    assert "hand of player_0" not in text and "hand of player_2" not in text


def test_pettingzoo_render_agent_shows_that_agent_only():
    aec = uno_v1.env(players=3, render_mode="ansi", render_agent="player_2")
    aec.reset(seed=1)
    for _ in range(12):
        text = aec.render()
        assert "hand of player_2:" in text
        assert "hand of player_0" not in text and "hand of player_1" not in text
        assert ("legal:" in text) == (aec.agent_selection == "player_2")
        aec.step(drawer_choice(aec.observe(aec.agent_selection)["action_mask"]))
    with pytest.raises(ValueError, match="render_agent must be None or one of"):
        uno_v1.env(players=2, render_agent="player_5")
