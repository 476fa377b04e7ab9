"""Decks as data: a deck is a TOML table of card kinds and counts (rules specification §11).

A deck file (``envs/decks/NAME.toml``, or any path; user folders in ``$UNO_RL_DECKS``)::

    description = "one line"
    dispenser = false          # optional: play it with the random card dispenser

    [cards]
    "0" = 1                    # a colored symbol: copies in each of the four colors
    "1-9" = 2                  # a range of numbers
    skip = 2
    reverse = 2
    "+2" = 2
    wild = 4                   # a colorless card: copies in all
    "+4" = 4
    "red 7" = 3                # one card of one color (overrides its symbol's count)

Symbols: the numbers ``0`` .. ``9``, ``skip``, ``reverse``, ``+2``, ``discard-all``,
``hit-2``, ``targeted+2`` (colored), and ``wild``, ``+4``, ``wild-hit-fire``,
``wild-all-hit``, ``wild-swap-hands``, ``wild-shuffle-hands``, ``wild-customizable``,
``targeted+4``, ``downpour+1``, ``downpour+2``, ``boomerang`` (colorless). A symbol not
listed has no copies. Every problem (an unknown symbol, a count that is not an integer in
0 .. 127, an entry listed twice, a deck too small to deal from) raises
:class:`DeckError` naming the file and the entry. So does a deck path that is not a file (a
folder, a FIFO, a device, a symlink loop: each named as what it is, and never opened) or a
file over :data:`~uno_rl.plumbing.tomlfile.MAX_TOML_BYTES` (1 MB: a deck file is a few hundred bytes).
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import os
import tomllib
from pathlib import Path

import numpy as np

from uno_rl.plumbing import resources
from uno_rl.plumbing.tomlfile import (
    FileReadError,
    not_a_file,
    parsed_value_problem,
    read_small_file,
)

from .cards import COLOR_NAMES
from .layout import EXTENDED, SYMBOLS, Layout, layout_of_kinds

__all__ = ["Deck", "DeckError", "available_decks", "load_deck", "parse_deck"]

#: Most copies of one kind (hands count kinds in int8) and most cards in a deck.
MAX_COPIES = 127
MAX_CARDS = 1000
#: Fewest cards a deck may have (a 2-player deal of 1 card each, a first card, a pile).
MIN_CARDS = 12


class DeckError(ValueError):
    """An unknown deck, or a deck file with a bad entry."""


_BY_NAME = {name: symbol for symbol, (name, _, _) in SYMBOLS.items()}


@dataclasses.dataclass(frozen=True, eq=False)
class Deck:
    """A deck: ``copies`` (K,) int8 of each kind of its ``layout`` (K kinds).

    ``cards`` (D,) int8 is the whole deck in canonical (kind) order, D = ``size``.
    """

    name: str
    description: str
    copies: np.ndarray
    layout: Layout
    dispenser: bool = False

    @property
    def size(self) -> int:
        return int(self.copies.sum())

    @functools.cached_property
    def cards(self) -> np.ndarray:
        return np.repeat(np.arange(self.copies.shape[0], dtype=np.int8), self.copies)

    @property
    def is_classic_layout(self) -> bool:
        return not self.layout.extended

    def table(self) -> dict[str, int]:
        """Card name -> copies, for every kind the deck holds."""
        return {self.layout.card_name(k): int(c) for k, c in enumerate(self.copies) if c > 0}


def _shown(value: object, limit: int = 40) -> str:
    """``repr(value)`` for a message, cut to about ``limit`` characters (a 5,000-character
    key is a mistake, and the message must stay one readable line)."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[: limit - 4]}...{text[-1]}"


