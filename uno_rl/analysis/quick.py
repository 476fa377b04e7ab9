"""The warning every output of a quick run carries (``uno_rl experiment NAME --quick``).

A quick run plays the study in miniature to check that it runs; its figures are too few to
support any finding. :func:`quick_note` is the line its texts start with and :func:`titled`
prefixes its plot titles; both are empty for a full run. A run is quick when its config's
name ends in ``-quick`` (:func:`uno_rl.experiments.config.load_config` names it so).
"""

from __future__ import annotations

__all__ = ["PNG_TITLE", "interval_level", "is_quick", "quick_note", "titled"]

#: The PNG text key the studies save each figure's title under.
PNG_TITLE = "Title"


def is_quick(config: dict) -> bool:
    """Whether the run's resolved ``config`` (its ``config.json``) is a ``--quick`` run."""
    return str(config.get("name", "")).endswith("-quick")


def quick_note(config: dict, low: int, high: int | None = None, what: str = "deals") -> str:
    """``Quick run (50 deals a cell): too small for findings; ...`` for a quick run (``low``
    to ``high`` ``what`` a cell), ``""`` for a full one."""
    if not is_quick(config):
        return ""
    count = f"{low:,}" if high is None or high == low else f"{low:,} to {high:,}"
    return (
        f"Quick run ({count} {what} a cell): too small for findings; run without --quick "
        "for the study."
    )


def titled(title: str, note: str) -> str:
    """``title`` under a first line ``QUICK RUN, not a finding:`` when ``note`` is set."""
    return f"QUICK RUN, not a finding:\n{title}" if note else title


def interval_level(confidence: float) -> str:
    """``95% interval``: the level an interval is printed with."""
    return f"{100 * confidence:g}% interval"
