"""One PPO update: ``update_epochs`` passes of the clipped objective over a rollout.

The masked categorical policy's log-probabilities and entropy (over legal actions only), the
clipped probability ratio, the (optionally clipped) value loss, advantages normalized per
minibatch, gradients clipped to ``max_grad_norm``; the epochs stop early past ``target_kl``.
The metrics it returns are named as CleanRL's (``losses/value_loss``, ``losses/clipfrac``, ...;
:mod:`uno_rl.ppo.logger` documents each), plus the gradient's norm before clipping.

Search distillation (``distill_data``): each minibatch also draws ``distill_batch`` decisions
of a search agent (:class:`ImitationTargets`) and adds ``distill_coef`` times the
cross-entropy of the policy (over the legal actions) to the search's choice, so that the
policy learns the search's corrections while PPO keeps improving it on the real game.
"""

from __future__ import annotations

import numpy as np
import torch

from uno_rl.core.rules import Rules

from .config import TrainConfig, TrainConfigError
from .network import PolicyNetwork, biased_log_probs_and_entropy, mask_bias
from .rollout import Rollout
from .search_targets import TargetsError, load_targets
from .stored_obs import input_dtype, network_input

__all__ = ["ImitationTargets", "imitation_targets", "ppo_update"]


class ImitationTargets:
    """Search targets as an update reads them: (T, F) network inputs (the network's columns,
    its input dtype), (T, A) mask biases and (T,) int64 actions, on ``device``."""

    def __init__(self, obs: np.ndarray, mask: np.ndarray, action: np.ndarray, columns: np.ndarray,
                 network: PolicyNetwork, device: torch.device):  # fmt: skip
        self.obs = network_input(
            np.ascontiguousarray(obs[:, columns]), device, input_dtype(network.trunk_bf16)
        )
        self.bias = mask_bias(torch.from_numpy(mask).to(device))
        self.action = torch.from_numpy(action.astype(np.int64)).to(device)
        self.size = int(action.shape[0])

    def loss(self, network: PolicyNetwork, rows: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(cross-entropy to the search's actions, share the policy's greedy action matches)
        over the targets ``rows``."""
        logits, _ = network(self.obs.index_select(0, rows))
        log_probs, _ = biased_log_probs_and_entropy(logits, self.bias.index_select(0, rows))
        action = self.action.index_select(0, rows)
        cross_entropy = -log_probs.gather(1, action[:, None]).squeeze(1).mean()
        agree = (log_probs.argmax(1) == action).float().mean()
        return cross_entropy, agree


def imitation_targets(config: TrainConfig, rules: Rules, columns: np.ndarray,
                      network: PolicyNetwork, device: torch.device) -> ImitationTargets | None:  # fmt: skip
    """The search targets of ``config.distill_data`` as the update reads them (None without
    any; ``columns``: the network's); a file that cannot be read or does not fit is a
    :class:`~uno_rl.ppo.config.TrainConfigError`."""
    if not config.distill_data:
        return None
    try:
        found = load_targets(config.distill_data, rules)
    except TargetsError as error:
        raise TrainConfigError(f"distill_data: {error}") from None
    if not found.size:
        raise TrainConfigError("distill_data: the files hold no decision")
    return ImitationTargets(found.obs, found.mask, found.action, columns, network, device)


def ppo_update(
    config: TrainConfig,
    network: PolicyNetwork,
    optimizer: torch.optim.Optimizer,
    rollout: Rollout,
    generator: torch.Generator,
    device: torch.device,
    targets: ImitationTargets | None = None,
) -> dict[str, float]:
    """``update_epochs`` passes of the clipped PPO loss over minibatches of ``rollout``
    (shuffled with ``generator``), plus the imitation loss of ``targets`` where given;
    returns the ``losses/`` metrics."""
    size = rollout.size
    # A bfloat16 trunk reads bfloat16 anyway: cast once (a bfloat16 rollout needs no cast),
    # not once per minibatch and epoch, and gather half the bytes.
    b_obs = network_input(rollout.obs, device, input_dtype(network.trunk_bf16))
    b_bias = mask_bias(torch.from_numpy(rollout.mask).to(device))
    b_action = torch.from_numpy(rollout.action).to(device)
    b_logp = torch.from_numpy(rollout.logp).to(device)
    b_value = torch.from_numpy(rollout.value).to(device)
    b_adv = torch.from_numpy(rollout.advantages).to(device)
    b_ret = torch.from_numpy(rollout.returns).to(device)
    clipfracs, grad_norms = [], []
    approx_kl = old_approx_kl = torch.zeros(())
    pg_loss = v_loss = entropy = torch.zeros(())
    imitation, agreement = [], []
    for _epoch in range(config.update_epochs):
        order = torch.randperm(size, generator=generator).to(device)
        for start in range(0, size, config.minibatch_size):
            mb = order[start : start + config.minibatch_size]
            logits, new_value = network(b_obs.index_select(0, mb))
            log_probs, entropies = biased_log_probs_and_entropy(logits, b_bias.index_select(0, mb))
            new_logp = log_probs.gather(1, b_action.index_select(0, mb)[:, None]).squeeze(1)
            entropy = entropies.mean()
            log_ratio = new_logp - b_logp.index_select(0, mb)
            ratio = log_ratio.exp()
            with torch.no_grad():
                old_approx_kl = (-log_ratio).mean()
                approx_kl = ((ratio - 1) - log_ratio).mean()
                clipfracs.append(((ratio - 1.0).abs() > config.clip_coef).float().mean().item())
            mb_adv, mb_value, mb_ret = b_adv[mb], b_value[mb], b_ret[mb]
            if config.norm_adv and mb.numel() > 1:
                mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
            pg_loss = torch.max(
                -mb_adv * ratio,
                -mb_adv * torch.clamp(ratio, 1 - config.clip_coef, 1 + config.clip_coef),
            ).mean()
            if config.clip_vloss:
                clipped = mb_value + torch.clamp(
                    new_value - mb_value, -config.clip_coef, config.clip_coef
                )
                v_loss = 0.5 * torch.max((new_value - mb_ret) ** 2, (clipped - mb_ret) ** 2).mean()
            else:
                v_loss = 0.5 * ((new_value - mb_ret) ** 2).mean()
            loss = pg_loss - config.ent_coef * entropy + config.vf_coef * v_loss
            if targets is not None and targets.size:
                rows = torch.randint(targets.size, (config.distill_batch,), generator=generator)
                cross_entropy, agree = targets.loss(network, rows.to(device))
                loss = loss + config.distill_coef * cross_entropy
                imitation.append(cross_entropy.detach())
                agreement.append(agree)
            optimizer.zero_grad()
            loss.backward()
            # The norm before clipping (kept on the device: one transfer per update).
            grad_norms.append(
                torch.nn.utils.clip_grad_norm_(network.parameters(), config.max_grad_norm)
            )
            optimizer.step()
        if config.target_kl and approx_kl.item() > config.target_kl:
            break
    variance = b_ret.var().item() if size > 1 else 0.0
    explained = 1.0 - (b_ret - b_value).var().item() / variance if variance > 0 else float("nan")
    norms = torch.stack(grad_norms).float().cpu() if grad_norms else torch.full((1,), torch.nan)
    distilled = {}
    if imitation:
        distilled = {
            "losses/distill_loss": torch.stack(imitation).mean().item(),
            "losses/distill_agreement": torch.stack(agreement).mean().item(),
        }
    return {
        **distilled,
        "losses/policy_loss": pg_loss.item(),
        "losses/value_loss": v_loss.item(),
        "losses/entropy": entropy.item(),
        "losses/old_approx_kl": old_approx_kl.item(),
        "losses/approx_kl": approx_kl.item(),
        "losses/clipfrac": float(np.mean(clipfracs)) if clipfracs else 0.0,
        "losses/explained_variance": explained,
        "losses/grad_norm": norms.mean().item(),
        "losses/grad_norm_max": norms.max().item(),
    }
