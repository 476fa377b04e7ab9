"""Refreshing a finished scorecard's opponent: ``uno_rl scorecard AGENT --refresh OPPONENT``.

When an opponent changes (a shipped bot retrained under its name), a finished scorecard's
rows against it no longer hold. :func:`refresh_rows` plays again only the match-ups against
that opponent, each as the whole scorecard plays it (the same deals, seatings and agent
generators: :func:`~uno_rl.eval.run.evaluate_variant`'s ``first_matchup``), and puts their
rows in place of the old ones. The result is the scorecard its own command would now write,
at the cost of one opponent: minutes instead of hours for a search agent.

An opponent the protocol has added since (a newly shipped bot, appended to its player count's
opponents) is refreshed the same way: its match-ups are played at the index they have in a
whole scorecard, and its rows go where a whole scorecard puts them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from uno_rl.plumbing.processes import stop_pool

from .run import evaluate_variant
from .scorecard_protocol import CONFIDENCE, Part, Plan, scorecard_rules
from .scorecard_report import MEASURES, ROW_COLUMNS, opponent_rows, rows_frame
from .tournament import worker_pool

__all__ = ["appended_opponents", "finished_scorecard", "refresh_rows", "refreshed_parts"]

#: The file of a finished scorecard that holds its command and settings.
SCORECARD_JSON = "scorecard.json"
#: The file of its rows, every digit kept.
SCORECARD_ROWS = "rows.csv"


def finished_scorecard(plan: Plan, out: Path) -> tuple[str, pd.DataFrame, list[str]]:
    """``(command, rows, added)`` of the finished scorecard of ``plan`` in ``out`` (the command
    of its ``scorecard.json``, the rows of its ``rows.csv``, which keeps every digit, and the
    opponents the protocol has appended since it was played: :func:`appended_opponents`);
    ``ValueError`` (one line) when ``out`` holds none, or one played with other settings
    (another agent, size, protocol or uno_rl version)."""
    paths = [out / SCORECARD_JSON, out / SCORECARD_ROWS]
    if not all(path.is_file() for path in paths):
        raise ValueError(
            f"--refresh: {out} holds no finished scorecard ({SCORECARD_JSON} and "
            f"{SCORECARD_ROWS}); run the scorecard without --refresh first"
        )
    try:
        data = json.loads(paths[0].read_text(encoding="utf-8"))
        found = {"uno_rl": data["uno_rl"], **data["protocol"]}
        command, size = str(data["command"]), data.get("size", "full")
        rows = pd.read_csv(paths[1])
        if list(rows.columns) != ROW_COLUMNS:
            raise ValueError(f"its columns are not {', '.join(ROW_COLUMNS)}")
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ValueError(f"--refresh: the scorecard in {out} cannot be read ({error})") from None
    wanted = plan.settings()
    added = appended_opponents(found.get("opponents"), wanted["opponents"])
    differ = [
        key
        for key in wanted
        if found.get(key) != wanted[key] and not (key == "opponents" and added is not None)
    ]
    if size != plan.size:
        differ.insert(0, f"size {size!r}")
    if differ:
        raise ValueError(
            f"--refresh: {out} holds a scorecard of other settings ({', '.join(differ[:3])}); "
            "refresh it with the options it was played with"
        )
    return command, rows_frame(rows.to_dict("records")), added or []


def appended_opponents(found, wanted: dict[str, list[str]]) -> list[str] | None:
    """The opponents in ``wanted`` (the protocol's, by player count) that ``found`` (a finished
    scorecard's) lacks, where each count's ``found`` list is the start of its ``wanted`` list
    (opponents are only ever appended); None where it is not."""
    if not isinstance(found, dict) or set(found) != set(wanted):
        return None
    added = []
    for count, names in wanted.items():
        have = found[count]
        if not isinstance(have, list) or names[: len(have)] != have:
            return None
        added += [name for name in names[len(have) :] if name not in added]
    return added


def refreshed_parts(plan: Plan, names: Sequence[str]) -> list[tuple[Part, str]]:
    """``(part, opponent)`` for every part of ``plan`` that plays one of ``names``;
    ``ValueError`` naming a name that no part plays."""
    pairs = [(part, name) for name in names for part in plan.parts() if name in part.opponents]
    played = {name for _, name in pairs}
    for name in names:
        if name not in played:
            every = sorted({o for part in plan.parts() for o in part.opponents})
            raise ValueError(
                f"--refresh {name}: not an opponent of this scorecard; its opponents: "
                f"{', '.join(every)}"
            )
    return pairs


def refresh_rows(
    plan: Plan,
    rows: pd.DataFrame,
    names: Sequence[str],
    workers: int,
    progress: bool = True,
    added: Sequence[str] = (),
) -> pd.DataFrame:
    """``rows`` (a finished scorecard's, :data:`ROW_COLUMNS`) with the rows against each of
    ``names`` played again (:func:`refreshed_parts`) and put in their place, those of the
    ``added`` opponents (the protocol's newer ones, among ``names``) put where a whole
    scorecard has them; every other row kept as it was. Nothing is written here; a
    ``KeyboardInterrupt`` ends the workers at once."""
    fresh: dict[tuple, dict] = {}
    pool = worker_pool(workers) if workers > 1 else None
    try:
        for part, opponent in refreshed_parts(plan, names):
            k = part.opponents.index(opponent)
            rules, label = scorecard_rules(part.players, part.unit)
            result = evaluate_variant(
                rules, label, [part.matchups()[k]], part.games, part.seed, workers, CONFIDENCE,
                rating_rounds=0, progress=progress, pool=pool, first_matchup=k,
                description=f"{part.name} vs {opponent} ({part.games:,})"[:40],
            )  # fmt: skip
            for row in opponent_rows(plan, part, opponent, result.agents):
                fresh[(row["players"], row["opponent"], row["measure"])] = row
    except BaseException:
        if pool is not None:
            stop_pool(pool)
        raise
    if pool is not None:
        pool.shutdown(cancel_futures=True)
    records = {(int(r["players"]), r["opponent"], r["measure"]): r for r in rows.to_dict("records")}
    missing = [key for key in fresh if key not in records and key[1] not in added]
    if missing:
        raise ValueError(f"--refresh: the scorecard has no row of {missing[0]}")
    records.update(fresh)
    try:
        ordered = sorted(records.values(), key=_position(plan))
    except (KeyError, ValueError):
        raise ValueError(
            "--refresh: the scorecard's rows name an opponent or a measure that the protocol "
            "does not play; play the scorecard again with --fresh"
        ) from None
    return rows_frame(ordered)


def _position(plan: Plan):
    """The sort key that puts rows in a whole scorecard's order: by part (player count, then
    unit), by opponent as the part plays them, by measure."""
    parts = {(part.players, part.unit): (i, part.opponents) for i, part in enumerate(plan.parts())}
    measures = list(MEASURES)

    def key(row: dict) -> tuple[int, int, int]:
        index, opponents = parts[(int(row["players"]), MEASURES[row["measure"]][0])]
        return index, opponents.index(row["opponent"]), measures.index(row["measure"])

    return key
