"""Invariants of the batched engine under long random play, checked at every step.

* all 108 cards are accounted for, per kind: hands + draw pile + discard pile == the deck;
* ``hand_size`` is the hands summed; counts are never negative; the top card is in the
  discard pile; seats, phases, colors and directions are in range;
* a running game always has a legal action, a finished one none;
* rewards sum to zero, are nonzero only when a round ends, and are zero for truncated
  rounds; the winner has an empty hand; match scores only grow within a match;
* determinism: the same seeds and actions replay the same trajectory, a game's trajectory
  does not depend on the other games in its batch, and a deal seed deals the same cards.

Seeded sweeps cover every preset at every player count; Hypothesis draws rule sets from
the whole switch space (contradictory combinations are rejected), seeds and actions.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
import suite_profile
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from uno_rl.core import Rules, RulesError, engine, load_rules, rng
from uno_rl.core.actions import DRAW
from uno_rl.core.cards import (
    CANONICAL_DECK,
    DECK_SIZE,
    NUM_KINDS,
    WILD_DRAW_FOUR,
)
from uno_rl.core.phases import COLOR, NUM_PHASES, OVER
from uno_rl.core.rules import CHOICES, available_presets
from uno_rl.core.state import State

ALL_PLAYERS = range(2, 11)


DECK_DIR = Path(__file__).parent / "decks"
#: The decks the Hypothesis runs draw from (the classic most often).
HYPOTHESIS_DECKS = (
    "classic", "classic", "modern-112", "swap-112", "extension", "extreme",
    str(DECK_DIR / "chaos.toml"), str(DECK_DIR / "everything.toml"),
)  # fmt: skip

# ------------------------------------------------------------------- helpers


def prefer_play(mask: np.ndarray, gen: np.random.Generator, play_prob: float = 0.8) -> np.ndarray:
    """With prob. ``play_prob`` a uniformly random legal non-draw action (if any), else any legal one."""
    non_draw = mask.copy()
    non_draw[:, DRAW] = False
    prefer = non_draw.any(axis=1) & (gen.random(mask.shape[0]) < play_prob)
    return engine.sample_legal_actions(np.where(prefer[:, None], non_draw, mask), gen)


def card_counts(state: State) -> np.ndarray:
    """(N, K) cards of each kind in hands + draw pile + discard pile."""
    n, kinds, width = state.num_games, state.hands.shape[2], state.pile.shape[1]
    lanes = np.arange(width)[None, :] < state.pile_size[:, None]
    flat = (np.arange(n)[:, None] * kinds + state.pile.astype(np.int64))[lanes]
    pile = np.bincount(flat, minlength=n * kinds).reshape(n, kinds)
    return state.hands.astype(np.int64).sum(axis=1) + pile + state.discard


def check_state(state: State) -> None:
    """Invariants of a state on its own."""
    n, p = state.num_games, state.rules.players
    counts, copies = card_counts(state), state.rules.deck_cards.copies
    bad = np.flatnonzero((counts != copies[None, :]).any(axis=1))
    if bad.size:
        i = int(bad[0])
        wrong = {
            int(k): (int(counts[i, k]), int(copies[k])) for k in np.flatnonzero(counts[i] != copies)
        }
        raise AssertionError(
            f"game {i} (seed {int(state.key[i])}, turn {int(state.turn[i])}): cards not conserved, "
            f"kind: (counted, deck) {wrong}"
        )
    assert (state.hands >= 0).all() and (state.discard >= 0).all()
    assert np.array_equal(state.hand_size, state.hands.astype(np.int64).sum(axis=2))
    width = state.pile.shape[1]
    assert width == state.rules.deck_cards.size
    assert ((state.pile_size >= 0) & (state.pile_size <= width)).all()
    lanes = np.arange(width)[None, :] < state.pile_size[:, None]
    assert ((state.pile >= 0) & (state.pile < state.hands.shape[2]))[lanes].all()
    assert (state.discard[np.arange(n), state.top] >= 1).all(), (
        "the top card must be in the discard pile"
    )
    assert ((state.phase >= 0) & (state.phase < NUM_PHASES)).all()
    assert ((state.actor >= 0) & (state.actor < p)).all()
    assert np.isin(state.direction, (-1, 1)).all()
    assert ((state.color >= -1) & (state.color < 4)).all()
    assert (state.color[state.phase != COLOR] >= 0).all(), (
        "only a first-card Wild waits for a color"
    )
    assert (state.pending >= 0).all()
    assert (state.turn[state.phase != OVER] < state.rules.max_turns).all()
    mask = engine.legal_mask(state)
    running = state.phase != OVER
    assert mask[running].any(axis=1).all(), (
        f"no legal action in games {np.flatnonzero(running & ~mask.any(axis=1))}"
    )
    assert not mask[~running].any(), "a finished game has legal actions"


def check_result(before: State, state: State, result: engine.StepResult) -> None:
    """Invariants of one step's result (``before``: the state before the step)."""
    rules, p = state.rules, state.rules.players
    over = result.round_over
    rewards = result.rewards.astype(np.float64)
    assert rewards.shape == (state.num_games, p)
    assert np.abs(rewards.sum(axis=1)).max(initial=0) < 1e-4, "rewards must sum to zero"
    assert not rewards[~over].any(), "rewards only when a round ends"
    assert not rewards[result.truncated].any(), "a truncated round is a draw"
    assert (result.winner[result.truncated] == -1).all()
    assert not (result.truncated & ~over).any() and not (result.match_over & ~over).any()
    won = over & ~result.truncated
    assert (result.winner[won] >= 0).all() and (result.winner[~won] == -1).all()
    assert (result.decisions[over] == before.turn[over] + 1).all()
    assert not result.decisions[~over].any() and not result.points[~over].any()
    net = result.net_points
    assert net.shape == (state.num_games, p) and net.dtype == np.int32
    assert not net[~won].any(), "net points only when a round is won"
    assert not net.sum(axis=1).any(), "net points are zero-sum"
    w = np.flatnonzero(won)
    if w.size:
        winner = result.winner[w].astype(np.int64)
        assert np.array_equal(net[w, winner], result.points[w])
        assert (rewards[w, winner] >= 0).all()
        if rules.reward == "win-loss":
            assert np.allclose(rewards[w, winner], 1.0)
            assert np.allclose(rewards[w].sum(axis=1), 0.0, atol=1e-5)
            assert (np.sort(rewards[w], axis=1)[:, : p - 1] < 0).all()
        else:
            assert np.array_equal(rewards[w, winner], result.points[w])
        # the winner's hand is empty (where no next round was dealt over it)
        kept = w[result.match_over[w]] if rules.match else w
        if kept.size:
            assert (state.hand_size[kept, result.winner[kept]] == 0).all()
            points = (state.hands[kept].astype(np.int64) * rules.layout.kind_points).sum(
                axis=(1, 2)
            )
            assert np.array_equal(points, result.points[kept])
    for name in ("draw4_plays", "bluffs", "challenges", "challenges_won"):
        values = getattr(result, name)
        assert (values >= 0).all() and not values[~over].any()
    assert (result.bluffs <= result.draw4_plays).all()
    assert (result.challenges_won <= result.challenges).all()
    if not rules.challenge_enabled:
        assert not result.bluffs.any() and not result.challenges.any()
    assert (state.scores >= before.scores).all(), "scores only grow"
    assert not state.scores[~over].any() or (state.scores[~over] == before.scores[~over]).all()
    if rules.match:
        assert (state.match_over == result.match_over).all()
        if rules.match_rounds:  # a fixed number of rounds (rules specification §12)
            scored = before.round_index + 1 >= rules.match_rounds
        else:
            scored = state.scores.max(axis=1) >= rules.match_target
        assert (result.match_over[over] == scored[over]).all()
        next_round = over & ~result.match_over
        assert np.array_equal(state.round_index, before.round_index + next_round)
        assert (state.turn[next_round] == 0).all()
    else:
        assert not result.match_over.any()
        assert np.array_equal(state.round_index, before.round_index)


