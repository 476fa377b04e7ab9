"""The ``opponents`` argument of the Gymnasium envs, resolved to callables.

:class:`~uno_rl.envs.gym_env.UnoEnv` and :class:`~uno_rl.envs.vector.UnoVectorEnv` (so
``gymnasium.make("uno_rl/Uno-v1", opponents=...)`` and ``gymnasium.make_vec``) accept:

* ``None`` (the default): ``"random-playable"``, a random playable card, drawing only when
  nothing else is legal (uniformly random legal play, ``"random"``, draws so often that
  42.7% of its rounds hit ``max_turns``);
* one opponent for every other seat: an agent name or spec string resolved by
  :func:`uno_rl.agents.make_agent` for the env's rules (``"color-first"``,
  ``"color-first:bluff=0.3"``, a shipped bot such as ``"ppo-official-2p"``, a spec file),
  an :class:`~uno_rl.agents.Agent`, or a callable opponent of the env's protocol;
* a list of ``P - 1`` of those, ``opponents[i]`` sitting ``i + 1`` seats clockwise of the
  learner (``["rule", "color-first", "random-playable"]`` for 4 players);
* ``{"pool": [...]}``, a non-empty list of those: each opponent seat of each episode gets
  one entry drawn uniformly (a repeated entry counts as often as it is listed) from the
  env's ``np_random``, so the same seed gives the same opponents.

The same spec string in several places is one agent. Bad input raises at construction: an
unknown agent or bad parameter :class:`~uno_rl.agents.AgentError` (a ``ValueError``)
naming the entry, a list of the wrong length ``ValueError``, a wrong type
:class:`OpponentsTypeError` (both an ``AgentError`` and a ``TypeError``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from uno_rl.agents import Agent, AgentError, make_agent
from uno_rl.agents.labels import bare_name
from uno_rl.core.rules import Rules

__all__ = [
    "DEFAULT_OPPONENT",
    "OpponentPlan",
    "OpponentsTypeError",
    "opponent_name",
    "resolve_opponents",
    "short_name",
]

#: The opponent of every seat when ``opponents`` is ``None``.
DEFAULT_OPPONENT = "random-playable"

_FORMS = (
    "an agent name or spec string, an Agent, a callable, a list of one of those per other "
    "seat, or {'pool': [...]}"
)


class OpponentsTypeError(AgentError, TypeError):
    """An ``opponents`` argument (or one of its entries) of a type the envs do not accept."""


@dataclasses.dataclass(frozen=True)
class OpponentPlan:
    """Resolved opponents: distinct callables and how the seats draw from them.

    ``seats[i]`` indexes the agent of opponent seat ``i`` (fixed), or ``seats`` is ``None``
    and each seat of each episode draws an index from ``pool`` (``pool`` entries index
    ``agents``; repeats weigh).
    """

    agents: tuple[Callable, ...]
    seats: tuple[int, ...] | None
    pool: tuple[int, ...] | None


def resolve_opponents(
    opponents: Any, rules: Rules, adapt: Callable[[Agent], Callable] | None = None
) -> OpponentPlan:
    """The :class:`OpponentPlan` of an ``opponents`` argument (module docstring) for ``rules``.

    ``adapt`` turns an :class:`Agent` (batched) into the env's opponent protocol (the
    single-game env passes :func:`~uno_rl.envs.gym_env.single_opponent`).
    """
    need = rules.players - 1
    agents: list[Callable] = []
    index: dict[Any, int] = {}

    def entry(value: Any, where: str) -> int:
        if isinstance(value, str):
            key: Any = ("spec", value.strip())
            if key not in index:
                try:
                    agent = make_agent(value, rules)
                except AgentError as error:
                    raise AgentError(f"{where}: {error}") from None
                agents.append(adapt(agent) if adapt else agent)
                index[key] = len(agents) - 1
            return index[key]
        if isinstance(value, Agent) or callable(value):
            key = ("object", id(value))
            if key not in index:
                wrapped = adapt(value) if adapt and isinstance(value, Agent) else value
                agents.append(wrapped)
                index[key] = len(agents) - 1
            return index[key]
        raise OpponentsTypeError(
            f"{where} is not callable, an agent name or an Agent: {type(value).__name__} {value!r}"
        )

    def listed(values: Any, where: str) -> list[Any]:
        if isinstance(values, str | bytes | Mapping) or not isinstance(values, Sequence):
            raise OpponentsTypeError(
                f"{where} must be a list, got {type(values).__name__} {values!r}"
            )
        return list(values)

    if opponents is None:
        opponents = DEFAULT_OPPONENT
    if isinstance(opponents, Mapping):
        keys = sorted(map(str, opponents))
        if keys != ["pool"]:
            raise ValueError(f"opponents as a dict takes one key, 'pool'; got keys {keys}")
        pool = listed(opponents["pool"], "opponents['pool']")
        if not pool:
            raise ValueError("opponents['pool'] must name at least one opponent, got []")
        drawn = tuple(entry(v, f"opponents['pool'][{i}]") for i, v in enumerate(pool))
        return OpponentPlan(tuple(agents), None, drawn)
    if isinstance(opponents, str | Agent) or callable(opponents):
        seats = (entry(opponents, "opponents"),) * need
        return OpponentPlan(tuple(agents), seats, None)
    if isinstance(opponents, bytes) or not isinstance(opponents, Sequence):
        raise OpponentsTypeError(f"opponents must be {_FORMS}; got {type(opponents).__name__}")
    if len(opponents) != need:
        raise ValueError(
            f"opponents must have one entry per other seat: {rules.players} players need "
            f"{need}, got {len(opponents)}"
        )
    seats = tuple(entry(v, f"opponents[{i}]") for i, v in enumerate(opponents))
    return OpponentPlan(tuple(agents), seats, None)


def short_name(label: str) -> str:
    """A short name for an agent's spec or label, the name alone
    (:func:`uno_rl.agents.labels.bare_name`, the first step of the labels the evaluator and
    the terminal show): a checkpoint's name (``ppo:checkpoint=runs/a/best.pt`` -> ``best``;
    a run's ``policy.pt`` -> the run's name), a spec file's stem, else the agent's name
    without its parameters (``color-first:bluff=0.3`` -> ``color-first``)."""
    return bare_name(label)


def opponent_name(opponent: Callable, seat: int) -> str:
    """How a table names the seat ``seat`` where ``opponent`` plays: :func:`short_name` of
    its label (an agent's spec) or of a function's name; ``player_<seat>`` when it has
    neither (a lambda, a callable object)."""
    label = getattr(opponent, "label", None) or getattr(opponent, "__name__", None)
    if not isinstance(label, str) or not label.strip() or label.startswith("<"):
        return f"player_{seat}"
    return short_name(label) or f"player_{seat}"
