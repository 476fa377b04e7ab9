"""uno_rl: faithful, batched UNO for reinforcement learning.

A vectorized NumPy game core (``uno_rl.core``) that plays N games in lockstep under the
official rules and every documented house-rule switch, with PettingZoo/Gymnasium adapters,
agents and PPO self-play built on top of it.
"""

from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _version

from .plumbing.openmp import shorten_openmp_spin

shorten_openmp_spin()  # before PyTorch loads its OpenMP runtime

try:
    __version__ = _version("uno_rl")
except PackageNotFoundError:  # run from a source tree that was never installed
    __version__ = "0.1.0"  # keep in step with pyproject.toml's [project] version

del PackageNotFoundError, _version, shorten_openmp_spin
