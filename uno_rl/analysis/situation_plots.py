"""The figures of the bluff study by situation (:mod:`uno_rl.analysis.situations`).

``situations-VARIANT.png``: each policy's gain over the plain agent against the field, with
its interval, one panel per side and player count; green where it pays, red where it costs.
``behaviour.png``: bluff and challenge rates by situation of the learned, searching and best
condition-based players, with the share of the +4s faced that were bluffs.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from .quick import PNG_TITLE, titled
from .study_plots import _slug

__all__ = [
    "VERDICT_COLORS",
    "behaviour_figure",
    "plot_behaviour",
    "plot_situations",
    "situations_figure",
]

#: The colour of each verdict of a situation (the +4 pays, costs, or the data cannot say).
VERDICT_COLORS = {"pays": "#1a7f37", "costs": "#c62828", "unclear": "#6e7781"}


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_situations(field: pd.DataFrame, folder: str | Path, note: str = "") -> list[Path]:
    """One figure per variant (and unit) of ``field``
    (:func:`~uno_rl.analysis.situations.field_table`), :func:`situations_figure`, saved as
    ``situations-VARIANT.png`` with its title in the PNG's text; returns the paths."""
    if not len(field):
        return []
    plt = _pyplot()
    paths = []
    for (variant, unit), part in field.groupby(["variant", "unit"], sort=False):
        fig = situations_figure(part, variant, unit, note)
        path = Path(folder) / f"situations-{_slug(variant)}.png"
        fig.savefig(path, dpi=110, metadata={PNG_TITLE: fig.get_suptitle()})
        plt.close(fig)
        paths.append(path)
    return paths


def situations_figure(part: pd.DataFrame, variant: str, unit: str, note: str = ""):
    """The figure of one variant and unit: rows bluff and challenge, columns player counts,
    one x scale for every panel; a quick run's ``note`` marks the title. The caller closes
    it."""
    plt = _pyplot()
    prefix = "match_gain" if unit == "matches" else "points_gain"
    sides = [s for s in ("bluff", "challenge") if (part["side"] == s).any()]
    counts = sorted(part["players"].unique())
    height = max(len(part[part["side"] == s]["policy"].unique()) for s in sides)
    fig, axes = plt.subplots(
        len(sides), len(counts), squeeze=False, sharex=True, sharey="row",
        figsize=(2.0 + 3.0 * len(counts), len(sides) * (0.32 * height + 1.3) + 0.6),
    )  # fmt: skip
    for i, side in enumerate(sides):
        policies = list(dict.fromkeys(part[part["side"] == side]["policy"]))
        for j, players in enumerate(counts):
            ax = axes[i, j]
            here = part[(part["side"] == side) & (part["players"] == players)]
            _gain_panel(ax, here.set_index("policy").reindex(policies), prefix, unit)
            y = np.arange(len(policies))
            if j == 0:  # the row shares its y axis: label it once
                ax.set_yticks(y, policies)
                ax.invert_yaxis()
            else:
                ax.tick_params(labelleft=False)
            if i == 0:
                ax.set_title(f"{players} players")
            if i == len(sides) - 1:
                ax.set_xlabel(
                    "matches won, gain (pp)" if unit == "matches" else "net points per round, gain"
                )
    fig.suptitle(titled(f"{variant} ({unit}): gain over never bluffing / never challenging, "
                        "against the field", note))  # fmt: skip
    fig.tight_layout()
    return fig


def _gain_panel(ax, here: pd.DataFrame, prefix: str, unit: str) -> None:
    """One panel: each policy's gain (rows of ``here``, in order) with its interval, coloured
    by whether it pays, costs or is unclear."""
    value = here[prefix].to_numpy(float)
    low, high = here[f"{prefix}_low"].to_numpy(float), here[f"{prefix}_high"].to_numpy(float)
    if unit == "matches":
        value, low, high = value * 100, low * 100, high * 100
    verdict = np.where(low > 0, "pays", np.where(high < 0, "costs", "unclear"))
    for k in range(len(value)):
        if np.isnan(value[k]):
            continue
        color = VERDICT_COLORS[verdict[k]]
        ax.errorbar(value[k], k, xerr=[[value[k] - low[k]], [high[k] - value[k]]],
                    fmt="o", color=color, ecolor=color, capsize=3, ms=5)  # fmt: skip
    ax.axvline(0.0, color="black", lw=0.8)
    ax.grid(axis="x", alpha=0.3)


def plot_behaviour(behaviour: pd.DataFrame, path: str | Path, note: str = "") -> Path:
    """``behaviour.png``: :func:`behaviour_figure`, its title in the PNG's text."""
    plt = _pyplot()
    fig = behaviour_figure(behaviour, note)
    fig.savefig(path, dpi=110, metadata={PNG_TITLE: fig.get_suptitle()})
    plt.close(fig)
    return Path(path)


def behaviour_figure(behaviour: pd.DataFrame, note: str = ""):
    """Per player count (rows), the bluff rate by the next player's hand and the challenge
    rate by the +4 player's hand (columns), one line per agent with its Wilson interval; the
    share of the faced +4s that were bluffs dashed in grey; each legend below its panel. A
    quick run's ``note`` marks the title. The caller closes the figure."""
    plt = _pyplot()
    counts = sorted(behaviour["players"].unique())
    panels = (("bluff", "next_hand", "bluff rate by the next player's cards", "best challenger"),
              ("challenge", "their_hand", "challenge rate by the +4 player's cards",
               "best bluffer"))  # fmt: skip
    fig, axes = plt.subplots(
        len(counts), 2, squeeze=False, figsize=(11, 5.0 * len(counts) + 0.4), layout="constrained"
    )
    for i, players in enumerate(counts):
        here = behaviour[behaviour["players"] == players]
        for j, (side, feature, title, other) in enumerate(panels):
            ax = axes[i, j]
            part = here[(here["side"] == side) & (here["feature"] == feature)]
            part = part[part["kind"] != other]  # the best of the other side never does it
            for agent, rows in part.groupby("agent", sort=False):
                rows = rows.sort_values("order")
                x = rows["order"].to_numpy()
                rate = rows["rate"].to_numpy(float) * 100
                low, high = (
                    rows["rate_low"].to_numpy(float) * 100,
                    rows["rate_high"].to_numpy(float) * 100,
                )
                label = agent if len(agent) <= 64 else agent[:61] + "..."
                ax.errorbar(x, rate, yerr=[rate - low, high - rate], marker="o", capsize=3,
                            label=f"{label} ({rows['kind'].iloc[0]})")  # fmt: skip
            if side == "challenge" and len(part):
                first = part[part["agent"] == part["agent"].iloc[0]].sort_values("order")
                ax.plot(first["order"], first["bluff_share"] * 100, ls="--", color="grey",
                        label="+4s faced that were bluffs")  # fmt: skip
            bins = part.drop_duplicates("order").sort_values("order")
            ax.set_xticks(bins["order"], bins["bin"])
            ax.set_ylim(-2, 102)
            ax.set_ylabel("% of chances")
            ax.set_xlabel("cards held")
            ax.set_title(f"{players} players: {title}")
            ax.grid(alpha=0.3)
            ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.18))
    fig.suptitle(titled("+4 decisions by situation", note))
    return fig
