"""The batched agent protocol and the typed, validated parameters agents take.

An agent plays N games at once::

    actions = agent.act(observations, masks, rng)            # (k, O) f32, (k, A) bool -> (k,)
    actions = agent.act(observations, masks, rng, memory, rows)  # agents that remember

``observations`` are each acting seat's own view (:func:`uno_rl.core.observe.observe`),
``masks`` the legal actions, ``rng`` an explicit ``numpy.random.Generator``; the result is one
legal action per game (int64). There is no per-game Python loop anywhere in an agent. The
widths O and A are those of the rules' deck layout (``rules.layout``; :mod:`uno_rl.core`):
583 values and 77 actions in the classic layout, 877 values and 122 actions in the extended
one (decks with the cards of
rules specification §11, :mod:`uno_rl.core.layout`).

Agents that remember what they saw keep a per-game *memory*: a dict of arrays whose first axis
is a game slot, made by :meth:`Agent.new_memory` (one per seat the agent plays), cleared for new
rounds by :meth:`Agent.reset_memory`, and passed to :meth:`Agent.act` with ``rows``, the slot of
each of the k games. Without a memory such an agent plays as if it remembered nothing.

Search agents (:attr:`Agent.needs_state`) also get the engine state and the game of each row
(``act(..., state=, games=)``), and are shown every action as it is played, their own and the
others' (``agent.watch(memory, rows, state, games, observer, actions)`` before each step: what
a seat sees of the others' turns); they read only what their seat may see
(:mod:`uno_rl.agents.search`). The evaluator, experiments, the terminal game and replays
support them; the environments' opponents do not.

An agent is also a :data:`uno_rl.envs.vector.BatchedOpponent`: ``agent(observations, masks,
rng)`` calls :meth:`act`.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from uno_rl.core.layout import CLASSIC
from uno_rl.core.rules import Rules

__all__ = ["Agent", "AgentError", "Param", "parse_value"]


class AgentError(ValueError):
    """An unknown agent or parameter, a bad parameter value, or an unreadable agent spec."""


@dataclasses.dataclass(frozen=True)
class Param:
    """One agent parameter: its type, default, allowed values and meaning."""

    default: Any
    doc: str
    choices: tuple[str, ...] | None = None
    low: float | None = None
    high: float | None = None

    @property
    def kind(self) -> type:
        return type(self.default)

    def check(self, agent: str, name: str, value: Any) -> Any:
        """``value`` converted to this parameter's type, or an :class:`AgentError` naming it."""
        if isinstance(value, str) and self.kind is not str:
            value = parse_value(agent, name, value, self.kind)
        kind = self.kind
        ok = isinstance(value, kind) and not (kind is not bool and isinstance(value, bool))
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value, ok = float(value), True
        if not ok:
            raise AgentError(
                f"agent {agent!r}: parameter {name!r} must be {kind.__name__}, got "
                f"{type(value).__name__} {value!r}"
            )
        if kind is float and not math.isfinite(value):
            raise AgentError(
                f"agent {agent!r}: parameter {name!r} must be a finite number, got {value!r}"
            )
        if self.choices is not None and value not in self.choices:
            raise AgentError(
                f"agent {agent!r}: parameter {name!r} must be one of {', '.join(self.choices)}, "
                f"got {value!r}"
            )
        if (self.low is not None and value < self.low) or (
            self.high is not None and value > self.high
        ):
            raise AgentError(
                f"agent {agent!r}: parameter {name!r} must be in [{self.low}, {self.high}], "
                f"got {value!r}"
            )
        return value


def parse_value(agent: str, name: str, text: str, kind: type) -> Any:
    """Parse the text of a ``name=value`` spec parameter as ``kind``."""
    try:
        if kind is bool:
            lowered = text.strip().lower()
            if lowered in ("true", "yes", "1", "on"):
                return True
            if lowered in ("false", "no", "0", "off"):
                return False
            raise ValueError(text)
        return kind(text.strip())
    except ValueError:
        raise AgentError(
            f"agent {agent!r}: parameter {name!r} must be {kind.__name__}, got {text!r}"
        ) from None


