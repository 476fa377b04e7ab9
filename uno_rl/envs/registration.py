"""Registers ``uno_rl/Uno-v1`` in Gymnasium's registry (on import; idempotent).

* ``gymnasium.make("uno_rl/Uno-v1", **kwargs)`` builds :class:`uno_rl.envs.gym_env.UnoEnv`
  (one learner against opponents; keyword arguments are its arguments and rule switches,
  e.g. ``players=4, stacking="any", opponents="color-first"``; ``opponents`` takes the
  forms of :mod:`uno_rl.envs.opponents`, default ``"random-playable"``). The registered
  illegal-action policy is the default ``"penalize"``, with which Gymnasium's
  ``check_env`` passes.
* ``gymnasium.make_vec("uno_rl/Uno-v1", num_envs=N, vectorization_mode="vector_entry_point")``
  builds :class:`uno_rl.envs.vector.UnoVectorEnv`, the native vector env over one batched
  core State (``vectorization_mode=None`` picks it too; ``"sync"`` / ``"async"`` would
  wrap N single envs instead).

``import uno_rl.envs`` imports this module; importing it directly works as well.
"""

from __future__ import annotations

import gymnasium

__all__ = ["ENV_ID", "register"]

#: Gymnasium id: namespace ``uno_rl``, name ``Uno``, version 1.
ENV_ID = "uno_rl/Uno-v1"


def register() -> None:
    """Register :data:`ENV_ID` unless it is registered already."""
    if ENV_ID in gymnasium.registry:
        return
    gymnasium.register(
        id=ENV_ID,
        entry_point="uno_rl.envs.gym_env:UnoEnv",
        vector_entry_point="uno_rl.envs.vector:UnoVectorEnv",
        nondeterministic=False,
    )


register()
