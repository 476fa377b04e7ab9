"""Short display labels of agent specs: what tables, narration and viewers print.

A spec string (:func:`~uno_rl.agents.registry.parse_spec`) can be long
(``ppo:checkpoint=runs/official-2p/<timestamp>/policy.pt``); wherever an agent is shown,
it is shown by a label made by :func:`agent_labels` from all the specs shown together:

* the agent's name: a built-in strategy or shipped agent by its name (``color-first``,
  ``ppo-official-2p``), a spec file by its file stem (``bots/cautious.toml`` -> ``cautious``);
* a class of a Python file by the file's name and the class (``bots/mine.py:Bot`` ->
  ``mine.py:Bot``);
* a checkpoint (``checkpoint=PATH``, or the ``file`` of ``sb3`` and ``torch``) by the strategy
  and the checkpoint's name
  (:func:`checkpoint_name`): ``ppo:best`` for ``runs/a/best.pt``, and the run's name for a
  file that training writes into every run (``policy.pt``, ``checkpoint.pt`` in
  ``runs/NAME/<timestamp>/``): ``ppo:official-2p``;
* only where several specs would get the same label, what tells them apart is added, one
  thing at a time (the one that splits them into the most groups, then again inside each
  group that still shares a label): a folder their checkpoints' paths differ in
  (``ppo:official-2p/<timestamp>``), the file name, or a parameter whose values differ
  (``color-first:bluff=1`` beside ``color-first``); parameters that do not tell agents
  apart are left out (``color-first:bluff=0.3`` shown alone is ``color-first``);
* a label longer than :data:`MAX_LABEL` characters keeps its start and its end
  (``color-first:b..allenge=bayes``), and labels that still coincide get a suffix from their
  full spec (``rule~accc``), so the labels of one call are always distinct.

The full specs stay in the data (the evaluator's tables keep both: ``agent`` and ``label``).
:func:`bare_name` is the name alone, the first step of the rule.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Iterable
from pathlib import PurePath

from .base import AgentError
from .registry import parse_spec

__all__ = ["MAX_LABEL", "agent_label", "agent_labels", "bare_name", "checkpoint_name"]

#: The longest label (characters): longer ones are cut in the middle.
MAX_LABEL = 28
#: Checkpoint file stems that every training run writes: the run folder names those.
RUN_FILES = frozenset({"policy", "checkpoint"})
#: A run folder's timestamp (``runs/NAME/<timestamp>``: 8 digits, ``-``, 6 digits, then
#: ``-1``, ``-2`` when taken twice).
_STAMP = re.compile(r"\d{8}-\d{6}(-\d+)?")


def _names(path: str) -> list[str]:
    """The folder and file names of ``path``, the file without its suffix."""
    pure = PurePath(path)
    parts = [p for p in pure.parts if p not in (pure.anchor, ".", "..", "")]
    if parts:
        parts[-1] = PurePath(parts[-1]).stem
    return parts


def _name_index(names: list[str]) -> int:
    """Which of a checkpoint's ``names`` names it (:func:`checkpoint_name`)."""
    last = len(names) - 1
    if names[last] not in RUN_FILES or last == 0:
        return last
    if _STAMP.fullmatch(names[last - 1]) and last >= 2:
        return last - 2  # runs/NAME/<timestamp>/policy.pt: NAME
    return last - 1


def checkpoint_name(path: str) -> str:
    """A checkpoint's short name: its file stem (``runs/a/best.pt`` -> ``best``), or for a
    file every run writes (:data:`RUN_FILES`) its run's name
    (``runs/official-2p/<timestamp>/policy.pt`` -> ``official-2p``, ``runs/x/policy.pt``
    -> ``x``)."""
    names = _names(path)
    return names[_name_index(names)] if names else str(path)


def bare_name(spec: str) -> str:
    """The name alone of an agent spec: a checkpoint's :func:`checkpoint_name`
    (``ppo:checkpoint=runs/a/best.pt`` -> ``best``), a spec file's stem, else the agent's
    name without its parameters (``color-first:bluff=0.3`` -> ``color-first``); a text that
    is no spec, up to its first ``:``."""
    try:
        name, params = parse_spec(spec)
    except AgentError:
        return str(spec).strip().partition(":")[0]
    if params.get("checkpoint"):
        return checkpoint_name(params["checkpoint"])
    return _short_name(name)


def _short_name(name: str) -> str:
    """A spec file by its stem, a class of a Python file by the file's name and the class
    (``bots/mine.py:Bot`` -> ``mine.py:Bot``), any other name as it is."""
    if name.endswith(".toml"):
        return PurePath(name).stem
    where, colon, cls = name.rpartition(":")
    if colon and where.endswith(".py"):
        return f"{PurePath(where).name}:{cls}"
    return name


