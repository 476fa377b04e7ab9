"""Scenarios: the UNO Extreme cards of rules specification §11 (Discard All, Hit 2, Wild
Hit-Fire, Wild All Hit) and the random card dispenser, each run through both the reference
and the engine (``run_both`` checks they agree after every action); the dispenser's firing
pattern and count distribution against the configured tables."""

from __future__ import annotations

from collections import Counter

import numpy as np
from scipy import stats

from uno_rl.core import engine, rng
from uno_rl.core.dispenser import press
from uno_rl.core.layout import EXTENDED
from uno_rl.core.phases import COLOR, OVER, PLAY
from uno_rl.core.reference import ReferenceGame
from uno_rl.core.rules import Rules

try:
    from .scenario import build, hand_of, rules, run_both
except ImportError:
    from scenario import build, hand_of, rules, run_both

P1 = ["yellow 1", "yellow 2", "yellow 3"]
P2 = ["blue 1", "blue 2", "blue 3"]
PILE = ["green 3", "green 4", "green 5", "green 6", "green 7", "green 8"]  # next drawn last


def plain(**overrides) -> Rules:
    """The extreme deck with a plain draw pile (draws are predictable)."""
    return rules(deck="extreme", dispenser="off", **overrides)


def test_discard_all_sheds_its_color_and_keeps_the_top():
    r = plain(players=3)
    hand = ["red discard all", "red 2", "red 9", "blue 4", "red skip"]
    g = build(r, hands={0: hand, 1: P1, 2: P2}, top="red 5")
    run = run_both(g, ["red discard all"])
    g = run.game
    assert hand_of(g, 0) == Counter(["blue 4"])
    assert g.top == EXTENDED.parse_card("red discard all") and g.color == 0
    assert g.discard[EXTENDED.parse_card("red skip")] == 1  # shed, without its effect
    assert g.actor == 1 and g.phase == PLAY


def test_discard_all_on_a_discard_all_and_going_out():
    r = plain(players=3, reward="points")
    g = build(r, hands={0: ["blue discard all", "blue 2", "blue 7"], 1: P1, 2: P2},
              top="red discard all")  # fmt: skip
    run = run_both(g, ["blue discard all"])
    assert run.game.phase == OVER and run.game.winner == 0 and run.last.points == 12
    r = plain(players=3, discard_all_may_go_out=False)
    g = build(r, hands={0: ["blue discard all", "blue 7", "blue 2"], 1: P1, 2: P2}, top="blue 5")
    run = run_both(g, ["blue discard all"])
    assert hand_of(run.game, 0) == Counter(["blue 2"])  # the lowest kind stays
    assert run.game.phase == PLAY and run.game.actor == 1


def test_hit_two_without_dispenser_draws_two_and_loses_the_turn():
    r = plain(players=3)
    g = build(r, hands={0: ["green hit 2", "red 2"], 1: P1, 2: P2}, top="green 1", pile=PILE)
    run = run_both(g, ["green hit 2"])
    g = run.game
    assert hand_of(g, 1)["green 8"] == 1 and hand_of(g, 1)["green 7"] == 1
    assert g.actor == 2 and g.phase == PLAY
    # playable on another Hit 2
    g = build(r, hands={0: ["yellow hit 2", "red 2"], 1: P1, 2: P2}, top="green hit 2")
    assert "play yellow hit 2" in run_both(g).legal()


def test_all_hit_every_other_player_presses_once_nobody_skipped():
    r = plain(players=4)
    g = build(r, hands={0: ["wild all hit", "red 2"], 1: P1, 2: P2, 3: ["red 8"]},
              top="green 1", pile=PILE)  # fmt: skip
    run = run_both(g, ["wild all hit yellow"])
    g = run.game
    assert [g.hand_size(s) for s in range(4)] == [1, 4, 4, 2]
    assert hand_of(g, 1)["green 8"] == 1 and hand_of(g, 3)["green 6"] == 1
    assert g.actor == 1 and g.color == 1


def _hit_fire_cards(key: int, press_index: int = 0) -> int:
    cdf = np.cumsum(Rules().dispenser_count)
    u = float(rng.uniform(key, rng.DISPENSER, press_index, 1))
    return int(np.searchsorted(cdf, u, side="right")) + 1


def test_hit_fire_without_dispenser_draws_one_fires_count():
    r = plain(players=3)
    g = build(r, hands={0: ["wild hit-fire", "red 2"], 1: P1, 2: P2}, top="green 1", seed=5)
    run = run_both(g, ["wild hit-fire red"])
    g = run.game
    assert g.hand_size(1) == 3 + _hit_fire_cards(5) and g.actor == 2 and g.press_index == 1


