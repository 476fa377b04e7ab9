"""The rule options of every program that plays: ``--preset``, ``--players``, ``--set KEY=VALUE``.

``uno_rl simulate``, ``uno_rl evaluate``, ``uno_rl play`` and ``examples/maskable_ppo.py`` add
them with :func:`add_rules_options` and read them with :func:`rules_from_args` (or
:func:`read_switches`, where the rules are built further on), so that the three options mean
the same and fail the same way everywhere:

* ``--preset NAME`` (default ``official``): a shipped or user preset, or a preset file.
* ``--players N`` (2 to 10): on top of the preset's count; a program says what it defaults to
  (a count of its own, or the preset's).
* ``--set KEY=VALUE`` (repeatable): a rule switch on top of the preset, the value read as TOML
  (``true``, ``3``, ``0.5``) or as a bare string (``any``) by
  :func:`uno_rl.plumbing.cli.parse_switch`.

A bad preset, switch or count is a ``ValueError`` (:class:`~uno_rl.core.rules.RulesError`
included) whose message is the program's one ``error:`` line: ``--set ...`` for a switch that
cannot be read, the rules' own message for a preset or a value they refuse, and ``--preset ...
cannot be read: ...`` for a preset file that fails in a way the rules do not name. Where
programs legitimately differ (the ``--players`` default and help, whether ``--set players=N``
is allowed), :class:`RulesOptions` says how.
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Sequence
from typing import Any

from uno_rl.core.rules import RANGES, Rules, RulesError, load_rules
from uno_rl.plumbing.cli import count_type, failure_reason, parse_switches, short_repr

__all__ = [
    "PRESET_HELP",
    "SET_HELP",
    "RulesOptions",
    "add_rules_options",
    "load_preset_rules",
    "read_switches",
    "rules_from_args",
]

#: ``--preset``'s help where a program says nothing more.
PRESET_HELP = "rule preset (default official)"
#: ``--set``'s help where a program says nothing more.
SET_HELP = "a rule switch on top of the preset (repeatable), e.g. --set stacking=any"


@dataclasses.dataclass(frozen=True)
class RulesOptions:
    """How one program words and reads its rule options."""

    #: ``--players``' default (None: the preset's count)
    players_default: int | None = None
    #: ``--players``' help
    players_help: str = "players (default: preset's)"
    #: ``--preset``'s help
    preset_help: str = PRESET_HELP
    #: ``--set``'s help
    set_help: str = SET_HELP
    #: the error of ``--set players=N`` where the count is set otherwise (None: allowed)
    players_switch_error: str | None = None


def add_rules_options(parser: argparse.ArgumentParser, options: RulesOptions) -> None:
    """Add ``--preset``, ``--players`` and ``--set`` (into ``args.switches``) to ``parser``."""
    parser.add_argument("--preset", default="official", help=options.preset_help)
    low, high = RANGES["players"]
    parser.add_argument(
        "--players", type=count_type(low, high), default=options.players_default,
        help=options.players_help,
    )  # fmt: skip
    parser.add_argument(
        "--set", dest="switches", action="append", default=[], metavar="KEY=VALUE",
        help=options.set_help,
    )  # fmt: skip


def read_switches(texts: Sequence[str], options: RulesOptions) -> dict[str, Any]:
    """The ``--set`` switches by key (a later one of a key wins); ``ValueError`` naming
    ``--set`` for one that cannot be read, or for ``players`` where ``options`` refuses it."""
    switches = parse_switches(texts)
    if "players" in switches and options.players_switch_error is not None:
        raise ValueError(options.players_switch_error)
    return switches


def load_preset_rules(preset: str, players: int | None, switches: dict[str, Any]) -> Rules:
    """``preset`` with ``switches`` at ``players`` seats (None: the preset's count, or the
    switches'). :class:`RulesError` for what the rules refuse; ``ValueError`` naming
    ``--preset`` for a preset file that fails otherwise."""
    overrides = dict(switches)
    if players is not None:
        overrides["players"] = players
    try:
        return load_rules(preset, **overrides)
    except RulesError:
        raise
    except (ValueError, OSError, RecursionError) as error:  # an unreadable preset file
        reason = failure_reason(error)
        raise ValueError(f"--preset {short_repr(preset)} cannot be read: {reason}") from None


def rules_from_args(
    args: argparse.Namespace, options: RulesOptions, players: int | None = None
) -> Rules:
    """The rules the parsed options ask for: ``args.preset`` with ``args.switches`` at
    ``players`` seats where given (a count the program works out itself), else at
    ``args.players`` (None: the preset's). ``ValueError`` (the one error line) for a bad
    preset, switch or count."""
    switches = read_switches(args.switches, options)
    return load_preset_rules(args.preset, args.players if players is None else players, switches)
