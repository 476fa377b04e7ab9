"""Strategies added through the ``uno_rl.agents`` entry point group."""

from __future__ import annotations

import sys
import types
from importlib.metadata import EntryPoint

import pytest

from uno_rl.agents import AgentError, make_agent, registry
from uno_rl.agents.random_agents import RandomAgent
from uno_rl.core import load_rules


class PluggedAgent(RandomAgent):
    name = "plugged"
    summary = "a strategy from another package"


@pytest.fixture
def plugin(monkeypatch):
    """A module ``uno_rl_test_plugin`` with a good and a bad strategy, and entry points
    naming them (and one naming a module that does not exist)."""
    module = types.ModuleType("uno_rl_test_plugin")
    module.PluggedAgent = PluggedAgent
    module.NotAnAgent = dict
    monkeypatch.setitem(sys.modules, "uno_rl_test_plugin", module)
    points = {
        name: EntryPoint(name, value, registry.ENTRY_POINT_GROUP)
        for name, value in [
            ("plugged", "uno_rl_test_plugin:PluggedAgent"),
            ("not-an-agent", "uno_rl_test_plugin:NotAnAgent"),
            ("missing", "uno_rl_no_such_module:Bot"),
        ]
    }
    real = registry._entry_points
    monkeypatch.setattr(registry, "_entry_points", lambda: {**real(), **points})


def test_uno_rl_s_own_strategies_come_through_the_entry_points():
    points = registry._entry_points()
    assert {"pimc", "ismcts", "ppo"} <= set(points)
    assert registry.load_strategy("pimc").__name__ == "PIMCAgent"
    assert registry.load_strategy("nonexistent") is None


def test_a_plugged_strategy_is_a_name_like_any_other(plugin):
    assert "plugged" in registry.strategy_names()
    assert "plugged" in registry.available_agents()
    agent = make_agent("plugged", load_rules("official"))
    assert isinstance(agent, PluggedAgent)
    assert registry.describe("plugged") == "a strategy from another package"


@pytest.mark.parametrize(
    "name,message",
    [
        ("not-an-agent", "strategy 'not-an-agent' (uno_rl_test_plugin:NotAnAgent) is not an Agent class"),
        ("missing", "strategy 'missing' (uno_rl_no_such_module:Bot) could not be loaded: "
                    "ModuleNotFoundError"),
    ],
)  # fmt: skip
def test_a_broken_plugin_is_one_error_naming_it(plugin, name, message):
    with pytest.raises(AgentError) as error:
        make_agent(name, load_rules("official"))
    assert str(error.value).startswith(message)
    assert "\n" not in str(error.value)
