"""The PPO bots' inference reads the observation's nonzero values only: the same logits and
values as the dense network up to float rounding, the same choices, on real observations."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from uno_rl.agents import make_agent
from uno_rl.core import backend, engine, load_rules
from uno_rl.core.observe import observe
from uno_rl.core.phases import OVER
from uno_rl.core.sampling import sample_legal_actions
from uno_rl.ppo.network import PolicyNetwork
from uno_rl.ppo.sparse_input import sparse_first_layer


def observations(players: int, games: int = 96, steps: int = 60) -> tuple[np.ndarray, np.ndarray]:
    """The acting seats' observations (k, O) float32 and masks (k, A) over random play."""
    rules = load_rules("official", players=players)
    rng = np.random.default_rng(players)
    state = engine.reset(rules, np.arange(games, dtype=np.uint64) + 11)
    seen, masks = [], []
    for _ in range(steps):
        live = np.flatnonzero(state.phase != OVER)
        mask = engine.legal_mask(state, live)
        seen.append(observe(state, state.actor)[live])
        masks.append(mask)
        engine.step(state, sample_legal_actions(mask, rng), games=live, validate=False)
    return np.concatenate(seen), np.concatenate(masks)


def test_sparse_first_layer_is_the_dense_product():
    rng = np.random.default_rng(0)
    x = np.where(rng.random((50, 40)) < 0.1, rng.normal(size=(50, 40)), 0.0).astype(np.float32)
    x[3] = 0.0  # a row of zeros: the bias alone
    weight_t = rng.normal(size=(30, 8)).astype(np.float32)
    bias = rng.normal(size=8).astype(np.float32)
    expected = x[:, :30] @ weight_t + bias
    np.testing.assert_allclose(sparse_first_layer(x, slice(0, 30), weight_t, bias), expected,
                               rtol=1e-5, atol=1e-5)  # fmt: skip
    np.testing.assert_array_equal(sparse_first_layer(x, slice(0, 30), weight_t, bias)[3], bias)
    columns = np.array([39, 0, 7] + list(range(10, 37)))  # gathered columns, any order
    np.testing.assert_allclose(
        sparse_first_layer(x.astype(np.float64), columns, weight_t, bias),
        x[:, columns] @ weight_t + bias, rtol=1e-5, atol=1e-5,
    )  # fmt: skip
    assert sparse_first_layer(x[:0], slice(0, 30), weight_t, bias).shape == (0, 8)
    with pytest.raises(ValueError, match="reads 30 columns, got 40"):
        sparse_first_layer(x, slice(0, None), weight_t, bias)


@pytest.mark.parametrize("bot, players", [("ppo-official-2p", 2), ("ppo-official-4p", 4),
                                          ("ppo-official-2p-v1", 2)])  # fmt: skip
def test_shipped_bots_choose_as_the_dense_network(bot, players):
    obs, masks = observations(players)
    agent = make_agent(f"{bot}:greedy=true", load_rules("official", players=players))
    network = agent.network
    with torch.no_grad():
        logits, value = network(torch.from_numpy(np.ascontiguousarray(obs[:, agent._read])))
    sparse_logits, sparse_value = network.act_forward(obs, agent._read)
    torch.testing.assert_close(sparse_logits, logits, rtol=1e-5, atol=1e-4)
    torch.testing.assert_close(sparse_value, value, rtol=1e-5, atol=1e-4)
    dense_choice = torch.where(torch.from_numpy(masks), logits, -torch.inf).argmax(dim=1)
    chosen = agent.act(obs, masks, np.random.default_rng(0))
    np.testing.assert_array_equal(chosen, dense_choice.numpy())


def test_changed_weights_are_read_anew_and_the_numpy_path_is_dense(monkeypatch):
    torch.manual_seed(0)
    network = PolicyNetwork(20, [6, 5], actions=4).eval()
    x = np.where(np.random.default_rng(1).random((9, 24)) < 0.3, 1.0, 0.0).astype(np.float32)
    columns = slice(0, 20)

    def dense():
        with torch.no_grad():
            return network(torch.from_numpy(np.ascontiguousarray(x[:, columns])))

    torch.testing.assert_close(network.act_forward(x, columns), dense())
    with torch.no_grad():
        network.trunk[0].weight.mul_(-2.0)  # in place: a training step, a loaded state
    torch.testing.assert_close(network.act_forward(x, columns), dense())
    monkeypatch.setattr(backend, "compiled_engine", lambda: None)
    logits, value = network.act_forward(x, columns)
    assert torch.equal(logits, dense()[0]) and torch.equal(value, dense()[1])
