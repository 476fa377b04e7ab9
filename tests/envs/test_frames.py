"""RGB frames (``render_mode="rgb_array"``, :mod:`uno_rl.render.frames`): their shape, that
they follow what the seat sees and nothing else, the envs' metadata and errors, and
Gymnasium's ``RecordVideo`` writing a video of ``uno_rl/Uno-v1``."""

from __future__ import annotations

import math
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.error import ResetNeeded
from test_hidden_leak import drawer, drawer_choice, hide_single, learner_choice, visible

import uno_rl.envs.registration  # noqa: F401  (registers uno_rl/Uno-v1)
from uno_rl.core.actions import NUM_ACTIONS, action_name
from uno_rl.core.cards import NUM_KINDS, WILD, WILD_DRAW_FOUR, kind
from uno_rl.envs import uno_v1
from uno_rl.envs.gym_env import UnoEnv
from uno_rl.envs.opponents import short_name
from uno_rl.envs.registration import ENV_ID
from uno_rl.render import frames
from uno_rl.render.frames import FRAME_SHAPE, card_label, render_frame
from uno_rl.render.text import render_text, table_view


def assert_frame(frame) -> None:
    assert isinstance(frame, np.ndarray)
    assert frame.shape == FRAME_SHAPE and frame.dtype == np.uint8


