"""A policy network's first layer over the nonzero observation values only, compiled.

An observation row holds a few dozen nonzero values among hundreds of columns (one-hot cards,
colors and seats, a few counts): about 30 of the 583 columns the 2-player bots read. The
first layer's dense product multiplies every column; :func:`sparse_first_layer` adds up the
weight rows of the nonzero ones, about a twentieth of the work, reading the observation in
place (no copy of the columns the network reads). It computes the same function as the dense
product up to float rounding (about 1e-6 in the pre-activations: the sums are ordered
differently). Inference only (:meth:`uno_rl.ppo.network.PolicyNetwork.act_forward`): training
keeps the dense product, whose gradient it needs. The kernel compiles in under a second the
first time a process on a machine uses it, and is cached on disk.
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["sparse_first_layer"]


@numba.njit(cache=True)
def _sparse_rows(x, width, weight_t, bias, out):
    """``out[i] = bias + sum_j x[i, j] * weight_t[j]`` over the nonzero ``x[i, j]``,
    ``j < width``; ``x`` (B, >= width), ``weight_t`` (width, H), ``bias`` (H,),
    ``out`` (B, H), all float32."""
    hidden = weight_t.shape[1]
    for i in range(x.shape[0]):
        for k in range(hidden):
            out[i, k] = bias[k]
        for j in range(width):
            v = x[i, j]
            if v != 0.0:
                for k in range(hidden):
                    out[i, k] += v * weight_t[j, k]


def sparse_first_layer(
    observations: np.ndarray, columns: slice | np.ndarray, weight_t: np.ndarray, bias: np.ndarray
) -> np.ndarray:
    """(B, H) float32: ``observations[:, columns] @ weight_t + bias`` over the nonzero values.

    Args:
        observations: (B, O) observations, float32 (others are converted).
        columns: the F columns the network reads: ``slice(0, F)`` (read in place) or an (F,)
            int64 index array (gathered first).
        weight_t: (F, H) float32, the first layer's weights transposed (input scale folded in).
        bias: (H,) float32.
    """
    x = np.ascontiguousarray(observations, dtype=np.float32)
    if isinstance(columns, slice) and columns.start in (None, 0) and columns.step in (None, 1):
        width = min(x.shape[1], columns.stop if columns.stop is not None else x.shape[1])
    else:
        x = np.ascontiguousarray(x[:, columns])
        width = x.shape[1]
    if width != weight_t.shape[0]:
        raise ValueError(f"the first layer reads {weight_t.shape[0]} columns, got {width}")
    out = np.empty((x.shape[0], weight_t.shape[1]), np.float32)
    _sparse_rows(x, width, weight_t, bias, out)
    return out
