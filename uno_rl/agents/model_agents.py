"""What the agents that play a model file share (``sb3:MODEL.zip``, ``torch:MODULE.pt``).

A :class:`ModelAgent` reads its file once per process while the file is unchanged
(:func:`cached`), checks that the model reads the rules' observation width and scores their
number of actions (:func:`layout_mismatch`: one line naming both), and plays with
:func:`masked_choice`: the model's scores ``(k, A)`` of the illegal actions set to minus
infinity, then the best legal action, or one drawn from the softmax of the legal scores with
the caller's generator (one uniform number per row: the same generator state gives the same
actions).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from uno_rl.core.layout import CLASSIC, EXTENDED
from uno_rl.core.rules import Rules

from .base import Agent, AgentError, Param, check_batch
from .own_agents import checked_actions

__all__ = ["ModelAgent", "cached", "layout_mismatch", "masked_choice", "model_file"]

#: Models read from files, by (kind, resolved path, modification time, size).
_LOADED: dict[tuple[str, str, int, int], Any] = {}


def model_file(agent: str, text: str) -> Path:
    """The model file parameter ``file`` names; :class:`AgentError` when there is none."""
    if not text:
        raise AgentError(f"agent {agent!r}: name the model file ({agent}:PATH or file=PATH)")
    path = Path(text)
    if not path.is_file():
        what = "is a folder, not a file" if path.is_dir() else "not found"
        raise AgentError(f"agent {agent!r}: model file {text!r} {what}")
    return path


def cached(kind: str, path: Path, load: Callable[[Path], Any]) -> Any:
    """``load(path)``, once per process for each ``kind`` while the file is unchanged."""
    resolved = path.resolve()
    info = resolved.stat()
    key = (kind, str(resolved), info.st_mtime_ns, info.st_size)
    if key not in _LOADED:
        _LOADED[key] = load(path)
    return _LOADED[key]


def _layout_of(width: int, actions: int) -> str:
    """`` (the classic layout)`` where the widths are a layout's, else ``''``."""
    for layout in (CLASSIC, EXTENDED):
        if (width, actions) == (layout.obs_size, layout.num_actions):
            return f" (the {layout.name} layout)"
    return ""


def layout_mismatch(what: str, width: int, actions: int, rules: Rules) -> str:
    """``''`` where a model reading ``width`` observation values and scoring ``actions``
    actions plays ``rules``; else the one line that names both widths."""
    layout = rules.layout
    if (width, actions) == (layout.obs_size, layout.num_actions):
        return ""
    return (
        f"{what} was trained on observations of {width} values and {actions} actions"
        f"{_layout_of(width, actions)}; the rules' deck {rules.deck!r} has "
        f"{layout.obs_size} observation values and {layout.num_actions} actions (the "
        f"{layout.name} layout)"
    )


def masked_choice(
    scores: np.ndarray, masks: np.ndarray, rng: np.random.Generator, greedy: bool
) -> np.ndarray:
    """(k,) int64: per row of ``scores`` (k, A) float, the legal action (``masks`` (k, A)
    bool) of the highest score, or (``greedy`` False) one drawn from the softmax of the legal
    scores with one ``rng.random`` number a row."""
    scores = np.where(masks, np.asarray(scores, dtype=np.float64), -np.inf)
    best = scores.argmax(axis=1)
    if greedy:
        return best.astype(np.int64)
    k = scores.shape[0]
    top = scores[np.arange(k), best][:, None]
    weights = np.where(masks, np.exp(scores - np.where(np.isfinite(top), top, 0.0)), 0.0)
    cumulative = weights.cumsum(axis=1)
    u = rng.random(k)[:, None] * cumulative[:, -1:]
    actions = np.minimum((cumulative <= u).sum(axis=1), masks.shape[1] - 1)
    edge = ~masks[np.arange(k), actions]  # a draw on a rounding edge: the best action
    actions[edge] = best[edge]
    return actions.astype(np.int64)


class ModelAgent(Agent):
    """An agent that scores actions with a model file: subclasses load it and set
    :meth:`scores`; :attr:`GREEDY` names the parameter that picks the best action."""

    PARAMS: ClassVar[dict[str, Param]] = {"file": Param("", "the model file")}
    #: The boolean parameter that says: play the best legal action rather than sample.
    GREEDY: ClassVar[str] = "greedy"

    def __init__(self, rules: Rules, **params: Any):
        super().__init__(rules, **params)
        #: The model file.
        self.path = model_file(self.name, self.params["file"])

    @property
    def greedy(self) -> bool:
        """Whether the agent plays the best legal action (else it samples)."""
        return bool(self.params[self.GREEDY])

    def scores(self, observations: np.ndarray) -> np.ndarray:
        """(k, A) float scores (logits or values) of every action for observations (k, O)
        float32."""
        raise NotImplementedError

    def act(self, observations, masks, rng, memory=None, rows=None):
        """(k,) int64 legal actions: :func:`masked_choice` of the model's scores."""
        k = check_batch(observations, masks, True, self.rules)
        masks = np.asarray(masks)
        if k == 0:
            return np.zeros(0, np.int64)
        scores = self.scores(np.ascontiguousarray(observations, dtype=np.float32))
        actions = masked_choice(scores, masks, rng, self.greedy)
        return checked_actions(self.label, actions, masks)
