import math

import numpy as np
import pytest

pytest.importorskip("uno_rl.core.engine", reason="the game core has not landed yet")

from uno_rl.programs import simulate  # noqa: E402


def test_wilson_interval_known_values():
    # Reference values from the closed form (Wilson 1927), z = 1.96.
    lo, hi = simulate.wilson_interval(5, 10)
    assert lo == pytest.approx(0.2366, abs=1e-4) and hi == pytest.approx(0.7634, abs=1e-4)
    lo, hi = simulate.wilson_interval(0, 10)
    assert lo == pytest.approx(0.0, abs=1e-12) and hi == pytest.approx(0.2775, abs=1e-4)
    assert all(math.isnan(x) for x in simulate.wilson_interval(0, 0))


def test_round_quotas_sum_and_spread():
    q = simulate._round_quotas(10, 4)
    assert q.tolist() == [3, 3, 2, 2]
    assert simulate._round_quotas(3, 8).sum() == 3


def test_simulate_counts_exactly_and_is_deterministic():
    a = simulate.simulate(games=32, rounds=100, seed=7, progress=False)
    b = simulate.simulate(games=32, rounds=100, seed=7, progress=False)
    assert a.rounds == 100
    # Every counted round is won by exactly one seat or truncated.
    assert int(a.wins.sum()) + a.truncated == 100
    assert a.decisions > 0
    keys = (
        "decisions",
        "truncated",
        "points",
        "draw4_plays",
        "bluffs",
        "challenges",
        "challenges_won",
    )
    for key in keys:
        assert getattr(a, key) == getattr(b, key), key
    np.testing.assert_array_equal(a.wins, b.wins)
    assert a.bluffs <= a.draw4_plays and a.challenges_won <= a.challenges


def test_cli_prints_tables(capsys):
    simulate.main(["--games", "8", "--rounds", "16", "--seed", "1", "--no-progress"])
    out = capsys.readouterr().out
    assert "decisions per round" in out and "win_rate" in out


def test_policy_mask_prefers_cards_and_falls_back():
    from uno_rl.core.actions import DRAW, PASS

    mask = np.zeros((3, 77), dtype=bool)
    mask[0, [5, DRAW]] = True  # a card and draw: only the card
    mask[1, [DRAW]] = True  # only draw: draw
    mask[2, [7, PASS]] = True  # drawn card or keep it: play it
    picked = simulate.policy_mask(mask, "random-playable")
    assert np.flatnonzero(picked[0]).tolist() == [5]
    assert np.flatnonzero(picked[1]).tolist() == [DRAW]
    assert np.flatnonzero(picked[2]).tolist() == [7]
    assert (simulate.policy_mask(mask, "random") == mask).all()
    with pytest.raises(ValueError, match="unknown policy"):
        simulate.policy_mask(mask, "greedy")


def test_random_playable_rounds_are_short_and_random_rounds_long():
    playable = simulate.simulate(games=64, rounds=200, seed=3, progress=False)
    uniform = simulate.simulate(games=64, rounds=200, seed=3, progress=False, policy="random")
    # Random-playable ends 2-player official rounds in about 57 decisions; uniformly random
    # legal play (drawing is always legal) takes hundreds.
    assert 30 < playable.decisions / playable.rounds < 100
    assert uniform.decisions / uniform.rounds > 200


def test_match_mode_plays_whole_matches():
    result = simulate.simulate(preset="kids", games=16, rounds=64, seed=2, progress=False)
    assert result.rounds == 64
    assert int(result.wins.sum()) + result.truncated == 64


def test_cli_applies_rule_overrides_and_players(capsys):
    result = simulate.main(
        ["--games", "8", "--rounds", "16", "--players", "3", "--set", "stacking=any",
         "--set", "uno_forget_prob=0.5", "--no-progress"]
    )  # fmt: skip
    assert result.rules.players == 3 and result.rules.stacking == "any"
    assert result.rules.uno_forget_prob == 0.5 and result.rounds == 16
    assert "players=3" in capsys.readouterr().out


@pytest.mark.parametrize("deck", ["modern-112", "swap-112", "extension", "extreme"])
def test_simulate_plays_every_shipped_deck(deck, capsys):
    a = simulate.simulate(players=3, games=16, rounds=40, seed=3, progress=False,
                          overrides={"deck": deck})  # fmt: skip
    b = simulate.simulate(players=3, games=16, rounds=40, seed=3, progress=False,
                          overrides={"deck": deck})  # fmt: skip
    assert a.rules.deck == deck and a.rounds == 40
    assert int(a.wins.sum()) + a.truncated == 40
    np.testing.assert_array_equal(a.wins, b.wins)
    assert a.decisions == b.decisions and a.points == b.points
    printed = simulate.main(["--players", "2", "--games", "8", "--rounds", "10", "--no-progress",
                             "--set", f"deck={deck}"])  # fmt: skip
    assert printed.rules.deck == deck
    assert f"deck={deck}" in capsys.readouterr().out.splitlines()[0]


def rules_line(argv: list[str], capsys) -> str:
    """The ``rules:`` line ``uno_rl simulate`` prints for ``argv`` (a tiny run)."""
    simulate.main(["--games", "4", "--rounds", "4", "--no-progress", *argv])
    out = capsys.readouterr().out
    assert "Rules(" not in out
    (line,) = [line for line in out.splitlines() if line.startswith("rules: ")]
    return line


def test_cli_prints_the_rules_readably(capsys):
    official = "rules: official preset, 2 players, classic deck (108 cards)"
    assert rules_line([], capsys) == f"{official}: official rules"
    assert rules_line(["--set", "jump_in=false"], capsys) == f"{official}: official rules"
    assert rules_line(
        ["--players", "3", "--set", "stacking=any", "--set", "uno_forget_prob=0.5"], capsys
    ) == (
        "rules: official preset, 3 players, classic deck (108 cards); on top of the preset: "
        "stacking=any, uno_forget_prob=0.5"
    )
    party = "rules: party preset, 4 players, classic deck (108 cards)"
    assert (
        rules_line(["--preset", "party", "--players", "4"], capsys)
        == f"{party}: the preset's rules"
    )
    assert rules_line(["--preset", "party", "--set", "jump_in=false"], capsys).endswith(
        "; on top of the preset: jump_in=false"
    )


def test_dispenser_settings_show_only_with_a_dispenser(capsys):
    hazard = ["--set", "dispenser_hazard=[0.5, 1.0]"]
    classic = rules_line(hazard, capsys)
    assert "dispenser" not in classic and classic.endswith(": official rules")
    extreme = rules_line(["--set", "deck=extreme", *hazard], capsys)
    assert ", extreme deck (" in extreme and "with the random card dispenser" in extreme
    assert extreme.endswith("; on top of the preset: dispenser_hazard=[0.5, 1]")
    off = rules_line(["--set", "deck=extreme", "--set", "dispenser=off", *hazard], capsys)
    assert "with the random card dispenser" not in off
    assert off.endswith("; on top of the preset: dispenser=off")
