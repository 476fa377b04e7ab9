"""The situation conditions on the heuristics' +4 bluffing and challenging (agents/conditions.py).

Positions come from random play (3 players, so the next seat depends on the direction; match
rules, with the match scores of each snapshot set at random). Each condition's feature is
computed from the hidden state, independently of the observation, and the agent must bluff
(``bluff=1``) or challenge (``challenge=always``) exactly where the condition holds.
"""

import sys
from functools import cache
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core"))
from scenario import act, build, color, rules  # noqa: E402
from test_agents import play_batch  # noqa: E402
from test_strategies import decide  # noqa: E402

from uno_rl.agents import AgentError, ObservationView, make_agent  # noqa: E402
from uno_rl.agents.conditions import (  # noqa: E402
    BLUFF_CONDITIONS,
    CHALLENGE_CONDITIONS,
    CONDITION_PARAMS,
    SituationFeatures,
    active_conditions,
    condition_label,
)
from uno_rl.core import engine, load_rules  # noqa: E402
from uno_rl.core.actions import CHALLENGE, PLAY_DRAW_FOUR  # noqa: E402
from uno_rl.core.convert import to_state  # noqa: E402
from uno_rl.core.observe import observe  # noqa: E402
from uno_rl.core.phases import DRAWN, OVER, PLAY, RESPOND  # noqa: E402

RULES = load_rules("official", players=3, match=True)
WANT = 400  # positions of each kind
#: The feature each condition reads (``SituationFeatures`` names, ``wilds`` without the +4).
BLUFF_FEATURES = {"next": "next_hand", "hand": "own_hand", "color": "color_cards",
                  "wilds": "wilds", "lead": "lead", "top": "top_score", "turn": "turn"}  # fmt: skip
CHALLENGE_FEATURES = {"their": "their_hand", "own": "own_hand", "lead": "lead",
                      "top": "top_score", "turn": "turn"}  # fmt: skip


def hidden_features(s):
    """The conditions' features of the actor in each game of state ``s``, from the state."""
    r = np.arange(s.num_games)
    p = s.rules.players
    actor = s.actor.astype(np.int64)
    hand = s.hands[r, actor].astype(np.int64)
    kind_color = s.rules.layout.kind_color
    color = s.color.astype(np.int64)
    scores = s.scores.astype(np.int64)
    others = np.where(np.arange(p)[None, :] == actor[:, None], -(10**9), scores).max(axis=1)
    return {
        "next_hand": s.hand_size[r, (actor + s.direction) % p].astype(np.int64),
        "own_hand": s.hand_size[r, actor].astype(np.int64),
        "color_cards": (hand * (kind_color[None, :] == color[:, None])).sum(axis=1),
        "wilds": hand[:, kind_color < 0].sum(axis=1) - 1,  # besides the +4 (bluffs only)
        "lead": scores[r, actor] - others,
        "top_score": scores.max(axis=1),
        "turn": s.turn.astype(np.int64),
        "their_hand": s.hand_size[r, np.maximum(s.draw4_player, 0)].astype(np.int64),
        "kept": s.color == s.prev_color,
    }


@cache
def positions(kind):
    """(observations, masks, hidden features) of ``WANT`` random-play positions: ``bluff``
    where the actor may play a +4 holding the current color, ``challenge`` where it may
    challenge a +4."""
    rng = np.random.default_rng(11 if kind == "bluff" else 12)
    obs, masks, feats = [], [], []
    while sum(len(m) for m in masks) < WANT:
        state = engine.reset(RULES, rng.integers(0, 2**62, 128).astype(np.uint64))
        for _ in range(300):
            live = np.flatnonzero(state.phase != OVER)
            if not live.size:
                break
            mask = engine.legal_mask(state, live)
            snap = state.take(live)
            snap.scores[:] = rng.integers(0, 400, snap.scores.shape)
            f = hidden_features(snap)
            if kind == "bluff":
                d4 = mask[:, PLAY_DRAW_FOUR : PLAY_DRAW_FOUR + 4].any(axis=1)
                pick = np.isin(snap.phase, (PLAY, DRAWN)) & d4 & (f["color_cards"] > 0)
            else:
                pick = (snap.phase == RESPOND) & mask[:, CHALLENGE]
            if pick.any():
                obs.append(observe(snap, snap.actor)[pick])
                masks.append(mask[pick])
                feats.append({k: v[pick] for k, v in f.items()})
            engine.step(state, engine.sample_legal_actions(mask, rng), games=live)
    feats = {k: np.concatenate([f[k] for f in feats]) for k in feats[0]}
    return np.concatenate(obs), np.concatenate(masks), feats


