"""The evaluator's job loop compiled (``uno_rl/agents/compiled/job_loop.py``): taken for
line-ups of compiled heuristics (``challenge=bayes`` memories included), and job for job the
outcomes of the Python step loop (which the compiled heuristics' tests compare with the
batched agents)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from uno_rl.agents import make_agent
from uno_rl.agents.strategies import ColorFirstAgent
from uno_rl.core import engine, load_rules
from uno_rl.eval.jobs import play_jobs


def _python_loop(*args):
    """An observer that does nothing: it keeps play_jobs on its Python step loop."""


CASES = [
    ("official", dict(players=2), ["color-first", "random-playable"], 64),
    (
        "official",
        dict(players=4, max_turns=40),
        ["rule", "aggressive:bluff=0.5", "random", "points-dumper"],
        24,
    ),  # fmt: skip
    ("official", dict(players=3, match=True), ["color-first", "rule", "color-first"], 16),
    (
        "house",
        dict(players=5, deck="extension"),
        ["bluffer", "suspicious", "rule", "color-first", "aggressive"],
        32,
    ),  # fmt: skip
    (
        "official",
        dict(players=4, scoring="losers-add", match=True, match_target=150),
        ["points-dumper", "color-first:challenge=always", "points-dumper", "random-playable"],
        8,
    ),
    ("official", dict(players=2), ["bayes-challenger", "color-first:bluff=0.6"], 64),
    (
        "official",
        dict(players=4, deck="extension"),
        [
            "bayes-challenger",
            "bluffer",
            "points-dumper:challenge=bayes,bluff=0.4",
            "bayes-challenger",
        ],
        16,
    ),
    (
        "seven-zero",
        dict(players=3, match=True, match_target=200),
        ["color-first:challenge=bayes,bluff=0.5", "bluffer", "bayes-challenger"],
        8,
    ),
]


@pytest.mark.parametrize(("preset", "switches", "specs", "slots"), CASES)
def test_the_compiled_loop_gives_the_step_loops_outcomes(preset, switches, specs, slots,
                                                         monkeypatch):  # fmt: skip
    rules = load_rules(preset, **switches)
    agents = {spec: make_agent(spec, rules) for spec in specs}  # a repeated spec: one object
    lineup = [agents[spec] for spec in specs]
    seeds = np.arange(30, dtype=np.uint64) + 7
    expected = play_jobs(rules, lineup, seeds, np.random.default_rng(3), slots=slots,
                         observer=_python_loop)  # fmt: skip
    finished = []

    def no_step(*args, **kwargs):
        raise AssertionError("the compiled loop steps in one call")

    monkeypatch.setattr(engine, "step", no_step)
    got = play_jobs(rules, lineup, seeds, np.random.default_rng(3), slots=slots,
                    on_finished=finished.append)  # fmt: skip
    for field in dataclasses.fields(expected):
        np.testing.assert_array_equal(getattr(got, field.name), getattr(expected, field.name),
                                      field.name)  # fmt: skip
    assert sum(finished) == seeds.size * rules.players and all(n > 0 for n in finished)
    if switches.get("max_turns"):
        assert expected.truncated.any()
    if switches.get("match"):
        assert (expected.rounds > 1).any()


def test_a_line_up_with_an_agent_of_ones_own_plays_the_step_loop(monkeypatch):
    rules = load_rules("official", players=2)

    class Mine(ColorFirstAgent):
        def card_scores(self, view, rng):
            return super().card_scores(view, rng)[:, ::-1].copy()

    lineup = [Mine(rules), make_agent("color-first", rules)]
    steps = []
    real_step = engine.step

    def counted(*args, **kwargs):
        steps.append(1)
        return real_step(*args, **kwargs)

    monkeypatch.setattr(engine, "step", counted)
    out = play_jobs(rules, lineup, np.arange(4, dtype=np.uint64), np.random.default_rng(0))
    assert steps and (out.rounds == 1).all()
