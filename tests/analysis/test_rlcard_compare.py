"""The ``rlcard`` preset against RLCard 1.2.0's own UNO, side by side (needs the extra)."""

from __future__ import annotations

import numpy as np
import pytest

from uno_rl.analysis.rlcard_compare import compare, ks_statistic, play_rlcard, play_uno_rl

ROUNDS = 5000


@pytest.fixture(scope="module")
def rlcard_rounds():
    pytest.importorskip("rlcard")
    return play_rlcard(ROUNDS, seed=3)


def test_ks_statistic():
    a = np.array([1, 2, 3, 4])
    assert ks_statistic(a, a) == 0.0
    assert ks_statistic(a, a + 10) == 1.0
    assert ks_statistic(np.array([1, 2]), np.array([2, 3])) == pytest.approx(0.5)


def test_both_tables_have_one_row_per_round(rlcard_rounds):
    ours = play_uno_rl(11, seed=0)
    for table in (ours, rlcard_rounds):
        assert list(table.columns) == ["rule_seat", "rule_won", "decisions"]
        assert set(table.rule_seat) == {0, 1} and (table.decisions > 0).all()
    assert len(ours) == 11 and len(rlcard_rounds) == ROUNDS


def test_rlcard_side_is_seeded_and_leaves_the_global_generator_alone():
    pytest.importorskip("rlcard")
    np.random.seed(123)
    before = np.random.get_state()[1].copy()
    first = play_rlcard(50, seed=9)
    assert np.array_equal(np.random.get_state()[1], before)
    assert first.equals(play_rlcard(50, seed=9))


def test_preset_matches_rlcard_within_tolerance(rlcard_rounds, monkeypatch):
    """Win rate of ``rule`` against random play and the round-length distribution agree at
    the 0.1% level (a z test for each, a KS test for the distribution)."""
    import uno_rl.analysis.rlcard_compare as module

    monkeypatch.setattr(module, "play_rlcard", lambda rounds, seed: rlcard_rounds)
    table = compare(ROUNDS, seed=3).set_index("measure")
    assert table.loc[["rule win rate", "mean decisions", "ks distance"], "consistent"].all(), table
    assert table.loc["rule win rate", "uno_rl"] > 0.5  # the rule agent beats random play
    # Medians of the round length agree to within 10%.
    median = table.loc["median decisions"]
    assert abs(median.uno_rl - median.rlcard) <= 0.1 * median.rlcard


def test_official_rules_are_told_apart_from_rlcard(rlcard_rounds, monkeypatch):
    """The comparison has the power to notice a different rule set."""
    import uno_rl.analysis.rlcard_compare as module

    monkeypatch.setattr(module, "play_rlcard", lambda rounds, seed: rlcard_rounds)
    table = compare(ROUNDS, seed=3, rules="official").set_index("measure")
    assert not table.loc[["mean decisions", "ks distance"], "consistent"].all(), table
