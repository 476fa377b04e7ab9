"""Agents by name: built-in strategies, spec files in the top-level ``agents/``, parameters.

A spec string names an agent and optionally overrides parameters::

    color-first
    color-first:bluff=0.3,challenge=bayes
    agents/my-bot.toml:challenge=always

The name is looked up, in order, as a TOML spec file ``agents/<name>.toml`` (or a path to one)
and as a strategy: a built-in one, or one a package adds through the ``uno_rl.agents`` entry
point group (:data:`ENTRY_POINT_GROUP`; uno_rl's search agents and PPO bots come in that way,
so this module imports neither the agents that import it nor the layer above it). A spec file holds::

    description = "color-first that challenges by Bayes' rule"
    strategy = "color-first"       # a built-in strategy, or another spec name
    [params]
    challenge = "bayes"

Unknown names, unknown parameters and bad values raise :class:`AgentError` naming them.

A parameter can name another agent (a search agent's ``rollout`` and ``model``), and a spec
file's ``strategy`` another spec file. Specs that come back to themselves either way
(``a.toml`` naming ``b``, ``b.toml`` naming ``a``; a ``pimc`` spec file whose ``rollout`` is
its own name) raise ``agent spec cycle: a -> b -> a``; agents inside agents more than
:data:`MAX_NESTING` deep (``pimc:rollout=pimc:rollout=...``) and spec files naming each other
more than :data:`MAX_SPEC_CHAIN` deep are refused too.

Agents made elsewhere are named the same way (:data:`MODEL_FORMS`, :mod:`.own_agents`)::

    mypkg.agents:MyAgent                       # a class of an importable module
    path/to/my_agent.py:MyAgent:aggression=2   # a class of a Python file, with parameters
    sb3:path/to/model.zip,deterministic=true   # a Stable-Baselines3 model (.sb3_agent)
    torch:path/to/policy.pt                    # a PyTorch module: observations -> logits

How :func:`parse_spec` reads a spec: split at the first colon into a head and the rest. The
head is a class's module or file when it ends in ``.py``, or when it is a dotted Python name
(``mypkg.agents``) that names no agent (no spec file, strategy, ``sb3`` or ``torch``) and the
rest, up to its next colon, is a Python identifier (the class: no ``=``); then the
parameters follow that second colon. Otherwise the head is the name and the rest its
``key=value`` parameters, except that for ``sb3`` and ``torch`` a first item without ``=``
is the ``file`` parameter. So ``color-first:bluff=0.3``, ``agents/x.toml:challenge=always``
and ``pimc:rollout=ppo-official-2p`` are names with parameters, and ``rule:bluff`` a
strategy's name with a parameter that lacks its value (an error). A spec file's
``strategy`` may name any of these forms.
"""

from __future__ import annotations

from contextvars import ContextVar
from pathlib import Path
from typing import Any

from uno_rl.core.rules import Rules
from uno_rl.plumbing import resources
from uno_rl.plumbing.cli import did_you_mean
from uno_rl.plumbing.safe_text import printable
from uno_rl.plumbing.tomlfile import not_a_file, read_toml

from . import own_agents
from .base import Agent, AgentError
from .random_agents import RandomAgent, RandomPlayableAgent
from .strategies import AggressiveAgent, ColorFirstAgent, PointsDumperAgent, RuleAgent

