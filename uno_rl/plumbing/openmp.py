"""PyTorch's OpenMP threads told to stop spinning soon when they wait.

At every barrier, GNU OpenMP (the runtime of PyTorch's CPU builds) keeps a waiting thread
spinning for some 300,000 rounds before it sleeps. A process alone on its cores loses nothing
by that; two that share them (two trainings, or a training and an evaluation of a PPO bot)
spin on the cores the other needs: on 2 cores two trainings ran 6,000 decisions a second each,
against 150,000 for one alone. With 10,000 rounds they run 54,000 each, and one alone is as
fast as before.

The runtime reads its settings when it loads (PyTorch's first import), so :mod:`uno_rl` sets
them on its own import; a user's ``GOMP_SPINCOUNT`` or ``OMP_WAIT_POLICY`` is left as it is.
"""

from __future__ import annotations

import os
from collections.abc import MutableMapping

__all__ = ["SPIN_COUNT", "shorten_openmp_spin"]

#: Rounds a waiting OpenMP thread spins before it sleeps.
SPIN_COUNT = "10000"


def shorten_openmp_spin(environ: MutableMapping[str, str] = os.environ) -> None:
    """Set ``GOMP_SPINCOUNT`` to :data:`SPIN_COUNT` in ``environ`` unless the user chose a
    spin count or a wait policy."""
    if "GOMP_SPINCOUNT" not in environ and "OMP_WAIT_POLICY" not in environ:
        environ["GOMP_SPINCOUNT"] = SPIN_COUNT
