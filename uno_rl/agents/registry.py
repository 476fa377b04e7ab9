"""Agents by name: built-in strategies, spec files in the top-level ``agents/``, parameters.

A spec string names an agent and optionally overrides parameters::

    color-first
    color-first:bluff=0.3,challenge=bayes
    agents/my-bot.toml:challenge=always

The name is looked up, in order, as a TOML spec file ``agents/<name>.toml`` (or a path to one)
and as a built-in strategy. A spec file holds::

    description = "color-first that challenges by Bayes' rule"
    strategy = "color-first"       # a built-in strategy, or another spec name
    [params]
    challenge = "bayes"

Unknown names, unknown parameters and bad values raise :class:`AgentError` naming them.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from uno_rl import resources
from uno_rl.cli import did_you_mean
from uno_rl.core.rules import Rules
from uno_rl.tomlfile import read_toml

from .base import Agent, AgentError
from .random_agents import RandomAgent, RandomPlayableAgent
from .strategies import AggressiveAgent, ColorFirstAgent, PointsDumperAgent, RuleAgent

__all__ = [
    "AGENTS_DIR",
    "STRATEGIES",
    "available_agents",
    "describe",
    "make_agent",
    "parse_spec",
]

#: Built-in strategies by name.
STRATEGIES: dict[str, type[Agent]] = {
    cls.name: cls
    for cls in (
        RandomAgent,
        RandomPlayableAgent,
        RuleAgent,
        ColorFirstAgent,
        PointsDumperAgent,
        AggressiveAgent,
    )
}

#: Strategies imported on first use, by name: ``module:class`` (the PPO policy needs torch;
#: the search agents build their rollout agent through this registry).
_LAZY_STRATEGIES = {
    "ppo": "uno_rl.ppo.agent:PPOAgent",
    "pimc": "uno_rl.agents.pimc:PIMCAgent",
    "ismcts": "uno_rl.agents.ismcts:ISMCTSAgent",
}

#: The folder of the shipped agent specs and checkpoints (``uno_rl/data/agents``, from
#: ``agents/``); user folders in ``$UNO_RL_AGENTS`` are searched first.
AGENTS_DIR = resources.shipped_dir("agents")
_SPEC_KEYS = {"description", "strategy", "params"}
_MAX_DEPTH = 8


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split ``name:key=value,...`` into the name and the raw parameter strings."""
    if not isinstance(spec, str) or not spec.strip():
        raise AgentError(f"an agent spec must be a non-empty string, got {spec!r}")
    name, _, rest = spec.strip().partition(":")
    params: dict[str, str] = {}
    if rest.strip():
        for item in rest.split(","):
            key, eq, value = item.partition("=")
            if not eq or not key.strip():
                raise AgentError(f"agent spec {spec!r}: expected key=value, got {item!r}")
            if key.strip() in params:
                raise AgentError(f"agent spec {spec!r}: parameter {key.strip()!r} given twice")
            params[key.strip()] = value.strip()
    return name.strip(), params


def _spec_file(name: str) -> Path | None:
    path = Path(name)
    if path.suffix == ".toml":
        return path if path.is_file() else None
    candidate = resources.find("agents", f"{name}.toml")
    return candidate if candidate is not None and candidate.is_file() else None


def _read_spec_file(path: Path) -> dict[str, Any]:
    data = read_toml(path, "an agent spec", AgentError, label="agent spec file ")
    unknown = sorted(set(data) - _SPEC_KEYS)
    if unknown:
        raise AgentError(
            f"agent spec file {path}: unknown key {unknown[0]!r} "
            f"(keys: {', '.join(sorted(_SPEC_KEYS))})"
        )
    if not isinstance(data.get("strategy"), str):
        raise AgentError(f"agent spec file {path}: 'strategy' (a string) is required")
    if not isinstance(data.get("params", {}), dict):
        raise AgentError(f"agent spec file {path}: 'params' must be a table")
    return data


def _resolve(
    name: str, depth: int = 0, referrer: Path | None = None
) -> tuple[type[Agent], dict[str, Any], str]:
    """(strategy class, parameters from spec files, description) of a name.

    A spec file whose strategy is its own name (``agents/rule.toml``: ``strategy = "rule"``)
    refers to the built-in strategy.
    """
    if depth > _MAX_DEPTH:
        raise AgentError(f"agent spec {name!r}: specs refer to each other in a loop")
    path = _spec_file(name)
    if path is not None and referrer is not None and path.resolve() == referrer.resolve():
        path = None
    if path is not None:
        data = _read_spec_file(path)
        cls, base_params, _ = _resolve(data["strategy"], depth + 1, path)
        params = dict(data.get("params", {}))
        checkpoint = params.get("checkpoint")
        if isinstance(checkpoint, str) and path.parent.resolve() != AGENTS_DIR.resolve():
            beside = path.parent / checkpoint  # a user's spec names its checkpoint beside it
            if not Path(checkpoint).is_absolute() and beside.is_file():
                params["checkpoint"] = str(beside)
        return cls, {**base_params, **params}, data.get("description", "")
    if name in STRATEGIES:
        return STRATEGIES[name], {}, STRATEGIES[name].summary
    if name in _LAZY_STRATEGIES:  # imported on first use
        module, _, attribute = _LAZY_STRATEGIES[name].partition(":")
        cls = getattr(importlib.import_module(module), attribute)
        return cls, {}, cls.summary
    raise AgentError(_unknown_agent(name))


def _unknown_agent(name: str) -> str:
    """The message for an agent no spec file or strategy names: the near name if there is
    one, else every name."""
    names = available_agents()
    hint = did_you_mean(name, names)
    if hint:
        return f"unknown agent {name!r}{hint}"
    return f"unknown agent {name!r}; available: {', '.join(names)} (or a path to a .toml spec file)"


def make_agent(spec: str | Agent, rules: Rules, **params: Any) -> Agent:
    """The agent a spec string names, for ``rules``, with ``params`` applied last.

    An :class:`Agent` is returned as is (it must play the same rules).
    """
    if isinstance(spec, Agent):
        if spec.rules != rules:
            raise AgentError(f"agent {spec.spec!r} was made for other rules")
        return spec
    name, overrides = parse_spec(spec)
    cls, base, _ = _resolve(name)
    agent = cls(rules, **{**base, **overrides, **params})
    agent.label = spec.strip() if isinstance(spec, str) else agent.spec
    return agent


def describe(name: str) -> str:
    """The description of an agent name (spec file description or strategy summary)."""
    return _resolve(parse_spec(name)[0])[2]


def available_agents() -> list[str]:
    """Names resolvable by :func:`make_agent`: built-in strategies and spec files."""
    names = set(STRATEGIES) | set(_LAZY_STRATEGIES)
    names |= {entry.name for entry in resources.entries("agents")}
    return sorted(names)