def play(
    rules: Rules, seeds, steps: int, gen: np.random.Generator, choose=None, check: bool = True
):
    """Random play for ``steps`` steps (finished games restarted), checking every step.

    Yields (state, result, actions) after each step.
    """
    choose = choose or (lambda mask, t: prefer_play(mask, gen))
    state = engine.reset(rules, np.asarray(seeds, np.uint64))
    if check:
        check_state(state)
    for t in range(steps):
        actions = choose(engine.legal_mask(state), t)
        before = state.copy() if check else None
        result = engine.step(state, actions)
        if check:
            check_state(state)
            check_result(before, state, result)
        yield state, result, actions
        finished = result.round_over & (result.match_over if rules.match else True)
        if finished.any():
            fresh = gen.integers(0, 2**63 - 1, size=int(finished.sum()), dtype=np.int64).astype(
                np.uint64
            )
            engine.reset_games(state, finished, fresh)
            if check:
                check_state(state)
                assert (state.turn[finished] == 0).all() and not state.scores[finished].any()


# ------------------------------------------------------------- seeded sweeps


@pytest.mark.parametrize("players", ALL_PLAYERS)
@pytest.mark.parametrize(
    "preset", ["official", "house", "seven-zero", "party", "no-bluff", "kids", "rlcard"]
)
def test_invariants_sweep(preset, players):
    assert preset in available_presets()
    rules = load_rules(preset, players=players)
    gen = np.random.default_rng(players * 1000 + len(preset))
    seeds = gen.integers(0, 2**63 - 1, size=64, dtype=np.int64)
    play_prob = 0.5 if players % 2 else 0.85  # odd counts: more draws, bigger hands

    def choose(mask, t):
        return prefer_play(mask, gen, play_prob)

    rounds = 0
    for _, result, _ in play(rules, seeds, 300, gen, choose=choose):
        rounds += int(result.round_over.sum())
    assert rounds >= 20


