"""uno_rl: faithful, batched UNO for reinforcement learning.

A vectorized NumPy game core (``uno_rl.core``) that plays N games in lockstep under the
official rules and every documented house-rule switch, with PettingZoo/Gymnasium adapters,
agents and PPO self-play built on top of it.
"""

__version__ = "0.1.0"
