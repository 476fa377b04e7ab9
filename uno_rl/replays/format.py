"""The JSON replay format: what a replay file holds, writing it atomically, reading it back.

A replay is everything needed to play a game again exactly: the engine is a pure function of
the rules, the deal seed and the actions (every random event inside a round, reshuffles and
a match's next deals included, derives from the deal seed: :mod:`uno_rl.core.rng`). One file
is one game: a single round, or a whole match when ``rules.match`` is on.

File layout (version 1, a JSON object; every key is required, no other key is allowed)::

    {
      "format": "uno_rl.programs.replay",
      "version": 1,
      "source": {"program": "uno_rl.programs.play", ...},   # free-form: who saved it and why
      "preset": "official",                         # the preset the rules came from, or null
      "rules": {"players": 2, "hand_size": 7, ...}, # every Rules field (uno_rl.core.Rules)*
      "deck": {"red 0": 1, "red 1": 2, ...},        # the deck's cards (copies of each kind)**
      "seats": ["human", "random-playable"],        # who sat in each seat (agent spec / human)
      "seed": 1234567890,                           # the deal seed given to engine.reset
      "actions": [[1, 60], [0, 12], ...],           # every decision in order: [seat, action]
      "outcome": {...} or null,                     # see Outcome; null: not recorded
      "violation": {...} or null                    # see Violation
    }

(*) Saving writes every rule switch. A switch missing from a file (one saved before the switch
existed) takes its default (a new switch defaults to the behaviour before it, and the replay
check below confirms the game still plays out the same); an unknown switch is an error.

(**) The deck (``rules.deck``, rules specification §11) is loaded by its name when the file is
read, and its cards must be those recorded: a deck this reader does not know, or one whose
cards changed since, raises :class:`ReplayError` in one line. A file without the key (saved
before decks existed) is played on its ``rules.deck``.

:func:`load` checks all of it and, by default, plays the actions again
(:func:`uno_rl.replays.rerun.verify`): an action that is not legal, a seat that is not the
one to act, or an outcome the actions do not reproduce raises :class:`ReplayError` naming the
step (``actions[k]``).
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from uno_rl.core.decks import DeckError
from uno_rl.core.rules import Rules, RulesError
from uno_rl.plumbing.durable import write_text_durably
from uno_rl.plumbing.tomlfile import FileReadError, read_small_file

from .model import Outcome, Replay, ReplayError, Violation
from .rerun import verify as verify_replay

__all__ = [
    "FORMAT",
    "VERSION",
    "Outcome",
    "Replay",
    "ReplayError",
    "Violation",
    "from_dict",
    "load",
    "save",
    "to_dict",
    "to_json",
]

FORMAT = "uno_rl.programs.replay"
VERSION = 1
_KEYS = ("format", "version", "source", "preset", "rules", "deck", "seats", "seed", "actions",
         "outcome", "violation")  # fmt: skip
#: Keys a file may lack (older files).
_OPTIONAL = ("deck",)
_MAX_SEED = 2**64 - 1


# ------------------------------------------------------------------ to JSON
def to_dict(replay: Replay) -> dict[str, Any]:
    """The replay as plain JSON values, keys in file order."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "source": dict(replay.source),
        "preset": replay.preset,
        "rules": replay.rules.to_dict(),
        "deck": deck_cards(replay.rules),
        "seats": list(replay.seats),
        "seed": int(replay.seed),
        "actions": [[int(s), int(a)] for s, a in replay.actions],
        "outcome": None if replay.outcome is None else _outcome_dict(replay.outcome),
        "violation": None if replay.violation is None else dataclasses.asdict(replay.violation),
    }


def deck_cards(rules: Rules) -> dict[str, int]:
    """The deck's cards: ``{card name: copies}`` of every kind it holds, in kind order."""
    layout, copies = rules.layout, rules.deck_cards.copies
    return {layout.card_name(k): int(copies[k]) for k in np.flatnonzero(copies)}


