"""The generated tables: every rule switch, preset and subcommand, as the code defines them."""

from __future__ import annotations

import dataclasses

import pytest

from uno_rl.__main__ import COMMANDS
from uno_rl.core import rules as rules_module
from uno_rl.core.rules import CHOICES, RANGES, Rules
from uno_rl.docsite import code_tables


def rows(table: str) -> list[list[str]]:
    """The body rows of a pipe table as lists of stripped cells (header and rule dropped)."""
    lines = table.strip().splitlines()
    assert lines[1].startswith("|---"), table
    return [[cell.strip() for cell in line.strip("|").split(" | ")] for line in lines[2:]]


def test_rules_table_has_every_field_in_order_with_default_values_and_meaning():
    docs = code_tables.field_docs(Rules)
    body = rows(code_tables.rules_table())
    fields = dataclasses.fields(Rules)
    assert [row[0] for row in body] == [f"`{f.name}`" for f in fields]
    for (_, default, values, meaning), field in zip(body, fields):
        shown = field.default
        if isinstance(shown, tuple):  # the dispenser's tables, rounded
            shown = [round(p, 4) for p in shown]
        assert default == f"`{code_tables.toml_value(shown)}`"
        assert meaning.replace("\\|", "|").replace("&lt;", "<") == docs[field.name]
        if isinstance(field.default, bool):
            assert values == "`true`, `false`"
        elif field.name == "deck":
            assert "`classic`, " in values and "`extreme`" in values and "a path" in values
        elif isinstance(field.default, tuple):
            assert values == "a list of probabilities"
        elif isinstance(field.default, str):
            assert values == ", ".join(f"`{c}`" for c in CHOICES[field.name])
            assert CHOICES[field.name][0] == field.default  # default first, as documented
        else:
            low, high = RANGES[field.name]
            assert f"`{code_tables.toml_value(low)}` to `{code_tables.toml_value(high)}`" in values


def test_rules_table_defaults_are_the_official_rules():
    official = rules_module.load_rules("official")
    for row in rows(code_tables.rules_table()):
        name = row[0].strip("`")
        value = getattr(official, name)
        if isinstance(value, tuple):
            value = [round(p, 4) for p in value]
        assert row[1] == f"`{code_tables.toml_value(value)}`"


def test_field_docs_reads_multiline_entries():
    docs = code_tables.field_docs(Rules)
    assert docs["players"] == "seats at the table, 2 to 10."
    # drawn_card's entry spans several lines; they are joined with single spaces
    assert docs["drawn_card"].startswith("after drawing a playable card: ``may-play``")
    assert "any other drawn card is kept and the turn passes)." in docs["drawn_card"]
    assert "\n" not in docs["drawn_card"] and "  " not in docs["drawn_card"]


def test_field_docs_names_undocumented_fields_and_stray_entries():
    @dataclasses.dataclass
    class Missing:
        """Something.

        Attributes:
            a: the first.
        """

        a: int = 0
        b: int = 1

    with pytest.raises(ValueError, match=r"without an entry: \['b'\]"):
        code_tables.field_docs(Missing)

    @dataclasses.dataclass
    class Stray:
        """Something.

        Attributes:
            a: the first.
            c: not a field.
        """

        a: int = 0

    with pytest.raises(ValueError, match=r"that are no field: \['c'\]"):
        code_tables.field_docs(Stray)

    @dataclasses.dataclass
    class NoSection:
        """No attributes section at all."""

        a: int = 0

    with pytest.raises(ValueError, match="no 'Attributes:' section"):
        code_tables.field_docs(NoSection)


def test_presets_table_lists_each_shipped_preset_with_its_switches():
    body = {row[0].strip("`"): row for row in rows(code_tables.presets_table())}
    shipped = sorted(p.stem for p in rules_module.presets_dir().glob("*.toml"))
    assert sorted(body) == shipped
    assert "official" in body and body["official"][2] == "none (the defaults)"
    for name in shipped:
        switches = rules_module.read_preset(name)
        for key, value in switches.items():
            assert f"`{key}={code_tables.toml_value(value)}`" in body[name][2]
    assert "`stacking=any`" in body["house"][2]


def test_commands_table_lists_every_subcommand():
    body = rows(code_tables.commands_table())
    assert [row[0] for row in body] == [f"`uno_rl {name}`" for name in COMMANDS]
    assert [row[2] for row in body] == [f"`{module}`" for module, _, _ in COMMANDS.values()]


def test_toml_value_spells_values_as_in_presets():
    assert code_tables.toml_value(True) == "true"
    assert code_tables.toml_value(False) == "false"
    assert code_tables.toml_value("may-play") == "may-play"
    assert code_tables.toml_value(0.5) == "0.5"
    assert code_tables.toml_value(500) == "500"


def test_train_config_table_has_every_field_with_default_values_and_doc():
    from uno_rl.ppo.config import TrainConfig

    body = rows(code_tables.train_config_table())
    fields = dataclasses.fields(TrainConfig)
    assert [row[0] for row in body] == [f"`{f.name}`" for f in fields]
    defaults = TrainConfig()
    for (_, default, values, meaning), field in zip(body, fields):
        assert default == f"`{code_tables.toml_value(getattr(defaults, field.name))}`"
        doc = field.metadata["doc"]
        assert meaning.replace("\\|", "|").replace("&lt;", "<") == doc
        if "choices" in field.metadata:
            assert values == ", ".join(f"`{c}`" for c in field.metadata["choices"])
    by_name = {row[0].strip("`"): row for row in body}
    # "<timestamp>" would be swallowed as an HTML tag
    assert "runs/NAME/&lt;timestamp>/" in by_name["name"][3]


def test_cells_escape_pipes_and_html_outside_code():
    assert code_tables._cell("a | b <x> `c | <d>`") == "a \\| b &lt;x> `c | <d>`"
