"""When does an agent bluff, when does it challenge, and how well do those choices pay?

:func:`behaviour_samples` plays an agent (a PPO bot, a search agent, a heuristic) against
``P - 1`` copies of an opponent and records, from the hidden state, every +4 decision of the
agent's seat:

* **bluff chances**: its turn, a +4 (or Targeted +4) is legal and would be a bluff (the
  engine's own test, :func:`uno_rl.core.legality.draw_four_legal`). Recorded: the situation
  (:class:`uno_rl.agents.conditions.SituationFeatures`, as the agent saw it; ``wilds`` counts
  its wilds besides the +4), whether it bluffed, and whether the victim then challenged.
* **challenge chances**: a +4 on it that it may challenge. Recorded: the situation, whether it
  challenged, and whether the +4 was a bluff (so whether the challenge caught one).

:func:`behaviour_table` bins them by situation: per bin the share of chances taken (with a
Wilson interval), for bluffs the share of bluffs that were challenged, for challenges the share
of the +4s faced that were bluffs, the share of challenges that succeeded, and the break-even
bluff probability above which a challenge gains cards
(:func:`uno_rl.agents.bluff.challenge_break_even`): a challenge policy pays where the bluff
share of its bin is above it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from uno_rl.agents import make_agent
from uno_rl.agents.bluff import challenge_break_even
from uno_rl.agents.conditions import SituationFeatures
from uno_rl.agents.view import ObservationView
from uno_rl.core.actions import CHALLENGE
from uno_rl.core.legality import draw_four_legal
from uno_rl.core.observe import observe
from uno_rl.core.phases import DRAWN, PLAY, RESPOND
from uno_rl.core.rng import new_seeds
from uno_rl.core.rules import Rules
from uno_rl.core.views import hand_of
from uno_rl.eval.jobs import play_jobs
from uno_rl.eval.stats import wilson_interval

__all__ = ["BINS", "behaviour_samples", "behaviour_table"]

#: The features recorded with each decision (columns of the samples).
_FEATURES = ("next_hand", "own_hand", "color_cards", "wilds", "their_hand", "kept_color",
             "lead", "top_score", "turn")  # fmt: skip
#: The situation bins of each side: feature -> (label, low, high) inclusive.
BINS: dict[str, dict[str, tuple[tuple[str, int, int], ...]]] = {
    "bluff": {
        "next_hand": (("1", 1, 1), ("2", 2, 2), ("3-4", 3, 4), ("5+", 5, 10**6)),
        "own_hand": (("1-3", 1, 3), ("4-6", 4, 6), ("7+", 7, 10**6)),
        "color_cards": (("1", 1, 1), ("2", 2, 2), ("3+", 3, 10**6)),
        "wilds": (("0", 0, 0), ("1+", 1, 10**6)),
    },
    "challenge": {
        "their_hand": (("1-2", 1, 2), ("3-4", 3, 4), ("5-7", 5, 7), ("8+", 8, 10**6)),
        "kept_color": (("changed", 0, 0), ("kept", 1, 1)),
        "own_hand": (("1", 1, 1), ("2-3", 2, 3), ("4-6", 4, 6), ("7+", 7, 10**6)),
    },
}


def behaviour_samples(
    rules: Rules, agent: str, opponent: str, rounds: int, seed: int = 0, slots: int = 4096
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Play ``agent`` against ``P - 1`` copies of ``opponent`` for ``rounds`` duplicate-deal
    rounds (rounded up to whole deals; its seat rotates) and record its +4 decisions.

    Returns ``(bluffs, challenges)``: one row per bluff chance (``bluffed`` bool,
    ``challenged`` bool: the victim challenged the bluff) and per challenge chance
    (``challenged`` bool, ``was_bluff`` bool), each with the int64 feature columns of
    :class:`~uno_rl.agents.conditions.SituationFeatures` (``kept_color`` as 0/1). The same
    seed gives the same samples. Rules without a +4 challenge have no chances (empty tables).
    """
    p = rules.players
    lineup = [make_agent(agent, rules)] + [make_agent(opponent, rules)] * (p - 1)
    gen = np.random.default_rng(seed)
    deal_seeds = new_seeds(gen, -(-rounds // p))
    layout = rules.layout
    draw_four_actions = layout.draw_four_like[np.maximum(layout.action_card, 0)] & (
        layout.action_card >= 0
    )
    bluff_parts: list[dict] = []
    challenge_parts: list[dict] = []
    # Each game slot's +4 bluff waiting for the victim's answer: its row among all the bluff
    # chances so far (-1: none); the answers, as (rows, challenged) pairs.
    waiting = np.full(slots, -1, np.int64)
    answers: list[tuple[np.ndarray, np.ndarray]] = []
    recorded = 0  # bluff chances recorded so far

    def features(state, games, seats) -> dict[str, np.ndarray]:
        view = ObservationView(observe(state.take(games), seats), p)
        f = SituationFeatures(view, rules)
        return {name: np.asarray(getattr(f, name)).astype(np.int64) for name in _FEATURES}

    def observer(state, live, masks, position, actions) -> None:
        nonlocal recorded
        if not rules.challenge_enabled:
            return
        actor = state.actor[live].astype(np.int64)
        mine = position[np.arange(live.size), actor] == 0
        phase = state.phase[live]
        if recorded and (waiting >= 0).any():
            # The step after a bluff is the victim's answer (a challenge chance).
            answering = np.flatnonzero((phase == RESPOND) & masks[:, CHALLENGE])
            rows = waiting[live[answering]]
            found = rows >= 0
            answers.append((rows[found], actions[answering[found]] == CHALLENGE))
            waiting[:] = -1
        chance = mine & ((phase == PLAY) | (phase == DRAWN)) & masks[:, draw_four_actions].any(1)
        if chance.any():
            rows = np.flatnonzero(chance)
            games = live[rows]
            bluff = ~draw_four_legal(state, games, hand_of(state, games, actor[rows]))
            rows, games = rows[bluff], games[bluff]
            if rows.size:
                record = features(state, games, actor[rows])
                record["wilds"] = np.maximum(record["wilds"] - 1, 0)
                record["bluffed"] = draw_four_actions[actions[rows]]
                bluff_parts.append(record)
                bluffed = np.flatnonzero(record["bluffed"])
                waiting[games[bluffed]] = recorded + bluffed
                recorded += rows.size
        asked = mine & (phase == RESPOND) & masks[:, CHALLENGE]
        if asked.any():
            rows = np.flatnonzero(asked)
            games = live[rows]
            record = features(state, games, actor[rows])
            record["challenged"] = actions[rows] == CHALLENGE
            record["was_bluff"] = state.draw4_bluff[games].copy()
            challenge_parts.append(record)

    play_jobs(rules, lineup, deal_seeds, gen, slots=slots, observer=observer)
    bluffs = _frame(bluff_parts, ("bluffed",))
    challenged = np.zeros(len(bluffs), bool)
    for rows, flags in answers:
        challenged[rows] = flags
    bluffs["challenged"] = challenged
    return bluffs, _frame(challenge_parts, ("challenged", "was_bluff"))


def _frame(parts: list[dict], flags: tuple[str, ...]) -> pd.DataFrame:
    columns = list(_FEATURES) + list(flags)
    if not parts:
        return pd.DataFrame({c: np.zeros(0, bool if c in flags else np.int64) for c in columns})
    return pd.DataFrame({c: np.concatenate([part[c] for part in parts]) for c in columns})


def behaviour_table(
    bluffs: pd.DataFrame, challenges: pd.DataFrame, rules: Rules, confidence: float = 0.95
) -> pd.DataFrame:
    """The samples of :func:`behaviour_samples` binned by situation (:data:`BINS`).

    One row per ``side`` (``bluff``, ``challenge``), ``feature`` and ``bin`` (with ``order``,
    the bin's rank) plus one row ``feature = "all"``: ``chances``, ``taken`` (bluffs or
    challenges), ``rate`` with ``rate_low`` / ``rate_high`` (Wilson); bluff rows:
    ``answered`` (share of the bluffs that were challenged, Wilson); challenge rows:
    ``bluff_share`` (share of the +4s faced that were bluffs, Wilson), ``success`` (share of
    the challenges that caught a bluff, Wilson) and ``break_even``. Bins without a chance are
    left out.
    """
    rows = []
    even = challenge_break_even(rules) if rules.challenge_enabled else np.nan
    for side, samples, flag in (("bluff", bluffs, "bluffed"), ("challenge", challenges,
                                                                 "challenged")):  # fmt: skip
        groups = [("all", "all", 0, np.ones(len(samples), bool))]
        for feature, bins in BINS[side].items():
            values = samples[feature].to_numpy()
            for order, (label, low, high) in enumerate(bins):
                groups.append((feature, label, order, (values >= low) & (values <= high)))
        for feature, label, order, inside in groups:
            part = samples[inside]
            if not len(part):
                continue
            taken = part[flag].to_numpy(bool)
            row = {"side": side, "feature": feature, "bin": label, "order": order,
                   "chances": len(part), "taken": int(taken.sum())}  # fmt: skip
            row.update(_rate("rate", taken.sum(), len(part), confidence))
            if side == "bluff":
                answered = part["challenged"].to_numpy(bool)[taken]
                row.update(_rate("answered", answered.sum(), taken.sum(), confidence))
            else:
                truth = part["was_bluff"].to_numpy(bool)
                row.update(_rate("bluff_share", truth.sum(), len(part), confidence))
                row.update(_rate("success", (truth & taken).sum(), taken.sum(), confidence))
                row["break_even"] = even
            rows.append(row)
    return pd.DataFrame(rows)


def _rate(name: str, hits, trials, confidence: float) -> dict[str, float]:
    """``name``, ``name_low``, ``name_high``: hits / trials with its Wilson interval (nan
    without a trial)."""
    hits, trials = float(hits), float(trials)
    if trials <= 0:
        return {name: np.nan, f"{name}_low": np.nan, f"{name}_high": np.nan}
    low, high = wilson_interval(np.array([hits]), np.array([trials]), confidence)
    return {name: hits / trials, f"{name}_low": float(low[0]), f"{name}_high": float(high[0])}
