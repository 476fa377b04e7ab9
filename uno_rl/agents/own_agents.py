"""Agents a researcher wrote elsewhere, named by their class: ``MODULE:Class``, ``FILE.py:Class``.

A spec names a class and, after a second colon, its parameters::

    mypkg.agents:MyAgent
    mypkg.agents:MyAgent:aggression=2
    path/to/my_agent.py:MyAgent:aggression=2

``MODULE`` is imported as Python imports it (an installed package, or a folder on
``PYTHONPATH``; ``python -m uno_rl`` also finds the modules of the current folder). A file
ending in ``.py`` is loaded as a module of its own, under a name made from its resolved path
(``uno_rl_own_agents_<hash>_<stem>``), once per process while it is unchanged. Either runs that
code: name only modules and files you trust.

The class is either

* a subclass of :class:`~uno_rl.agents.base.Agent`: made like a built-in strategy,
  ``cls(rules, **params)``, its :attr:`~uno_rl.agents.base.Agent.PARAMS` checking the
  parameters; or
* a *plain agent*: any class with a batched ``act(observations, masks, rng) -> actions``
  ((k, O) float32, (k, A) bool, a ``numpy.random.Generator``; (k,) integers). It is made
  ``cls(rules, **params)`` when its constructor's first parameter has no default,
  ``cls(**params, rules=rules)`` when it has a parameter ``rules``, else ``cls(**params)``. A parameter whose default (or
  annotation) is a bool, int or float is parsed as one (``aggression=2`` -> 2); a name the
  constructor does not take is refused. :class:`PlainAgent` wraps it and checks every
  answer: ``(k,)`` integers, each legal under its row's mask.

How a spec tells this form from ``NAME:key=value,...`` (:func:`split_class_spec`): the part
before the first colon ends in ``.py``, or is a dotted Python name (``mypkg.agents``) that
names no agent (no strategy, no spec file, neither ``sb3`` nor ``torch``), and the part after
it, up to the next colon, is a Python identifier (no ``=``). So ``color-first:bluff=0.3``,
``agents/x.toml:challenge=always`` and ``pimc:rollout=ppo-official-2p`` are names with
parameters, and ``rule:bluff`` a strategy's name with a parameter that lacks its value (an
error).

Every failure is one :class:`~uno_rl.agents.base.AgentError` line: a module or file not
found, a class not in it (with the nearest name), a class that is no agent, a constructor or
an answer that fails.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from uno_rl.core.rules import Rules
from uno_rl.plumbing.cli import did_you_mean

from .base import Agent, AgentError, parse_value

__all__ = [
    "PlainAgent",
    "checked_actions",
    "is_class_target",
    "load_class",
    "split_class_spec",
]

#: Prefix of the module names given to agent files (``FILE.py:Class``).
FILE_MODULE_PREFIX = "uno_rl_own_agents_"

#: Modules loaded from files, by (resolved path, modification time, size).
_FILES: dict[tuple[str, int, int], Any] = {}

#: The :class:`PlainAgent` class made for each plain class, by (class, target).
_ADAPTERS: dict[tuple[type, str], type[Agent]] = {}

#: The parameter types a plain agent's defaults or annotations give (their names: annotations
#: under ``from __future__ import annotations`` are strings).
_KINDS = {bool: bool, int: int, float: float, "bool": bool, "int": int, "float": float}


def _dotted(name: str) -> bool:
    """Whether ``name`` is a dotted Python name (``mypkg.agents``)."""
    return bool(name) and all(part.isidentifier() for part in name.split("."))


def split_class_spec(text: str, is_agent_name: Callable[[str], bool]) -> tuple[str, str] | None:
    """``(TARGET:Class, parameters text)`` of a class spec (the module docstring's rule), or
    None for a spec of another form; ``is_agent_name`` says whether a name is an agent's.

    A file ending in ``.py`` must name an identifier after its colon: anything else raises
    :class:`AgentError`.
    """
    head, colon, rest = text.partition(":")
    head = head.strip()
    if head.endswith(".py"):
        name, _, params = rest.partition(":")
        if not colon or not name.strip().isidentifier():
            got = f", got {name.strip()!r}" if name.strip() else ""
            raise AgentError(
                f"agent spec {text!r}: a Python file names its class after a colon "
                f"({head}:ClassName[:key=value,...]){got}"
            )
        return f"{head}:{name.strip()}", params
    name, _, params = rest.partition(":")
    module = _dotted(head) and not head.endswith(".toml")
    if colon and module and name.strip().isidentifier() and not is_agent_name(head):
        return f"{head}:{name.strip()}", params
    return None


def is_class_target(name: str) -> bool:
    """Whether a name is ``TARGET:Class``: a Python file or a dotted module name, a colon and
    an identifier (what :func:`split_class_spec` gives)."""
    where, colon, cls = name.rpartition(":")
    return bool(colon) and cls.isidentifier() and (where.endswith(".py") or _dotted(where))


def load_class(target: str) -> type[Agent]:
    """The :class:`Agent` class ``TARGET:Class`` names: the class itself if it is one, else a
    :class:`PlainAgent` around it; :class:`AgentError` in one line otherwise."""
    where, _, name = target.rpartition(":")
    module = _load_file(where) if where.endswith(".py") else _import(where)
    found = getattr(module, name, None)
    if found is None:
        classes = sorted(n for n, v in vars(module).items() if isinstance(v, type))
        agents = [n for n in classes if callable(getattr(vars(module)[n], "act", None))]
        hint = did_you_mean(name, classes)
        if not hint and agents:
            hint = f" (its classes with an act method: {', '.join(agents)})"
        raise AgentError(f"agent {target!r}: {where!r} has no class {name!r}{hint}")
    if not isinstance(found, type):
        raise AgentError(
            f"agent {target!r}: {name!r} in {where!r} is not a class ({type(found).__name__})"
        )
    if issubclass(found, Agent):
        return found
    if not callable(getattr(found, "act", None)):
        raise AgentError(
            f"agent {target!r}: class {name} is not an agent (it has no "
            "act(observations, masks, rng) method)"
        )
    key = (found, target)
    if key not in _ADAPTERS:
        doc = (inspect.getdoc(found) or "").strip().splitlines()
        _ADAPTERS[key] = type(
            f"Plain{found.__name__}",
            (PlainAgent,),
            {
                "name": target,
                "summary": doc[0] if doc else f"{found.__name__} (a plain agent)",
                "plain_class": found,
                "__module__": __name__,
            },
        )
    return _ADAPTERS[key]


def error_line(error: BaseException) -> str:
    """``Type: first line of the message`` of an exception (messages must stay one line)."""
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0]}" if text else type(error).__name__


def _import(where: str) -> Any:
    """The module ``where`` names, imported; one line when it cannot be."""
    try:
        return importlib.import_module(where)
    except ModuleNotFoundError as error:
        missing = error.name or ""
        if where == missing or where.startswith(missing + "."):
            top = where.partition(".")[0]
            here = Path(f"{top}.py").is_file() or Path(top).is_dir()
            hint = (
                f"a module of the current folder: name its file, {where.replace('.', '/')}.py:"
                "Class, or add the folder to PYTHONPATH"
                if here
                else "install it, or add its folder to PYTHONPATH"
            )
            raise AgentError(
                f"agent module {where!r} not found (no module {missing!r} on the Python path; "
                f"{hint})"
            ) from None
        raise AgentError(
            f"agent module {where!r} could not be imported: {error_line(error)}"
        ) from None
    except Exception as error:  # the module's own failure: one line naming it
        raise AgentError(
            f"agent module {where!r} could not be imported: {error_line(error)}"
        ) from None


def _load_file(where: str) -> Any:
    """The module of Python file ``where``, loaded once while it is unchanged."""
    path = Path(where)
    if not path.is_file():
        what = "is a folder, not a file" if path.is_dir() else "not found"
        raise AgentError(f"agent file {where!r} {what}")
    resolved = path.resolve()
    info = resolved.stat()
    key = (str(resolved), info.st_mtime_ns, info.st_size)
    if key in _FILES:
        return _FILES[key]
    digest = hashlib.sha1(str(resolved).encode()).hexdigest()[:12]
    stem = "".join(c if c.isalnum() else "_" for c in resolved.stem)
    name = f"{FILE_MODULE_PREFIX}{digest}_{stem}"
    spec = importlib.util.spec_from_file_location(name, resolved)
    if spec is None or spec.loader is None:
        raise AgentError(f"agent file {where!r} cannot be loaded as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # classes look their module up (dataclasses, pickle)
    try:
        spec.loader.exec_module(module)
    except Exception as error:
        sys.modules.pop(name, None)
        raise AgentError(f"agent file {where!r} could not be loaded: {error_line(error)}") from None
    _FILES[key] = module
    return module


def checked_actions(label: str, actions: Any, masks: np.ndarray) -> np.ndarray:
    """``actions`` as (k,) int64 after checking them against ``masks`` (k, A) bool: one
    integer a row, each legal there; :class:`AgentError` naming ``label`` and the first bad
    row otherwise."""
    k, width = masks.shape
    array = np.asarray(actions)
    if array.shape != (k,):
        raise AgentError(
            f"agent {label!r} answered {k} games with actions of shape {array.shape}; "
            f"expected ({k},), one per row"
        )
    if not np.issubdtype(array.dtype, np.integer):
        raise AgentError(f"agent {label!r} answered with {array.dtype} actions; expected integers")
    inside = (array >= 0) & (array < width)
    legal = inside.copy()
    legal[inside] = masks[np.flatnonzero(inside), array[inside]]
    if not legal.all():
        row = int(np.flatnonzero(~legal)[0])
        what = "which its mask forbids" if inside[row] else f"not an action (0 to {width - 1})"
        raise AgentError(
            f"agent {label!r} played action {int(array[row])} in row {row}, {what} "
            f"({int((~legal).sum())} of {k} rows bad)"
        )
    return array.astype(np.int64, copy=False)


class PlainAgent(Agent):
    """An :class:`Agent` around a plain agent class (the module docstring): made
    ``plain_class(rules, **params)`` or ``plain_class(**params)``; its answers checked."""

    #: The plain class this adapter makes (set on each adapter class).
    plain_class: ClassVar[type] = object

    def __init__(self, rules: Rules, **params: Any):
        super().__init__(rules)
        cls = self.plain_class
        try:
            signature = inspect.signature(cls)
        except (TypeError, ValueError):  # a class whose signature Python cannot read
            signature = None
        at = _rules_parameter(signature) if signature is not None else None
        self.params = _plain_params(self.name, signature, params, skip=at)
        try:
            #: The plain agent itself.
            if at is None:
                self.plain = cls(**self.params)
            elif at == next(iter(signature.parameters)):
                self.plain = cls(rules, **self.params)
            else:
                self.plain = cls(**self.params, rules=rules)
        except AgentError:
            raise
        except Exception as error:  # the class's own failure: one line naming it
            raise AgentError(
                f"agent {self.name!r} could not be made: {error_line(error)}"
            ) from None
        self.label = self.spec

    @property
    def spec(self) -> str:
        """The class target and every parameter given."""
        given = ",".join(f"{key}={value}" for key, value in self.params.items())
        return self.name + (":" + given if given else "")

    def act(self, observations, masks, rng, memory=None, rows=None):
        """(k,) int64: the plain agent's answer, checked (:func:`checked_actions`)."""
        masks = np.asarray(masks)
        return checked_actions(self.label, self.plain.act(observations, masks, rng), masks)


def _rules_parameter(signature: inspect.Signature) -> str | None:
    """The constructor parameter that takes the rules: a first positional one without a
    default, else one named ``rules``; None when there is neither."""
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    first = next(iter(signature.parameters.values()), None)
    if first is not None and first.kind in positional and first.default is first.empty:
        return first.name
    return "rules" if "rules" in signature.parameters else None


def _plain_params(
    agent: str, signature: inspect.Signature | None, params: dict[str, Any], skip: str | None
) -> dict[str, Any]:
    """``params`` checked against a plain constructor's signature (``skip``: the parameter
    that takes the rules) and parsed by their defaults' or annotations' types."""
    if signature is None:
        return dict(params)
    accepted = [p for p in signature.parameters.values() if p.name != skip]
    by_name = {
        p.name: p
        for p in accepted
        if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    }
    open_ended = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in accepted)
    out: dict[str, Any] = {}
    for key, value in params.items():
        parameter = by_name.get(key)
        if parameter is None and not open_ended:
            known = ", ".join(sorted(by_name)) or "none"
            raise AgentError(f"agent {agent!r} has no parameter {key!r} (parameters: {known})")
        kind = None
        if parameter is not None:
            default = parameter.default
            kind = _KINDS.get(type(default)) if default is not parameter.empty else None
            try:
                kind = kind or _KINDS.get(parameter.annotation)
            except TypeError:  # an unhashable annotation: no type to parse by
                kind = None
        if isinstance(value, str) and kind is not None:
            value = parse_value(agent, key, value, kind)
        out[key] = value
    return out
