"""Side by side with RLCard: the ``rlcard`` preset against RLCard 1.2.0's own UNO.

Both implementations play 2-player rounds of RLCard's ``uno-rule-v1`` agent against a
uniformly random legal player (RLCard's ``RandomAgent``; here ``random-playable``, which
under the preset's rules is the same policy: drawing is legal only when nothing plays).
:func:`compare` puts the two samples next to each other: the rule agent's win rate and
the distribution of round lengths (decisions per round), with tests of whether they
differ (a two-proportion z test, a Welch z test of the means and a two-sample
Kolmogorov-Smirnov test).

RLCard seats the rule agent first in half the rounds and second in the other half (its
player 0 always starts); uno_rl's dealer is random and each deal is played with both
seatings. RLCard's agents draw from NumPy's global generator: :func:`play_rlcard` seeds it
and puts its state back afterwards.

    python -c "from uno_rl.analysis.rlcard_compare import compare; print(compare(4000, seed=1))"

Needs the ``rlcard`` extra.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from uno_rl.core.rules import Rules

__all__ = ["compare", "ks_statistic", "play_rlcard", "play_uno_rl"]


def play_rlcard(rounds: int, seed: int) -> pd.DataFrame:
    """``rounds`` rounds of RLCard's UNO: rule agent against its random agent.

    Returns a table with one row per round: ``rule_seat`` (0 or 1), ``rule_won`` (bool) and
    ``decisions`` (env steps of the round, both players).
    """
    import rlcard
    from rlcard.agents import RandomAgent
    from rlcard.games.uno.utils import ACTION_SPACE
    from rlcard.models.uno_rule_models import UNORuleAgentV1

    env = rlcard.make("uno", config={"seed": seed, "game_num_players": 2})
    rule, random_agent = UNORuleAgentV1(), RandomAgent(num_actions=env.num_actions)
    saved = np.random.get_state()
    np.random.seed(seed)  # RLCard's agents use the global generator
    rows = []
    try:
        for r in range(rounds):
            rule_seat = r % 2
            agents = [rule, random_agent] if rule_seat == 0 else [random_agent, rule]
            state, player = env.reset()
            decisions = 0
            while not env.is_over():
                if agents[player] is rule:  # it answers with a raw action string
                    action = int(ACTION_SPACE[rule.step(state)])
                else:
                    action = random_agent.step(state)
                state, player = env.step(action, raw_action=False)
                decisions += 1
            payoffs = env.get_payoffs()
            rows.append((rule_seat, bool(payoffs[rule_seat] > 0), decisions))
    finally:
        np.random.set_state(saved)
    return pd.DataFrame(rows, columns=["rule_seat", "rule_won", "decisions"])


def play_uno_rl(rounds: int, seed: int, rules: str | Rules = "rlcard") -> pd.DataFrame:
    """``rounds`` rounds of ``rules`` (default the ``rlcard`` preset; ``rounds / 2`` deals,
    both seatings): ``rule`` against ``random-playable``; the columns of :func:`play_rlcard`."""
    from uno_rl.agents import make_agent
    from uno_rl.core.rng import new_seeds
    from uno_rl.core.rules import load_rules
    from uno_rl.eval.jobs import play_jobs

    rules = load_rules(rules, players=2)
    lineup = [make_agent("rule", rules), make_agent("random-playable", rules)]
    rng = np.random.default_rng(seed)
    out = play_jobs(rules, lineup, new_seeds(rng, math.ceil(rounds / 2)), rng)
    rule_seat = np.argmax(out.position == 0, axis=1)[:rounds]
    return pd.DataFrame(
        {
            "rule_seat": rule_seat,
            "rule_won": (out.winner[:rounds] == rule_seat),
            "decisions": out.decisions[:rounds].astype(np.int64),
        }
    )


def ks_statistic(a: np.ndarray, b: np.ndarray) -> float:
    """Two-sample Kolmogorov-Smirnov statistic: the largest gap between the two empirical CDFs."""
    a, b = np.sort(a), np.sort(b)
    values = np.union1d(a, b)
    cdf_a = np.searchsorted(a, values, side="right") / a.size
    cdf_b = np.searchsorted(b, values, side="right") / b.size
    return float(np.abs(cdf_a - cdf_b).max())


def _ks_critical(n: int, m: int, alpha: float) -> float:
    """Asymptotic critical value of the two-sample KS statistic at level ``alpha``."""
    return math.sqrt(-0.5 * math.log(alpha / 2)) * math.sqrt((n + m) / (n * m))


def compare(
    rounds: int, seed: int = 0, alpha: float = 0.001, rules: str | Rules = "rlcard"
) -> pd.DataFrame:
    """Both implementations, ``rounds`` rounds each: one row per measure (``rules``: what
    uno_rl plays; any other rule set than the preset shows how far it is from RLCard).

    Columns: ``measure`` (``rule win rate``, ``mean decisions``, ``sd decisions``,
    ``median decisions``, ``ks distance``), ``uno_rl``, ``rlcard``, ``difference``,
    ``threshold`` (the largest difference that is not significant at level ``alpha``; NaN
    for descriptive rows) and ``consistent`` (difference within threshold).
    """
    ours, theirs = play_uno_rl(rounds, seed, rules), play_rlcard(rounds, seed)
    z = _z(alpha)
    rows = []
    p1, p2 = ours.rule_won.mean(), theirs.rule_won.mean()
    se = math.sqrt(p1 * (1 - p1) / len(ours) + p2 * (1 - p2) / len(theirs))
    rows.append(("rule win rate", p1, p2, z * se))
    d1, d2 = ours.decisions.to_numpy(), theirs.decisions.to_numpy()
    se = math.sqrt(d1.var(ddof=1) / d1.size + d2.var(ddof=1) / d2.size)
    rows.append(("mean decisions", d1.mean(), d2.mean(), z * se))
    rows.append(("sd decisions", d1.std(ddof=1), d2.std(ddof=1), math.nan))
    rows.append(("median decisions", float(np.median(d1)), float(np.median(d2)), math.nan))
    ks = ks_statistic(d1, d2)
    rows.append(("ks distance", ks, 0.0, _ks_critical(d1.size, d2.size, alpha)))
    table = pd.DataFrame(rows, columns=["measure", "uno_rl", "rlcard", "threshold"])
    table.insert(3, "difference", table.uno_rl - table.rlcard)
    consistent = table.difference.abs() <= table.threshold
    table["consistent"] = consistent.astype("boolean").mask(table.threshold.isna())
    return table


def _z(alpha: float) -> float:
    """Two-sided normal quantile: |Z| exceeds it with probability ``alpha``."""
    from statistics import NormalDist

    return NormalDist().inv_cdf(1 - alpha / 2)