def _check_deck(value: Any, rules: Rules) -> None:
    """The recorded deck cards are those of ``rules.deck`` here, or a :class:`ReplayError`."""
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and _is_int(n) for k, n in value.items()
    ):
        raise ReplayError("'deck' must be an object of card name -> copies")
    here = deck_cards(rules)
    if value != here:
        names = sorted(set(value) | set(here), key=lambda n: (n not in here, n))
        name = next(n for n in names if value.get(n, 0) != here.get(n, 0))
        raise ReplayError(
            f"the deck {rules.deck!r} here is not the one the replay was recorded with "
            f"({_short(name)}: {here.get(name, 0)} here, {_short(value.get(name, 0))} in the file)"
        )


def _outcome_dict(outcome: Outcome) -> dict[str, Any]:
    values = dataclasses.asdict(outcome)
    values["points"] = list(outcome.points)
    values["scores"] = list(outcome.scores)
    return values


def to_json(replay: Replay) -> str:
    """The file text: indented JSON, lists of numbers on one line, ten actions (eight deck
    cards) to a line."""
    data = to_dict(replay)
    lines = []
    for key, value in data.items():
        if key == "actions":
            rows = [
                ", ".join(json.dumps(pair) for pair in value[i : i + 10])
                for i in range(0, len(value), 10)
            ]
            text = "[\n    " + ",\n    ".join(rows) + "\n  ]" if rows else "[]"
        elif key == "deck":  # eight cards to a line
            items = [f"{json.dumps(k)}: {n}" for k, n in value.items()]
            rows = [", ".join(items[i : i + 8]) for i in range(0, len(items), 8)]
            text = "{\n    " + ",\n    ".join(rows) + "\n  }" if rows else "{}"
        else:
            text = _dump(value, "  ")
        lines.append(f"  {json.dumps(key)}: {text}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def _dump(value: Any, indent: str) -> str:
    """JSON of ``value``: objects one key to a line, anything else (lists) on one line."""
    if isinstance(value, dict) and value:
        inner = indent + "  "
        items = [f"{inner}{json.dumps(str(k))}: {_dump(v, inner)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + f"\n{indent}}}"
    return json.dumps(value)


def save(replay: Replay, path: str | os.PathLike[str]) -> Path:
    """Write ``replay`` to ``path`` atomically and durably (a temporary file in the same
    folder, ``fsync``, ``os.replace``: :func:`uno_rl.plumbing.durable.write_text_durably`): a reader
    never sees half a file. Creates missing parent folders."""
    path = Path(path)
    write_text_durably(path, to_json(replay))
    return path


# ---------------------------------------------------------------- from JSON
#: Largest replay file read (bytes). A match to 500 of 1,000-decision rounds is a few MB.
MAX_FILE_BYTES = 256 * 2**20
#: Deepest nesting of JSON arrays and objects accepted (a replay needs 3).
MAX_DEPTH = 64
#: A JSON string (escapes included), to skip brackets inside strings.
_JSON_STRING = re.compile(r'"(?:[^"\\]++|\\.)*+"?', re.DOTALL)


def load(path: str | os.PathLike[str], verify: bool = True) -> Replay:
    """Read a replay file; with ``verify`` (default) also play it again to check it.

    Raises:
        ReplayError: unreadable (missing, a folder, not UTF-8, over :data:`MAX_FILE_BYTES`),
            not JSON (truncated, nested deeper than :data:`MAX_DEPTH`, a number of 4,300+
            digits, ``NaN``), not a replay, another version, unknown or missing keys, bad
            values, or (``verify``) an action that does not replay; the message names the
            file and the problem.
    """
    path = Path(path)
    text = _read_text(path)
    try:
        data = parse_json(text)
    except ReplayError as error:
        raise ReplayError(f"{path} is not JSON: {error}") from None
    try:
        replay = from_dict(data)
        if verify:
            verify_replay(replay)
    except ReplayError as error:
        raise ReplayError(f"{path}: {error}") from None
    return replay


