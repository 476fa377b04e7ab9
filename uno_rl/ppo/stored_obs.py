"""Observations as the rollout buffers keep them.

A network whose trunk runs in bfloat16 (:class:`~uno_rl.ppo.network.PolicyNetwork`'s
``trunk_bf16``) reads its inputs rounded to bfloat16 anyway, so its buffers keep them that
way: as ``(k, F) int16`` arrays of bfloat16 bit patterns (NumPy has no bfloat16). Half the
bytes of float32 to write every step, gather into each rollout and send from Ray workers, and
no conversion before each update: :func:`network_input` only reinterprets the bits. A
float32 trunk's buffers keep float32. Checkpoints hold float32 either way
(:func:`as_float32`: the rounded values, exactly).
"""

from __future__ import annotations

import numpy as np
import torch

__all__ = ["BF16_BITS", "as_float32", "input_dtype", "network_input", "store"]

#: The dtype of stored bfloat16 observations: their bit patterns.
BF16_BITS = np.dtype(np.int16)


def store(features: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """(k, F) observations as a buffer of ``dtype`` keeps them: float32 as they are,
    :data:`BF16_BITS` rounded to bfloat16 (to nearest even, as PyTorch casts)."""
    features = np.asarray(features)
    if features.dtype == dtype:
        return features
    if dtype == BF16_BITS:
        return (
            torch.from_numpy(np.ascontiguousarray(features, np.float32))
            .to(torch.bfloat16)
            .view(torch.int16)
            .numpy()
        )
    return as_float32(features).astype(dtype, copy=False)


def as_float32(stored: np.ndarray) -> np.ndarray:
    """(k, F) float32 values of stored observations (bfloat16 bits widen exactly)."""
    if stored.dtype == BF16_BITS:
        return torch.from_numpy(np.ascontiguousarray(stored)).view(torch.bfloat16).float().numpy()
    return np.asarray(stored, np.float32)


def input_dtype(bf16: bool) -> torch.dtype:
    """The input dtype of a network with a bfloat16 trunk or not."""
    return torch.bfloat16 if bf16 else torch.float32


def network_input(stored: np.ndarray, device: torch.device | str, dtype: torch.dtype):
    """(k, F) tensor of ``dtype`` on ``device`` of stored observations: bfloat16 bits are
    reinterpreted (no copy on the CPU), float32 converted where ``dtype`` asks."""
    tensor = torch.from_numpy(np.ascontiguousarray(stored))
    if stored.dtype == BF16_BITS:
        tensor = tensor.view(torch.bfloat16)
    return tensor.to(device=device, dtype=dtype)