def random_action(mask: np.ndarray, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


# ------------------------------------------------------------------ shape and size
@pytest.mark.parametrize(
    ("preset", "players", "overrides"),
    [("official", 2, {}), ("party", 4, {}), ("official", 10, {"match": True})],
)
def test_frames_keep_one_shape_over_a_long_random_game(preset, players, overrides):
    aec = uno_v1.env(preset=preset, players=players, render_mode="rgb_array", **overrides)
    aec.reset(seed=7)
    rng, frames_seen, sizes = np.random.default_rng(7), 0, set()
    for _agent in aec.agent_iter(max_iter=300):
        frame = aec.render()
        assert_frame(frame)
        frames_seen += 1
        sizes.update(aec.unwrapped.privileged_game.state.hand_size[0].tolist())
        observation, _, termination, truncation, _ = aec.last()
        if termination or truncation:
            aec.step(None)
        else:
            aec.step(random_action(observation["action_mask"], rng))
    assert frames_seen >= 100
    assert max(sizes) >= 10  # hands of different sizes were drawn in the same frame size


def test_gym_env_frames_keep_one_shape_to_the_end_of_episodes():
    env = UnoEnv("kids", players=3, render_mode="rgb_array")  # a match: several rounds
    rng = np.random.default_rng(1)
    for episode in range(2):
        _, info = env.reset(seed=episode)
        assert_frame(env.render())
        while True:
            _, _, terminated, truncated, info = env.step(random_action(info["action_mask"], rng))
            assert_frame(env.render())  # also once the episode is over
            if terminated or truncated:
                break


def test_every_hand_layout_fits_the_frame():
    gap, width, height = 10, frames.FRAME_WIDTH - 2 * frames.MARGIN, frames.HAND_CARDS_HEIGHT
    previous = None
    for n in range(1, NUM_KINDS + 1):  # one card picture per kind held
        w, h, cols = frames._hand_layout(n, width, height)
        assert cols * (w + gap) - gap <= width
        assert math.ceil(n / cols) * (h + gap) <= height
        assert w >= 30, n  # still readable with all 54 kinds in hand
        if previous is not None:
            assert w <= previous  # more kinds never make bigger cards
        previous = w


def test_a_hand_of_every_kind_is_drawn_whole():
    aec = uno_v1.env(players=2, render_mode="rgb_array", render_agent="player_0")
    aec.reset(seed=3)
    state = aec.unwrapped.privileged_game.state
    state.actor[0] = 1  # the other seat acts: player_0's view lists no legal actions
    state.hands[0, 0] = 2  # 108 cards, every kind
    state.hand_size[0, 0] = state.hands[0, 0].sum()
    state.invalidate()
    full = render_frame(state, viewer=0)
    assert_frame(full)
    last = state.copy()
    last.hands[0, 0, WILD_DRAW_FOUR] = 0  # the last card picture of the hand goes
    last.hand_size[0, 0] -= 2
    last.invalidate()
    fewer = render_frame(last, viewer=0)
    top = frames.HAND_CARDS_TOP
    changed = np.flatnonzero(np.any(full != fewer, axis=(1, 2)))
    # Only the caption's count and the vanished card change, and the card lies inside.
    hand_rows = changed[changed >= top - 8]
    assert hand_rows.size and hand_rows.max() < frames.HAND_CARDS_TOP + frames.HAND_CARDS_HEIGHT


# ----------------------------------------------------------- frames follow the view
def _changed(state, edit) -> np.ndarray:
    """The frame of a copy of ``state`` after ``edit(copy)``."""
    other = state.copy()
    edit(other)
    other.invalidate()
    return render_frame(other, viewer=0)


def test_frames_differ_when_a_visible_piece_changes():
    aec = uno_v1.env(preset="official", players=3, match=True, render_mode="ansi")
    aec.reset(seed=5)
    state = aec.unwrapped.privileged_game.state
    state.actor[0] = 0
    base = render_frame(state, viewer=0)
    assert np.array_equal(base, render_frame(state.copy(), viewer=0))  # deterministic

    def set_(name, value, index=0):
        def edit(s):
            getattr(s, name)[index] = value

        return edit

    edits = {
        "top card": set_("top", kind(3, 11) if state.top[0] != kind(3, 11) else kind(0, 1)),
        "current color": set_("color", (int(state.color[0]) + 1) % 4),
        "direction": set_("direction", -int(state.direction[0])),
        "draw pile": set_("pile_size", int(state.pile_size[0]) - 1),
        "pending draw": set_("pending", 4),
        "whose turn": set_("actor", 1),
        "decision": set_("turn", int(state.turn[0]) + 1),
        "an opponent's hand size": set_("hand_size", 9, (0, 2)),
        "a score": set_("scores", 120, (0, 1)),
        "the round": set_("round_index", 2),
        "my hand": set_("hands", int(state.hands[0, 0, WILD]) + 1, (0, 0, WILD)),
    }
    for what, edit in edits.items():
        assert not np.array_equal(base, _changed(state, edit)), what


def test_frames_change_with_the_text_view_along_a_game():
    """Along a random game, the frame changes exactly when the text view of the same seat
    does (both are drawn from one TableView)."""
    aec = uno_v1.env(preset="party", players=4, render_mode="rgb_array", render_agent="player_1")
    aec.reset(seed=2)
    rng = np.random.default_rng(2)
    last_text, last_frame, changes = None, None, 0
    for _agent in aec.agent_iter(max_iter=150):
        state = aec.unwrapped.privileged_game.state
        text, frame = render_text(state, 0, aec.possible_agents, "uno_v1", viewer=1), aec.render()
        if last_text is not None:
            assert (text != last_text) == (not np.array_equal(frame, last_frame))
            changes += text != last_text
        last_text, last_frame = text, frame
        observation, _, termination, truncation, _ = aec.last()
        aec.step(
            None if termination or truncation else random_action(observation["action_mask"], rng)
        )
    assert changes >= 50


def test_the_turn_marker_and_the_legal_plays_show_on_the_frame():
    aec = uno_v1.env(players=2, render_mode="ansi")
    aec.reset(seed=0)
    state = aec.unwrapped.privileged_game.state
    actor = int(state.actor[0])
    view = table_view(state, viewer=actor)
    assert view.legal and view.seats[actor].acting
    mine, theirs = render_frame(state, viewer=actor), render_frame(state, viewer=1 - actor)
    # The actor's view lists its legal actions at the bottom; the other seat's view does not.
    legal_rows = slice(frames.LEGAL_TOP, frames.FRAME_HEIGHT)
    assert (mine[legal_rows] != frames.BACKGROUND).any()
    assert not (theirs[legal_rows] != frames.BACKGROUND).any()

    # The acting row is marked in gold (arrow, outline, name), the other row not at all.
    def gold(seat: int) -> int:
        top = frames.TABLE_TOP + seat * frames.ROW_HEIGHT
        rows = theirs[top : top + frames.ROW_HEIGHT, : frames.FRAME_WIDTH // 2]
        return int((rows == frames.GOLD).all(axis=-1).sum())

    assert gold(actor) > 100 and gold(1 - actor) == 0


def test_every_legal_action_is_listed():
    for a in range(NUM_ACTIONS):  # alone, each reads as the text view names it
        (part,) = frames._legal_lines([a])
        assert part == action_name(a).replace("skip", "Skip").replace("reverse", "Reverse")
    grouped = frames._legal_lines([1, 7, 10, 20, 52, 53, 55, 60])
    assert grouped == ["play red 1 7 Skip", "play yellow 7", "wild naming red/yellow/blue", "draw"]
    assert frames._legal_lines(range(64, 67)) == [
        "swap hands with the player 1/2/3 seat(s) clockwise"
    ]


def test_card_labels():
    assert [card_label(kind(0, r)) for r in range(13)] == [
        *map(str, range(10)), "Skip", "Reverse", "+2",
    ]  # fmt: skip
    assert card_label(WILD) == "Wild" and card_label(WILD_DRAW_FOUR) == "+4"


def test_names_outside_ascii_are_drawn_in_ascii():
    # Pillow's default font draws ASCII only: accents go, other characters become escapes.
    assert frames._drawable("José") == "Jose" and frames._drawable("Zoë") == "Zoe"
    assert frames._drawable("李") == "\\u674e" and frames._drawable("plain") == "plain"
    aec = uno_v1.env(players=2, render_mode="ansi")
    aec.reset(seed=0)
    state = aec.unwrapped.privileged_game.state
    accented = render_frame(state, names=["José", "Zoë"])
    assert np.array_equal(accented, render_frame(state, names=["Jose", "Zoe"]))
    assert not np.array_equal(accented, render_frame(state, names=["Jose", "Zed"]))


# ------------------------------------------------------------------- seat names
def test_gym_frames_name_each_seat_by_the_agent_there():
    def my_bot(observation, action_mask, rng):
        return int(np.flatnonzero(action_mask)[0])

    opponents = ["color-first:bluff=0.3", my_bot, lambda o, m, r: int(np.flatnonzero(m)[0])]
    env = UnoEnv(players=4, opponents=opponents, learner_seat=1, render_mode="rgb_array")
    env.reset(seed=3)
    names = ["player_0", "learner", "color-first", "my_bot"]  # a lambda keeps player_N
    assert env.seat_names == names
    state = env.privileged_game.state
    frame = env.render()
    assert np.array_equal(frame, render_frame(state, 0, names, title="Uno-v1", viewer=1))
    generic = ["player_0", "learner", "player_2", "player_3"]
    assert not np.array_equal(frame, render_frame(state, 0, generic, title="Uno-v1", viewer=1))


def test_short_names_of_agent_specs():
    assert short_name("ppo:checkpoint=runs/a/best.pt,greedy=true") == "best"
    assert short_name("color-first:bluff=0.3") == "color-first"
    assert short_name("bots/cautious.toml") == "cautious"


# --------------------------------------------------------------------- no leak
@pytest.mark.parametrize(("preset", "players"), [("official", 2), ("official", 4), ("kids", 3)])
def test_gym_frames_show_nothing_hidden(preset, players):
    def make() -> UnoEnv:
        return UnoEnv(preset, players=players, learner_seat="random", opponents=drawer,
                      render_mode="rgb_array")  # fmt: skip

    a, b = make(), make()
    out_a, out_b = a.reset(seed=4), b.reset(seed=4)
    seat = a.learner_seat
    changed = hide_single(b.privileged_game, seat, np.random.default_rng(4))
    assert len(changed) >= 2, changed
    rng_a, rng_b, compared, over = np.random.default_rng(14), np.random.default_rng(14), 0, False
    for _ in range(60):
        if visible(a.privileged_game.state, 0, seat) != visible(b.privileged_game.state, 0, seat):
            break  # the seat now sees a difference (it drew a changed card)
        assert np.array_equal(a.render(), b.render())
        compared += 1
        if over:
            break
        out_a = a.step(learner_choice(out_a[-1]["action_mask"], rng_a))
        out_b = b.step(learner_choice(out_b[-1]["action_mask"], rng_b))
        over = out_a[2] or out_a[3]
    assert compared >= 10, compared


def test_pettingzoo_frames_show_nothing_hidden():
    a, b = (
        uno_v1.env(preset="party", players=4, render_mode="rgb_array", render_agent="player_0")
        for _ in range(2)
    )
    a.reset(seed=1)
    b.reset(seed=1)
    hide_single(b.unwrapped.privileged_game, 0, np.random.default_rng(1))
    rng_a, rng_b, compared = np.random.default_rng(11), np.random.default_rng(11), 0
    for _ in range(120):
        game_a, game_b = a.unwrapped.privileged_game, b.unwrapped.privileged_game
        if visible(game_a.state, 0, 0) != visible(game_b.state, 0, 0) or not a.agents:
            break
        assert np.array_equal(a.render(), b.render())  # player_0's view, on every turn
        compared += 1
        agent = a.agent_selection
        if a.terminations[agent] or a.truncations[agent]:
            a.step(None)
            b.step(None)
        elif agent == "player_0":
            a.step(learner_choice(a.observe(agent)["action_mask"], rng_a))
            b.step(learner_choice(b.observe(agent)["action_mask"], rng_b))
        else:
            a.step(drawer_choice(a.observe(agent)["action_mask"]))
            b.step(drawer_choice(b.observe(agent)["action_mask"]))
    assert compared >= 30, compared


# ----------------------------------------------------------- metadata and errors
def test_metadata_lists_rgb_array():
    assert "rgb_array" in UnoEnv.metadata["render_modes"]
    assert "rgb_array" in uno_v1.raw_env.metadata["render_modes"]
    assert "rgb_array" in uno_v1.env().metadata["render_modes"]
    assert "rgb_array" in uno_v1.parallel_env().metadata["render_modes"]
    assert "rgb_array" in gymnasium.make(ENV_ID).metadata["render_modes"]


def test_parallel_view_renders_frames():
    par = uno_v1.parallel_env(players=3, render_mode="rgb_array")
    par.reset(seed=0)
    assert par.render_mode == "rgb_array"
    assert_frame(par.render())


@pytest.mark.parametrize("mode", ["rgb", "RGB_ARRAY", "video", ""])
def test_bad_render_mode_is_a_clear_error(mode):
    pattern = r"render_mode must be None or one of \[.*'rgb_array'.*\], got"
    with pytest.raises(ValueError, match=pattern):
        UnoEnv(render_mode=mode)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # make() warns about an unknown render mode first
        with pytest.raises(ValueError, match=pattern):
            gymnasium.make(ENV_ID, render_mode=mode)
    for make in (uno_v1.raw_env, uno_v1.env, uno_v1.parallel_env):
        with pytest.raises(ValueError, match=pattern):
            make(render_mode=mode)


def test_render_before_reset_raises():
    with pytest.raises(ResetNeeded):
        UnoEnv(render_mode="rgb_array").render()
    with pytest.raises(RuntimeError, match="reset"):
        uno_v1.raw_env(render_mode="rgb_array").render()


def test_rgb_array_prints_nothing(capsys):
    env = UnoEnv(render_mode="rgb_array")
    _, info = env.reset(seed=0)
    env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert_frame(env.render())
    assert capsys.readouterr().out == ""


# ------------------------------------------------------------------ RecordVideo
def test_record_video_writes_a_video(tmp_path):
    pytest.importorskip("moviepy", reason="RecordVideo needs moviepy (pip install moviepy)")
    from gymnasium.wrappers import RecordVideo

    env = gymnasium.make(ENV_ID, players=3, render_mode="rgb_array")
    folder = tmp_path / "videos"
    env = RecordVideo(env, str(folder), episode_trigger=lambda episode: True, disable_logger=True)
    rng = np.random.default_rng(0)
    steps = 0
    for episode in range(2):
        _, info = env.reset(seed=episode)
        while True:
            _, _, terminated, truncated, info = env.step(random_action(info["action_mask"], rng))
            steps += 1
            if terminated or truncated:
                break
    env.close()
    videos = sorted(folder.glob("*.mp4"))
    assert [v.name for v in videos] == ["rl-video-episode-0.mp4", "rl-video-episode-1.mp4"]
    assert all(v.stat().st_size > 1000 for v in videos)
    imageio_ffmpeg = pytest.importorskip("imageio_ffmpeg")
    reader = imageio_ffmpeg.read_frames(str(videos[0]))
    meta = next(reader)
    assert tuple(meta["size"]) == (FRAME_SHAPE[1], FRAME_SHAPE[0])
    assert sum(1 for _ in reader) >= 2  # the reset frame and one per step
    reader.close()


def test_fixed_length_match_header_says_how_many_rounds():
    """Under match_rounds the text and the frame's header name the length, not the target."""
    from uno_rl.render.text import match_length

    rules = {"match": True, "scoring": "losers-add", "match_rounds": 3}
    aec = uno_v1.env(preset="official", players=2, render_mode="ansi", **rules)
    aec.reset(seed=1)
    state = aec.unwrapped.privileged_game.state
    assert "round 1 of 3 (lowest total wins)" in aec.render()
    view = table_view(state, 0, aec.possible_agents, "uno_v1", viewer=0)
    assert match_length(view) == "of 3 (lowest total wins)"
    assert "match to" not in render_text(state, 0, aec.possible_agents, "uno_v1", viewer=0)
    target = uno_v1.env(preset="official", players=2, render_mode="ansi", match=True)
    target.reset(seed=1)
    assert "round 1 of a match to 500" in target.render()
    fixed = uno_v1.env(preset="official", players=2, render_mode="rgb_array", **rules)
    fixed.reset(seed=1)
    to_target = uno_v1.env(preset="official", players=2, render_mode="rgb_array", match=True)
    to_target.reset(seed=1)
    assert_frame(fixed.render())
    assert not np.array_equal(fixed.render(), to_target.render())  # the header differs