def bluffs(spec):
    """(k,) bool: the agent played a +4 in each bluff position."""
    obs, masks, _ = positions("bluff")
    actions = make_agent(spec, RULES).act(obs, masks, np.random.default_rng(0))
    assert masks[np.arange(len(actions)), actions].all()
    return (actions >= PLAY_DRAW_FOUR) & (actions < PLAY_DRAW_FOUR + 4)


def challenges(spec):
    """(k,) bool: the agent challenged in each challenge position."""
    obs, masks, _ = positions("challenge")
    actions = make_agent(spec, RULES).act(obs, masks, np.random.default_rng(0))
    assert masks[np.arange(len(actions)), actions].all()
    return actions == CHALLENGE


def split_value(feature, bound, q):
    """A value some position has exactly, splitting the positions into both outcomes."""
    value = int(np.sort(feature)[int(q * (len(feature) - 1))])
    held = feature >= value if bound == "min" else feature <= value
    if held.all() or not held.any():  # the quantile is an extreme: move one step inside
        value = value + (1 if bound == "min" else -1)
    return value


def check_exact(decided, holds):
    assert holds.any() and not holds.all(), "the positions give both outcomes"
    np.testing.assert_array_equal(decided, holds)


def test_every_condition_is_covered_and_off_by_default():
    bluff = {f"bluff_{w}_{b}" for w in BLUFF_FEATURES for b in ("min", "max")}
    assert set(BLUFF_CONDITIONS) <= bluff
    challenge = {f"challenge_{w}_{b}" for w in CHALLENGE_FEATURES for b in ("min", "max")}
    assert set(CHALLENGE_CONDITIONS) - {"challenge_named"} <= challenge
    assert set(CONDITION_PARAMS) == {*BLUFF_CONDITIONS, *CHALLENGE_CONDITIONS, "bluff_when",
                                     "challenge_when"}  # fmt: skip
    params = make_agent("color-first", RULES).params
    for name, param in CONDITION_PARAMS.items():
        assert params[name] == param.default
    assert active_conditions(params, "bluff") == active_conditions(params, "challenge") == {}


@pytest.mark.parametrize("kind", ["bluff", "challenge"])
def test_observed_features_equal_the_hidden_states(kind):
    obs, _, hidden = positions(kind)
    f = SituationFeatures(ObservationView(obs, RULES.players), RULES)
    names = BLUFF_FEATURES if kind == "bluff" else CHALLENGE_FEATURES
    for name in names.values():
        seen = getattr(f, name) - (name == "wilds")  # the observation counts the +4
        np.testing.assert_array_equal(seen, hidden[name], err_msg=name)
    if kind == "challenge":
        np.testing.assert_array_equal(f.kept_color, hidden["kept"])
        assert hidden["kept"].any() and not hidden["kept"].all()
    assert len(np.unique(hidden["lead"])) > 50 and (hidden["lead"] < 0).any()


@pytest.mark.parametrize("q", [0.3, 0.7])
@pytest.mark.parametrize("name", list(BLUFF_CONDITIONS))
def test_bluffs_exactly_where_the_condition_holds(name, q):
    what, bound = name.split("_", 1)[1].rsplit("_", 1)
    feature = positions("bluff")[2][BLUFF_FEATURES[what]]
    value = split_value(feature, bound, q)
    holds = feature >= value if bound == "min" else feature <= value
    check_exact(bluffs(f"color-first:bluff=1,{name}={value}"), holds)
    assert not bluffs(f"color-first:bluff=0,{name}={value}").any()  # the coin still decides


