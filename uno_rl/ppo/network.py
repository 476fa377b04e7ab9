"""The policy-value network and its masked action distribution (PyTorch).

An MLP reads the selected observation pieces of the training rules' layout
(:mod:`uno_rl.core.layout`: ``CLASSIC``, 583 values, or ``EXTENDED``, 877) and outputs one
logit per action of that layout (77 or 122) and a value. Illegal actions get the lowest float
logit, so they have probability 0; the entropy is taken over the legal actions only.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
from torch import nn

from uno_rl.core.layout import CLASSIC, EXTENDED, Layout

__all__ = [
    "CLASSIC_DECK_SIZE",
    "LAYOUTS",
    "PolicyNetwork",
    "bf16_supported",
    "layout_named",
    "feature_columns",
    "input_scale",
    "biased_log_probs_and_entropy",
    "mask_bias",
    "masked_entropy",
    "masked_log_probs",
    "masked_logits",
    "sample_masked",
    "use_bf16",
]

#: Divisors bringing each piece to about [0, 1]: card counts by 4 copies, hand sizes and
#: pending draws by 20 (a large hand), the draw pile by the deck (:func:`input_scale`), the
#: dispenser's presses by 4 (it fires at the latest after 4); the rest is already 0/1 (the
#: swap seats, the shuffled flag).
_PIECE_SCALE = {
    "hand": 4.0, "discard": 4.0, "revealed_hand": 4.0, "hand_sizes": 20.0,
    "pending_draw": 20.0, "played_colors": 4.0, "swap_given": 4.0, "swap_received": 4.0, "dispenser_presses": 4.0,
}  # fmt: skip
#: Cards of the classic deck: the draw pile's divisor of checkpoints that record no deck.
CLASSIC_DECK_SIZE = 108
#: The layouts by name (what checkpoints record).
LAYOUTS: dict[str, Layout] = {CLASSIC.name: CLASSIC, EXTENDED.name: EXTENDED}


def layout_named(name: str) -> Layout:
    """The layout called ``name`` (``classic`` or ``extended``); ValueError otherwise."""
    if name not in LAYOUTS:
        raise ValueError(f"unknown card layout {name!r}; layouts: {', '.join(LAYOUTS)}")
    return LAYOUTS[name]


def feature_columns(features: Sequence[str], layout: Layout = CLASSIC) -> np.ndarray:
    """(F,) int64: columns of the named pieces in ``layout``'s observation, in layout order.

    A piece the layout lacks (an extended piece on the classic layout) is a ValueError."""
    names = [name for name, _ in layout.pieces]
    unknown = [f for f in features if f not in names]
    if unknown:
        raise ValueError(
            f"unknown observation piece {unknown[0]!r} in the {layout.name} layout; pieces: "
            f"{', '.join(names)}"
        )
    chosen = [name for name in names if name in set(features)]
    slices = layout.slices
    return np.concatenate([np.arange(slices[n].start, slices[n].stop) for n in chosen])


def input_scale(
    features: Sequence[str], layout: Layout = CLASSIC, deck_size: int = CLASSIC_DECK_SIZE
) -> np.ndarray:
    """(F,) float32 multipliers of the columns of :func:`feature_columns` (same arguments);
    ``deck_size``: the divisor of ``draw_pile_size`` (the training deck's cards).

    The classic layout with the 108-card deck gives exactly the scales every shipped
    checkpoint was trained with."""
    if not isinstance(deck_size, int) or isinstance(deck_size, bool) or deck_size < 1:
        raise ValueError(f"deck_size must be a whole number of cards >= 1, got {deck_size!r}")
    feature_columns(features, layout)  # the same check of the names
    divisors = {**_PIECE_SCALE, "draw_pile_size": float(deck_size)}
    names = [name for name, _ in layout.pieces if name in set(features)]
    slices = layout.slices
    return np.concatenate(
        [
            np.full(slices[n].stop - slices[n].start, 1.0 / divisors.get(n, 1.0), np.float32)
            for n in names
        ]
    )


#: bfloat16 batches are padded to a multiple of this many rows (see ``forward``).
BF16_ROWS = 256


def _layer(inputs: int, outputs: int, gain: float) -> nn.Linear:
    layer = nn.Linear(inputs, outputs)
    nn.init.orthogonal_(layer.weight, gain)
    nn.init.zeros_(layer.bias)
    return layer


def bf16_supported() -> bool:
    """Whether this CPU multiplies bfloat16 matrices natively (AVX-512 BF16 or AMX)."""
    check = getattr(torch.backends.mkldnn, "is_available", lambda: False)
    native = getattr(torch.cpu, "_is_avx512_bf16_supported", lambda: False)
    amx = getattr(torch.cpu, "_is_amx_tile_supported", lambda: False)
    return bool(check() and (native() or amx()))


def use_bf16(precision: str, device: torch.device | str = "cpu") -> bool:
    """Whether ``precision`` (``auto``, ``bf16`` or ``fp32``) runs the trunk in bfloat16 on
    ``device``: ``auto`` means bf16 on a CPU with native bfloat16 only."""
    if precision == "auto":
        return torch.device(device).type == "cpu" and bf16_supported()
    return precision == "bf16"


class PolicyNetwork(nn.Module):
    """Shared-trunk MLP: ``forward(obs (B, F) f32) -> (logits (B, A) f32, value (B,) f32)``.

    Args:
        inputs: F, the number of observation columns it reads.
        hidden: sizes of the hidden layers (tanh).
        scale: (F,) multipliers applied to the inputs first (:func:`input_scale`); not
            saved with the weights (it follows from the features).
        trunk_bf16: run the hidden layers in bfloat16 autocast (weights stay float32; the
            heads, hence logits and values, are float32). About 1.6x faster on CPUs with
            native bfloat16 (:func:`bf16_supported`); a training setting, not saved.
        actions: A, the logits it outputs: the layout's ``num_actions`` (77 classic, 122
            extended).
        sigmoid_form: compute the same function as ``2 sigmoid(2z) - 1`` for each tanh, with
            the policy and value heads as one matrix product (:meth:`_folded`): equal up to
            float rounding (about 1e-6); the bench's train row 1.12x faster on a CPU, where
            PyTorch's tanh kernel is several times slower than its sigmoid. A training setting, not
            saved: a loaded bot computes with tanh, exactly as when it was shipped.
    """

    def __init__(
        self,
        inputs: int,
        hidden: Sequence[int] = (128, 128),
        scale: np.ndarray | None = None,
        trunk_bf16: bool = False,
        actions: int = CLASSIC.num_actions,
        sigmoid_form: bool = False,
    ):
        super().__init__()
        self.trunk_bf16 = bool(trunk_bf16)
        self.sigmoid_form = bool(sigmoid_form)
        scale = np.ones(inputs, np.float32) if scale is None else np.asarray(scale, np.float32)
        self.register_buffer("scale", torch.from_numpy(scale.copy()), persistent=False)
        layers: list[nn.Module] = []
        size = inputs
        for width in hidden:
            layers += [_layer(size, width, np.sqrt(2)), nn.Tanh()]
            size = width
        self.trunk = nn.Sequential(*layers)
        self.policy = _layer(size, actions, 0.01)
        self.value = _layer(size, 1, 1.0)

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        if self.sigmoid_form:
            weights, biases = self._folded()
            *trunk, head = zip(weights, biases)
        if self.trunk_bf16:
            rows = obs.shape[0]
            # oneDNN compiles a bfloat16 kernel per batch shape: rollouts bring a new number
            # of rows every step, so pad to a multiple of BF16_ROWS (a few shapes, cached).
            padded = -(-rows // BF16_ROWS) * BF16_ROWS
            if padded != rows:
                obs = nn.functional.pad(obs, (0, 0, 0, padded - rows))
            with torch.autocast(obs.device.type, dtype=torch.bfloat16):
                h = self._sigmoids(obs, trunk) if self.sigmoid_form else self._hidden(obs)
            h = h[:rows].float()
        else:
            h = self._sigmoids(obs, trunk) if self.sigmoid_form else self._hidden(obs)
        if self.sigmoid_form:
            out = nn.functional.linear(h, *head)
            return out[:, :-1], out[:, -1]
        return self.policy(h), self.value(h).squeeze(-1)

    @torch.no_grad()
    def act_forward(
        self, observations: np.ndarray, columns: slice | np.ndarray
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """:meth:`forward` of ``observations[:, columns]`` ((B, O) float32; ``columns`` the F
        it reads), for inference: where the compiled engine is in use, the first layer adds
        up the weights of the nonzero inputs only (:mod:`uno_rl.ppo.sparse_input`: the same
        function up to float rounding, several times faster on observations); elsewhere, and
        for the training forms and off the CPU, the dense :meth:`forward`."""
        from uno_rl.core.backend import compiled_engine

        dense = self.trunk_bf16 or self.sigmoid_form or not len(self.trunk)
        if dense or self.scale.device.type != "cpu" or not compiled_engine():
            features = torch.from_numpy(np.ascontiguousarray(observations[:, columns]))
            return self(features.to(self.scale.device))
        from .sparse_input import sparse_first_layer

        first, *rest = self.trunk
        weight_t, bias = self._sparse_weights(first)
        h = torch.from_numpy(sparse_first_layer(observations, columns, weight_t, bias))
        for layer in rest:
            h = layer(h)
        return self.policy(h), self.value(h).squeeze(-1)

    def _sparse_weights(self, first: nn.Linear) -> tuple[np.ndarray, np.ndarray]:
        """The first layer as ``(weight_t (F, H), bias (H,))`` float32 NumPy arrays, the input
        scale folded in; rebuilt when the weights change (their version counters)."""
        version = (first.weight._version, first.bias._version, id(first.weight))
        cached = self.__dict__.get("_sparse_cache")
        if cached is None or cached[0] != version:
            weight_t = (first.weight * self.scale).detach().t().contiguous().float().numpy()
            bias = first.bias.detach().float().numpy().copy()
            cached = (version, weight_t, bias)
            self.__dict__["_sparse_cache"] = cached
        return cached[1], cached[2]

    def _hidden(self, obs: torch.Tensor) -> torch.Tensor:
        # The input scale is folded into the first layer's weights (F x H multiplications
        # instead of B x F): the same function, the same saved weights.
        if not len(self.trunk):  # no hidden layer: the heads read the scaled inputs
            return obs * self.scale
        first, *rest = self.trunk
        h = nn.functional.linear(obs, first.weight * self.scale, first.bias)
        for layer in rest:
            h = layer(h)
        return h

    @staticmethod
    def _sigmoids(obs: torch.Tensor, layers) -> torch.Tensor:
        h = obs
        for weight, bias in layers:
            h = torch.sigmoid(nn.functional.linear(h, weight, bias))
        return h

    def _folded(self) -> tuple[list[torch.Tensor], list[torch.Tensor]]:
        """The weights and biases of the sigmoid form: the same function as the saved tanh
        layers, computed with sigmoids (``tanh(z) = 2 sigmoid(2z) - 1``); the last pair is
        the heads', (A + 1, H) and (A + 1,).

        A hidden layer's sigmoid takes twice its pre-activation; a layer reading a sigmoid
        ``s`` reads ``h = 2s - 1``, so ``W h + b = 2W s + (b - W 1)``. The input scale is folded
        into the first layer, and the policy and value heads are one matrix product (the
        value a row under the logits): a (B, 1) product of its own costs about as much as
        the A logits. Small (H x F) operations; gradients flow through them to the saved
        parameters."""
        linears = [layer for layer in self.trunk if isinstance(layer, nn.Linear)]
        head_weight = torch.cat([self.policy.weight, self.value.weight])
        head_bias = torch.cat([self.policy.bias, self.value.bias])
        if not linears:  # no hidden layer: the heads read the scaled inputs
            return [head_weight * self.scale], [head_bias]
        weights = [2.0 * linears[0].weight * self.scale]
        biases = [2.0 * linears[0].bias]
        for layer in [*linears[1:], None]:
            weight = head_weight if layer is None else layer.weight
            bias = head_bias if layer is None else layer.bias
            factor = 1.0 if layer is None else 2.0
            weights.append((2.0 * factor) * weight)
            biases.append(factor * (bias - weight.sum(dim=1)))
        return weights, biases


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Illegal actions at the dtype's lowest value (probability 0 after softmax)."""
    return torch.where(mask, logits, torch.finfo(logits.dtype).min)