def _read_text(path: Path) -> str:
    """The file's text, or a :class:`ReplayError` saying why it cannot be read."""
    try:
        raw = read_small_file(path, limit=MAX_FILE_BYTES)
    except FileReadError as error:
        if error.kind is not None:  # a folder, a FIFO, a device, a symlink loop: never read
            raise ReplayError(f"cannot read replay {path}: it {error}") from None
        if str(error).startswith("is too large"):
            raise ReplayError(
                f"cannot read replay {path}: larger than {MAX_FILE_BYTES:,} bytes, not a replay"
            ) from None
        words = str(error).removeprefix("cannot be read: ")
        raise ReplayError(f"cannot read replay {path}: {words}") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ReplayError(
            f"cannot read replay {path}: not UTF-8 text (byte {error.start} is "
            f"{raw[error.start : error.start + 1]!r}); is it a binary file?"
        ) from None


def parse_json(text: str) -> Any:
    """Parsed JSON, or a :class:`ReplayError`: bad syntax (e.g. a truncated file), nesting
    deeper than :data:`MAX_DEPTH`, an integer of 4,300+ digits, ``NaN`` or ``Infinity``."""
    if not text.strip():
        raise ReplayError("the file is empty")
    depth = _nesting_depth(text)
    if depth > MAX_DEPTH:
        raise ReplayError(
            f"arrays and objects nested {depth:,} deep (a replay allows at most {MAX_DEPTH})"
        )
    try:
        return json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as error:
        end = " (the file ends too early: truncated?)" if error.pos >= len(text.rstrip()) else ""
        raise ReplayError(f"{error}{end}") from None
    except ValueError as error:  # int(): 4,300+ digits; or _refuse_constant
        raise ReplayError(_number_message(error)) from None
    except RecursionError:  # not reached after the depth check; kept as a guard
        raise ReplayError(f"arrays and objects nested too deep (at most {MAX_DEPTH})") from None


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number a replay can hold")


def _number_message(error: ValueError) -> str:
    message = str(error)
    if "digits" in message:
        return "a number with 4,300 or more digits (no replay value is that large)"
    return message


def _nesting_depth(text: str) -> int:
    """Deepest nesting of ``[`` and ``{`` outside JSON strings (vectorized; no recursion)."""
    bare = _JSON_STRING.sub('""', text).encode("utf-8")
    codes = np.frombuffer(bare, np.uint8)
    steps = (codes == ord("[")).astype(np.int64) + (codes == ord("{"))
    steps -= (codes == ord("]")).astype(np.int64) + (codes == ord("}"))
    return int(np.cumsum(steps).max(initial=0))