def test_dispenser_draw_is_one_press_that_ends_the_turn():
    r = rules(deck="extreme", players=3)
    for seed in range(40):
        g = build(r, hands={0: ["red 2"], 1: P1, 2: P2}, top="green 1", seed=seed)
        run = run_both(g, ["draw"])
        g = run.game
        fired = float(rng.uniform(seed, rng.DISPENSER, 0, 0)) < 0.21
        expected = 1 + (_hit_fire_cards(seed) if fired else 0)
        assert g.hand_size(0) == expected and g.actor == 1 and g.phase == PLAY
        assert g.presses == (0 if fired else 1) and g.press_index == 1
        obs = g.observe(1)
        assert obs[EXTENDED.slices["dispenser_presses"]][0] == g.presses


def test_hit_fire_presses_until_it_fires():
    r = rules(deck="extreme", players=2)
    g = build(r, hands={0: ["wild hit-fire", "red 2"], 1: P1}, top="green 1", seed=11)
    run = run_both(g, ["wild hit-fire blue"])
    g = run.game
    assert g.presses == 0 and g.hand_size(1) > 3 and g.actor == 0  # the victim lost the turn


def test_uno_penalty_is_two_presses():
    r = rules(deck="extreme", players=3, uno_forget_prob=1.0, uno_catch_prob=1.0)
    g = build(r, hands={0: ["red 2", "red 3"], 1: P1, 2: P2}, top="red 1", seed=2)
    run = run_both(g, ["red 2"])
    assert run.game.press_index >= 2


def test_final_hit_still_hits():
    r = plain(players=3)
    g = build(r, hands={0: ["green hit 2"], 1: P1, 2: P2}, top="green 1", pile=PILE)
    run = run_both(g, ["green hit 2"])
    assert run.game.phase == OVER and run.game.hand_size(1) == 5


def _first(r: Rules, name: str, tries: int = 5000) -> int:
    kind = EXTENDED.parse_card(name)
    for seed in range(tries):
        if ReferenceGame(r, seed).top == kind:
            return seed
    raise AssertionError(f"no first {name} in {tries} deals")


def test_first_card_hit_two_and_all_hit():
    r = plain(players=3)
    seed = _first(r, "red hit 2")
    game = ReferenceGame(r, seed)
    first = (game.dealer + 1) % 3
    assert game.hand_size(first) == 9 and game.actor == (first + 1) % 3
    state = engine.reset(r, np.array([seed], np.uint64))
    assert state.hand_size[0].tolist() == [game.hand_size(s) for s in range(3)]
    assert int(state.actor[0]) == game.actor
    seed = _first(r, "wild all hit")
    game = ReferenceGame(r, seed)
    sizes = [game.hand_size(s) for s in range(3)]
    assert sizes[game.dealer] == 7 and sorted(sizes) == [7, 8, 8] and game.phase == COLOR


def test_first_card_hit_fire_names_a_color_then_the_victim_loses_the_turn():
    r = plain(players=3)
    seed = _first(r, "wild hit-fire")
    g = ReferenceGame(r, seed)
    first = (g.dealer + 1) % 3
    assert g.phase == COLOR and g.actor == first and g.hand_size(first) > 7
    run = run_both(g, ["color green"])
    assert run.game.actor == (first + 1) % 3 and run.game.color == 2


def test_dispenser_firing_pattern_and_counts_match_the_tables():
    """A million presses: fires by presses since the last fire follow the hazard, and the
    cards per fire follow dispenser_count (chi-square tests, p > 0.001)."""
    r = rules(deck="extreme", players=2, hand_size=1)
    n = 20000
    state = engine.reset(r, np.arange(n, dtype=np.uint64) + 99)
    hazard = np.asarray(r.dispenser_hazard)
    tried, fired = np.zeros(4, np.int64), np.zeros(4, np.int64)
    shot = []
    games, seat = np.arange(n), np.zeros(n, np.int8)
    for _ in range(50):
        state.pile_size[:] = state.pile.shape[1]  # never run dry: counts are not capped
        state.discard[:] = 0
        state.hands[:] = 0
        state.hand_size[:] = 0
        before, k = state.hand_size[:, 0].copy(), state.presses.astype(np.int64)
        press(state, games, seat, np.ones(n, np.int64))
        got = state.hand_size[:, 0] - before
        fire = got > 0
        np.add.at(tried, np.minimum(k, 3), 1)
        np.add.at(fired, np.minimum(k[fire], 3), 1)
        shot.append(got[fire])
    assert np.allclose(fired / tried, hazard, atol=0.01)
    counts = np.bincount(np.concatenate(shot), minlength=13)[1:]
    expected = np.asarray(r.dispenser_count) * counts.sum()
    assert stats.chisquare(counts[expected > 5], expected[expected > 5] * (
        counts[expected > 5].sum() / expected[expected > 5].sum())).pvalue > 0.001  # fmt: skip
    mean = (np.arange(1, 13) * counts).sum() / counts.sum()
    assert abs(mean - 4.96) < 0.05
