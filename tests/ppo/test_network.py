"""The policy network's inputs and the PPO agent's loading."""

import numpy as np
import torch

from uno_rl.core import load_rules
from uno_rl.core.observe_layout import OBS_SIZE, SLICES
from uno_rl.ppo.agent import PPOAgent
from uno_rl.ppo.checkpoint import save_checkpoint
from uno_rl.ppo.config import ALL_FEATURES
from uno_rl.ppo.network import PolicyNetwork, feature_columns, input_scale


def test_feature_columns_and_scale_follow_the_layout():
    columns = feature_columns(ALL_FEATURES)
    np.testing.assert_array_equal(columns, np.arange(OBS_SIZE))
    scale = input_scale(ALL_FEATURES)
    assert scale.shape == (OBS_SIZE,)
    assert scale[SLICES["draw_pile_size"].start] == np.float32(1 / 108)
    assert scale[SLICES["hand"].start] == np.float32(0.25)
    assert scale[SLICES["top_card"].start] == 1.0
    some = ["top_card", "hand"]  # order follows the layout, not the list
    np.testing.assert_array_equal(feature_columns(some)[:54], np.arange(54))
    assert input_scale(some).shape == (108,)


def test_scale_is_applied_but_not_saved(tmp_path):
    torch.manual_seed(0)
    scale = input_scale(["hand", "hand_sizes"])
    net = PolicyNetwork(64, [8], scale)
    assert "scale" not in net.state_dict()
    x = torch.rand(3, 64)
    plain = PolicyNetwork(64, [8])
    plain.load_state_dict(net.state_dict())
    torch.testing.assert_close(net(x)[0], plain(x * torch.from_numpy(scale))[0])
    for scaled in (True, False):  # checkpoints say whether their inputs were scaled
        path = tmp_path / f"p{scaled}.pt"
        spec = {"features": ["hand", "hand_sizes"], "hidden": [8], "scaled": scaled}
        save_checkpoint(path, {"network": spec, "model": net.state_dict()})
        agent = PPOAgent(load_rules("official"), checkpoint=str(path))
        expected = scale if scaled else np.ones(64, np.float32)
        np.testing.assert_allclose(agent.network.scale.numpy(), expected)


def test_masked_entropy_is_the_entropy_of_the_legal_distribution():
    from uno_rl.ppo.network import masked_entropy

    logits = torch.zeros(2, 77)
    logits[:, 5] = 3.0  # an illegal action's logit must not matter
    mask = torch.zeros(2, 77, dtype=torch.bool)
    mask[0, [0, 1]] = True
    mask[1, [0, 1, 2, 3]] = True
    torch.testing.assert_close(masked_entropy(logits, mask), torch.log(torch.tensor([2.0, 4.0])))


def test_sample_masked_draws_legal_actions_in_proportion():
    from uno_rl.ppo.network import masked_log_probs, sample_masked

    torch.manual_seed(0)
    rows = 20_000
    logits = torch.tensor([[2.0, -1.0, 0.5, 9.0, 0.0]]).repeat(rows, 1)
    mask = torch.tensor([[True, True, True, False, True]]).repeat(rows, 1)
    log_probs = masked_log_probs(logits, mask)
    gen = torch.Generator().manual_seed(1)
    actions = sample_masked(log_probs, gen)
    assert actions.dtype == torch.int64 and actions.shape == (rows,)
    assert mask[torch.arange(rows), actions].all()  # never the illegal favourite
    counts = torch.bincount(actions, minlength=5).double()
    expected = log_probs[0].exp().double() * rows
    legal = mask[0]
    chi2 = (((counts - expected) ** 2)[legal] / expected[legal]).sum().item()
    assert chi2 < 16.3  # 3 degrees of freedom, p = 0.001
    again = sample_masked(log_probs, torch.Generator().manual_seed(1))
    assert torch.equal(actions, again)  # the generator decides everything
    single = torch.full((4, 5), torch.finfo(torch.float32).min)
    single[:, 2] = 0.0  # one legal action: always it, whatever the uniform
    assert (sample_masked(single, gen) == 2).all()