__all__ = [
    "AGENTS_DIR",
    "ENTRY_POINT_GROUP",
    "MAX_NESTING",
    "MAX_SPEC_CHAIN",
    "MODEL_FORMS",
    "STRATEGIES",
    "available_agents",
    "describe",
    "load_strategy",
    "make_agent",
    "parse_spec",
    "spec_parameters",
    "strategy_names",
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


#: The entry-point group through which a package adds strategies (``name = "module:Class"``,
#: the class an :class:`~uno_rl.agents.base.Agent`); loaded only when a name is used or listed.
#: uno_rl's own search agents (which build their rollout agents through this registry) and PPO
#: bots (a layer above) come in this way too, so this module imports neither.
ENTRY_POINT_GROUP = "uno_rl.agents"


def _entry_points() -> dict:
    """The strategies packages add through :data:`ENTRY_POINT_GROUP`, by name (the first
    package to claim a name keeps it)."""
    from importlib.metadata import entry_points

    found: dict = {}
    for point in entry_points(group=ENTRY_POINT_GROUP):
        found.setdefault(point.name, point)
    return found


def strategy_names() -> list[str]:
    """Every strategy name: the built-in ones and the entry points'."""
    return sorted(set(STRATEGIES) | set(_entry_points()))


def load_strategy(name: str) -> type[Agent] | None:
    """The class of strategy ``name``, importing it if it is loaded on first use; None for a
    name no strategy has. A plug-in that fails to load raises :class:`AgentError`."""
    if name in STRATEGIES:
        return STRATEGIES[name]
    point = _entry_points().get(name)
    if point is None:
        return None
    try:
        cls = point.load()
    except Exception as error:  # a plug-in's own failure: one line naming it
        raise AgentError(
            f"strategy {name!r} ({point.value}) could not be loaded: "
            f"{type(error).__name__}: {error}"
        ) from None
    if not (isinstance(cls, type) and issubclass(cls, Agent)):
        raise AgentError(f"strategy {name!r} ({point.value}) is not an Agent class")
    return cls


#: The folder of the shipped agent specs and checkpoints (``uno_rl/data/agents``, from
#: ``agents/``); user folders in ``$UNO_RL_AGENTS`` are searched first.
AGENTS_DIR = resources.shipped_dir("agents")
_SPEC_KEYS = {"description", "strategy", "params"}
#: The most spec files one name may pass through (``a.toml``'s strategy ``b``, ``b.toml``'s...).
MAX_SPEC_CHAIN = 8
#: The most agents built inside one another (a search agent's rollout agent is one level).
MAX_NESTING = 8
#: A spec shown in a message is cut to this many characters.
_SHOWN_CHARS = 40

#: The specs being built, outermost first, as (spec, how it is shown): an agent whose
#: parameters name agents (a search agent's rollout) builds them inside its own building.
_BUILDING: ContextVar[tuple[tuple[str, str], ...]] = ContextVar("agents_being_built", default=())


def _cut(spec: str) -> str:
    """``spec`` cut to :data:`_SHOWN_CHARS` characters (a spec can be a page long)."""
    return spec if len(spec) <= _SHOWN_CHARS else spec[: _SHOWN_CHARS - 3] + "..."


def _shown(spec: str) -> str:
    """``spec`` as a message shows it unquoted: cut, and escaped (``\\x1b``)."""
    return printable(_cut(spec))


#: The agents that play a model file, by name: a first parameter without ``=`` is the file
#: (``sb3:model.zip``). Not strategies: listed by name only in the docs and help.
MODEL_FORMS = ("sb3", "torch")


def _model_agent(name: str) -> type[Agent] | None:
    """The class of a :data:`MODEL_FORMS` name (imported on first use), else None."""
    if name == "sb3":
        from .sb3_agent import SB3Agent

        return SB3Agent
    if name == "torch":
        from .torch_policy_agent import TorchPolicyAgent

        return TorchPolicyAgent
    return None


def _is_agent_name(name: str) -> bool:
    """Whether ``name`` names an agent without a class (a spec file, strategy, model form)."""
    if name in STRATEGIES or name in MODEL_FORMS or name in _entry_points():
        return True
    try:
        return _spec_file(name) is not None
    except AgentError:  # an unreadable user folder: told when the name is resolved
        return False


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split ``name:key=value,...`` into the name and the raw parameter strings.

    ``TARGET:Class:key=value,...`` gives the name ``TARGET:Class`` and ``sb3:FILE,...`` the
    parameter ``file`` (the module docstring says how the forms are told apart).
    """
    if not isinstance(spec, str) or not spec.strip():
        raise AgentError(f"an agent spec must be a non-empty string, got {spec!r}")
    text = spec.strip()
    own = own_agents.split_class_spec(text, _is_agent_name)
    name, rest = own if own is not None else [part.strip() for part in text.partition(":")[::2]]
    params: dict[str, str] = {}
    if rest.strip():
        for index, item in enumerate(rest.split(",")):
            key, eq, value = item.partition("=")
            if not eq and index == 0 and name in MODEL_FORMS and item.strip():
                key, eq, value = "file", "=", item
            if not eq or not key.strip():
                raise AgentError(f"agent spec {spec!r}: expected key=value, got {item!r}")
            if key.strip() in params:
                raise AgentError(f"agent spec {spec!r}: parameter {key.strip()!r} given twice")
            params[key.strip()] = value.strip()
    return name, params


def _spec_file(name: str) -> Path | None:
    """The spec file ``name`` means: a path ending in ``.toml`` where something is there
    (what is no file is explained when it is read), or ``NAME.toml`` in the agents' folders
    (a user folder that cannot be read is passed over: built-in names still resolve)."""
    path = Path(name)
    if path.suffix == ".toml":
        return path if path.is_file() or not_a_file(path) else None
    try:
        candidate, _ = resources.locate("agents", f"{name}.toml")
    except resources.ResourceError as error:
        raise AgentError(str(error)) from None
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


def spec_parameters(name: str) -> dict[str, Any]:
    """The parameters the spec files behind ``name`` give (``{}`` for a built-in strategy),
    before any ``name:key=value`` of a spec; :class:`AgentError` for an unknown name."""
    return dict(_resolve(name)[1])


def _resolve(
    name: str, chain: tuple[Path, ...] = (), trail: list[str] | None = None
) -> tuple[type[Agent], dict[str, Any], str]:
    """(strategy class, parameters from spec files, description) of a name.

    ``chain``: the spec files that led here, each naming the next as its strategy; ``trail``,
    when given, receives the names of the spec files passed through. A spec file whose
    strategy is its own name (``agents/rule.toml``: ``strategy = "rule"``) refers to the
    built-in strategy.
    """
    if own_agents.is_class_target(name):  # MODULE:Class or FILE.py:Class
        cls = own_agents.load_class(name)
        return cls, {}, cls.summary
    path = _spec_file(name)
    names_itself = path is not None and bool(chain) and _same(path, chain[-1])
    if path is not None and not names_itself:
        seen = [_same(path, earlier) for earlier in chain]
        if any(seen):
            loop = [*chain[seen.index(True) :], path]
            raise AgentError(f"agent spec cycle: {' -> '.join(_stem(p) for p in loop)}")
        if len(chain) >= MAX_SPEC_CHAIN:
            raise AgentError(
                f"agent spec {_stem(chain[0])}: spec files name each other more than "
                f"{MAX_SPEC_CHAIN} deep ({' -> '.join(_stem(p) for p in chain[:3])} -> ...)"
            )
        if trail is not None:
            trail.append(_stem(path))
        data = _read_spec_file(path)
        cls, base_params, _ = _resolve(data["strategy"], (*chain, path), trail)
        params = dict(data.get("params", {}))
        for key in ("checkpoint", "file"):  # a user's spec names its model file beside it
            named = params.get(key)
            if isinstance(named, str) and path.parent.resolve() != AGENTS_DIR.resolve():
                beside = path.parent / named
                if not Path(named).is_absolute() and beside.is_file():
                    params[key] = str(beside)
        return cls, {**base_params, **params}, data.get("description", "")
    cls = load_strategy(name) or _model_agent(name)
    if cls is not None:
        return cls, {}, cls.summary
    if names_itself:
        raise AgentError(
            f"agent spec cycle: {_stem(chain[-1])} -> {_stem(chain[-1])} (a spec file whose "
            f"strategy is its own name means the built-in strategy, and none is named "
            f"{_cut(name)!r})"
        )
    raise AgentError(_unknown_agent(name))


def _same(path: Path, other: Path) -> bool:
    """Whether two spec file paths are the same file."""
    try:
        return path.resolve() == other.resolve()
    except (OSError, RuntimeError):  # a link that cannot be followed: compare as written
        return path == other


def _stem(path: Path) -> str:
    """A spec file as messages name it: its stem, escaped."""
    return _shown(path.stem)


def _unknown_agent(name: str) -> str:
    """The message for an agent no spec file or strategy names: the near name if there is
    one, else every name."""
    names = available_agents()
    hint = did_you_mean(name, names)
    try:
        _, unreadable = resources.locate("agents", f"{name}.toml")
    except resources.ResourceError:  # told when it is looked up as a spec file
        unreadable = []
    where = f"; {unreadable[0]}" if unreadable else ""  # the file may be there
    if hint:
        return f"unknown agent {_cut(name)!r}{hint}{where}"
    shown = ", ".join(printable(n) for n in names)
    return (
        f"unknown agent {_cut(name)!r}; available: {shown} (or a path to a .toml spec file, "
        f"MODULE:Class, FILE.py:Class, sb3:MODEL.zip, torch:MODULE.pt){where}"
    )


def make_agent(spec: str | Agent, rules: Rules, **params: Any) -> Agent:
    """The agent a spec string names, for ``rules``, with ``params`` applied last.

    An :class:`Agent` is returned as is (it must play the same rules).
    """
    if isinstance(spec, Agent):
        if spec.rules != rules:
            raise AgentError(f"agent {spec.spec!r} was made for other rules")
        return spec
    name, overrides = parse_spec(spec)
    outer = _BUILDING.get()
    key = spec.strip()
    specs = [built for built, _ in outer]
    if key in specs:
        loop = [shown for _, shown in outer[specs.index(key) :]]
        raise AgentError(f"agent spec cycle: {' -> '.join([*loop, _shown(key)])}")
    if len(outer) >= MAX_NESTING:
        raise AgentError(
            f"agent spec {outer[0][1]}: agents nested more than {MAX_NESTING} deep (a search "
            "agent's rollout or model naming an agent that names another, and so on)"
        )
    trail: list[str] = []
    cls, base, _ = _resolve(name, trail=trail)
    shown = " -> ".join([_shown(key), *trail[1:]])  # the spec files it passed through
    given = {**base, **overrides, **params}
    if "rules" in given:  # the first argument of every agent
        raise AgentError(
            f"agent {_cut(key)!r} has no parameter 'rules' (the rules come from the preset "
            "and its switches)"
        )
    building = _BUILDING.set((*outer, (key, shown)))
    try:
        agent = cls(rules, **given)
    finally:
        _BUILDING.reset(building)
    agent.label = key
    return agent


def describe(name: str) -> str:
    """The description of an agent name (spec file description or strategy summary)."""
    return _resolve(parse_spec(name)[0])[2]


def available_agents() -> list[str]:
    """Names resolvable by :func:`make_agent`: built-in strategies and spec files."""
    names = set(strategy_names())
    names |= {entry.name for entry in resources.scan("agents", describe=False)[0]}
    return sorted(names)