@pytest.mark.parametrize("q", [0.3, 0.7])
@pytest.mark.parametrize("name", [n for n in CHALLENGE_CONDITIONS if n != "challenge_named"])
def test_challenges_exactly_where_the_condition_holds(name, q):
    what, bound = name.split("_", 1)[1].rsplit("_", 1)
    feature = positions("challenge")[2][CHALLENGE_FEATURES[what]]
    value = split_value(feature, bound, q)
    holds = feature >= value if bound == "min" else feature <= value
    check_exact(challenges(f"points-dumper:challenge=always,{name}={value}"), holds)
    assert not challenges(f"points-dumper:challenge=never,{name}={value}").any()


def test_challenge_named_kept_or_changed():
    kept = positions("challenge")[2]["kept"]
    check_exact(challenges("color-first:challenge=always,challenge_named=kept"), kept)
    check_exact(challenges("color-first:challenge=always,challenge_named=changed"), ~kept)
    assert challenges("color-first:challenge=always,challenge_named=any").all()


def test_conditions_gate_the_threshold_policy_too():
    f = positions("challenge")[2]
    policy = f["their_hand"] >= 3
    spec = "rule:challenge=threshold,challenge_hand=3,challenge_own_max=6"
    check_exact(challenges(spec), policy & (f["own_hand"] <= 6))


@pytest.mark.parametrize("when", ["all", "any"])
def test_bluff_conditions_combine_by_all_or_any(when):
    f = positions("bluff")[2]
    a, b = f["next_hand"] <= 5, f["own_hand"] >= 8
    holds = (a & b) if when == "all" else (a | b)
    assert (a != b).any()
    spec = f"aggressive:bluff=1,bluff_next_max=5,bluff_hand_min=8,bluff_when={when}"
    check_exact(bluffs(spec), holds)
    if when == "any":
        three = (a | b) | (f["turn"] <= 20)
        check_exact(bluffs(spec + ",bluff_turn_max=20"), three)


@pytest.mark.parametrize("when", ["all", "any"])
def test_challenge_conditions_combine_by_all_or_any(when):
    f = positions("challenge")[2]
    a, b, c = f["their_hand"] >= 6, f["own_hand"] <= 5, f["kept"]
    holds = (a & b & c) if when == "all" else (a | b | c)
    spec = ("color-first:challenge=always,challenge_their_min=6,challenge_own_max=5,"
            f"challenge_named=kept,challenge_when={when}")  # fmt: skip
    check_exact(challenges(spec), holds)


def test_a_combiner_alone_changes_nothing():
    assert bluffs("color-first:bluff=1,bluff_when=any").all()
    assert challenges("color-first:challenge=always,challenge_when=any").all()


def test_last_wild_counts_only_wild_cards():
    # Holding red makes the +4 a bluff; a Boomerang is colorless but no wild.
    deck = rules(deck="extension")
    g = build(deck, {0: ["red 3", "+4", "boomerang"], 1: ["blue 1"]}, "red 1")
    state = to_state([g])
    obs, mask = observe(state, state.actor), engine.legal_mask(state)
    actions = make_agent("color-first:bluff=1,bluff_wilds_max=0", deck).act(
        obs, mask, np.random.default_rng(0)
    )
    assert deck.layout.action_name(int(actions[0])).startswith("+4")


@pytest.mark.parametrize("name", ["bluff_top_min", "challenge_top_min"])
def test_top_score_conditions_reach_late_in_an_official_match(name):
    # The official match goes to 500 points: "late in the match" is past 200.
    assert make_agent(f"color-first:{name}=400", RULES).params[name] == 400


def play_log(spec, steps=500, games=48, seed=5):
    """Every action ``spec`` takes at every seat over random matches (a memory per seat)."""
    log = []
    finished = play_batch(spec, RULES, games=games, steps=steps, seed=seed, log=log)
    assert finished  # rounds were scored: the lead conditions saw scores
    return np.concatenate(log)


DEFAULTS = ",".join(f"{n}={p.default}" for n, p in CONDITION_PARAMS.items())
ALWAYS = ("bluff_next_max=199,bluff_hand_min=1,bluff_color_min=1,bluff_lead_min=-99999,"
          "challenge_own_min=1,challenge_turn_max=99999,challenge_lead_max=99999")  # fmt: skip
NEVER = "bluff_next_max=0,challenge_own_max=0"


