"""The figures of the results pages, drawn from the frames of :mod:`.results_frames`.

Every figure is 9 inches wide and saved at 100 dpi (900 pixels, the width of a docs page),
with its title in the PNG's text (:data:`uno_rl.analysis.quick.PNG_TITLE`) and no timestamp,
so the same run gives the same file. Titles name the measure and the level of the intervals;
a quick run's titles start with ``QUICK RUN`` (:func:`uno_rl.analysis.quick.titled`).
Intervals are coloured as in the bluff study's figures: green where the whole interval is
above the reference (0 points, a fair share of matches), red where it is below, grey where it
straddles it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from uno_rl.analysis.quick import PNG_TITLE, interval_level, titled
from uno_rl.analysis.situation_plots import VERDICT_COLORS, behaviour_figure, situations_figure
from uno_rl.analysis.study_plots import text_color

__all__ = [
    "WIDTH",
    "bluff_behaviour_figure",
    "bluff_situations_figure",
    "editions_figure",
    "save_figure",
    "strength_figure",
    "training_figure",
]

#: Inches; at :data:`DPI` the width of a docs page.
WIDTH = 9.0
DPI = 100
_MEASURE_LABELS = {
    "win_rate": "rounds won (%)",
    "points_per_round": "net points per round",
    "match_win_rate": "matches won (%)",
}


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig, path: str | Path) -> Path:
    """Save ``fig`` as a PNG at :data:`DPI` with its title in the PNG's text, then close it."""
    plt = _pyplot()
    title = fig.get_suptitle() if hasattr(fig, "get_suptitle") else ""
    # No "Software" entry (the matplotlib version): the text in the file is the run's alone.
    fig.savefig(path, dpi=DPI, metadata={PNG_TITLE: title, "Software": None})
    plt.close(fig)
    return Path(path)


def _forest(
    ax, y, part: pd.DataFrame, columns: tuple[str, str, str], reference: float, scale: float = 1.0
) -> None:
    """One point with its horizontal interval bar per row of ``part`` (at ``y``): the
    ``columns`` value, low and high times ``scale``, coloured against ``reference``."""
    value, low, high = (scale * part[c].to_numpy(float) for c in columns)
    verdict = np.select([low > reference, high < reference], ["pays", "costs"], "unclear")
    for k in np.flatnonzero(np.isfinite(value)):
        color = VERDICT_COLORS[verdict[k]]
        ax.errorbar(value[k], y[k], xerr=[[value[k] - low[k]], [high[k] - value[k]]], fmt="o",
                    color=color, ecolor=color, capsize=2.5, ms=4)  # fmt: skip
    ax.axvline(reference, color="black", lw=0.8, ls="-" if reference == 0 else "--")
    ax.grid(axis="x", alpha=0.3)


def strength_figure(frame: pd.DataFrame, confidence: float, note: str = ""):
    """The strength ladder (``frame``: :func:`.results_frames.strength_frame`): one block of
    rows per bot, one row per opponent; left its net points per round, right its matches to
    500 won (%) against the fair share (one seat's: 50% at 2 players, 25% at 4), both with
    their intervals. The caller saves the figure."""
    plt = _pyplot()
    bots = list(dict.fromkeys(frame["bot"]))
    sizes = [int((frame["bot"] == bot).sum()) for bot in bots]
    fig, axes = plt.subplots(
        len(bots), 2, sharex="col", squeeze=False, layout="constrained",
        gridspec_kw={"height_ratios": [n + 1.6 for n in sizes], "width_ratios": [1.25, 1]},
        figsize=(WIDTH, 0.22 * sum(sizes) + 0.5 * len(bots) + 1.6),
    )  # fmt: skip
    for (left, right), bot in zip(axes, bots):
        part = frame[frame["bot"] == bot]
        y = np.arange(len(part))
        players = int(part["players"].iloc[0])
        _forest(left, y, part, ("points", "points_low", "points_high"), 0.0)
        won = ("match_win_rate", "match_win_low", "match_win_high")
        _forest(right, y, part, won, 100.0 / players, scale=100.0)
        right.set_xlim(-2, 102)
        seats = "head to head" if players == 2 else f"against {players - 1} copies"
        sizes_text = f"{_count_span(part['rounds'])} rounds"
        if part["matches"].notna().any():
            sizes_text += f", {_count_span(part['matches'])} matches"
        left.set_title(f"{bot}: {players} players, {seats}", loc="left", fontsize=9.5,
                       fontweight="bold")  # fmt: skip
        right.set_title(f"{sizes_text} each", loc="right", fontsize=8.5)
        for ax in (left, right):
            ax.set_yticks(y, part["opponent"] if ax is left else [])
            ax.set_ylim(len(part) - 0.5, -0.5)
            ax.tick_params(axis="y", length=0)
    axes[-1, 0].set_xlabel("net points per round (card points)")
    axes[-1, 1].set_xlabel("matches to 500 won (%); dashed: a fair share")
    level = interval_level(confidence)
    fig.suptitle(titled(f"Shipped bots against each heuristic: net points per round and "
                        f"matches won ({level}s)", note), fontsize=11)  # fmt: skip
    _verdict_legend(fig, "0 / the fair share")
    return fig