@pytest.mark.parametrize("players", [2, 3, 4, 6, 10])
@pytest.mark.parametrize(
    "deck",
    ["modern-112", "swap-112", str(DECK_DIR / "chaos.toml"), str(DECK_DIR / "no-zeros.toml")],
)
def test_invariants_sweep_decks(deck, players):
    """Every card of each deck accounted for, masks never empty, zero-sum rewards."""
    hand_size = 7 if players < 6 else 3  # the chaos deck's rounds are long at big tables
    rules = load_rules("official", players=players, deck=deck, hand_size=hand_size)
    gen = np.random.default_rng(players * 7 + len(deck))
    seeds = gen.integers(0, 2**63 - 1, size=64, dtype=np.int64)

    def choose(mask, t):
        return prefer_play(mask, gen, 0.8)

    steps = 1500 if "chaos" in deck and players >= 6 else 300  # everyone draws: long rounds
    rounds = 0
    for _, result, _ in play(rules, seeds, steps, gen, choose=choose):
        rounds += int(result.round_over.sum())
    assert rounds >= 20


def test_invariants_with_many_reshuffles():
    """Big hands and few cards left: the piles run out and are reshuffled again and again."""
    for overrides in (
        dict(players=4, hand_size=20),
        dict(players=9, hand_size=11, caught_bluffer="takes-back"),
        dict(players=5, hand_size=19, stacking="any", draw_until_playable=True),
    ):
        rules = load_rules("official", **overrides)
        gen = np.random.default_rng(5)
        seeds = gen.integers(0, 2**63 - 1, size=32, dtype=np.int64)
        reshuffled = 0
        for state, _, _ in play(
            rules,
            seeds,
            150,
            gen,
            choose=lambda mask, t, gen=gen: engine.sample_legal_actions(mask, gen),
        ):
            reshuffled = max(reshuffled, int(state.reshuffles.max()))
        assert reshuffled >= 2