def _symbol(key: str, where: str) -> int:
    if key in _BY_NAME:
        return _BY_NAME[key]
    close = difflib.get_close_matches(key, list(_BY_NAME), n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise DeckError(
        f"{where}: unknown card {_shown(key)}{hint}; cards: {', '.join(_BY_NAME)}, a range of "
        "numbers like '1-9', or one colored card like 'red 7'"
    )


def _entry_kinds(key: str, where: str) -> tuple[list[int], bool]:
    """The extended kinds an entry sets, and whether it names single cards (``red 7``)."""
    text = key.strip().lower()
    parts = text.split()
    if len(parts) == 2 and parts[0] in COLOR_NAMES:
        symbol = _symbol(parts[1], where)
        if not SYMBOLS[symbol][1]:
            name = _shown(parts[1])
            raise DeckError(f"{where}: {name} has no color; write {name} alone")
        return _kinds(symbol, COLOR_NAMES.index(parts[0])), True
    if "-" in text and all(p.isdigit() for p in text.split("-", 1)):
        low, high = (int(p) for p in text.split("-", 1))
        if not 0 <= low <= high <= 9:
            raise DeckError(f"{where}: a range of numbers must lie in 0-9, got {_shown(key)}")
        return [k for r in range(low, high + 1) for k in _kinds(r)], False
    return _kinds(_symbol(text, where)), False


def _kinds(symbol: int, color: int | None = None) -> list[int]:
    found = np.flatnonzero(EXTENDED.kind_rank == symbol)
    if color is None:
        return [int(k) for k in found]
    return [int(k) for k in found if EXTENDED.kind_color[k] == color]


def parse_deck(data: dict, name: str, where: str) -> Deck:
    """A :class:`Deck` from the parsed TOML ``data`` of a deck file (``where`` names it)."""
    extra = set(data) - {"description", "dispenser", "cards"}
    if extra:
        raise DeckError(f"{where}: unknown top-level keys {sorted(extra)}; use [cards]")
    description = data.get("description", "")
    if not isinstance(description, str):
        raise DeckError(f"{where}: description must be a string")
    dispenser = data.get("dispenser", False)
    if not isinstance(dispenser, bool):
        raise DeckError(f"{where}: dispenser must be true or false, got {dispenser!r}")
    table = data.get("cards")
    if not isinstance(table, dict) or not table:
        raise DeckError(f"{where}: needs a [cards] table of card = copies lines")
    copies = np.zeros(EXTENDED.num_kinds, np.int64)
    set_by: dict[int, str] = {}
    singles = []
    for key, value in table.items():
        shown = _shown(key)
        entry = f"{where}: cards.{shown if not key.isidentifier() else shown[1:-1]}"
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_COPIES:
            raise DeckError(f"{entry} must be an integer in 0..{MAX_COPIES}, got {_shown(value)}")
        kinds, single = _entry_kinds(str(key), entry)
        if single:
            singles.append((kinds, value, key))
            continue
        for k in kinds:
            if k in set_by:
                earlier = _shown(set_by[k])
                raise DeckError(f"{entry}: {EXTENDED.card_name(k)} is already set by {earlier}")
            set_by[k] = key
        copies[kinds] = value
    seen_single: dict[int, str] = {}
    for kinds, value, key in singles:  # one card of one color overrides its symbol's count
        if kinds[0] in seen_single:
            first = _shown(seen_single[kinds[0]])
            raise DeckError(f"{where}: cards.{_shown(key)} is listed twice ({first})")
        seen_single[kinds[0]] = key
        copies[kinds] = value
    total = int(copies.sum())
    if not MIN_CARDS <= total <= MAX_CARDS:
        raise DeckError(f"{where}: a deck needs {MIN_CARDS} to {MAX_CARDS} cards, got {total}")
    layout = layout_of_kinds(copies > 0)
    return Deck(
        name=name,
        description=description,
        copies=copies[: layout.num_kinds].astype(np.int8),
        layout=layout,
        dispenser=dispenser,
    )


def available_decks() -> list[str]:
    """Names of the decks: the user folders' (``$UNO_RL_DECKS``) and the shipped, sorted."""
    return [entry.name for entry in resources.entries("decks")]


def _deck_path(name_or_path: str) -> Path:
    """The file of a deck path or name; a path where something that is not a file stands (a
    folder, a FIFO, a device, a symlink loop) is returned too, for the reader to name it."""
    text = str(name_or_path)
    path = Path(text)
    if text.endswith(".toml") and (path.is_file() or not_a_file(path) is not None):
        return path
    try:
        named = resources.find("decks", f"{text}.toml")
    except ValueError as error:  # a user folder's entry that cannot be followed
        raise DeckError(str(error)) from None
    if named is not None:
        return named
    if text.endswith(".toml") or "/" in text:
        if not_a_file(path) is not None:
            return path
        raise DeckError(f"deck file {text} does not exist")
    raise DeckError(f"unknown deck {text!r}; available decks: {', '.join(available_decks())}")


@functools.lru_cache(maxsize=64)
def load_deck(name_or_path: str) -> Deck:
    """The deck of a shipped or user name (``NAME.toml`` in the decks folders) or a TOML path.

    Cached by its name: a deck file edited while a program runs is read once.
    """
    if not isinstance(name_or_path, str | os.PathLike):
        raise DeckError(f"deck must be a name or a path, got {name_or_path!r}")
    path = _deck_path(os.fspath(name_or_path))
    try:
        text = read_small_file(path).decode("utf-8-sig")
    except FileReadError as error:
        raise DeckError(f"deck file {path} {error}") from None
    except UnicodeDecodeError as error:
        raise DeckError(f"deck file {path} is not a text file (byte {error.start})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise DeckError(f"deck file {path} is not valid TOML: {error}") from None
    except RecursionError:
        raise DeckError(f"deck file {path} is not usable TOML: nested too deeply") from None
    except ValueError as error:  # int() refuses a number of 4,300 or more digits
        raise DeckError(
            f"deck file {path} is not usable TOML: {parsed_value_problem(error)}"
        ) from None
    return parse_deck(data, path.stem, f"deck file {path}")