def _count_span(counts: pd.Series) -> str:
    """``20,000`` or ``20,000–200,000``: the fewest and most of ``counts`` (NA skipped)."""
    low, high = int(counts.min()), int(counts.max())
    return f"{low:,}" if low == high else f"{low:,}–{high:,}"


def _verdict_legend(fig, reference: str) -> None:
    """The colour key of the interval verdicts, below the panels."""
    from matplotlib.lines import Line2D

    handles = [
        Line2D(
            [],
            [],
            marker="o",
            ls="-",
            color=VERDICT_COLORS[key],
            label=f"interval {text} {reference}",
        )
        for key, text in (("pays", "above"), ("costs", "below"), ("unclear", "across"))
    ]
    fig.legend(handles=handles, loc="outside lower center", ncols=3, fontsize=8.5, frameon=False)


def editions_figure(frame: pd.DataFrame, confidence: float, note: str = ""):
    """Decks (rows) by heuristics (columns), one panel per player count (``frame``:
    :func:`.results_frames.editions_frame`): each cell's colour is the agent's net points per
    round against the other heuristics on that deck, its text the value and the interval's
    half width (the intervals are symmetric). One colour scale for every panel. The caller
    saves the figure."""
    plt = _pyplot()
    counts = sorted(frame["players"].unique())
    decks = list(dict.fromkeys(frame["deck"]))
    agents = list(dict.fromkeys(frame["agent"]))
    limit = float(np.nanmax(np.abs(frame["points"]))) or 1.0
    fig, axes = plt.subplots(
        1, len(counts), squeeze=False, layout="constrained",
        figsize=(WIDTH, 0.62 * len(decks) + 2.4),
    )  # fmt: skip
    cmap = plt.get_cmap("RdBu")
    for ax, players in zip(axes[0], counts):
        part = frame[frame["players"] == players].set_index(["deck", "agent"])
        value = part["points"].unstack().reindex(index=decks, columns=agents)
        half = ((part["points_high"] - part["points_low"]) / 2).unstack()
        half = half.reindex(index=decks, columns=agents)
        image = ax.imshow(value.to_numpy(float), cmap=cmap, vmin=-limit, vmax=limit,
                          aspect="auto")  # fmt: skip
        for (i, j), v in np.ndenumerate(value.to_numpy(float)):
            if np.isfinite(v):
                ax.text(j, i, f"{_signed(v)}\n±{half.iat[i, j]:.1f}", ha="center", va="center",
                        fontsize=8, color=text_color(image.cmap(image.norm(v))))  # fmt: skip
        ax.set_xticks(range(len(agents)), agents, rotation=30, ha="right")
        ax.set_yticks(range(len(decks)), decks if ax is axes[0, 0] else [])
        ax.set_title(f"{players} players")
        ax.set_xlabel("heuristic")
    axes[0, 0].set_ylabel("deck")
    fig.colorbar(image, ax=axes[0].tolist(), shrink=0.9, label="net points per round")
    level = interval_level(confidence)
    fig.suptitle(titled(f"Heuristics on each deck: net points per round against the others "
                        f"(± half the {level})", note), fontsize=11)  # fmt: skip
    return fig