def _short(value: Any, limit: int = 60) -> str:
    """``repr(value)``, cut to about ``limit`` characters (values from a file may be huge)."""
    try:
        text = repr(value)
    except (RecursionError, ValueError):
        return f"a {type(value).__name__}"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def from_dict(data: Any) -> Replay:
    """Build a :class:`Replay` from parsed JSON, checking every key and value."""
    if not isinstance(data, dict):
        raise ReplayError(f"a replay is a JSON object, got {type(data).__name__}")
    if data.get("format") != FORMAT:
        raise ReplayError(
            f"not a uno_rl replay: 'format' is {_short(data.get('format'))}, not {FORMAT!r}"
        )
    version = data.get("version")
    if version != VERSION:
        raise ReplayError(
            f"replay version {_short(version)} is not supported (this uno_rl reads version "
            f"{VERSION})"
        )
    _check_keys(data, _KEYS, "a replay")
    if not isinstance(data["rules"], dict):
        raise ReplayError("'rules' must be an object of rule switches")
    try:
        rules = Rules.from_dict(data["rules"])
    except DeckError as error:
        raise ReplayError(f"the replay's deck is unknown here: {error}") from None
    except (RulesError, TypeError, ValueError) as error:
        if "rules key 'deck'" in str(error):
            raise ReplayError(f"the replay's deck is unknown here: {error}") from None
        raise ReplayError(f"bad 'rules': {error}") from None
    if "deck" in data:
        _check_deck(data["deck"], rules)
    seats = data["seats"]
    if not isinstance(seats, list) or not all(isinstance(s, str) for s in seats):
        raise ReplayError("'seats' must be a list of names (strings)")
    seed = data["seed"]
    if not _is_int(seed) or not 0 <= seed <= _MAX_SEED:
        raise ReplayError(f"'seed' must be an integer in [0, 2**64), got {_short(seed)}")
    preset = data["preset"]
    if preset is not None and not isinstance(preset, str):
        raise ReplayError(f"'preset' must be a string or null, got {_short(preset)}")
    if not isinstance(data["source"], dict):
        raise ReplayError("'source' must be an object")
    replay = Replay(
        rules=rules,
        seed=int(seed),
        seats=tuple(seats),
        actions=_actions(data["actions"], rules.players, rules.layout.num_actions),
        preset=preset,
        outcome=_outcome(data["outcome"], rules.players),
        violation=_violation(data["violation"], rules.players),
        source=data["source"],
    )
    return replay


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _actions(value: Any, players: int, num_actions: int) -> tuple[tuple[int, int], ...]:
    if not isinstance(value, list):
        raise ReplayError("'actions' must be a list of [seat, action] pairs")
    out = []
    for k, pair in enumerate(value):
        ok = isinstance(pair, list) and len(pair) == 2 and all(_is_int(x) for x in pair)
        if not ok:
            raise ReplayError(
                f"actions[{k}] must be a [seat, action] pair of integers, got {_short(pair)}"
            )
        seat, action = pair
        if not 0 <= seat < players:
            raise ReplayError(f"actions[{k}]: seat {seat} is not in [0, {players})")
        if not 0 <= action < num_actions:
            raise ReplayError(
                f"actions[{k}]: action {action} is not in [0, {num_actions}) (the deck's actions)"
            )
        out.append((seat, action))
    return tuple(out)


def _check_keys(value: dict, names: Sequence[str], what: str) -> None:
    """``value`` has exactly the keys ``names``, or a :class:`ReplayError` naming the first
    unknown or missing one."""
    unknown = sorted(set(value) - set(names))
    if unknown:
        raise ReplayError(
            f"{what} has an unknown key {_short(unknown[0])} (keys: {', '.join(names)})"
        )
    missing = [n for n in names if n not in value and n not in _OPTIONAL]
    if missing:
        raise ReplayError(f"{what} lacks the key {missing[0]!r}")


def _fields_of(cls, value: Any, what: str) -> dict[str, Any]:
    names = [f.name for f in dataclasses.fields(cls)]
    if not isinstance(value, dict):
        raise ReplayError(f"'{what}' must be an object or null")
    _check_keys(value, names, f"'{what}'")
    return value


def _outcome(value: Any, players: int) -> Outcome | None:
    if value is None:
        return None
    v = _fields_of(Outcome, value, "outcome")
    for name in ("finished", "truncated"):
        if not isinstance(v[name], bool):
            raise ReplayError(f"outcome.{name} must be true or false")
    for name in ("winner", "rounds", "decisions"):
        if not _is_int(v[name]):
            raise ReplayError(f"outcome.{name} must be an integer")
    for name in ("points", "scores"):
        ok = isinstance(v[name], list) and len(v[name]) == players
        if not ok or not all(_is_int(x) for x in v[name]):
            raise ReplayError(f"outcome.{name} must be a list of {players} integers")
    return Outcome(**{**v, "points": tuple(v["points"]), "scores": tuple(v["scores"])})


def _violation(value: Any, players: int) -> Violation | None:
    if value is None:
        return None
    v = _fields_of(Violation, value, "violation")
    if not _is_int(v["seat"]) or not 0 <= v["seat"] < players:
        raise ReplayError(f"violation.seat must be a seat in [0, {players})")
    if not _is_int(v["action"]) or not isinstance(v["message"], str):
        raise ReplayError("violation.action must be an integer and violation.message a string")
    return Violation(**v)
