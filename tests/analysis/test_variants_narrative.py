"""The narrative of an experiment run: a leader only where the lead is separable."""

import pandas as pd

from uno_rl.analysis.variants import leaders, narrative


def _summary(cells):
    """Summary rows: ``cells`` maps (variant, players) to {agent: (win_rate, half_width)}."""
    rows = []
    for (variant, players), agents in cells.items():
        for agent, (rate, half) in agents.items():
            rows.append({
                "variant": variant, "players": players, "agent": agent, "rounds": 1000,
                "win_rate": rate, "win_low": rate - half, "win_high": rate + half,
                "points": 10 * (rate - 1 / players), "points_low": -5.0, "points_high": 5.0,
            })  # fmt: skip
    return pd.DataFrame(rows)


def _pairs():
    return pd.DataFrame([{
        "variant": "official", "players": 2, "matchup": "rule vs aggressive",
        "agent_a": "aggressive", "agent_b": "rule", "deals": 500,
        "win_difference": -0.2, "win_diff_low": -0.25, "win_diff_high": -0.15,
        "win_p_value": 0.0, "win_log10_p": -400.0,
        "points_difference": -2.0, "points_diff_low": -3.0, "points_diff_high": -1.0,
        "points_p_value": 1e-5, "points_log10_p": -5.0,
    }])  # fmt: skip


def _measure_line(lines, cell: str, measure: str) -> str:
    """The line of ``measure`` under the header of ``cell`` (``official, 4 players``)."""
    start = next(i for i, line in enumerate(lines) if line.startswith(f"- **{cell}**"))
    return next(line for line in lines[start + 1 :] if line.startswith(f"  - {measure}:"))


def test_leaders_are_the_tied_group():
    summary = _summary({("official", 4): {"a": (0.30, 0.02), "b": (0.27, 0.02), "c": (0.2, 0.01)}})
    assert leaders(summary, "win_rate") == ["a", "b"]
    summary = _summary({("official", 4): {"a": (0.30, 0.01), "b": (0.27, 0.01)}})
    assert leaders(summary, "win_rate") == ["a"]


def test_a_separable_lead_is_named_with_its_paired_test():
    summary = _summary({("official", 2): {"rule": (0.60, 0.02), "aggressive": (0.40, 0.02)}})
    lines = narrative(summary, _pairs())
    won = _measure_line(lines, "official, 2 players", "rounds won")
    assert "**rule** leads, rule 60.0% [58.0%, 62.0%], ahead of aggressive 40.0%" in won
    # the pair table holds aggressive minus rule: turned round to rule minus aggressive
    assert "rule minus aggressive over the same deals: rule vs aggressive: " in won
    assert "+20.0 pp [+15.0 pp, +25.0 pp], p < 1e-300" in won
    points = _measure_line(lines, "official, 2 players", "points per round")
    assert "not separable" in points and "**" not in points
    assert "- rounds won: a separable leader in 1 of 1 cells; rule in 1" in lines


def test_no_best_agent_where_the_cells_are_not_separable():
    cells = {
        ("official", 4): {"rule": (0.27, 0.03), "color-first": (0.26, 0.03), "aggressive": (0.22, 0.03)},
        ("house", 4): {"rule": (0.25, 0.01), "color-first": (0.30, 0.01), "aggressive": (0.20, 0.01)},
    }  # fmt: skip
    lines = narrative(_summary(cells))
    text = "\n".join(lines)
    official = _measure_line(lines, "official, 4 players", "rounds won")
    assert "not separable" in official and "**" not in official
    assert "rule 27.0% [24.0%, 30.0%], color-first 26.0% [23.0%, 29.0%]" in official
    assert "aggressive" in official  # 0.25 >= 0.24: its interval reaches the top one's
    assert "**color-first** leads" in text  # house: separable
    assert "a separable leader in 1 of 2 cells; color-first in 1" in text
    # official's tied group contains color-first: no claim that the lead changes with the rules
    assert "changes with the variant" not in text


def test_a_lead_changes_only_between_disjoint_groups():
    cells = {
        ("official", 2): {"rule": (0.60, 0.01), "aggressive": (0.40, 0.01)},
        ("official", 4): {"rule": (0.20, 0.01), "aggressive": (0.30, 0.01)},
    }
    lines = narrative(_summary(cells))
    assert any(
        "rounds won, under official: the lead changes with the player count: 2p: rule; 4p: "
        "aggressive" in line
        for line in lines
    )