class Agent:
    """Base class of batched agents. Subclasses set :attr:`name`, :attr:`PARAMS`, :meth:`act`.

    Args:
        rules: the rules the agent plays under (bluff legality, penalties, player count).
        **params: values for :attr:`PARAMS` (strings are parsed); unknown names raise
            :class:`AgentError`.
    """

    #: Registry name of the strategy.
    name: ClassVar[str] = "agent"
    #: One-line summary of the strategy.
    summary: ClassVar[str] = ""
    #: The parameters the agent takes.
    PARAMS: ClassVar[dict[str, Param]] = {}
    #: False for agents that ignore observations (callers may pass ``None``).
    needs_observation: ClassVar[bool] = True
    #: True for search agents: callers pass ``state=`` (the engine state) and ``games=`` (the
    #: (k,) game of each row in it) to :meth:`act`; such an agent reads only what the acting
    #: seat may see (:mod:`uno_rl.agents.determinize`).
    needs_state: ClassVar[bool] = False

    def __init__(self, rules: Rules, **params: Any):
        if not isinstance(rules, Rules):
            raise TypeError(f"rules must be a uno_rl.core.Rules, got {type(rules).__name__}")
        unknown = sorted(set(params) - set(self.PARAMS))
        if unknown:
            known = ", ".join(sorted(self.PARAMS)) or "none"
            raise AgentError(
                f"agent {self.name!r} has no parameter {unknown[0]!r} (parameters: {known})"
            )
        self.rules = rules
        self.params: dict[str, Any] = {
            key: spec.check(self.name, key, params.get(key, spec.default))
            for key, spec in self.PARAMS.items()
        }
        #: How tables name this agent (the spec string it was made from).
        self.label: str = self.spec

    @property
    def spec(self) -> str:
        """Canonical spec string: the name and every parameter that differs from its default."""
        changed = [
            f"{key}={_format(value)}"
            for key, value in self.params.items()
            if value != self.PARAMS[key].default
        ]
        return self.name + (":" + ",".join(changed) if changed else "")

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.spec}>"

    # ------------------------------------------------------------------ protocol
    def act(
        self,
        observations: np.ndarray | None,
        masks: np.ndarray,
        rng: np.random.Generator,
        memory: Mapping[str, np.ndarray] | None = None,
        rows: np.ndarray | None = None,
    ) -> np.ndarray:
        """(k,) int64 legal actions for k games (see the module docstring)."""
        raise NotImplementedError

    def new_memory(self, num_games: int) -> dict[str, np.ndarray] | None:
        """A fresh per-game memory of ``num_games`` slots, or None for agents without one."""
        return None

    def reset_memory(self, memory: Mapping[str, np.ndarray] | None, rows: np.ndarray) -> None:
        """Forget what slots ``rows`` remembered (a new round starts there)."""
        if memory is None:
            return
        fresh = self.new_memory(1)
        for key, array in memory.items():
            array[rows] = fresh[key][0]

    def __call__(
        self, observations: np.ndarray | None, masks: np.ndarray, rng: np.random.Generator
    ) -> np.ndarray:
        return self.act(observations, masks, rng)


def _format(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def check_batch(
    observations: np.ndarray | None,
    masks: np.ndarray,
    needs_obs: bool,
    rules: Rules | None = None,
) -> int:
    """The batch size k, after checking shapes; a clear error otherwise.

    With ``rules``, masks must have that deck's action count (77 in the classic layout, 122 in
    the extended one) and observations its observation width (583 or 877); without, the
    classic layout's.
    """
    layout = rules.layout if rules is not None else CLASSIC
    actions = layout.num_actions
    masks = np.asarray(masks)
    if masks.ndim != 2 or masks.shape[1] != actions or masks.dtype != bool:
        raise ValueError(
            f"masks must be a (k, {actions}) bool array, got {masks.dtype} {masks.shape}"
        )
    if needs_obs and (observations is None or len(observations) != masks.shape[0]):
        raise ValueError("observations must have one row per mask row")
    if rules is not None and observations is not None:
        width = np.shape(observations)[1] if np.ndim(observations) == 2 else None
        if width != layout.obs_size:
            raise ValueError(
                f"observations must have {layout.obs_size} values per row (the "
                f"{layout.name} layout of deck {rules.deck!r}), got shape "
                f"{np.shape(observations)}"
            )
    return masks.shape[0]
