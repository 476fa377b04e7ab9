"""Checkpoints: written atomically, read with ``torch.load(weights_only=True)``.

A checkpoint is a dict of tensors and plain Python values only (NumPy arrays are stored as
tensors), so loading never runs pickled code. Writing is durable
(:func:`uno_rl.plumbing.durable.replace_durably`: a temporary file beside ``NAME``, flushed, ``fsync``-ed,
renamed over ``NAME``, the folder ``fsync``-ed): a run killed (or a machine losing power) while
writing leaves the previous checkpoint intact. A path that is not a file (a folder, a FIFO, a
device), a file that cannot be read (no permission), one that is truncated, corrupt, of another
format or missing keys, a ``network`` entry that is not a network description, or weights
that do not fit the network raise :class:`CheckpointError` naming the file.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import torch

from uno_rl.core.decks import MAX_CARDS as MAX_DECK_CARDS
from uno_rl.plumbing.durable import replace_durably
from uno_rl.plumbing.tomlfile import not_a_file

from .config import MAX_LAYERS, MAX_WIDTH
from .network import CLASSIC_DECK_SIZE, LAYOUTS

__all__ = [
    "FORMAT",
    "CheckpointError",
    "load_checkpoint",
    "load_weights",
    "network_spec",
    "save_checkpoint",
    "to_numpy",
    "to_tensor",
]

#: Format tag of uno_rl PPO checkpoints.
FORMAT = "uno_rl-ppo-1"


class CheckpointError(ValueError):
    """A checkpoint that cannot be used: the message names the file and the problem."""


def to_tensor(array: np.ndarray) -> torch.Tensor:
    """A NumPy array as a (copied) tensor; uint64 travels as int64 bits."""
    array = np.ascontiguousarray(array)
    if array.dtype == np.uint64:
        array = array.view(np.int64)
    return torch.from_numpy(array.copy())


def to_numpy(tensor: torch.Tensor, dtype=None) -> np.ndarray:
    """Inverse of :func:`to_tensor` (pass ``dtype=np.uint64`` for uint64 arrays)."""
    array = tensor.detach().cpu().numpy()
    if dtype == np.uint64:
        return array.view(np.uint64).copy()
    return array.astype(dtype, copy=True) if dtype is not None else array.copy()


def save_checkpoint(path: str | os.PathLike[str], payload: dict[str, Any]) -> None:
    """Write ``payload`` (tensors and plain values) to ``path``, atomically and durably."""
    with replace_durably(path) as tmp:
        torch.save({"format": FORMAT, **payload}, tmp)


def load_checkpoint(
    path: str | os.PathLike[str], required: tuple[str, ...] = ("model", "network")
) -> dict[str, Any]:
    """Read a checkpoint safely (``weights_only=True``); a clear error if it is unusable."""
    path = Path(path)
    kind = not_a_file(path)  # looked at, never opened: a FIFO would wait, /dev/zero never ends
    if kind is not None:
        raise CheckpointError(f"checkpoint {path}: is {kind}, not a checkpoint file")
    if not path.is_file():
        raise CheckpointError(f"checkpoint {path}: no such file")
    try:
        data = torch.load(path, map_location="cpu", weights_only=True)
    except OSError as error:
        if error.errno is None:  # raised by torch about the contents, not by the system
            raise _corrupt(path, error) from None
        raise CheckpointError(
            f"checkpoint {path} cannot be read: {error.strerror or error}"
        ) from None
    except Exception as error:  # noqa: BLE001 - torch raises many kinds on bad files
        raise _corrupt(path, error) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise CheckpointError(f"checkpoint {path}: not a {FORMAT} checkpoint")
    missing = [key for key in required if key not in data]
    if missing:
        raise CheckpointError(f"checkpoint {path}: missing {', '.join(missing)}")
    return data


def _corrupt(path: Path, error: Exception) -> CheckpointError:
    """The error for a checkpoint file that was read but is not a usable checkpoint."""
    detail = str(error).splitlines()[0] if str(error) else ""
    return CheckpointError(
        f"checkpoint {path} is truncated or corrupt (or not a uno_rl checkpoint): "
        f"{type(error).__name__}: {detail}"
    )


def network_spec(data: dict[str, Any], path: str | os.PathLike[str]) -> dict[str, Any]:
    """The checkpoint's ``network`` entry (``features``, ``hidden``, ``scaled``, ``layout``,
    ``deck``, ``deck_size``), checked; an entry without the last three (written before decks
    existed) is the classic layout of the 108-card ``classic`` deck."""
    spec = data.get("network")
    if not isinstance(spec, dict):
        raise CheckpointError(
            f"checkpoint {path}: its network entry must be a table of features and hidden "
            f"sizes, got {type(spec).__name__}"
        )
    features, hidden = spec.get("features"), spec.get("hidden")
    if (
        not isinstance(features, list | tuple)
        or not features
        or not all(isinstance(f, str) for f in features)
    ):
        raise CheckpointError(f"checkpoint {path}: its network has no list of feature names")
    if (
        not isinstance(hidden, list | tuple)
        or not 1 <= len(hidden) <= MAX_LAYERS
        or not all(
            isinstance(h, int) and not isinstance(h, bool) and 1 <= h <= MAX_WIDTH for h in hidden
        )
    ):
        raise CheckpointError(
            f"checkpoint {path}: its network has no list of 1 to {MAX_LAYERS} hidden sizes "
            f"in [1, {MAX_WIDTH}]"
        )
    scaled = spec.get("scaled", False)
    if not isinstance(scaled, bool):
        raise CheckpointError(f"checkpoint {path}: its network's 'scaled' must be true or false")
    layout = spec.get("layout", "classic")
    if layout not in LAYOUTS:
        raise CheckpointError(
            f"checkpoint {path}: its network's layout must be one of {', '.join(LAYOUTS)}, "
            f"got {str(layout)[:60]!r}"
        )
    deck, size = spec.get("deck", "classic"), spec.get("deck_size", CLASSIC_DECK_SIZE)
    if not isinstance(deck, str) or not deck:
        raise CheckpointError(f"checkpoint {path}: its network's deck must be a deck name")
    if isinstance(size, bool) or not isinstance(size, int) or not 1 <= size <= MAX_DECK_CARDS:
        raise CheckpointError(
            f"checkpoint {path}: its network's deck_size must be a number of cards in "
            f"[1, {MAX_DECK_CARDS}], got {str(size)[:60]!r}"
        )
    return {
        "features": list(features), "hidden": list(hidden), "scaled": scaled,
        "layout": layout, "deck": deck, "deck_size": size,
    }  # fmt: skip


def load_weights(
    module: torch.nn.Module | torch.optim.Optimizer,
    state: Any,
    path: str | os.PathLike[str],
    what: str = "weights",
) -> None:
    """``module.load_state_dict(state)``, or :class:`CheckpointError` naming the file and
    ``what`` if the saved state does not fit (other layer sizes, missing or extra tensors, not
    a table)."""
    try:
        if not isinstance(state, dict):
            raise TypeError(f"a table of tensors was expected, got {type(state).__name__}")
        module.load_state_dict(state)
    except (RuntimeError, KeyError, TypeError, ValueError, AttributeError, IndexError) as error:
        lines = [line.strip() for line in str(error).splitlines() if line.strip()]
        detail = "; ".join(lines[:3]) + ("; ..." if len(lines) > 3 else "")
        raise CheckpointError(f"checkpoint {path}: cannot load its {what}: {detail}") from None