@pytest.mark.parametrize(
    "base",
    ["color-first:bluff=0.5,challenge=bayes", "points-dumper:bluff=1,challenge=always"],
)
def test_conditions_that_always_hold_change_nothing(base):
    plain = play_log(base)
    assert len(plain) > 10_000
    np.testing.assert_array_equal(play_log(f"{base},{DEFAULTS}"), plain)
    np.testing.assert_array_equal(play_log(f"{base},{ALWAYS}"), plain)


def test_conditions_that_never_hold_disable_bluffing_and_challenging():
    plain = play_log("aggressive")
    assert ((plain >= PLAY_DRAW_FOUR) & (plain < PLAY_DRAW_FOUR + 4)).any()
    np.testing.assert_array_equal(play_log(f"aggressive:bluff=1,challenge=always,{NEVER}"), plain)
    always = play_log("aggressive:bluff=1,challenge=always")
    assert (always == CHALLENGE).any() and not (plain == CHALLENGE).any()


def test_active_conditions_and_labels():
    def params(spec):
        return make_agent(f"color-first:{spec}" if spec else "color-first", RULES).params

    assert condition_label(params(""), "bluff") == condition_label(params(""), "challenge")
    assert condition_label(params(""), "bluff") == "always"
    p = params("bluff=1,bluff_next_max=2,challenge=always")
    assert active_conditions(p, "bluff") == {"bluff_next_max": 2}
    assert active_conditions(p, "challenge") == {}
    assert (condition_label(p, "bluff"), condition_label(p, "challenge")) == ("next<=2", "always")
    p = params("bluff_color_max=1,bluff_hand_min=7")
    assert active_conditions(p, "bluff") == {"bluff_hand_min": 7, "bluff_color_max": 1}
    assert condition_label(p, "bluff") == "hand>=7&color<=1"
    p = params("challenge_own_max=1,challenge_their_min=5,challenge_when=any")
    assert condition_label(p, "challenge") == "their>=5|own<=1"
    assert condition_label(params("challenge_named=kept"), "challenge") == "named=kept"
    p = params("bluff_lead_max=-50,bluff_top_min=150,bluff_wilds_max=0")
    assert condition_label(p, "bluff") == "wilds<=0&lead<=-50&top>=150"
    assert condition_label(params("challenge_turn_min=10,challenge_lead_min=-20"),
                           "challenge") == "lead>=-20&turn>=10"  # fmt: skip
    p = params("bluff_next_max=200,bluff_lead_min=-100000,challenge_named=any,bluff_when=any")
    assert active_conditions(p, "bluff") == {} and condition_label(p, "bluff") == "always"


@pytest.mark.parametrize(
    "spec,message",
    [
        ("bluff_next_max=-1", "parameter 'bluff_next_max' must be in [0, 200], got -1"),
        ("challenge_named=maybe",
         "parameter 'challenge_named' must be one of any, kept, changed, got 'maybe'"),
        ("bluff_when=some", "parameter 'bluff_when' must be one of all, any, got 'some'"),
        ("challenge_when=none", "parameter 'challenge_when' must be one of all, any"),
        ("challenge_turn_min=soon", "parameter 'challenge_turn_min' must be int, got 'soon'"),
        ("bluff_hand_max=2.5", "parameter 'bluff_hand_max' must be int, got '2.5'"),
        ("bluff_lead_min=-100001", "'bluff_lead_min' must be in [-100000, 100000], got -100001"),
        ("challenge_their_max=201", "'challenge_their_max' must be in [0, 200], got 201"),
        ("bluff_nxt_max=2", "no parameter 'bluff_nxt_max'"),
    ],
)  # fmt: skip
def test_bad_condition_values_give_one_clear_error(spec, message):
    with pytest.raises(AgentError) as info:
        make_agent(f"color-first:{spec}", RULES)
    text = str(info.value)
    assert message in text and "\n" not in text and text.startswith("agent 'color-first'")
    with pytest.raises(AgentError, match="no parameter"):
        make_agent(f"random:{spec.split('=')[0]}=1", RULES)


# ------------------------------------------------------------------ hand-built positions


