"""The bluff study's figures: the gain heatmaps and the calibration reliability diagram.

Both are written by :func:`uno_rl.analysis.study.write_bluff_study` into the run folder. Win
rates and their gains are shown in percent and percentage points, the units of the study's
text (:mod:`uno_rl.eval.formats`); cell annotations are black or white by the luminance of
their cell.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from .quick import PNG_TITLE, titled

__all__ = ["heatmap_figure", "plot_calibration", "plot_heatmaps", "text_color"]


def _slug(variant: str) -> str:
    """A file-name part of a variant label: ``official, caught_bluffer=takes-back`` ->
    ``official_caught_bluffer-takes-back``."""
    out = "".join(ch if ch.isalnum() or ch in "-_" else " " for ch in variant.replace("=", "-"))
    return "_".join(out.split())


def text_color(rgba) -> str:
    """Black or white, whichever reads better on a cell of colour ``rgba``: by its relative
    luminance (WCAG: sRGB linearized), white below 0.179, the luminance where both contrast
    ratios are equal."""
    channels = np.asarray(rgba[:3], np.float64)
    linear = np.where(channels <= 0.04045, channels / 12.92, ((channels + 0.055) / 1.055) ** 2.4)
    luminance = float(linear @ [0.2126, 0.7152, 0.0722])
    return "white" if luminance < 0.179 else "black"


def heatmap_figure(part: pd.DataFrame, variant: str, note: str = ""):
    """The heatmap figure of one variant (``part``: its rows of the study table): the
    bluffer's win-rate gain over never bluffing, in percentage points, by challenge policy
    (rows) and bluff probability (columns), one panel per player count, one shared colour
    scale (its bar in percentage points, ``+2 pp``), each cell's value written in black or
    white by the cell's luminance; a quick run's ``note`` marks the title. Returns the
    matplotlib figure (the caller closes it)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter

    counts = sorted(part["players"].unique())
    policies = list(dict.fromkeys(part["challenge"]))
    bluffs = sorted(part["bluff"].unique())
    columns = min(2, len(counts))  # wide grids (11 bluff probabilities) two panels a row
    rows = -(-len(counts) // columns)
    label_width = 0.09 * max(len(p) for p in policies)  # inches of the row labels
    width = label_width + (0.5 * len(bluffs) + 0.4) * columns + 1.6
    fig, axes = plt.subplots(
        rows,
        columns,
        figsize=(width, rows * (0.45 * len(policies) + 1.2) + 0.8),
        squeeze=False,
        sharey=True,
        layout="constrained",
    )
    gains = part["gain"].to_numpy(np.float64) * 100
    limit = max(0.1, float(np.nanmax(np.abs(gains))) if np.isfinite(gains).any() else 0.1)
    image = None
    for ax in axes.flat[len(counts) :]:
        ax.set_visible(False)
    for k, (ax, players) in enumerate(zip(axes.flat, counts)):
        cell = part[part["players"] == players]
        grid = cell.pivot(index="challenge", columns="bluff", values="gain") * 100
        grid = grid.reindex(index=policies, columns=bluffs)
        values = grid.to_numpy(np.float64)
        image = ax.imshow(values, cmap="RdBu", vmin=-limit, vmax=limit, aspect="auto")
        ax.set_xticks(range(len(bluffs)), [f"{b:g}" for b in bluffs], fontsize=8)
        ax.set_yticks(range(len(policies)), policies, fontsize=9)
        first = k % columns == 0
        ax.tick_params(axis="y", labelleft=first, length=3.5 if first else 0)
        if first:
            ax.set_ylabel("challenge policy", fontsize=9)
        ax.set_xlabel("bluff probability", fontsize=9)
        ax.set_title(f"{players} players", fontsize=10)
        for (i, j), value in np.ndenumerate(values):
            if np.isfinite(value):
                color = text_color(image.cmap(image.norm(value)))
                text = f"{value:+.1f}" if round(value, 1) != 0 else "0.0"
                ax.text(j, i, text, ha="center", va="center", fontsize=8, color=color)
    bar = fig.colorbar(image, ax=axes.ravel().tolist(), shrink=0.9, pad=0.02)
    bar.ax.yaxis.set_major_formatter(
        FuncFormatter(lambda v, _: f"{v:+.0f} pp" if round(v) else "0 pp")
    )
    bar.set_label("win-rate gain (percentage points)", fontsize=9)
    bar.ax.tick_params(labelsize=8)
    title = titled(f"Win-rate gain of bluffing over never bluffing\n{variant}", note)
    fig.suptitle(title, fontsize=10)
    return fig


def plot_heatmaps(table: pd.DataFrame, folder: str | Path, note: str = "") -> list[Path]:
    """One PNG per variant, ``heatmap-VARIANT.png`` (:func:`heatmap_figure`, a quick run's
    ``note`` marking its title, saved in the PNG's text too). Returns the files."""
    import matplotlib.pyplot as plt

    paths = []
    for variant, part in table.groupby("variant", sort=False):
        fig = heatmap_figure(part, variant, note)
        path = Path(folder) / f"heatmap-{_slug(variant)}.png"
        fig.savefig(path, dpi=120, metadata={PNG_TITLE: fig.get_suptitle()})
        plt.close(fig)
        paths.append(path)
    return paths


def plot_calibration(reliability: pd.DataFrame, path: str | Path, note: str = "") -> Path:
    """The reliability diagram: observed bluff share against the predicted probability, one
    line per setting, the diagonal for perfect calibration; a quick run's ``note`` marks the
    title, saved in the PNG's text too."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import PercentFormatter

    fig, ax = plt.subplots(figsize=(5, 4.5))
    ax.plot([0, 1], [0, 1], color="grey", linestyle="--", linewidth=1, label="calibrated")
    one_variant = reliability["variant"].nunique() == 1
    for setting, part in reliability.groupby("setting", sort=False):
        if one_variant:  # the title names it; the legend only the table and the bluffer
            first = part.iloc[0]
            what = first["policy"] if "policy" in part else f"bluff {first['bluff']:g}"
            setting = f"{first['players']} players, {what}"
        ax.errorbar(
            part["mean_predicted"],
            part["empirical"],
            yerr=np.clip(
                [
                    part["empirical"] - part["empirical_low"],
                    part["empirical_high"] - part["empirical"],
                ],
                0,
                None,
            ),
            marker="o",
            markersize=3,
            capsize=2,
            linewidth=1,
            label=setting,
        )
    ax.set_xlabel("predicted P(bluff) (public information)")
    ax.set_ylabel("observed share of bluffs")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.xaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    ax.legend(fontsize=7)
    title = "Calibration of the Bayesian bluff probability"
    if one_variant:
        title += f"\n{reliability['variant'].iloc[0]}"
    title = titled(title, note)
    ax.set_title(title, fontsize=9)
    path = Path(path)
    fig.savefig(path, dpi=110, bbox_inches="tight", metadata={PNG_TITLE: title})
    plt.close(fig)
    return path