class _Spec:
    """A spec read for its label: its name, its checkpoint's path names (none without a
    checkpoint) and its other parameters."""

    def __init__(self, spec: str):
        self.spec = spec
        try:
            name, params = parse_spec(spec)
        except AgentError:
            name, params = str(spec).strip(), {}
        path = params.pop("checkpoint", "") or params.pop("file", "")  # a model file too
        self.names = _names(path) if path else []
        self.params = params
        self.name = _short_name(name)

    def feature(self, key: tuple[int, int | str]) -> str | None:
        """A checkpoint's name ``(0, k)``, ``k`` from the end, or a parameter ``(1, name)``;
        None where it has none."""
        kind, at = key
        if kind == 0:
            return self.names[-1 - int(at)] if int(at) < len(self.names) else None
        return self.params.get(str(at))

    def label(self, shown: list[tuple[int, int | str]]) -> str:
        """The name, the checkpoint's name with the path names ``shown``, in path order, and
        the parameters ``shown`` it has: ``ppo:official-2p/<timestamp>``,
        ``color-first:bluff=1``."""
        text = self.name
        if self.names:
            last = len(self.names) - 1
            keep = {_name_index(self.names)}
            keep |= {last - at for kind, at in shown if kind == 0 and int(at) <= last}
            text += ":" + "/".join(self.names[i] for i in sorted(keep))
        params = [str(at) for kind, at in shown if kind == 1 and str(at) in self.params]
        if params:
            text += ":" + ",".join(f"{k}={self.params[k]}" for k in params)
        return text


def _tell_apart(group: list[_Spec], shown: list, out: dict[str, str]) -> None:
    """Labels of specs whose labels with ``shown`` coincide, into ``out``: the path name or
    parameter that splits them into the most parts is added, and so on in each part that
    still shares a label (ties: folders before the file name, nearer the file first, then
    parameters in the order given)."""
    if len(group) == 1:
        out[group[0].spec] = group[0].label(shown)
        return
    longest = max(len(s.names) for s in group)
    params = list(dict.fromkeys(k for s in group for k in s.params))
    keys = [(0, k) for k in sorted(range(longest), key=lambda k: (k == 0, k))]
    keys += [(1, k) for k in params]
    keys = [k for k in keys if k not in shown]
    split = {k: len({s.feature(k) for s in group}) for k in keys}
    if not split or max(split.values()) == 1:  # nothing tells them apart: _distinct will
        for s in group:
            out[s.spec] = s.label(shown)
        return
    best = max(keys, key=lambda k: split[k])  # the first of the largest
    parts: dict[str | None, list[_Spec]] = {}
    for s in group:
        parts.setdefault(s.feature(best), []).append(s)
    for part in parts.values():
        _tell_apart(part, [*shown, best], out)


def _cut(text: str, limit: int) -> str:
    """``text`` at most ``limit`` characters: its middle replaced by ``..`` when longer."""
    if len(text) <= limit:
        return text
    tail = (limit - 2) // 2  # the end: what was added to tell specs apart
    return f"{text[: limit - 2 - tail]}..{text[len(text) - tail :]}"


def _suffix(spec: str) -> str:
    """``~`` and 4 hex digits of a checksum of ``spec``."""
    return f"~{zlib.crc32(spec.encode('utf-8', 'surrogatepass')) & 0xFFFF:04x}"


def _distinct(labels: dict[str, str]) -> dict[str, str]:
    """``labels`` made distinct: each label shared by several specs gets a suffix of its
    spec (:func:`_suffix`), then a running number where two suffixes coincide."""
    out = dict(labels)
    seen: dict[str, list[str]] = {}
    for spec, label in out.items():
        seen.setdefault(label, []).append(spec)
    for specs in seen.values():
        if len(specs) > 1:
            for spec in specs:
                end = _suffix(spec)
                out[spec] = _cut(out[spec], MAX_LABEL - len(end)) + end
    used: set[str] = set()
    for n, spec in enumerate(sorted(out), 1):  # a suffix shared by chance: number them
        if out[spec] in used:
            out[spec] = f"{_cut(out[spec], MAX_LABEL - 6)}#{n}"
        used.add(out[spec])
    return out


def agent_labels(specs: Iterable[str]) -> dict[str, str]:
    """The label of each distinct spec of ``specs``, keyed by the spec as given (module
    docstring): distinct labels of at most :data:`MAX_LABEL` characters, which depend on
    the set of specs, not on their order."""
    parsed = [_Spec(s) for s in dict.fromkeys(specs)]
    clashing: dict[str, list[_Spec]] = {}
    for s in sorted(parsed, key=lambda s: s.spec):
        clashing.setdefault(s.label([]), []).append(s)
    labels: dict[str, str] = {}
    for group in clashing.values():
        _tell_apart(group, [], labels)
    return _distinct({s.spec: _cut(labels[s.spec], MAX_LABEL) for s in parsed})


def agent_label(spec: str) -> str:
    """The label of one spec shown alone (:func:`agent_labels`): ``color-first`` for
    ``color-first:bluff=0.3``, ``ppo:official-2p`` for a run's ``policy.pt``."""
    return agent_labels([spec])[spec]
