"""A network that reads more observation pieces starts from a bot that read fewer: the bot's
columns keep their weights, the new ones start at 0, so it plays exactly as the bot did."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from uno_rl.core import engine, load_rules
from uno_rl.core.observe import observe
from uno_rl.core.observe_layout import SHOWN_PIECES
from uno_rl.core.phases import OVER
from uno_rl.ppo.agent import load_policy_inputs
from uno_rl.ppo.config import ALL_FEATURES, TrainConfig, TrainConfigError
from uno_rl.ppo.inputs import NetworkInputs
from uno_rl.ppo.runs import init_from_path, initial_weights

OLD_FEATURES = [name for name in ALL_FEATURES if name not in SHOWN_PIECES]


def played_observations(rules, games: int = 64, steps: int = 40) -> np.ndarray:
    """Observations of mid-round positions, with something shown by the other seats."""
    rng = np.random.default_rng(5)
    state = engine.reset(rules, rng.integers(0, 2**63, games, dtype=np.uint64))
    for _ in range(steps):
        live = np.flatnonzero(state.phase != OVER)
        if not live.size:
            break
        actions = engine.sample_legal_actions(engine.legal_mask(state, live), rng)
        engine.step(state, actions, live)
    return observe(state, state.actor.astype(np.int64))


def test_a_wider_network_starts_as_the_bot_it_comes_from():
    rules = load_rules("official")
    old_network, old_inputs = load_policy_inputs(init_from_path("ppo-official-2p-v1"))
    assert list(old_inputs.features) == OLD_FEATURES
    config = TrainConfig(init_from="ppo-official-2p-v1", hidden=[128, 128])
    inputs = NetworkInputs.of_config(config)
    assert set(SHOWN_PIECES) <= set(inputs.features)
    network = inputs.network(config.hidden)
    initial_weights(config, network, inputs)
    obs = played_observations(rules)
    assert obs[:, inputs.columns].any(axis=0)[-45:].any()  # the new pieces are not all 0
    with torch.no_grad():
        old = old_network(torch.from_numpy(obs[:, old_inputs.columns]))
        new = network(torch.from_numpy(obs[:, inputs.columns]))
    for before, after in zip(old, new, strict=True):
        np.testing.assert_allclose(after.numpy(), before.numpy(), rtol=1e-5, atol=1e-5)


def test_fewer_pieces_than_the_bot_read_are_one_clear_error():
    config = TrainConfig(init_from="ppo-official-2p-v1", hidden=[128, 128],
                         features=OLD_FEATURES[:-1])  # fmt: skip
    inputs = NetworkInputs.of_config(config)
    with pytest.raises(TrainConfigError, match="init_from: .*or more pieces of the same layout"):
        initial_weights(config, inputs.network(config.hidden), inputs)


@pytest.mark.parametrize("hidden", [[256, 192], [128, 160], [200, 128]])
def test_wider_hidden_layers_start_as_the_bot_and_train_their_new_units(hidden):
    # From the first 4-player bot: wider layers, and every observation piece it did not read.
    rules = load_rules("official", players=4)
    old_network, old_inputs = load_policy_inputs(init_from_path("ppo-official-4p-v1"))
    config = TrainConfig(init_from="ppo-official-4p-v1", players=4, hidden=hidden)
    inputs = NetworkInputs.of_config(config)
    torch.manual_seed(3)
    network = inputs.network(config.hidden)
    initial_weights(config, network, inputs)
    played = played_observations(rules)
    obs = torch.from_numpy(played[:, inputs.columns])  # more pieces than v1 read, too
    with torch.no_grad():
        old = old_network(torch.from_numpy(played[:, old_inputs.columns]))
        new = network(obs)
    for before, after in zip(old, new, strict=True):
        np.testing.assert_allclose(after.numpy(), before.numpy(), rtol=1e-5, atol=1e-5)
    # The new units read their inputs, and the weights from them to the layer above (or to
    # the heads) get a gradient: training can bring them in.
    logits, value = network(obs)
    (logits.logsumexp(dim=1).sum() + value.sum()).backward()
    for j, width in enumerate(hidden):
        if width == 128:
            continue
        assert network.trunk[2 * j].weight[128:].abs().sum() > 0
        above = (
            [network.trunk[2 * j + 2]] if j + 1 < len(hidden) else [network.policy, network.value]
        )
        for layer in above:
            assert layer.weight.grad[:, 128:width].abs().sum() > 0


@pytest.mark.parametrize("hidden", [[64, 128], [128], [128, 128, 128]])
def test_narrower_or_other_layer_counts_are_one_clear_error(hidden):
    config = TrainConfig(init_from="ppo-official-4p-v1", players=4, hidden=hidden)
    inputs = NetworkInputs.of_config(config)
    with pytest.raises(TrainConfigError, match="init_from: .*has hidden sizes \\[128, 128\\]"):
        initial_weights(config, inputs.network(config.hidden), inputs)
