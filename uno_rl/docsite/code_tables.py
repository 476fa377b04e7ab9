"""Markdown tables generated from the code: rule switches, presets, subcommands.

Each function returns one GitHub-flavoured Markdown table (a ``str`` ending in a newline)
built from the registry the program itself validates against, so a new switch, preset or
subcommand appears on the site without anyone copying it:

* :func:`rules_table`: every field of :class:`uno_rl.core.rules.Rules` with its default, its
  allowed values (:data:`~uno_rl.core.rules.CHOICES`, :data:`~uno_rl.core.rules.RANGES`, or
  true/false) and its meaning (the field's entry in the ``Attributes:`` section of the class
  docstring).
* :func:`presets_table`: every shipped preset (``envs/*.toml``) with its description and the
  switches it sets.
* :func:`commands_table`: every subcommand of ``uno_rl`` (:data:`uno_rl.__main__.COMMANDS`).
* :func:`train_config_table`: every field of :class:`uno_rl.ppo.config.TrainConfig` with its
  default, its choices or range, and its ``doc`` (what ``uno_rl train --help`` shows).
"""

from __future__ import annotations

import dataclasses
import inspect
import re
import tomllib
from typing import Any

from uno_rl.__main__ import COMMANDS
from uno_rl.core import rules as rules_module
from uno_rl.core.decks import available_decks
from uno_rl.core.rules import CHOICES, RANGES, Rules

__all__ = [
    "commands_table",
    "field_docs",
    "presets_table",
    "rules_table",
    "toml_value",
    "train_config_table",
]

_ENTRY = re.compile(r"^(?P<indent> +)(?P<name>\w+): (?P<text>.*)$")


def field_docs(cls: type = Rules) -> dict[str, str]:
    """Each field's text from the ``Attributes:`` section of ``cls``'s docstring, one line each.

    Raises ``ValueError`` naming the fields that have no entry (every switch must say what it
    does) or the entries that name no field.
    """
    lines = inspect.cleandoc(cls.__doc__ or "").splitlines()
    try:
        start = lines.index("Attributes:") + 1
    except ValueError:
        raise ValueError(f"{cls.__name__}'s docstring has no 'Attributes:' section") from None
    docs: dict[str, list[str]] = {}
    indent = None
    for line in lines[start:]:
        if line and not line.startswith(" "):  # the next section
            break
        match = _ENTRY.match(line)
        if match and (indent is None or len(match["indent"]) == indent):
            indent = len(match["indent"])
            docs[match["name"]] = [match["text"].strip()]
        elif line.strip() and docs:
            docs[list(docs)[-1]].append(line.strip())
    fields = [f.name for f in dataclasses.fields(cls)]
    missing = [name for name in fields if name not in docs]
    unknown = [name for name in docs if name not in fields]
    if missing or unknown:
        raise ValueError(
            f"{cls.__name__}'s Attributes section: fields without an entry: {missing or 'none'}; "
            f"entries that are no field: {unknown or 'none'}"
        )
    return {name: " ".join(docs[name]) for name in fields}


def toml_value(value: Any) -> str:
    """``value`` as it is written after ``--set KEY=`` or ``--FIELD``: true, 0.5, may-play."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items()) + "}"
    if value == "":
        return '""'
    return str(value)


def _cell(text: str) -> str:
    """``text`` safe in a table cell: ``|`` escaped, and ``<`` outside code spans (not HTML)."""
    parts = re.split(r"(`+[^`]*`+)", text)
    return "".join(
        part if part.startswith("`") else part.replace("|", "\\|").replace("<", "&lt;")
        for part in parts
    )


def _allowed(field: dataclasses.Field) -> str:
    default = field.default
    if isinstance(default, bool):
        return "`true`, `false`"
    if field.name == "deck":
        return ", ".join(f"`{name}`" for name in available_decks()) + ", a user deck or a path"
    if isinstance(default, tuple):
        return "a list of probabilities"
    if isinstance(default, str):
        return ", ".join(f"`{choice}`" for choice in CHOICES[field.name])
    low, high = RANGES[field.name]
    kind = "integer" if isinstance(default, int) else "number"
    return f"{kind}, `{toml_value(low)}` to `{toml_value(high)}`"


def rules_table() -> str:
    """Every rule switch: name, default, allowed values, meaning (Markdown)."""
    docs = field_docs(Rules)
    rows = [
        "| switch | default | values | meaning |",
        "|---|---|---|---|",
    ]
    for field in dataclasses.fields(Rules):
        default = field.default
        if isinstance(default, tuple):
            default = [round(p, 4) for p in default]
        rows.append(
            f"| `{field.name}` | `{toml_value(default)}` | {_allowed(field)} "
            f"| {_cell(docs[field.name])} |"
        )
    return "\n".join(rows) + "\n"


def presets_table() -> str:
    """Every shipped preset: name, description, the switches it sets (Markdown)."""
    rows = ["| preset | description | switches it sets |", "|---|---|---|"]
    for path in sorted(rules_module.presets_dir().glob("*.toml")):
        description = tomllib.loads(path.read_text(encoding="utf-8")).get("description", "")
        switches = rules_module.read_preset(path)  # validated: a bad preset fails the build
        shown = ", ".join(f"`{key}={toml_value(value)}`" for key, value in switches.items())
        rows.append(f"| `{path.stem}` | {_cell(description)} | {shown or 'none (the defaults)'} |")
    return "\n".join(rows) + "\n"


def commands_table() -> str:
    """Every ``uno_rl`` subcommand, its module and what it does (Markdown)."""
    rows = ["| command | what it does | module |", "|---|---|---|"]
    for name, (module, _, text) in COMMANDS.items():
        rows.append(f"| `uno_rl {name}` | {_cell(text)} | `{module}` |")
    return "\n".join(rows) + "\n"


def train_config_table() -> str:
    """Every training config field: name, default, choices or range, meaning (Markdown)."""
    from uno_rl.ppo.config import TrainConfig  # NumPy and the stdlib only, no torch

    rows = ["| field | default | values | meaning |", "|---|---|---|---|"]
    for field in dataclasses.fields(TrainConfig):
        default = (
            field.default if field.default is not dataclasses.MISSING else field.default_factory()
        )
        meta = field.metadata
        low, high = meta.get("low"), meta.get("high")
        if "choices" in meta:
            values = ", ".join(f"`{toml_value(choice)}`" for choice in meta["choices"])
        elif isinstance(default, bool):
            values = "`true`, `false`"
        elif low is not None and high is not None:
            values = f"`{toml_value(low)}` to `{toml_value(high)}`"
        elif low is not None:
            values = f"at least `{toml_value(low)}`"
        else:
            values = {str: "text", list: "list", dict: "table"}.get(type(default), "")
        rows.append(
            f"| `{field.name}` | `{toml_value(default)}` | {values} "
            f"| {_cell(meta.get('doc', ''))} |"
        )
    return "\n".join(rows) + "\n"