def _signed(value: float) -> str:
    """``value`` with one decimal and its sign, ``0.0`` where it rounds to zero."""
    text = f"{value:+.1f}"
    return "0.0" if text in ("+0.0", "-0.0") else text


def bluff_situations_figure(field: pd.DataFrame, confidence: float, note: str = ""):
    """The official 2-player panels of the bluff study by situation (``field``: the headline
    rows, :func:`.results_frames.bluff_headline`): each policy's gain in net points per round
    over never bluffing / never challenging, against the field
    (:func:`uno_rl.analysis.situation_plots.situations_figure`), at the docs' width, its
    title naming the interval level. The caller saves the figure."""
    fig = situations_figure(field, "official", "rounds", note)
    fig.set_size_inches(WIDTH, fig.get_size_inches()[1])
    level = interval_level(confidence)
    fig.suptitle(titled("+4 bluffs and challenges by situation, official rules, 2 players: "
                        f"gain in net points per round\nover never bluffing / never "
                        f"challenging, against the field ({level}s)", note), fontsize=11)  # fmt: skip
    fig.tight_layout()
    return fig


def bluff_behaviour_figure(behaviour: pd.DataFrame, confidence: float, note: str = ""):
    """The +4 decisions of the learned and searching players by situation
    (:func:`uno_rl.analysis.situation_plots.behaviour_figure` of the run's ``behaviour``
    table) at the docs' width, its title naming the interval level. The caller saves it."""
    fig = behaviour_figure(behaviour, note)
    width, height = fig.get_size_inches()
    fig.set_size_inches(WIDTH, height * WIDTH / width + 0.6)
    for ax in fig.axes:  # the panel titles were set for a wider figure
        ax.title.set_fontsize(9.5)
    level = interval_level(confidence)
    fig.suptitle(titled(f"+4 decisions by situation: bluff and challenge rates, % of chances "
                        f"(Wilson {level}s)", note), fontsize=11)  # fmt: skip
    return fig


def training_figure(evals: pd.DataFrame, run_name: str, players: int, note: str = ""):
    """The periodic evaluations of a training run (``evals``:
    :func:`.results_frames.training_evaluations`): one panel per measure (rounds won, net
    points per round, matches won under match rules) over the decisions trained, one line
    per opponent with its 95% interval shaded; dashed: a fair share (rounds and matches) or
    0 points. The caller saves the figure."""
    from matplotlib.ticker import EngFormatter

    plt = _pyplot()
    measures = [m for m in _MEASURE_LABELS if (evals["measure"] == m).any()]
    fig, axes = plt.subplots(
        1, len(measures), squeeze=False, sharex=True, layout="constrained",
        figsize=(WIDTH, 4.2),
    )  # fmt: skip
    opponents = list(dict.fromkeys(evals["opponent"]))
    colors = dict(zip(opponents, plt.get_cmap("tab10").colors))
    for ax, measure in zip(axes[0], measures):
        scale = 1.0 if measure == "points_per_round" else 100.0
        for opponent in opponents:
            line = evals[(evals["measure"] == measure) & (evals["opponent"] == opponent)]
            x = line["decisions"].to_numpy()
            ax.plot(x, scale * line["value"], marker="o", ms=3, color=colors[opponent],
                    label=opponent)  # fmt: skip
            ax.fill_between(x, scale * line["low"], scale * line["high"], alpha=0.15,
                            color=colors[opponent], lw=0)  # fmt: skip
        reference = 0.0 if measure == "points_per_round" else 100.0 / players
        ax.axhline(reference, color="black", lw=0.8, ls="--")
        ax.set_ylabel(_MEASURE_LABELS[measure])
        ax.set_xlabel("decisions trained (every seat)")
        ax.xaxis.set_major_formatter(EngFormatter(sep=""))
        ax.grid(alpha=0.3)
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=min(len(opponents), 5),
               fontsize=8.5, frameon=False, title="evaluated against", title_fontsize=8.5)  # fmt: skip
    rounds = "duplicate-deal evaluation against each opponent (95% intervals shaded)"
    fig.suptitle(titled(f"Training {run_name}: rounds won and net points per round in the "
                        f"periodic\n{rounds}; dashed: a fair share, 0 points", note),
                 fontsize=11)  # fmt: skip
    return fig