def bluff_position(own, next_hand, scores=None, **fields):
    """Seat 0 to play on a red 1 holding ``own`` (a red card: a +4 there is a bluff); seat 1
    (next) holds ``next_hand`` cards; 2 players, official rules (a match when ``scores``)."""
    r = rules(match=True) if scores is not None else rules()
    hand = next_hand if isinstance(next_hand, list) else ["blue 2"] * next_hand
    return build(r, {0: own, 1: hand}, "red 1", scores=scores, extra_copies=True, **fields)


def bluffs_in(spec, game) -> bool:
    (choice,) = decide(spec, game)
    return choice.startswith("+4")


@pytest.mark.parametrize(
    "condition,holds,fails",
    [
        # next player's cards
        ("bluff_next_max=1", dict(next_hand=1), dict(next_hand=2)),
        ("bluff_next_min=5", dict(next_hand=5), dict(next_hand=4)),
        # own hand size (the +4 and the red card count)
        ("bluff_hand_min=4", dict(own=["red 3", "+4", "blue 7", "green 8"]),
         dict(own=["red 3", "+4", "blue 7"])),
        ("bluff_hand_max=2", dict(own=["red 3", "+4"]), dict(own=["red 3", "+4", "blue 7"])),
        # own cards of the current color
        ("bluff_color_min=2", dict(own=["red 3", "red 4", "+4"]), dict(own=["red 3", "+4"])),
        ("bluff_color_max=1", dict(own=["red 3", "+4"]), dict(own=["red 3", "red 4", "+4"])),
        # the +4 its last wild
        ("bluff_wilds_max=0", dict(own=["red 3", "+4"]), dict(own=["red 3", "+4", "wild"])),
        # match scores: own minus the best other, and the highest score
        ("bluff_lead_min=100", dict(scores=[300, 150]), dict(scores=[200, 150])),
        ("bluff_lead_max=-100", dict(scores=[100, 250]), dict(scores=[200, 250])),
        ("bluff_top_min=300", dict(scores=[0, 320]), dict(scores=[0, 280])),
    ],
)  # fmt: skip
def test_a_hand_built_bluffer_bluffs_exactly_when_its_condition_holds(condition, holds, fails):
    for overrides, expected in ((holds, True), (fails, False)):
        game = bluff_position(**{"own": ["red 3", "+4"], "next_hand": 3, **overrides})
        assert bluffs_in(f"color-first:bluff=1,{condition}", game) is expected, overrides
        assert bluffs_in("color-first:bluff=1", game)  # the plain bluffer bluffs in both
        assert not bluffs_in("color-first", game)  # and the plain player in neither


def challenges_in(spec, game) -> bool:
    (choice,) = decide(spec, game)
    return choice == "challenge"


@pytest.mark.parametrize(
    "condition,holds,fails",
    [
        # the +4 player's cards
        ("challenge_their_min=5", dict(bluffer=5), dict(bluffer=4)),
        ("challenge_their_max=2", dict(bluffer=2), dict(bluffer=3)),
        # the color named against the color before the +4 (red)
        ("challenge_named=kept", dict(named="red"), dict(named="blue")),
        ("challenge_named=changed", dict(named="blue"), dict(named="red")),
        # the challenger's own hand
        ("challenge_own_max=1", dict(own=1), dict(own=2)),
        ("challenge_own_min=7", dict(own=7), dict(own=6)),
    ],
)  # fmt: skip
def test_a_hand_built_challenger_challenges_exactly_when_its_condition_holds(
    condition, holds, fails
):
    blues = [f"blue {n}" for n in range(1, 10)]
    greens = [f"green {n}" for n in range(1, 10)]
    for overrides, expected in ((holds, True), (fails, False)):
        setting = {"bluffer": 3, "named": "blue", "own": 2, **overrides}
        game = build(
            rules(), {0: greens[: setting["own"]], 1: blues[: setting["bluffer"]]}, "+4",
            setting["named"], actor=0, phase=RESPOND,
        )  # fmt: skip
        game.pending, game.prev_color, game.prev_top = 4, color("red"), act("red 5")
        game.draw4_player = 1  # seat 1 played the +4 on a red 5
        spec = f"color-first:challenge=always,{condition}"
        assert challenges_in(spec, game) is expected, overrides
        assert challenges_in("color-first:challenge=always", game)
        assert not challenges_in("color-first", game)