#: Added to the logits of illegal actions in training: exp underflows to exactly 0, as with
#: :func:`masked_logits`, and the products and gradients stay finite.
ILLEGAL_BIAS = -1e9


def mask_bias(mask: torch.Tensor) -> torch.Tensor:
    """(B, A) float32: 0 for legal actions, :data:`ILLEGAL_BIAS` for illegal ones.

    ``logits + mask_bias(mask)`` gives the same log-probabilities as :func:`masked_logits`;
    an addition is much cheaper than ``torch.where`` forwards and backwards, so the PPO
    update builds the bias once per rollout.
    """
    return torch.zeros(mask.shape, dtype=torch.float32, device=mask.device).masked_fill_(
        ~mask, ILLEGAL_BIAS
    )


def biased_log_probs_and_entropy(
    logits: torch.Tensor, bias: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """``(log_probs (B, A), entropy (B,))`` of the masked distribution, from the logits and a
    :func:`mask_bias`; illegal actions have probability exactly 0 and add 0 to the entropy."""
    biased = logits + bias
    log_probs = torch.log_softmax(biased, dim=-1)
    entropy = -(torch.softmax(biased, dim=-1) * log_probs).sum(dim=-1)
    return log_probs, entropy


def masked_log_probs(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """(B, A) log-probabilities of the masked distribution (illegal: a huge negative)."""
    return torch.log_softmax(masked_logits(logits, mask), dim=-1)


def masked_entropy(
    logits: torch.Tensor, mask: torch.Tensor, log_probs: torch.Tensor | None = None
) -> torch.Tensor:
    """(B,) entropy of the masked distribution (renormalized over the legal actions).

    ``log_probs``: :func:`masked_log_probs` of the same logits, when already computed.
    """
    if log_probs is None:
        log_probs = masked_log_probs(logits, mask)
    # softmax of the log-probabilities (the probabilities themselves), not log_probs.exp():
    # exp of the huge negatives of illegal actions takes a slow path in PyTorch's CPU kernel
    # (about 10x slower than the fused softmax).
    p_log_p = torch.where(mask, torch.softmax(log_probs, dim=-1) * log_probs, 0.0)
    return -p_log_p.sum(dim=-1)


def sample_masked(logits: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
    """(B,) int64: one action per row drawn from ``softmax(logits)`` (B, A) by inverse CDF.

    ``logits``: masked (:func:`masked_logits`) or log-probabilities. One uniform per row from
    ``generator``; the threshold lies in (0, total], so the first action whose cumulative
    probability reaches it has a positive probability: an illegal (probability 0) action is
    never drawn. Much cheaper than ``torch.multinomial`` here.
    """
    cumulative = torch.softmax(logits, dim=1).cumsum(dim=1)
    u = torch.rand(logits.shape[0], 1, generator=generator).to(logits.device)
    threshold = (1.0 - u) * cumulative[:, -1:]
    chosen = (cumulative < threshold).sum(dim=1)
    return chosen.clamp_(max=logits.shape[1] - 1)