def test_cards_conserved_after_a_taken_back_draw_four_on_a_draw_four():
    """Regression: a bluffed +4 played on a +4 is challenged and taken back (caught_bluffer =
    'takes-back'); the restored top is the earlier +4 and ``prev_top`` still says +4, so the
    reshuffle during the bluffer's penalty draw keeps a second +4 that is not there."""
    rules = load_rules("official", players=4, hand_size=20, caught_bluffer="takes-back")
    seed = 6393189705406574727
    actions = [
        50,
        54,
        53,
        18,
        21,
        17,
        58,
        62,
        20,
        58,
        62,
        59,
        62,
        7,
        1,
        5,
        4,
        11,
        58,
        62,
        59,
        62,
        12,
        3,
        59,
        63,
        58,
        62,
    ]
    state = engine.reset(rules, np.array([seed], np.uint64))
    for action in actions:
        engine.step(state, np.array([action]))
        check_state(state)


# ------------------------------------------------------------- hypothesis


def _rule_values(draw) -> dict:
    values = {}
    for field in dataclasses.fields(Rules):
        name = field.name
        if name in CHOICES:
            values[name] = draw(st.sampled_from(CHOICES[name]))
        elif isinstance(field.default, bool):
            values[name] = draw(st.booleans())
    values["deck"] = draw(st.sampled_from(HYPOTHESIS_DECKS))
    values["players"] = draw(st.integers(2, 10))
    values["hand_size"] = draw(st.integers(1, 99 // values["players"]).filter(lambda h: h <= 20))
    values["uno_forget_prob"] = draw(st.sampled_from([0.0, 0.0, 0.25, 1.0]))
    values["uno_catch_prob"] = draw(st.sampled_from([1.0, 0.5, 0.0]))
    values["uno_penalty"] = draw(st.integers(1, 4))
    values["match_target"] = draw(st.sampled_from([1, 2, 3, 60, 500]))
    values["max_turns"] = draw(st.sampled_from([10, 40, 1000]))
    if values["match"] and values["scoring"] == "losers-add":
        values["match_rounds"] = draw(st.sampled_from([0, 1, 3]))
    return values


@st.composite
def rule_sets(draw) -> Rules:
    values = _rule_values(draw)
    try:
        return Rules(**values)
    except RulesError:
        assume(False)  # contradictory switches: not a game
        raise


@settings(
    max_examples=suite_profile.examples(100),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(
    rules=rule_sets(),
    seeds=st.lists(st.integers(0, 2**64 - 1), min_size=1, max_size=6),
    choices=st.lists(st.integers(0, 2**16), min_size=1, max_size=64),
    steps=st.integers(20, 300),
)
def test_invariants_hypothesis(rules, seeds, choices, steps):
    gen = np.random.default_rng(seeds[0] % 2**32)

    def choose(mask, t):
        actions = np.empty(mask.shape[0], np.int64)
        for i, row in enumerate(mask):
            c = choices[(t * len(mask) + i) % len(choices)]
            legal = np.flatnonzero(row)
            plays = legal[legal != DRAW]
            pool = plays if (c % 5 and plays.size) else legal
            actions[i] = pool[(c // 5) % pool.size]
        return actions

    for _ in play(rules, seeds, steps, gen, choose=choose):
        pass


# -------------------------------------------------------------- determinism


def _trajectory(rules: Rules, seeds, steps: int, policy_seed: int):
    gen = np.random.default_rng(policy_seed)
    out = []
    for state, result, actions in play(rules, seeds, steps, gen, check=False):
        out.append((state.copy(), dataclasses.asdict(result), actions.copy()))
    return out


@pytest.mark.parametrize("preset", ["official", "party", "kids"])
def test_same_seed_same_trajectory(preset):
    rules = load_rules(preset, players=4, uno_forget_prob=0.3, uno_catch_prob=0.6)
    seeds = np.arange(1, 17, dtype=np.uint64) * 7919
    a = _trajectory(rules, seeds, 200, policy_seed=3)
    b = _trajectory(rules, seeds, 200, policy_seed=3)
    for (sa, ra, aa), (sb, rb, ab) in zip(a, b, strict=True):
        assert np.array_equal(aa, ab)
        for name, array in sa.arrays().items():
            assert np.array_equal(array, getattr(sb, name)), name
        for name in ra:
            assert np.array_equal(ra[name], rb[name]), name


@pytest.mark.parametrize(
    "rules",
    [
        load_rules("official", players=3),
        load_rules("party", players=5, uno_forget_prob=0.5, uno_catch_prob=0.5),
        load_rules("house", players=4, hand_size=15),
        load_rules("kids", players=2, hand_size=3),
        load_rules(
            "official", players=6, caught_bluffer="takes-back", hand_size=14, multi_play=True
        ),
    ],
    ids=["official", "party", "house", "kids", "takes-back"],
)
def test_trajectory_does_not_depend_on_the_batch(rules):
    gen = np.random.default_rng(11)
    seeds = gen.integers(0, 2**63 - 1, size=50, dtype=np.int64).astype(np.uint64)
    watched = 17
    big = engine.reset(rules, seeds)
    small = engine.reset(rules, seeds[watched : watched + 1])
    steps = 0
    while steps < 400:
        mask = engine.legal_mask(big)
        actions = prefer_play(mask, gen)
        assert np.array_equal(engine.legal_mask(small)[0], mask[watched])
        engine.step(big, actions)
        result = engine.step(small, actions[watched : watched + 1])
        steps += 1
        for name, array in big.arrays().items():
            assert np.array_equal(array[watched], getattr(small, name)[0]), (name, steps)
        if result.round_over[0] and (not rules.match or result.match_over[0]):
            break
        # keep the other games going
        done = (big.phase == OVER) & (np.arange(50) != watched)
        if done.any():
            engine.reset_games(big, done, gen.integers(0, 2**62, int(done.sum())).astype(np.uint64))
    assert steps > 10


def test_duplicate_deals():
    """The same deal seed deals the same deck order and hands, in any batch and any rule set."""
    seed = 123456789
    deck = CANONICAL_DECK[np.argsort(rng.sort_keys(seed, rng.DEAL, 0, DECK_SIZE), kind="stable")]
    for players in ALL_PLAYERS:
        rules = load_rules("official", players=players, first_card_effects=False)
        state = engine.reset(rules, np.array([seed, 1, seed, 2, seed], np.uint64))
        for name, array in state.arrays().items():
            assert np.array_equal(array[0], array[2]) and np.array_equal(array[0], array[4]), name
        dealer = int(state.dealer[0])
        hands = np.zeros((players, NUM_KINDS), np.int64)
        dealt = players * rules.hand_size
        for j in range(dealt):
            hands[(dealer + 1 + j) % players, deck[DECK_SIZE - 1 - j]] += 1
        assert np.array_equal(state.hands[0], hands)
        if deck[DECK_SIZE - dealt - 1] != WILD_DRAW_FOUR:
            size = int(state.pile_size[0])
            assert size == DECK_SIZE - dealt - 1
            assert np.array_equal(state.pile[0, :size], deck[:size])
            assert state.top[0] == deck[size]
        # other rule sets with the same table deal the same cards
        for preset in available_presets():
            other = engine.reset(
                load_rules(preset, players=players, first_card_effects=False), [seed]
            )
            for name in ("hands", "pile", "pile_size", "top", "dealer", "discard", "key"):
                assert np.array_equal(getattr(other, name)[0], getattr(state, name)[0]), (
                    preset,
                    name,
                )


def test_reset_games_deals_like_reset():
    rules = load_rules("party", players=4)
    gen = np.random.default_rng(2)
    state = engine.reset(rules, gen.integers(0, 2**62, 8).astype(np.uint64))
    for _ in range(30):
        engine.step(state, prefer_play(engine.legal_mask(state), gen))
        over = state.phase == OVER
        if over.any():
            engine.reset_games(
                state, over, gen.integers(0, 2**62, int(over.sum())).astype(np.uint64)
            )
    fresh_seeds = np.array([99, 98, 97], np.uint64)
    games = np.array([1, 4, 6])
    engine.reset_games(state, games, fresh_seeds)
    expected = engine.reset(rules, fresh_seeds)
    for name, array in state.arrays().items():
        assert np.array_equal(array[games], getattr(expected, name)), name
    check_state(state)
