"""Reading a TOML file that a user named: one clear error for every way it can be unusable."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any

__all__ = ["read_toml"]


def read_toml(
    path: str | os.PathLike[str], kind: str, error: type[Exception], label: str = ""
) -> dict[str, Any]:
    """The table of the TOML file ``path``.

    Args:
        kind: what the file should be, for messages ("a TOML config file", "an agent spec").
        error: the exception class raised, with one line naming the file and the problem
            (missing, a folder, unreadable, not UTF-8 text, not TOML).
        label: put before the path in messages ("agent spec file ").
    """
    where = f"{label}{path}"
    file = Path(path)
    if file.is_dir():
        raise error(f"{where}: is a folder, not {kind}")
    try:
        return tomllib.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise error(f"{where}: no such file ({kind})") from None
    except UnicodeDecodeError:
        raise error(f"{where}: not a text file ({kind} is UTF-8 TOML)") from None
    except OSError as failure:
        raise error(f"{where}: cannot read it ({failure.strerror or failure})") from None
    except tomllib.TOMLDecodeError as failure:
        raise error(f"{where}: not valid TOML: {failure}") from None
