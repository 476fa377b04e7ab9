"""The policy-value network and its masked action distribution (PyTorch).

An MLP reads the selected observation pieces and outputs 77 action logits and a value.
Illegal actions get the lowest float logit, so they have probability 0; the entropy is taken
over the legal actions only.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
from torch import nn

from uno_rl.core.actions import NUM_ACTIONS
from uno_rl.core.observe_layout import PIECES, SLICES

__all__ = ["PolicyNetwork", "feature_columns", "input_scale", "masked_entropy", "masked_logits"]

#: Divisors bringing each piece to about [0, 1]: card counts by 4 copies, hand sizes and
#: pending draws by 20 (a large hand), the draw pile by the deck; the rest is already 0/1.
_PIECE_SCALE = {
    "hand": 4.0, "discard": 4.0, "revealed_hand": 4.0, "hand_sizes": 20.0,
    "pending_draw": 20.0, "draw_pile_size": 108.0,
}  # fmt: skip


def feature_columns(features: Sequence[str]) -> np.ndarray:
    """(F,) int64: observation columns of the named pieces, in layout order."""
    names = [name for name, _ in PIECES]
    unknown = [f for f in features if f not in names]
    if unknown:
        raise ValueError(f"unknown observation piece {unknown[0]!r}; pieces: {', '.join(names)}")
    chosen = [name for name in names if name in set(features)]
    return np.concatenate([np.arange(SLICES[n].start, SLICES[n].stop) for n in chosen])


def input_scale(features: Sequence[str]) -> np.ndarray:
    """(F,) float32 multipliers of the columns of :func:`feature_columns`."""
    names = [name for name, _ in PIECES if name in set(features)]
    return np.concatenate(
        [
            np.full(SLICES[n].stop - SLICES[n].start, 1.0 / _PIECE_SCALE.get(n, 1.0), np.float32)
            for n in names
        ]
    )


def _layer(inputs: int, outputs: int, gain: float) -> nn.Linear:
    layer = nn.Linear(inputs, outputs)
    nn.init.orthogonal_(layer.weight, gain)
    nn.init.zeros_(layer.bias)
    return layer


class PolicyNetwork(nn.Module):
    """Shared-trunk MLP: ``forward(obs (B, F) f32) -> (logits (B, 77), value (B,))``.

    Args:
        inputs: F, the number of observation columns it reads.
        hidden: sizes of the hidden layers (tanh).
        scale: (F,) multipliers applied to the inputs first (:func:`input_scale`); not
            saved with the weights (it follows from the features).
    """

    def __init__(
        self, inputs: int, hidden: Sequence[int] = (128, 128), scale: np.ndarray | None = None
    ):
        super().__init__()
        scale = np.ones(inputs, np.float32) if scale is None else np.asarray(scale, np.float32)
        self.register_buffer("scale", torch.from_numpy(scale.copy()), persistent=False)
        layers: list[nn.Module] = []
        size = inputs
        for width in hidden:
            layers += [_layer(size, width, np.sqrt(2)), nn.Tanh()]
            size = width
        self.trunk = nn.Sequential(*layers)
        self.policy = _layer(size, NUM_ACTIONS, 0.01)
        self.value = _layer(size, 1, 1.0)

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.trunk(obs * self.scale)
        return self.policy(h), self.value(h).squeeze(-1)


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Illegal actions at the dtype's lowest value (probability 0 after softmax)."""
    return torch.where(mask, logits, torch.finfo(logits.dtype).min)


def masked_entropy(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """(B,) entropy of the masked distribution (renormalized over the legal actions)."""
    log_probs = torch.log_softmax(masked_logits(logits, mask), dim=-1)
    p_log_p = torch.where(mask, log_probs.exp() * log_probs, torch.zeros_like(log_probs))
    return -p_log_p.sum(dim=-1)
