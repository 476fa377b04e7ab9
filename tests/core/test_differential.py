"""Differential tests: the batched engine against the one-game reference, decision by decision.

Both implementations play the same rounds from the same deal seeds with the same action
choices. At every step we require identical legal masks, the acting player's observation
(every seat's on a sample of steps), identical step outcomes (rewards, round_over,
truncated, match_over, winner, points, decisions and the per-seat stats arrays) and
identical full state (``convert.states_equal``, batched).

Actions come from a seeded policy that prefers playing a card (uniformly random legal
play gives ~600-decision rounds, since draws are always legal); every action kind is
still taken, which the tests check.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
import suite_profile
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from uno_rl.core import engine, observe
from uno_rl.core.actions import (
    ACCEPT,
    CHALLENGE,
    CHOOSE_COLOR,
    DRAW,
    NUM_ACTIONS,
    PASS,
    PLAY_DRAW_FOUR,
    PLAY_WILD,
    TARGET,
    action_name,
)
from uno_rl.core.convert import states_equal, to_reference, to_state
from uno_rl.core.layout import EXTENDED
from uno_rl.core.phases import (
    COLOR,
    DRAWN,
    JUMP,
    MULTI,
    OVER,
    PHASE_NAMES,
    PLAY,
    RESPOND,
)
from uno_rl.core.phases import TARGET as TARGET_PHASE
from uno_rl.core.reference import ReferenceGame
from uno_rl.core.rules import CHOICES, Rules, RulesError, available_presets, load_rules
from uno_rl.core.state import STAT_NAMES, State

PLAY_PROB = 0.9
DECKS = Path(__file__).parent / "decks"
#: The decks the Hypothesis sweep draws from: the shipped playable ones and a test deck.
HYPOTHESIS_DECKS = (
    "classic", "classic", "modern-112", "swap-112", "extension", "extreme",
    str(DECKS / "chaos.toml"), str(DECKS / "everything.toml"),
)  # fmt: skip
_OUTCOME_STATS = STAT_NAMES

# ------------------------------------------------------------------- helpers


def prefer_play(mask: np.ndarray, gen: np.random.Generator) -> np.ndarray:
    """With prob. PLAY_PROB a uniformly random legal non-draw action (if any), else any legal one."""
    non_draw = mask.copy()
    non_draw[:, DRAW] = False
    prefer = non_draw.any(axis=1) & (gen.random(mask.shape[0]) < PLAY_PROB)
    return engine.sample_legal_actions(np.where(prefer[:, None], non_draw, mask), gen)


def action_kind(action: int) -> str:
    if action >= NUM_ACTIONS:  # the extended layout's plays of section-11 cards
        return "new-wild" if EXTENDED.action_color[action] >= 0 else "new-play"
    if action < PLAY_WILD:
        return "play"
    if action < PLAY_DRAW_FOUR:
        return "wild"
    if action < DRAW:
        return "draw4"
    if action >= CHOOSE_COLOR:
        return "color"
    if action >= TARGET:
        return "target"
    return {DRAW: "draw", PASS: "pass", CHALLENGE: "challenge", ACCEPT: "accept"}[action]


def _reference_fields(refs: list[ReferenceGame], names) -> dict[str, np.ndarray]:
    """The reference games' values of the batched State's fields, stacked."""
    values = {}
    for name in names:
        if name in ("hands", "discard", "revealed", "scores"):
            values[name] = np.array([getattr(g, name) for g in refs])
        elif name == "hand_size":
            values[name] = np.array([[sum(h) for h in g.hands] for g in refs])
        elif name == "pile_size":
            values[name] = np.array([len(g.pile) for g in refs])
        elif name == "stats":
            values[name] = np.array([[g.stats[k] for k in _OUTCOME_STATS] for g in refs])
        elif name != "pile":
            values[name] = np.array([getattr(g, name) for g in refs])
    return values


def batch_state_diffs(state: State, refs: list[ReferenceGame], games=None) -> dict[int, list[str]]:
    """``convert.states_equal`` for many games: {game: differing fields} for the games that differ.

    A fast vectorized comparison of every State field flags games; ``states_equal`` then
    names the fields of each flagged game (and must agree that the game differs).
    """
    games = np.arange(state.num_games) if games is None else np.asarray(games)
    subset = [refs[i] for i in games]
    arrays = state.arrays()
    theirs = _reference_fields(subset, arrays)
    bad = np.zeros(games.size, dtype=bool)
    for name, array in arrays.items():
        if name == "pile":
            continue
        mine = array[games]
        if theirs[name].shape != mine.shape:
            bad[:] = True
        else:
            bad |= (mine != theirs[name]).reshape(games.size, -1).any(axis=1)
    sizes = state.pile_size[games].astype(np.int64)
    if np.array_equal(sizes, theirs["pile_size"]):
        lanes = np.arange(state.pile.shape[1])[None, :] < sizes[:, None]
        mine = state.pile[games][lanes]
        ref_pile = np.fromiter(
            (c for g in subset for c in g.pile), np.int64, count=int(sizes.sum())
        )
        where = np.flatnonzero(mine != ref_pile)
        bad[np.searchsorted(np.cumsum(sizes), where, side="right")] = True
    diffs = {}
    for j in np.flatnonzero(bad):
        i = int(games[j])
        diffs[i] = states_equal(state, i, refs[i]) or [
            "? (flagged, but states_equal finds no difference)"
        ]
    return diffs


def describe(state: State, refs: list[ReferenceGame], i: int) -> str:
    g = refs[i]
    return (
        f"game {i} (round seed {int(state.key[i])}, rules {_rules_overrides(state.rules)}): "
        f"reference turn {g.turn} phase {PHASE_NAMES[g.phase]} actor {g.actor}; "
        f"engine turn {int(state.turn[i])} phase {PHASE_NAMES[state.phase[i]]} actor {int(state.actor[i])}"
    )


def _rules_overrides(rules: Rules) -> dict:
    default = Rules()
    return {
        f.name: getattr(rules, f.name)
        for f in dataclasses.fields(Rules)
        if getattr(rules, f.name) != getattr(default, f.name)
    }


def _names(actions) -> str:
    return ", ".join(f"{a} ({action_name(a)})" for a in actions)


def check_masks(state: State, refs: list[ReferenceGame], games) -> None:
    mask = engine.legal_mask(state)
    for i in games:
        expected = refs[i].legal_actions()
        got = np.flatnonzero(mask[i]).tolist()
        assert got == expected, (
            f"legal actions differ, {describe(state, refs, i)}\n"
            f"  reference: {_names(expected)}\n  engine:    {_names(got)}"
        )


def check_observations(state: State, refs: list[ReferenceGame], games, all_seats: bool) -> None:
    """The acting seat's observation (or every seat's) in ``games``."""
    games = np.asarray(games)
    if not games.size:
        return
    if all_seats:
        seats_list = [np.full(state.num_games, s) for s in range(state.rules.players)]
    else:
        seats_list = [state.actor]
    for seats in seats_list:
        obs = observe.observe(state, seats)
        for i in games:
            ref = refs[i].observe(int(seats[i]))
            if not np.array_equal(ref, obs[i]):
                slices = state.rules.layout.slices  # the deck's layout, not the classic one
                pieces = [
                    name
                    for name, where in slices.items()
                    if not np.array_equal(ref[where], obs[i][where])
                ]
                raise AssertionError(
                    f"observation of seat {int(seats[i])} differs in {pieces}, {describe(state, refs, i)}"
                )


def check_states(state: State, refs: list[ReferenceGame], games=None) -> None:
    diffs = batch_state_diffs(state, refs, games)
    if diffs:
        i, fields = next(iter(diffs.items()))
        raise AssertionError(
            f"state differs in {fields} in {len(diffs)} game(s); first: {describe(state, refs, i)}"
        )


def check_outcomes(
    result: engine.StepResult, outs: list, before: dict, rules: Rules, actions
) -> None:
    """The engine's StepResult rows against the reference's StepOutcomes (all games at once)."""
    n, p = len(outs), rules.players
    zeros = [0] * p
    expected = {
        "rewards": np.array([o.rewards for o in outs], np.float32),
        "round_over": np.array([o.round_over for o in outs]),
        "truncated": np.array([o.truncated for o in outs]),
        "match_over": np.array([o.match_over for o in outs]),
        "winner": np.array([o.winner for o in outs]),
        "points": np.array([o.points for o in outs]),
        "net_points": np.array([o.net_points or zeros for o in outs]).reshape(n, p),
        "decisions": np.array([o.decisions for o in outs]),
    }
    for name in _OUTCOME_STATS:
        expected[name] = np.array([getattr(o, name) or zeros for o in outs]).reshape(n, p)
    bad = {}
    for name, value in expected.items():
        got = getattr(result, name)
        assert got.shape == value.shape, (
            f"StepResult.{name} has shape {got.shape}, expected {value.shape}"
        )
        for i in np.flatnonzero((got != value).reshape(n, -1).any(axis=1)):
            bad.setdefault(int(i), []).append(name)
    if bad:
        i, names = next(iter(bad.items()))
        detail = {
            name: (expected[name][i].tolist(), getattr(result, name)[i].tolist()) for name in names
        }
        raise AssertionError(
            f"step outcome differs in {len(bad)} game(s); first: {detail} (reference, engine) after "
            f"action {int(actions[i])} ({action_name(int(actions[i]))}) by seat {int(before['actor'][i])} "
            f"in phase {PHASE_NAMES[before['phase'][i]]} at turn {int(before['turn'][i])} of game {i} "
            f"(round seed {int(before['key'][i])}, rules {_rules_overrides(rules)})"
        )
    assert result.rewards.dtype == np.float32


@dataclasses.dataclass
class Coverage:
    actions: set = dataclasses.field(default_factory=set)
    phases: set = dataclasses.field(default_factory=set)
    rounds: int = 0
    decisions: int = 0
    truncated: int = 0
    matches: int = 0


def play_both(
    rules: Rules, num_games: int, rounds: int, seed: int, max_steps: int | None = None
) -> Coverage:
    """Play ``rounds`` rounds in engine and reference side by side, checking every step.

    Every step checks all games' states, masks and acting-seat observations, and every
    seat's observation in a rotating sample of games (each game every ``4 * players``
    steps); ``states_equal`` itself runs on one game per step.
    """
    gen = np.random.default_rng(seed)
    match = rules.match

    def new_seeds(k: int) -> np.ndarray:
        return gen.integers(0, 2**63 - 1, size=k, dtype=np.int64).astype(np.uint64)

    seeds = new_seeds(num_games)
    state = engine.reset(rules, seeds)
    refs = [ReferenceGame(rules, int(x)) for x in seeds]
    everyone = np.arange(num_games)
    check_masks(state, refs, everyone)
    check_observations(state, refs, everyone, all_seats=True)
    check_states(state, refs)
    cov = Coverage()
    step_no = 0
    while cov.rounds < rounds and (max_steps is None or step_no < max_steps):
        step_no += 1
        mask = engine.legal_mask(state)
        actions = prefer_play(mask, gen)
        cov.phases.update(state.phase.tolist())
        cov.actions.update(action_kind(a) for a in set(actions.tolist()))
        before = {name: getattr(state, name).copy() for name in ("actor", "phase", "turn", "key")}
        result = engine.step(state, actions)
        outs = [game.step(action) for game, action in zip(refs, actions.tolist())]
        check_outcomes(result, outs, before, rules, actions)
        check_states(state, refs)
        check_masks(state, refs, everyone)
        check_observations(state, refs, everyone, all_seats=False)
        sample = everyone[step_no % (4 * rules.players) :: 4 * rules.players]
        check_observations(state, refs, sample, all_seats=True)
        i = step_no % num_games  # the library's own comparison, on one game per step
        assert states_equal(state, i, refs[i]) == [], describe(state, refs, i)

        over = result.round_over
        cov.rounds += int(over.sum())
        cov.truncated += int(result.truncated.sum())
        cov.decisions += num_games
        finished = (over & result.match_over) if match else over
        cov.matches += int(result.match_over.sum())
        if finished.any():
            assert (state.phase[finished] == OVER).all()
            assert not engine.legal_mask(state)[finished].any()
            games = np.flatnonzero(finished)
            fresh = new_seeds(games.size)
            engine.reset_games(state, finished, fresh)
            for j, i in enumerate(games):
                refs[i] = ReferenceGame(rules, int(fresh[j]))
            check_states(state, refs, games)
            check_masks(state, refs, games)
            check_observations(state, refs, games, all_seats=True)
        assert not (state.phase == OVER).any()
    return cov


def expected_action_kinds(rules: Rules) -> set[str]:
    kinds = {"play", "wild", "draw4", "draw"}
    if rules.first_wild_color_by != "random":
        kinds.add("color")
    if rules.drawn_card == "may-play" or rules.multi_play or rules.jump_in:
        kinds.add("pass")
    if rules.respond_enabled:
        kinds.add("accept")
    if rules.challenge_enabled:
        kinds.add("challenge")
    if rules.seven_zero:
        kinds.add("target")
    return kinds


def expected_phases(rules: Rules) -> set[int]:
    phases = {PLAY}
    if rules.first_wild_color_by != "random":
        phases.add(COLOR)
    if rules.drawn_card not in ("may-not-play", "auto-play"):
        phases.add(DRAWN)
    if rules.respond_enabled:
        phases.add(RESPOND)
    if rules.seven_zero:
        phases.add(TARGET_PHASE)
    if rules.multi_play:
        phases.add(MULTI)
    if rules.jump_in:
        phases.add(JUMP)
    return phases


# ------------------------------------------------------------------- presets

#: Two player counts per preset (all presets together: 2, 3, 4, 5, 6, 7, 10), rounds split.
PRESET_CASES = {
    "official": (2, 4),
    "house": (3, 6),
    "seven-zero": (4, 10),
    "party": (6, 2),
    "no-bluff": (10, 3),
    "kids": (2, 5),
    "rlcard": (2, 4),
}
#: Rounds per preset in the long profile (``suite_profile``), split over its player counts.
ROUNDS_PER_PRESET = 2000
#: The fewest rounds a preset that plays matches is swept for, in any profile.
MATCH_ROUNDS = 150


def test_every_preset_is_covered():
    assert set(available_presets()) == set(PRESET_CASES)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("preset", "players"),
    [(name, p) for name, counts in PRESET_CASES.items() for p in counts],
)
def test_presets_match_reference(preset, players):
    rules = load_rules(preset, players=players)
    rounds = suite_profile.rounds(ROUNDS_PER_PRESET // len(PRESET_CASES[preset]))
    if rules.match:  # enough rounds for some of the 100 games' matches to end
        rounds = max(rounds, MATCH_ROUNDS)
    seed = 1000 + 37 * sorted(PRESET_CASES).index(preset) + players
    cov = play_both(rules, num_games=100, rounds=rounds, seed=seed)
    assert cov.rounds >= rounds
    missing = expected_action_kinds(rules) - cov.actions
    assert not missing, f"action kinds never taken: {missing}"
    missing_phases = expected_phases(rules) - cov.phases
    assert not missing_phases, f"phases never reached: {[PHASE_NAMES[p] for p in missing_phases]}"
    if rules.match:
        assert cov.matches > 0


# ------------------------------------------------------------- switch combos

#: Overrides of the official rules: together they take every non-default value of every
#: switch at least once (checked below), alone and in interacting combinations.
SWITCH_COMBOS: list[dict] = [
    dict(drawn_card="must-play"),
    dict(drawn_card="may-not-play"),
    dict(draw_until_playable=True),
    dict(draw_until_playable=True, drawn_card="must-play", hand_size=3),
    dict(draw_four_legal="no-playable-card"),
    dict(bluffing="forbidden", draw_four_legal="no-playable-card"),
    dict(caught_bluffer="takes-back"),
    dict(
        caught_bluffer="takes-back",
        draw_four_legal="no-playable-card",
        uno_forget_prob=0.5,
        uno_catch_prob=0.7,
        hand_size=3,
    ),
    dict(caught_bluffer="takes-back", hand_size=20, players=4),
    dict(stacking="same"),
    dict(stacking="same", wild_cancels_draw=True),
    dict(stacking="any", bluffing="forbidden", last_card="no-draw-four"),
    dict(wild_cancels_draw=True),
    dict(wild_cancels_draw=True, hand_size=2, caught_bluffer="takes-back"),
    dict(multi_play=True),
    dict(multi_play=True, seven_zero=True, jump_in=True),
    dict(jump_in=True, stacking="same", players=7),
    dict(seven_zero=True, players=9, hand_size=10),
    dict(last_card="no-draw-four"),
    dict(last_card="no-wild", hand_size=2),
    dict(first_card_effects=False),
    dict(first_wild_color_by="dealer"),
    dict(first_wild_color_by="random", first_card_effects=False),
    dict(voluntary_draw=False),
    dict(voluntary_draw=False, drawn_card="must-play", last_card="no-wild", hand_size=3),
    dict(drawn_card="auto-play"),
    dict(drawn_card="auto-play", stacking="any", wild_cancels_draw=True, players=4),
    dict(drawn_card="auto-play", seven_zero=True, jump_in=True, multi_play=True),
    dict(two_player_reverse_skips=False),
    dict(first_draw_two_skips=False, hand_size=2),
    dict(uno_forget_prob=0.5, uno_catch_prob=0.5, uno_penalty=1),
    dict(uno_forget_prob=1.0, uno_catch_prob=0.25, uno_penalty=4, hand_size=2),
    dict(match=True, scoring="losers-add", match_target=150, dealer="rotate"),
    dict(match=True, match_target=300, reward="points"),
    dict(match=True, scoring="rounds", match_target=2, dealer="rotate", players=8),
    dict(reward="points", players=5),
    dict(max_turns=30),
    dict(max_turns=10, match=True, match_target=1),
    dict(hand_size=1),
    dict(hand_size=20, players=4),
    dict(
        draw_until_playable=True,
        drawn_card="must-play",
        jump_in=True,
        stacking="any",
        wild_cancels_draw=True,
        multi_play=True,
    ),
    dict(
        seven_zero=True,
        jump_in=True,
        multi_play=True,
        caught_bluffer="takes-back",
        last_card="no-wild",
        first_card_effects=False,
        uno_forget_prob=0.3,
        players=10,
        hand_size=4,
    ),
    # a +2's jump-in window after its victim's answer (no stacking); stacked +4s' legality
    dict(jump_in=True, wild_cancels_draw=True, players=4),
    dict(stacking="any", draw_four_legal="no-playable-card", wild_cancels_draw=True, jump_in=True),
    # rules specification §12: a caught bluffer's lost turn, combinations of action cards, a
    # match of a fixed number of rounds
    dict(caught_bluffer="loses-turn"),
    dict(caught_bluffer="loses-turn", jump_in=True, hand_size=3, players=4),
    dict(caught_bluffer="loses-turn", last_card="any", hand_size=2, uno_forget_prob=0.5),
    dict(multi_play=True, multi_play_actions=True),
    dict(
        multi_play=True, multi_play_actions=True, stacking="any", wild_cancels_draw=True, players=4
    ),
    dict(
        multi_play=True,
        multi_play_actions=True,
        two_player_reverse_skips=False,
        jump_in=True,
        seven_zero=True,
        players=2,
    ),
    dict(multi_play=True, multi_play_actions=True, caught_bluffer="loses-turn", players=6),
    dict(match=True, scoring="losers-add", match_rounds=3),
    # rules specification §11: decks as data and the switches of their cards
    dict(deck=f"{DECKS}/no-zeros.toml", stacking="any", players=4),
    dict(deck=f"{DECKS}/chaos.toml", players=3, hand_size=3, jump_in=True, seven_zero=True),
    dict(
        deck=f"{DECKS}/chaos.toml",
        customizable_as="wild-shuffle-hands",
        downpour_includes_self=True,
        swap_excludes_uno=False,
        multi_play=True,
        caught_bluffer="takes-back",
        players=4,
        # Shuffled hands and multi-play keep random play from ending a round: every round runs
        # to max_turns, and 200 turns cover every path of these cards as 1,000 do, 6x sooner.
        max_turns=200,
    ),
    dict(deck="modern-112", customizable_as="downpour+1", uno_forget_prob=0.5, last_card="no-wild"),
    dict(deck="swap-112", customizable_as="wild-swap-hands", players=6, hand_size=3),
    dict(deck="modern-112", customizable_as="downpour+2", match=True, max_turns=80),
    dict(deck="extreme", players=3, discard_all_may_go_out=False, uno_forget_prob=0.5),
    dict(deck="extreme", dispenser="off", jump_in=True, players=4),
    dict(deck="modern-112", dispenser="on", customizable_as="wild-hit-fire"),
    dict(
        deck="extreme",
        dispenser_hazard=[0.354, 1.0],
        dispenser_count=[0.25, 0.25, 0.5],
        first_wild_color_by="random",
    ),
    dict(deck="modern-112", customizable_as="wild-all-hit", players=5, multi_play=True),
    dict(deck="extension", caught_bluffer="takes-back", players=3),
    dict(deck="extension", stacking="any", jump_in=True, players=5),
    dict(deck="extension", caught_bluffer="loses-turn", wild_cancels_draw=True, jump_in=True),
    dict(deck="extension", multi_play=True, multi_play_actions=True, bluffing="forbidden"),
    dict(deck=f"{DECKS}/everything.toml", players=4, max_turns=200, seven_zero=True),
    dict(deck=f"{DECKS}/everything.toml", dispenser="off", hand_size=3, max_turns=200),
    dict(
        match=True, scoring="losers-add", match_rounds=2, match_target=50, max_turns=40, players=3
    ),
]
COMBO_PLAYERS = (2, 3, 5)
#: Rounds per combination in the long profile (``suite_profile``).
ROUNDS_PER_COMBO = 200


def test_switch_combos_cover_every_value():
    seen: dict[str, set] = {}
    for combo in SWITCH_COMBOS:
        for key, value in combo.items():
            seen.setdefault(key, set()).add(tuple(value) if isinstance(value, list) else value)
    for field in dataclasses.fields(Rules):
        if field.name in CHOICES:
            wanted = set(CHOICES[field.name]) - {field.default}
        elif isinstance(field.default, bool):
            wanted = {not field.default}
        elif field.name == "players":
            continue  # covered by player counts below
        else:
            wanted = set()
            assert seen.get(field.name), f"switch {field.name} is never changed"
        missing = wanted - seen.get(field.name, set())
        assert not missing, f"{field.name}: values {missing} never tested"
    counts = {p for c in PRESET_CASES.values() for p in c} | set(COMBO_PLAYERS)
    counts |= {c["players"] for c in SWITCH_COMBOS if "players" in c}
    assert counts == set(range(2, 11))


def _combo_id(combo: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in combo.items())


@pytest.mark.slow
@pytest.mark.parametrize("combo", SWITCH_COMBOS, ids=_combo_id)
def test_switch_combos_match_reference(combo):
    combo = dict(combo)
    index = SWITCH_COMBOS.index(combo)
    players = combo.pop("players", COMBO_PLAYERS[index % len(COMBO_PLAYERS)])
    rules = load_rules("official", players=players, **combo)
    rounds = suite_profile.rounds(ROUNDS_PER_COMBO)
    if rules.max_turns <= 30:  # every game's first round over: some of them truncated
        rounds = max(rounds, 64)
    cov = play_both(rules, num_games=64, rounds=rounds, seed=7 + index)
    assert cov.rounds >= rounds
    if rules.max_turns <= 30:
        assert cov.truncated > 0


def test_actions_are_all_named():
    # Sanity for the coverage bookkeeping above.
    assert {action_kind(a) for a in range(NUM_ACTIONS)} == {
        "play",
        "wild",
        "draw4",
        "draw",
        "pass",
        "challenge",
        "accept",
        "target",
        "color",
    }
    extended = {action_kind(a) for a in range(NUM_ACTIONS, EXTENDED.num_actions)}
    assert extended == {"new-play", "new-wild"}


# ---------------------------------------------------------------- hypothesis


@st.composite
def rule_sets(draw) -> Rules:
    """Any rule set of the switch space (contradictory combinations are rejected)."""
    values = {}
    for field in dataclasses.fields(Rules):
        if field.name in CHOICES:
            values[field.name] = draw(st.sampled_from(CHOICES[field.name]))
        elif isinstance(field.default, bool):
            values[field.name] = draw(st.booleans())
    values["deck"] = draw(st.sampled_from(HYPOTHESIS_DECKS))
    values["players"] = draw(st.integers(2, 10))
    values["hand_size"] = draw(st.integers(1, min(20, 99 // values["players"])))
    values["uno_forget_prob"] = draw(st.sampled_from([0.0, 0.3, 1.0]))
    values["uno_catch_prob"] = draw(st.sampled_from([1.0, 0.5]))
    values["uno_penalty"] = draw(st.integers(1, 4))
    values["match_target"] = draw(st.sampled_from([1, 2, 100, 500]))
    values["max_turns"] = draw(st.sampled_from([10, 50, 1000]))
    if values["match"] and values["scoring"] == "losers-add":
        values["match_rounds"] = draw(st.sampled_from([0, 1, 3]))
    try:
        return Rules(**values)
    except RulesError:
        assume(False)
        raise


@settings(
    max_examples=suite_profile.examples(60),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(rules=rule_sets(), seed=st.integers(0, 2**32 - 1), steps=st.integers(10, 150))
def test_random_rule_sets_match_reference(rules, seed, steps):
    play_both(rules, num_games=6, rounds=10**9, seed=seed, max_steps=steps)


# ------------------------------------------------------------- deal & convert


@pytest.mark.parametrize("preset", sorted(PRESET_CASES))
def test_fresh_deals_match_reference(preset):
    seeds = (
        np.random.default_rng(len(preset))
        .integers(0, 2**63 - 1, size=40, dtype=np.int64)
        .astype(np.uint64)
    )
    seeds[:3] = [0, 1, 2**64 - 1]
    for players in range(2, 11):
        rules = load_rules(preset, players=players)
        state = engine.reset(rules, seeds)
        refs = [ReferenceGame(rules, int(x)) for x in seeds]
        for i, game in enumerate(refs):
            assert states_equal(state, i, game) == [], describe(state, refs, i)
        check_masks(state, refs, range(len(refs)))
        check_observations(state, refs, np.arange(len(refs)), all_seats=True)


def test_convert_round_trip():
    rules = load_rules("party", players=4, caught_bluffer="takes-back")
    gen = np.random.default_rng(4)
    state = engine.reset(rules, gen.integers(0, 2**62, 32).astype(np.uint64))
    for _ in range(60):
        engine.step(state, prefer_play(engine.legal_mask(state), gen))
        over = state.phase == OVER
        if over.any():
            engine.reset_games(
                state, over, gen.integers(0, 2**62, int(over.sum())).astype(np.uint64)
            )
        games = [to_reference(state, i) for i in range(state.num_games)]
        for i, game in enumerate(games):
            assert states_equal(state, i, game) == []
        back = to_state(games)
        assert back.rules == state.rules
        assert batch_state_diffs(back, games) == {}
        assert batch_state_diffs(state, games) == {}
        # a real difference is noticed by both comparisons
        games[5].hands[0][0] += 1
        assert states_equal(state, 5, games[5]) == ["hands", "hand_size"]
        assert batch_state_diffs(state, games) == {5: ["hands", "hand_size"]}


def test_state_comparison_notices_every_field():
    # The extended layout: every field holds something (the classic's swap_given is empty).
    rules = load_rules("official", players=3, deck="modern-112")
    state = engine.reset(rules, np.arange(4, dtype=np.uint64) + 17)
    refs = [to_reference(state, i) for i in range(4)]
    for name in state.arrays():
        other = state.copy()
        array = getattr(other, name)
        if name == "pile":
            array[2, 0] = (array[2, 0] + 1) % 54
        elif array.dtype == bool:
            array[2] = ~array[2]
        else:
            array[2] = array[2] + 1
        assert batch_state_diffs(other, refs) == {2: states_equal(other, 2, refs[2])}, name
        assert name in states_equal(other, 2, refs[2])
