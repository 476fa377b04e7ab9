"""The bluff study by situation: when a +4 bluff pays, and when a challenge does.

``experiments/bluff-when.toml`` plays, in every cell (rule variant and player count), a
*focal* heuristic against ``P - 1`` copies of each member of a *field*: on the bluff side,
bluffers that bluff only in one situation (:mod:`uno_rl.agents.conditions`: the next player
close to UNO, a large own hand, many cards of the current color, the +4 its last wild, behind
in the match...) against challengers; on the challenge side, challengers that challenge only
in one situation against bluffers. Each side also plays the *plain* focal agent (never
bluffing, never challenging) against the same field on the same deals, so the gain of a
policy is a paired difference, deal by deal (the run keeps the ``deals`` table). Its
``analysis = "bluff-when"`` step calls :func:`write_situation_study`, which writes:

======================  =======================================================================
file                    content
======================  =======================================================================
situations.*            one row per cell, side, policy and field member: rounds won, net
                        points per round and (matches) matches won, each policy's gain over
                        the plain agent with its paired interval and p-value, uses (bluffs or
                        challenges) per round and points per use (:func:`situation_table`)
field.*                 the same gains averaged over the field (each deal's mean over the
                        field's members, paired): what a policy is worth against a mixed
                        table (:func:`field_table`)
best_answers.*          per cell and side: the best policy against the field, the policies
                        tied with it, and each policy's verdict: ``pays``, ``costs`` or
                        ``unclear`` (:func:`best_answers`)
rule_of_thumb.md        the one-page advice for human players, written from ``field`` and
                        ``best_answers`` (:func:`uno_rl.analysis.advice.rule_of_thumb`)
situations-*.png        the gains against the field with their intervals, per variant
behaviour.*             the +4 decisions of learned and searching players by situation, with
                        the best condition-based policy beside them (:mod:`.behaviour`;
                        the config's ``[[behaviour]]`` entries); ``behaviour.png``
calibration.*           the Bayesian bluff probability against the truth on the conditional
                        bluffers' +4s, ``calibration_scores.*`` (Brier scores), ``.png``
======================  =======================================================================

Gains are in net points per round (the real game's score), rounds won per round and matches
won per match; intervals are paired t intervals over deals at the run's confidence.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
from tqdm import tqdm

from uno_rl.agents import make_agent
from uno_rl.agents.conditions import condition_label
from uno_rl.core.rules import Rules
from uno_rl.eval import formats as fmt
from uno_rl.eval.run import write_atomic
from uno_rl.eval.stats import RATE_DIFFERENCE, paired_test

from .advice import rule_of_thumb
from .behaviour import behaviour_samples, behaviour_table
from .calibration import (
    calibration_samples,
    calibration_scores,
    reliability_table,
    write_calibration,
)
from .quick import quick_note
from .situation_plots import plot_behaviour, plot_situations
from .study import challenge_label

__all__ = [
    "best_answers",
    "field_table",
    "policy_label",
    "rule_of_thumb",
    "situation_summary",
    "situation_table",
    "write_situation_study",
]

#: Measures compared deal by deal: deals-table column -> the gain's column prefix.
_MEASURES = {"points": "points_gain", "wins": "win_gain", "matches": "match_gain"}
#: Rounds of each calibration setting (at most the cell's rounds).
CALIBRATION_ROUNDS = 20_000


def _side(params: dict) -> str:
    """``bluff`` (it bluffs), ``challenge`` (it challenges) or ``plain`` (neither)."""
    if params.get("bluff", 0.0) > 0:
        return "bluff"
    if params.get("challenge", "never") != "never":
        return "challenge"
    return "plain"


def policy_label(params: dict) -> str:
    """What a heuristic does with its +4s, shortly: ``bluff always``, ``bluff if next<=2``,
    ``bluff 0.5 if hand>=7``, ``challenge bayes``, ``challenge if own<=1``, ``challenge bayes
    if their>=5``, ``plain`` (never bluffs, never challenges)."""
    side = _side(params)
    if side == "plain":
        return "plain"
    if side == "bluff":
        chance = params["bluff"]
        head = "bluff" if chance >= 1.0 else f"bluff {chance:g}"
        cond = condition_label(params, "bluff")
        return f"{head} always" if cond == "always" else f"{head} if {cond}"
    policy = params["challenge"]
    if policy == "threshold":
        policy = challenge_label(params)
    cond = condition_label(params, "challenge")
    if cond == "always":
        return f"challenge {policy}"
    return f"challenge if {cond}" if policy == "always" else f"challenge {policy} if {cond}"


def _params(spec: str, rules: Rules) -> dict:
    return dict(make_agent(spec, rules).params)


def _config(folder: Path) -> dict:
    return json.loads((folder / "config.json").read_text())


def _deals_by_matchup(deals: pd.DataFrame) -> dict[tuple, pd.DataFrame]:
    """The deal table split once by ``(variant, players, matchup)``, each part sorted by deal
    (selecting a cell's rows from the whole table again and again is the slow part)."""
    return {
        key: part.sort_values("deal")
        for key, part in deals.groupby(["variant", "players", "matchup"], sort=False)
    }


def situation_table(folder: str | Path) -> pd.DataFrame:
    """One row per cell, side, policy and field member of a finished ``bluff-when`` run.

    Columns: ``variant``, ``players``, ``unit`` (rounds or matches), ``caught_bluffer``,
    ``draw_four_legal``, ``side``, ``policy`` (:func:`policy_label`), ``focal`` and
    ``opponent`` (specs), ``against`` (the opponent's :func:`policy_label`), ``matchup``
    and ``plain_matchup`` (the labels of its match-up and of the plain agent's), ``deals``;
    the focal agent's ``points`` (net points per round), ``win_rate`` and, in match cells,
    ``match_win_rate``; per measure the gain over the plain agent against the same opponent
    (``points_gain``, ``win_gain``, ``match_gain``) with ``_low``, ``_high`` and ``_p``;
    ``uses_per_round`` (its bluffs or challenges per round, minus the plain agent's: 0) and
    ``points_per_use`` (the points gain per use, nan below 0.001 uses a round).
    """
    folder = Path(folder)
    config = _config(folder)
    confidence = float(config["confidence"])
    deals = _deals_by_matchup(pd.read_parquet(folder / "deals.parquet"))
    agents = pd.read_parquet(folder / "agents.parquet")
    rows = []
    for cell in config["cells"]:
        rules = Rules.from_dict(cell["rules"])
        key = (cell["variant"], cell["players"])
        stats = agents[(agents["variant"] == key[0]) & (agents["players"] == key[1])]
        stats = {(r.matchup, r.agent): r for r in stats.itertuples(index=False)}
        lineups = [tuple(m) for m in cell["matchups"]]
        labels = {lineup: _matchup_label(lineup) for lineup in lineups}
        plain = {
            lineup[1]: lineup for lineup in lineups if _side(_params(lineup[0], rules)) == "plain"
        }
        for lineup in lineups:
            focal, opponent = lineup[0], lineup[1]
            params = _params(focal, rules)
            side = _side(params)
            if side == "plain" or opponent not in plain:
                continue
            mine = deals[(*key, labels[lineup])]
            base = deals[(*key, labels[plain[opponent]])]
            f = stats[(labels[lineup], focal)]
            b = stats[(labels[plain[opponent]], plain[opponent][0])]
            row = {
                "variant": cell["variant"], "players": cell["players"], "unit": cell["unit"],
                "caught_bluffer": rules.caught_bluffer, "draw_four_legal": rules.draw_four_legal,
                "side": side, "policy": policy_label(params), "focal": focal,
                "opponent": opponent, "against": policy_label(_params(opponent, rules)),
                "matchup": labels[lineup], "plain_matchup": labels[plain[opponent]],
                "deals": len(mine), "points": f.points, "win_rate": f.win_rate,
            }  # fmt: skip
            if "matches" in mine:
                row["match_win_rate"] = f.match_win_rate
            for column, prefix in _MEASURES.items():
                if column in mine:
                    bounds = None if column == "points" else RATE_DIFFERENCE
                    test = paired_test(mine[column], base[column], confidence, bounds)
                    row.update(_gain(prefix, test))
            uses = "bluffs" if side == "bluff" else "challenges"
            extra = float(getattr(f, uses)) - float(getattr(b, uses))
            row["uses_per_round"] = extra
            row["points_per_use"] = row["points_gain"] / extra if extra > 1e-3 else np.nan
            rows.append(row)
    return pd.DataFrame(rows)


def _matchup_label(lineup: tuple[str, ...]) -> str:
    from uno_rl.eval.tournament import Matchup

    return Matchup(lineup).label


#: Gains in a share (of rounds or matches won) lie in [-1, 1]; a t interval over few deals
#: can reach beyond, so their bounds are clipped there.
_SHARE_GAINS = {"win_gain", "match_gain"}


def _gain(prefix: str, test) -> dict[str, float]:
    low, high = test.low, test.high
    if prefix in _SHARE_GAINS:
        low, high = float(np.clip(low, -1.0, 1.0)), float(np.clip(high, -1.0, 1.0))
    return {
        prefix: test.mean_difference,
        f"{prefix}_low": low,
        f"{prefix}_high": high,
        f"{prefix}_p": test.p_value,
    }


def field_table(folder: str | Path, table: pd.DataFrame | None = None) -> pd.DataFrame:
    """Each policy's gains against the whole field: per deal, the mean over the field's
    members of the policy's score minus the plain agent's (every member plays the same
    deals), then a paired interval over deals. One row per ``variant``, ``players``,
    ``unit``, ``side``, ``policy`` with ``field`` (the members), ``deals``, the gains (as in
    :func:`situation_table`) and ``uses_per_round`` (mean over the members); ``table``: the
    run's :func:`situation_table`, when already computed."""
    folder = Path(folder)
    config = _config(folder)
    confidence = float(config["confidence"])
    deals = _deals_by_matchup(pd.read_parquet(folder / "deals.parquet"))
    table = situation_table(folder) if table is None else table
    rows = []
    if not len(table):
        return pd.DataFrame()
    keys = ["variant", "players", "unit", "side", "policy"]
    for (variant, players, unit, side, policy), part in table.groupby(keys, sort=False):
        row = {"variant": variant, "players": players, "unit": unit, "side": side,
               "policy": policy, "field": ", ".join(part["against"]),
               "caught_bluffer": part["caught_bluffer"].iloc[0],
               "draw_four_legal": part["draw_four_legal"].iloc[0]}  # fmt: skip
        for column, prefix in _MEASURES.items():
            diffs = []
            for r in part.itertuples(index=False):
                mine = deals[(variant, players, r.matchup)]
                if column not in mine:
                    break
                base = deals[(variant, players, r.plain_matchup)]
                diffs.append(mine[column].to_numpy() - base[column].to_numpy())
            else:
                mean = np.mean(diffs, axis=0)
                bounds = None if column == "points" else RATE_DIFFERENCE
                test = paired_test(mean, np.zeros_like(mean), confidence, bounds)
                row.update(_gain(prefix, test))
                row["deals"] = test.n
        row["uses_per_round"] = float(part["uses_per_round"].mean())
        rows.append(row)
    return pd.DataFrame(rows)


def _verdict(low: float, high: float) -> str:
    if low > 0:
        return "pays"
    if high < 0:
        return "costs"
    return "unclear"


def best_answers(field: pd.DataFrame) -> pd.DataFrame:
    """Per ``variant``, ``players``, ``unit`` and ``side``, every policy with its verdict
    against the field (``pays``: the points gain's interval above 0, ``costs``: below 0,
    ``unclear``) and ``best`` (True for the policy with the largest points gain — matches
    won in match cells) and ``tied`` (its interval overlaps the best one's)."""
    if not len(field):
        return pd.DataFrame()
    out = []
    for _, part in field.groupby(["variant", "players", "unit", "side"], sort=False):
        part = part.copy()
        prefix = "match_gain" if part["unit"].iloc[0] == "matches" else "points_gain"
        part["measure"] = prefix
        part["verdict"] = [_verdict(lo, hi) for lo, hi in zip(part[f"{prefix}_low"],
                                                             part[f"{prefix}_high"])]  # fmt: skip
        if part[prefix].notna().any():
            best = part.loc[part[prefix].idxmax()]
            part["best"] = part["policy"] == best["policy"]
            part["tied"] = part[f"{prefix}_high"] >= best[f"{prefix}_low"]
        else:  # too few deals for any interval (a single deal): no best answer here
            part["best"] = part["tied"] = False
        out.append(part)
    return pd.concat(out, ignore_index=True)


# ----------------------------------------------------------------- behaviour
def behaviour_tables(
    config: dict, answers: pd.DataFrame, table: pd.DataFrame, progress: bool = False
) -> pd.DataFrame:
    """The binned decisions of every ``[[behaviour]]`` agent, and beside the first entry of
    each rule set the best condition-based bluffer and challenger of the run's matching cell
    (those rules, rounds): one :func:`behaviour_table` per agent, with ``agent``,
    ``opponent``, ``players``, ``variant`` and ``kind`` (``given`` or ``best bluffer`` /
    ``best challenger``) columns."""
    confidence = float(config["confidence"])
    parts = []
    shown_best = set()  # the best policies of each rule set, beside its first entry only
    entries = config.get("behaviour", [])
    for i, entry in enumerate(tqdm(entries, desc="behaviour", disable=not progress, leave=False)):
        from uno_rl.core.rules import load_rules

        rules = load_rules(entry["preset"], players=entry["players"], **entry["switches"])
        agents = [(spec, "given") for spec in entry["agents"]]
        if rules not in shown_best:
            shown_best.add(rules)
            agents += _best_specs(answers, table, rules)
        for j, (spec, kind) in enumerate(agents):
            bluffs, challenges = behaviour_samples(
                rules, spec, entry["opponent"], entry["rounds"], seed=config["seed"] + 97 * i + j
            )
            binned = behaviour_table(bluffs, challenges, rules, confidence)
            parts.append(binned.assign(agent=spec, kind=kind, opponent=entry["opponent"],
                                      players=entry["players"], rounds=entry["rounds"]))  # fmt: skip
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def _best_specs(answers: pd.DataFrame, table: pd.DataFrame, rules: Rules) -> list[tuple[str, str]]:
    """The specs (from the situation ``table``) of the best bluff and challenge policies
    against the field in the run's rounds cell with these rules' player count and +4 rules
    (none when the run has no such cell)."""
    if not len(answers):
        return []
    hit = answers[
        (answers["players"] == rules.players) & (answers["unit"] == "rounds") & answers["best"]
        & (answers["caught_bluffer"] == rules.caught_bluffer)
        & (answers["draw_four_legal"] == rules.draw_four_legal)
    ]  # fmt: skip
    out = []
    for side, kind in (("bluff", "best bluffer"), ("challenge", "best challenger")):
        best = hit[hit["side"] == side]
        if len(best):
            row = best.iloc[0]
            specs = table[(table["variant"] == row["variant"]) & (table["players"] == row["players"])
                          & (table["policy"] == row["policy"])]["focal"]  # fmt: skip
            if len(specs):
                out.append((specs.iloc[0], kind))
    return out


# ----------------------------------------------------------------- calibration
def calibration_outputs(config: dict, progress: bool = False):
    """(samples, reliability, scores) of the Bayesian bluff probability on every conditional
    bluffer's +4s in the run's largest rounds cells with a challenge (those of the preset's
    own rules, where there are), against the first member of its field; each with
    ``variant``, ``players``, ``policy`` and ``setting``; ``scores`` ends with the pooled row
    (``setting = "pooled"``)."""
    cells = [c for c in config["cells"] if c["unit"] == "rounds"
             and Rules.from_dict(c["rules"]).challenge_enabled]  # fmt: skip
    if not cells:
        return pd.DataFrame(), pd.DataFrame(), pd.DataFrame()
    most = max(c["rounds"] for c in cells)
    cells = [c for c in cells if c["rounds"] == most]
    official = [c for c in cells if c["variant"] == c["preset"]]  # the preset's own rules
    settings = []
    for cell in official or cells:
        rules = Rules.from_dict(cell["rules"])
        seen = []
        for focal, opponent in (tuple(m[:2]) for m in cell["matchups"]):
            if _side(_params(focal, rules)) == "bluff" and focal not in seen:
                seen.append(focal)
                settings.append((cell, focal, opponent))
    samples, reliability, scores = [], [], []
    for i, (cell, focal, opponent) in enumerate(
        tqdm(settings, desc="calibration", disable=not progress, leave=False)
    ):
        rules = Rules.from_dict(cell["rules"])
        rounds = min(cell["rounds"], CALIBRATION_ROUNDS)
        found = calibration_samples(rules, focal, opponent, rounds, seed=config["seed"] + i)
        policy = policy_label(_params(focal, rules))
        keys = {"variant": cell["variant"], "players": cell["players"], "policy": policy,
                "setting": f"{cell['variant']} {cell['players']}p {policy}"}  # fmt: skip
        samples.append(found.assign(**keys))
        reliability.append(reliability_table(found, confidence=config["confidence"]).assign(**keys))
        scores.append({**keys, **calibration_scores(found)})
    if not settings:
        return pd.DataFrame(), pd.DataFrame(), pd.DataFrame()
    pooled = pd.concat(samples, ignore_index=True)
    scores.append({"variant": "all", "players": 0, "policy": "every conditional bluffer",
                   "setting": "pooled", **calibration_scores(pooled)})  # fmt: skip
    return pooled, pd.concat(reliability, ignore_index=True), pd.DataFrame(scores)


# ---------------------------------------------------------------------- entry
def write_situation_study(folder: str | Path, workers: int | None = None, progress: bool = True):
    """Write every output of the module docstring into the run ``folder`` (``workers`` is
    accepted for the experiment runner; the analysis runs in this process)."""
    folder = Path(folder)
    config = _config(folder)
    table = situation_table(folder)
    field = field_table(folder, table)
    answers = best_answers(field)
    write_atomic(table, str(folder / "situations"))
    write_atomic(field, str(folder / "field"))
    write_atomic(answers, str(folder / "best_answers"))
    note = run_note(config, field)
    advice = rule_of_thumb(answers, config["confidence"], note)
    _write_text(folder / "rule_of_thumb.md", "\n".join(advice) + "\n")
    plot_situations(field, folder, note)
    behaviour = behaviour_tables(config, answers, table, progress)
    if len(behaviour):
        write_atomic(behaviour, str(folder / "behaviour"))
        plot_behaviour(behaviour, folder / "behaviour.png", note)
    write_calibration(folder, *calibration_outputs(config, progress), note=note)


def run_note(config: dict, field: pd.DataFrame) -> str:
    """The quick run's warning (:func:`~uno_rl.analysis.quick.quick_note`) with the paired
    deals of its cells, ``""`` for a full run."""
    deals = field["deals"] if len(field) else pd.Series([0])
    return quick_note(config, int(deals.min()), int(deals.max()), "paired deals")


def _write_text(path: Path, text: str) -> None:
    from uno_rl.plumbing.durable import replace_durably

    with replace_durably(str(path)) as tmp:
        Path(tmp).write_text(text)


def situation_summary(folder: str | Path) -> str:
    """The findings of a finished run as text (what the experiment runner prints): the rule
    of thumb, the learned and searching players' headline rates and the calibration."""
    folder = Path(folder)
    lines = (folder / "rule_of_thumb.md").read_text().splitlines()
    title = lines.index("# The +4 bluff: a rule of thumb")
    del lines[title : title + 2]
    behaviour = folder / "behaviour.parquet"
    if behaviour.exists():
        lines += ["", "Learned, searching and best condition-based players (all their chances):"]
        lines += behaviour_lines(pd.read_parquet(behaviour))
    scores = folder / "calibration_scores.parquet"
    if scores.exists():
        pooled = pd.read_parquet(scores)
        pooled = pooled[pooled["setting"] == "pooled"]
        for row in pooled.itertuples(index=False):
            lines.append(
                f"- calibration of the Bayesian bluff probability over every conditional "
                f"bluffer: {row.draw4s:,} +4s, "
                f"{fmt.rate(row.bluff_rate)} bluffs, predicted {fmt.rate(row.mean_predicted)}; "
                f"Brier {row.brier:.3f} against {row.base_brier:.3f} (skill {row.skill:+.2f})"
            )
    return "\n".join(lines)


def behaviour_lines(behaviour: pd.DataFrame) -> list[str]:
    """One line per behaviour agent: its bluff rate and challenge rate over all chances,
    and its challenges' success against the break-even."""
    lines = []
    overall = behaviour[behaviour["feature"] == "all"]
    for (agent, players), part in overall.groupby(["agent", "players"], sort=False):
        bluff = part[part["side"] == "bluff"]
        chal = part[part["side"] == "challenge"]
        text = f"- `{agent}` ({players} players, {part['kind'].iloc[0]})"
        if len(bluff):
            b = bluff.iloc[0]
            text += (f": bluffs {fmt.rate(b['rate'])} of {int(b['chances']):,} chances")  # fmt: skip
        if len(chal):
            c = chal.iloc[0]
            success = (
                "no challenge" if not c["taken"] else f"{fmt.rate(c['success'])} caught a bluff"
            )
            text += (
                f"; challenges {fmt.rate(c['rate'])} of {int(c['chances']):,} +4s "
                f"({fmt.rate(c['bluff_share'])} were bluffs; {success}, break-even "
                f"{fmt.rate(c['break_even'])})"
            )
        lines.append(text)
    return lines
