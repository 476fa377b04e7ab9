"""The ``[[behaviour]]`` entries of an experiment config: agents whose +4 decisions the
analysis step records situation by situation (:mod:`uno_rl.analysis.behaviour`).

    [[behaviour]]
    players = 2                       # required
    agents = ["ppo-official-2p"]      # required: the agents observed
    opponent = "color-first"          # required: the P - 1 others
    rounds = 20000                    # required, at most 100,000,000
    preset = "official"               # optional, default official
    switches = { stacking = "any" }   # optional
"""

from __future__ import annotations

from typing import Any

from uno_rl.agents import AgentError, make_agent
from uno_rl.core.rules import RulesError, load_rules
from uno_rl.eval.run import MAX_ROUNDS
from uno_rl.experiments.config_checks import check_keys, fail, integer, non_empty_list

__all__ = ["BEHAVIOUR_KEYS", "behaviour_entries"]

#: What a ``[[behaviour]]`` entry may set.
BEHAVIOUR_KEYS = {"preset", "players", "switches", "agents", "opponent", "rounds"}
_REQUIRED = ("players", "agents", "opponent", "rounds")


def behaviour_entries(path: str, entries: Any) -> tuple[dict, ...]:
    """The ``[[behaviour]]`` entries of the config at ``path``, checked (known keys, a preset
    and switches the rules accept, agents that exist under them, a positive number of rounds)
    and with their defaults filled in: ``preset``, ``players``, ``switches``, ``agents``,
    ``opponent``, ``rounds``. None (no entry) gives ``()``; a bad entry raises
    :class:`~uno_rl.experiments.config_checks.ConfigError` naming it."""
    if entries is None:
        return ()
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise fail(path, "behaviour", "must be an array of tables ([[behaviour]])")
    return tuple(_entry(path, f"behaviour[{i}]", entry) for i, entry in enumerate(entries))


def _entry(path: str, where: str, entry: dict) -> dict:
    check_keys(path, where, entry, BEHAVIOUR_KEYS)
    for key in _REQUIRED:
        if key not in entry:
            raise fail(path, f"{where}.{key}", "required")
    preset = entry.get("preset", "official")
    switches = entry.get("switches", {})
    if not isinstance(preset, str) or not isinstance(switches, dict):
        raise fail(path, where, "preset must be a string and switches a table")
    players = integer(path, f"{where}.players", entry["players"], 2, 10)
    rounds = integer(path, f"{where}.rounds", entry["rounds"], 1, MAX_ROUNDS)
    agents = non_empty_list(path, f"{where}.agents", entry["agents"])
    opponent = entry["opponent"]
    try:
        rules = load_rules(preset, players=players, **switches)
    except (RulesError, ValueError, TypeError) as error:
        raise fail(path, where, str(error)) from None
    for key, specs in (("agents", agents), ("opponent", [opponent])):
        for spec in specs:
            if not isinstance(spec, str):
                raise fail(path, f"{where}.{key}", f"agent specs are strings, got {spec!r}")
            try:
                make_agent(spec, rules)
            except AgentError as error:
                raise fail(path, f"{where}.{key}", str(error)) from None
    return {
        "preset": preset, "players": players, "switches": dict(switches),
        "agents": list(agents), "opponent": opponent, "rounds": rounds,
    }  # fmt: skip