def test_bf16_trunk_pads_batches_and_stays_close_to_fp32():
    from uno_rl.ppo.network import BF16_ROWS, bf16_supported, use_bf16

    torch.manual_seed(0)
    scale = input_scale(ALL_FEATURES)
    exact = PolicyNetwork(OBS_SIZE, [64, 64], scale)
    fast = PolicyNetwork(OBS_SIZE, [64, 64], scale, trunk_bf16=True)
    fast.load_state_dict(exact.state_dict())
    x = torch.randint(0, 3, (BF16_ROWS + 7, OBS_SIZE)).float()  # not a multiple: padded
    with torch.no_grad():
        logits, value = fast(x)
        ref_logits, ref_value = exact(x)
        row_alone = fast(x[3:4])[0]
    assert logits.dtype == torch.float32 and logits.shape == (BF16_ROWS + 7, 77)
    assert value.shape == (BF16_ROWS + 7,)
    torch.testing.assert_close(logits, ref_logits, atol=0.05, rtol=0.05)
    torch.testing.assert_close(value, ref_value, atol=0.05, rtol=0.05)
    torch.testing.assert_close(row_alone, logits[3:4], atol=0.02, rtol=0.02)
    # Gradients reach every weight through the padded, autocast trunk (float32 grads).
    sum(out.sum() for out in fast(x)).backward()
    assert all(p.grad is not None and p.grad.dtype == torch.float32 for p in fast.parameters())
    assert use_bf16("fp32") is False and use_bf16("bf16") is True
    assert use_bf16("auto") is bf16_supported() and use_bf16("auto", "cuda") is False


def test_the_bias_form_of_the_mask_gives_the_same_distribution_and_gradients():
    from uno_rl.ppo.network import (
        biased_log_probs_and_entropy,
        mask_bias,
        masked_entropy,
        masked_log_probs,
    )

    torch.manual_seed(0)
    logits = (torch.randn(64, 77) * 3).requires_grad_()
    mask = torch.rand(64, 77) < 0.2
    mask[:, 7] = True
    log_probs, entropy = biased_log_probs_and_entropy(logits, mask_bias(mask))
    expected = masked_log_probs(logits, mask)
    torch.testing.assert_close(log_probs[mask], expected[mask])
    torch.testing.assert_close(entropy, masked_entropy(logits, mask))
    assert torch.isfinite(log_probs).all() and (log_probs.exp()[~mask] == 0).all()
    (entropy.sum() + log_probs[mask].sum()).backward()
    grad = logits.grad.clone()
    logits.grad = None
    (masked_entropy(logits, mask).sum() + masked_log_probs(logits, mask)[mask].sum()).backward()
    torch.testing.assert_close(grad, logits.grad)
    assert (grad[~mask] == 0).all()  # illegal logits get no gradient


def test_the_sigmoid_form_computes_the_tanh_network_and_its_gradients():
    """Training's sigmoid form (``2 sigmoid(2z) - 1`` per tanh, one product for both heads)
    is the saved tanh network up to float rounding, forwards and backwards, for every depth
    (no hidden layer too), at both precisions; bots loaded for play keep the tanh form."""
    torch.manual_seed(0)
    scale = input_scale(ALL_FEATURES)
    x = torch.randint(0, 4, (300, OBS_SIZE)).float()
    for hidden in ([128, 128], [32], [], [24, 16, 8]):
        exact = PolicyNetwork(OBS_SIZE, hidden, scale)
        with torch.no_grad():  # weights far from their initial scale: tanh saturates
            for p in exact.parameters():
                p.add_(torch.randn_like(p) * 0.3)
        fast = PolicyNetwork(OBS_SIZE, hidden, scale, sigmoid_form=True)
        fast.load_state_dict(exact.state_dict())
        outputs = [net(x) for net in (exact, fast)]
        for ref, got in zip(*outputs):
            torch.testing.assert_close(got, ref, atol=1e-4, rtol=1e-5)
        logits, value = outputs[1]
        assert logits.shape == (300, 77) and value.shape == (300,)
        for out_logits, out_value in outputs:
            (torch.log_softmax(out_logits, 1)[:, 5].sum() + (out_value**2).mean()).backward()
        for ref, got in zip(exact.parameters(), fast.parameters()):
            torch.testing.assert_close(got.grad, ref.grad, atol=1e-3, rtol=1e-4)
        fast.trunk_bf16 = exact.trunk_bf16 = True
        with torch.no_grad():
            for ref, got in zip(exact(x), fast(x)):
                # bfloat16 rounds differently in the two forms, by as much as it rounds at all
                torch.testing.assert_close(got, ref, atol=0.3, rtol=0.05)
    assert exact.sigmoid_form is False  # the default: what agents load
