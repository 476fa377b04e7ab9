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
