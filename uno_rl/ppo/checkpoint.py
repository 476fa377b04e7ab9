"""Checkpoints: written atomically, read with ``torch.load(weights_only=True)``.

A checkpoint is a dict of tensors and plain Python values only (NumPy arrays are stored as
tensors), so loading never runs pickled code. Writing goes to ``NAME.tmp`` and is renamed
over ``NAME``: a run killed while writing leaves the previous checkpoint intact. A file that
is truncated, corrupt, of another format or missing keys raises :class:`CheckpointError`
naming the file.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import torch

__all__ = [
    "FORMAT",
    "CheckpointError",
    "load_checkpoint",
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
    """Write ``payload`` (tensors and plain values) atomically to ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    torch.save({"format": FORMAT, **payload}, tmp)
    os.replace(tmp, path)


def load_checkpoint(
    path: str | os.PathLike[str], required: tuple[str, ...] = ("model", "network")
) -> dict[str, Any]:
    """Read a checkpoint safely (``weights_only=True``); a clear error if it is unusable."""
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"checkpoint {path}: no such file")
    try:
        data = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as error:  # noqa: BLE001 - torch raises many kinds on bad files
        raise CheckpointError(
            f"checkpoint {path} is truncated or corrupt (or not a uno_rl checkpoint): "
            f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"
        ) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise CheckpointError(f"checkpoint {path}: not a {FORMAT} checkpoint")
    missing = [key for key in required if key not in data]
    if missing:
        raise CheckpointError(f"checkpoint {path}: missing {', '.join(missing)}")
    return data
