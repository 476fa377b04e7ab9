"""The listings (uno_rl presets / agents / experiments) and the user folders beside the shipped."""

from __future__ import annotations

import io
import os
from pathlib import Path

from uno_rl.agents import available_agents, make_agent
from uno_rl.core import Rules, available_presets, load_rules
from uno_rl.experiments.runner import resolve_config_path
from uno_rl.plumbing import resources
from uno_rl.programs.listing import (
    Entry,
    agents_main,
    decks_main,
    ellipsis_for,
    experiments_main,
    format_table,
    list_agents,
    list_experiments,
    list_presets,
    presets_main,
)


def test_shipped_data_found_by_importlib_resources():
    for kind in resources.KINDS:
        folder = resources.shipped_dir(kind)
        assert folder.is_dir() and list(folder.glob("*.toml")), folder
        data = folder.parts.index("data")  # decks: uno_rl/data/envs/decks
        assert (
            folder.parts[data + 1] == "envs" if kind == "decks" else data == len(folder.parts) - 2
        )
    assert (resources.shipped_dir("agents") / "ppo-official-2p.pt").is_file()


def test_listings_name_describe_and_source():
    presets = {e.name: e for e in list_presets()}
    assert presets["official"].source == "shipped"
    assert presets["official"].description.startswith("Official")
    agents = {e.name: e for e in list_agents()}
    assert agents["color-first"].source == "shipped"
    assert agents["ppo"].source == "built-in"
    assert set(agents) == set(available_agents())
    experiments = {e.name: e for e in list_experiments()}
    assert experiments["strength"].description
    assert experiments["train-quickstart"].description  # from its leading comment
    assert all("\n" not in e.description for e in [*presets.values(), *experiments.values()])


def test_user_folders_come_first(tmp_path, monkeypatch):
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    second.mkdir()
    (first / "mine.toml").write_text('description = "first"\n[rules]\nplayers = 3\n')
    (second / "mine.toml").write_text('description = "second"\n[rules]\nplayers = 4\n')
    (second / "official.toml").write_text('description = "mine"\n[rules]\nplayers = 5\n')
    monkeypatch.setenv("UNO_RL_PRESETS", os.pathsep.join([str(first), str(second)]))
    assert load_rules("mine") == Rules(players=3)
    assert load_rules("official") == Rules(players=5)
    assert "kids" in available_presets()
    entries = {e.name: e for e in list_presets()}
    assert (entries["mine"].source, entries["mine"].description) == ("user", "first")
    assert entries["official"].source == "user"
    assert entries["kids"].source == "shipped"


def test_user_agent_and_experiment(tmp_path, monkeypatch):
    shipped = resources.shipped_dir("agents")
    (tmp_path / "mine.pt").write_bytes((shipped / "ppo-official-2p.pt").read_bytes())
    (tmp_path / "mine.toml").write_text(
        'description = "my bot"\nstrategy = "ppo"\n[params]\ncheckpoint = "mine.pt"\n'
    )
    (tmp_path / "study.toml").write_text('description = "my study"\n')
    monkeypatch.setenv("UNO_RL_AGENTS", str(tmp_path))
    monkeypatch.setenv("UNO_RL_EXPERIMENTS", str(tmp_path))
    agent = make_agent("mine", load_rules("official"))
    assert agent.params["checkpoint"] == str(tmp_path / "mine.pt")
    assert {e.name: e.source for e in list_agents()}["mine"] == "user"
    assert resolve_config_path("study") == str(tmp_path / "study.toml")
    assert resolve_config_path("strength").endswith("strength.toml")
    path = tmp_path / "given.toml"
    path.write_text('description = "x"\n[rules]\nplayers = 6\n')
    assert load_rules(str(path)) == Rules(players=6)  # a path keeps working


def test_mains_print_tables(capsys, tmp_path, monkeypatch):
    for main, name in ((presets_main, "official"), (agents_main, "color-first"),
                       (experiments_main, "strength"), (decks_main, "modern-112")):  # fmt: skip
        assert main([]) == 0
        out = capsys.readouterr().out
        assert out.splitlines()[0].split() == ["name", "source", "description"]
        assert any(line.split()[0] == name for line in out.splitlines()[1:])
    assert presets_main(["--full", "--paths"]) == 0
    assert "official.toml" in capsys.readouterr().out


def test_mains_bad_input(capsys):
    for main in (presets_main, agents_main, experiments_main, decks_main):
        assert main(["--bogus"]) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: ") and len(err.strip().splitlines()) == 1


def test_descriptions_are_cut_at_a_word_boundary_within_the_width():
    entry = Entry(
        "mine", "Party rules: stacking of any draw card, seven-zero and jump-in.", Path(), "user"
    )
    for width in range(24, 70):
        line = format_table([entry], width).splitlines()[1]
        assert len(line) <= width, (width, line)
        assert line.endswith("…"), (width, line)
        kept = line.removesuffix("…").split("  ")[-1]
        assert entry.description.startswith(kept) and entry.description[len(kept)] in " ,:", line
    whole = format_table([entry], 200).splitlines()[1]
    assert whole.endswith("jump-in.") and "…" not in whole


def test_a_single_long_word_is_cut_within_the_width():
    entry = Entry("mine", "x" * 80, Path(), "user")
    line = format_table([entry], 40).splitlines()[1]
    assert len(line) == 40 and line.endswith("x…")


def test_mains_cut_to_the_terminal_width(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "50")
    assert presets_main([]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert all(len(line) <= 50 for line in lines)
    assert any(line.endswith("…") for line in lines) and not any("..." in line for line in lines)


def test_an_ascii_only_output_gets_three_dots():
    assert ellipsis_for(io.TextIOWrapper(io.BytesIO(), encoding="ascii")) == "..."
    assert ellipsis_for(io.TextIOWrapper(io.BytesIO(), encoding="utf-8")) == "…"
    entry = Entry("mine", "one two three four five six", Path(), "user")
    assert format_table([entry], 30, ellipsis="...").splitlines()[1].endswith(" three...")
