"""The recording behind ``data/shipped_golden_shown.npz``: the shipped bots that read the pieces
of what other seats showed, on observations of every piece.

256 observations of 2- and 4-player official games under random play (their masks too), and
for every ``agents/ppo-*.pt`` that reads a column past the classic recording's 349, its greedy
action, that action's log-probability and the value on each. Rerun :func:`record` only when a
bot of that kind is added (``python tests/ppo/golden_shown.py``): the test compares the bots
with what was recorded, so that no later change of the observation or the network moves them.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from uno_rl.core import engine, load_rules
from uno_rl.core.observe import observe
from uno_rl.ppo.agent import load_policy_inputs
from uno_rl.ppo.network import masked_logits

AGENTS = Path(__file__).resolve().parents[2] / "agents"
GOLDEN_SHOWN = Path(__file__).resolve().parent / "data" / "shipped_golden_shown.npz"
#: The width of the classic recording (``data/shipped_golden.npz``).
CLASSIC_WIDTH = 349


def shown_bots() -> list[Path]:
    """The shipped checkpoints that read a column past :data:`CLASSIC_WIDTH`."""
    return [
        path
        for path in sorted(AGENTS.glob("ppo-*.pt"))
        if int(load_policy_inputs(path)[1].columns.max()) >= CLASSIC_WIDTH
    ]


def random_observations(players: int, count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``count`` observations (float32) and masks (bool) of the acting seats of official games
    under uniformly random legal play, sampled along the way."""
    rules = load_rules("official", players=players)
    rng = np.random.default_rng(seed)
    state = engine.reset(rules, np.arange(seed, seed + 64, dtype=np.uint64))
    observations, masks = [], []
    while sum(len(o) for o in observations) < count:
        live = np.flatnonzero(state.phase != 7)
        if not live.size:
            state = engine.reset(rules, rng.integers(0, 2**63, 64, dtype=np.uint64))
            continue
        mask = engine.legal_mask(state, live)
        if rng.random() < 0.2:
            pick = rng.choice(live.size, size=min(4, live.size), replace=False)
            observations.append(observe(state.take(live[pick]), state.actor[live[pick]]))
            masks.append(mask[pick])
        weights = mask / mask.sum(1, keepdims=True)
        actions = np.array([rng.choice(mask.shape[1], p=w) for w in weights])
        engine.step(state, actions, games=live)
    return np.concatenate(observations)[:count], np.concatenate(masks)[:count]


def bot_outputs(path: Path, obs: np.ndarray, masks: np.ndarray) -> dict[str, np.ndarray]:
    """A checkpoint's greedy actions (int64), their log-probabilities and values (float32)."""
    network, inputs = load_policy_inputs(path)
    with torch.no_grad():
        logits, value = network(torch.from_numpy(obs[:, inputs.columns]))
        log_probs = torch.log_softmax(masked_logits(logits, torch.from_numpy(masks)), 1)
    greedy = log_probs.argmax(1)
    return {
        f"{path.stem}/greedy": greedy.numpy(),
        f"{path.stem}/logp": log_probs.gather(1, greedy[:, None]).squeeze(1).numpy(),
        f"{path.stem}/value": value.numpy(),
    }


def record() -> None:
    """Write :data:`GOLDEN_SHOWN` from today's code and checkpoints."""
    two, four = random_observations(2, 128, seed=11), random_observations(4, 128, seed=12)
    obs, masks = np.concatenate([two[0], four[0]]), np.concatenate([two[1], four[1]])
    data = {"obs": obs, "mask": masks}
    for path in shown_bots():
        data.update(bot_outputs(path, obs, masks))
    np.savez_compressed(GOLDEN_SHOWN, **data)


if __name__ == "__main__":
    record()
