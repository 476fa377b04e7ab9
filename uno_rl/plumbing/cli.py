"""What every command-line program shares: one-line errors, exit status 2, checked numbers.

Bad input gets one line, ``error: <what is wrong>``, on stderr and exit status 2, never a
traceback and never argparse's usage block. Programs build their parser with
:class:`CliParser` and give numeric options a checking ``type=`` from here (a count with an
upper bound, a finite float in a range, a seed), so that ``nan``, ``-5`` or a 30-digit count is
refused before any work starts.

Every error line goes out through :func:`print_error` (``fail`` and ``CliParser`` included),
which escapes control and format characters (:func:`uno_rl.plumbing.safe_text.printable`): a name
read from a user's file or typed on the command line (``ESC]0;...BEL``, ``ESC[2J``, U+202E)
reaches the terminal as visible text, never as a command to it.
"""

from __future__ import annotations

import argparse
import difflib
import math
import sys
import tomllib
from collections.abc import Iterable, Sequence
from typing import Any, NoReturn

from uno_rl.plumbing.safe_text import printable

__all__ = [
    "MAX_COUNT",
    "MAX_SEED",
    "CliParser",
    "check_int",
    "check_float",
    "check_seed",
    "count_type",
    "did_you_mean",
    "fail",
    "failure_reason",
    "float_type",
    "parse_switch",
    "parse_switches",
    "parse_toml_value",
    "print_error",
    "seed_type",
    "short_repr",
]

# Counts of rounds, matches, decisions or games above this are refused: 10^12 rounds would take
# days on any machine, and every larger number is a typo.
MAX_COUNT = 10**12
# Seeds feed numpy's SeedSequence and are stored as int64 in tables and checkpoints.
MAX_SEED = 2**63 - 1


class CliParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are one line: ``error: ...`` and exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"error: {printable(message)} (see {printable(self.prog)} --help)\n")


def print_error(message: object) -> None:
    """Print ``error: message`` on stderr, one line, its control and format characters
    escaped (:func:`~uno_rl.plumbing.safe_text.printable`; escaping twice changes nothing)."""
    print(f"error: {printable(message)}", file=sys.stderr)


def fail(message: str) -> NoReturn:
    """Print ``error: message`` on stderr (escaped: :func:`print_error`) and exit with
    status 2."""
    print_error(message)
    raise SystemExit(2)


def did_you_mean(name: str, names: Iterable[str]) -> str:
    """`` (did you mean 'NEAR'?)`` for the one of ``names`` nearest a misspelt ``name``, or
    ``''`` when none is near: the hint every "unknown ..." message shares."""
    close = difflib.get_close_matches(str(name), list(names), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def check_int(value: object, name: str, minimum: int = 1, maximum: int = MAX_COUNT) -> int:
    """``value`` as an int in [minimum, maximum], else ``ValueError`` naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name} must be a whole number, got {value!r}")
    if not minimum <= value <= maximum:
        raise ValueError(f"{name} must be between {minimum:,} and {maximum:,}, got {value:,}")
    return value


def check_float(
    value: object,
    name: str,
    low: float = -math.inf,
    high: float = math.inf,
    low_open: bool = False,
    high_open: bool = False,
) -> float:
    """``value`` as a finite float in the given range, else ``ValueError`` naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{name} must be a number, got {value!r}")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value}")
    too_low = value <= low if low_open else value < low
    too_high = value >= high if high_open else value > high
    if too_low or too_high:
        left = "(" if low_open else "["
        right = ")" if high_open else "]"
        raise ValueError(f"{name} must be in {left}{low:g}, {high:g}{right}, got {value:g}")
    return value


def check_seed(value: object, name: str = "seed") -> int:
    """A seed: a whole number in [0, 2^63 - 1]."""
    return check_int(value, name, 0, MAX_SEED)


def _parse_int(text: str) -> int:
    text = text.strip().replace("_", "")
    # int() of a 5,000-digit string is slow and then raises; anything past 30 digits is a typo.
    if len(text) > 30:
        raise argparse.ArgumentTypeError(f"{text[:20]}... is not a usable number")
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None


