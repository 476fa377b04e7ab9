"""Which engine plays the rules in this process: the compiled one or the NumPy one.

The compiled engine (:mod:`uno_rl.core.compiled`, numba) is used wherever numba imports; the
NumPy engine (:mod:`uno_rl.core.numpy_engine`) otherwise, or where the environment variable
``UNO_RL_ENGINE=numpy`` asks for it (``UNO_RL_ENGINE=compiled`` insists on the compiled one:
an error if numba is missing). The first process on a machine compiles it (about a minute,
said on standard error; :mod:`uno_rl.core.compiled.warm`), the others load it from disk.
Both give the same states, masks, observations, results and random actions step for step
(the differential tests), so the choice changes only speed.
:func:`select_engine` switches a running process (tests, benchmarks).

The public functions of :mod:`uno_rl.core.engine`, :func:`uno_rl.core.observe.observe` and
:func:`uno_rl.core.sampling.sample_legal_actions` ask :func:`compiled_engine` on each call.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from types import ModuleType

__all__ = [
    "ENGINES",
    "ENGINE_VARIABLE",
    "EngineChoiceError",
    "check_engine_variable",
    "compiled_available",
    "compiled_engine",
    "engine_name",
    "select_engine",
]

#: The environment variable that picks the engine.
ENGINE_VARIABLE = "UNO_RL_ENGINE"
#: Its values.
ENGINES = ("compiled", "numpy")

_UNSET = object()
_compiled: ModuleType | None | object = _UNSET


class EngineChoiceError(ValueError):
    """An unknown engine name, or the compiled engine asked for where numba is missing."""


def compiled_engine() -> ModuleType | None:
    """The compiled engine's API module (:mod:`uno_rl.core.compiled.nb_engine`) if it is the
    one in use, else None (decided on the first call: :func:`select_engine`)."""
    if _compiled is _UNSET:
        select_engine(None)
    return _compiled  # type: ignore[return-value]


def engine_name() -> str:
    """``"compiled"`` or ``"numpy"``: the engine in use."""
    return "numpy" if compiled_engine() is None else "compiled"


def compiled_available() -> bool:
    """Whether numba is installed (the compiled engine can be selected)."""
    return importlib.util.find_spec("numba") is not None


def check_engine_variable() -> str | None:
    """What is wrong with ``UNO_RL_ENGINE`` (one line), or None: it is unset or names an engine
    (whether numba imports is known only when the engine is first used)."""
    name = os.environ.get(ENGINE_VARIABLE, "").strip().lower()
    if name and name not in ENGINES:
        return f"{ENGINE_VARIABLE} must be one of {', '.join(ENGINES)}, got {name!r}"
    return None


def select_engine(name: str | None) -> str:
    """Use engine ``name`` (one of :data:`ENGINES`) from now on in this process and the
    processes it starts (``UNO_RL_ENGINE`` is set to it); None: as ``UNO_RL_ENGINE`` says, else
    the compiled engine where numba imports. Returns the name of the engine now in use.

    Raises:
        EngineChoiceError: an unknown name, or ``"compiled"`` where numba does not import.
    """
    global _compiled
    source, insist = "engine", name is not None
    if name is None:
        source, name = ENGINE_VARIABLE, os.environ.get(ENGINE_VARIABLE, "").strip().lower()
        insist = bool(name)
        name = name or "compiled"
    if name not in ENGINES:
        raise EngineChoiceError(f"{source} must be one of {', '.join(ENGINES)}, got {name!r}")
    if name == "numpy":
        _compiled = None
        if source == "engine":
            os.environ[ENGINE_VARIABLE] = name
        return name
    try:
        from .compiled import nb_engine
    except ImportError as error:
        if insist:
            raise EngineChoiceError(
                f"the compiled engine needs numba, which does not import here ({error})"
            ) from None
        _compiled = None
        return "numpy"
    from .compiled.warm import cache_is_cold

    if cache_is_cold():
        print("uno_rl: compiling the engine, once on a machine (about a minute)",
              file=sys.stderr, flush=True)  # fmt: skip
    _compiled = nb_engine
    if source == "engine":
        os.environ[ENGINE_VARIABLE] = name
    return name