def count_type(minimum: int = 1, maximum: int = MAX_COUNT):
    """An argparse ``type=``: a whole number in [minimum, maximum]."""

    def parse(text: str) -> int:
        value = _parse_int(text)
        if not minimum <= value <= maximum:
            raise argparse.ArgumentTypeError(
                f"must be between {minimum:,} and {maximum:,}, got {value:,}"
            )
        return value

    parse.__name__ = "count"
    return parse


def seed_type(text: str) -> int:
    """An argparse ``type=``: a seed in [0, 2^63 - 1]."""
    value = _parse_int(text)
    if not 0 <= value <= MAX_SEED:
        raise argparse.ArgumentTypeError(f"a seed must be between 0 and 2^63 - 1, got {value:,}")
    return value


seed_type.__name__ = "seed"


def float_type(
    low: float = -math.inf,
    high: float = math.inf,
    low_open: bool = False,
    high_open: bool = False,
):
    """An argparse ``type=``: a finite float in the given range (``nan`` and ``inf`` refused)."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        try:
            return check_float(value, "it", low, high, low_open, high_open)
        except ValueError as error:
            raise argparse.ArgumentTypeError(str(error).removeprefix("it ")) from None

    parse.__name__ = "number"
    return parse


# A command-line value longer than this is a mistake (a pasted file, a runaway script).
MAX_VALUE_CHARS = 1000


def parse_toml_value(text: str) -> Any:
    """A command-line value read as TOML (``true``, ``3``, ``0.5``, ``[1, 2]``), or the bare
    string where it is not TOML (``any``). ``ValueError`` for a value too long or too deeply
    nested to be anything but a mistake."""
    text = text.strip()
    if len(text) > MAX_VALUE_CHARS:
        raise ValueError(
            f"value {text[:20]}... is too long ({len(text):,} characters; at most "
            f"{MAX_VALUE_CHARS:,})"
        )
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text
    except (RecursionError, ValueError):
        raise ValueError(f"value {text[:20]}... cannot be read (nested too deeply)") from None


def parse_switch(text: str) -> tuple[str, Any]:
    """A rule switch as every program's ``--set`` reads it: ``KEY=VALUE``, the value TOML
    (``true``, ``3``, ``0.5``) or a bare string (``any``). ``ValueError`` (one line, the text
    shown short and escaped) for a text without ``=`` or a key, or a value
    :func:`parse_toml_value` refuses."""
    key, eq, value = text.partition("=")
    if not eq or not key.strip():
        shown = text if len(text) <= 40 else text[:37] + "..."
        raise ValueError(f"a rule switch must be KEY=VALUE, got {shown!r}")
    try:
        return key.strip(), parse_toml_value(value)
    except ValueError as error:
        raise ValueError(f"{key.strip()[:40]}: {error}") from None


def parse_switches(texts: Sequence[str]) -> dict[str, Any]:
    """Every program's ``--set KEY=VALUE`` options as rule switches by key (a later one of a
    key wins); ``ValueError`` starting ``--set`` for one :func:`parse_switch` refuses."""
    switches: dict[str, Any] = {}
    for text in texts:
        try:
            key, value = parse_switch(text)
        except ValueError as error:
            raise ValueError(f"--set {error}") from None
        switches[key] = value
    return switches


def short_repr(text: str, limit: int = 100) -> str:
    """``repr(text)``, its middle cut out past ``limit`` characters (the end of a path names
    the file)."""
    shown = repr(text)
    return shown if len(shown) <= limit else f"{shown[: limit // 2]}...{shown[-limit // 3 :]}"


def failure_reason(error: BaseException) -> str:
    """A short reason for an error met while reading a file or a value (a binary file, a
    number of 4,300 digits or more, nesting too deep, the system's word for an OS error)."""
    if isinstance(error, RecursionError):
        return "nested too deep"
    if isinstance(error, UnicodeDecodeError):
        return "not UTF-8 text (a binary file?)"
    if isinstance(error, ValueError) and "integer string conversion" in str(error):
        return "a number with 4,300 or more digits"
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return str(error)
