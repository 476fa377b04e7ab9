"""uno_rl.envs: adapters from the batched core to standard RL interfaces.

* :mod:`.uno_v1`: the PettingZoo AEC environment (``env``, ``raw_env``) and its turn-based
  parallel view (``parallel_env``). Importing this package registers it in PettingZoo's
  registries as ``uno_rl/uno-v1`` (``pettingzoo.make("aec", "uno_rl/uno-v1", players=4)``;
  ``"uno_rl/uno_v1"`` is accepted too and normalized to the same id).
* :mod:`.registration`: registers the Gymnasium envs (``uno_rl/Uno-v1``) on import.
* :mod:`.game`: :class:`SingleGame`, one game over the core, shared by the single-game envs.
* The text rendering and the ``rgb_array`` frames the envs show are drawn by
  :mod:`uno_rl.render` (:mod:`uno_rl.render.text`, :mod:`uno_rl.render.frames`).
* :mod:`.gym_env`, :mod:`.vector`: the Gymnasium single-agent env and the native VectorEnv;
  :mod:`.opponents`: opponents by name.
* :mod:`.sb3`: the Stable-Baselines3 ``VecEnv`` adapter (the ``sb3`` extra; not imported here).
* :mod:`.torchrl_env`: the PettingZoo env in TorchRL's ``PettingZooWrapper``, and one learner
  seat of it as a TorchRL env (the ``torchrl`` extra; not imported here).
* :mod:`.openspiel_game`: UNO as the OpenSpiel game ``python_uno_rl`` (the ``openspiel`` extra;
  not imported here), its rounds and chance nodes in :mod:`.openspiel_round` and
  :mod:`.openspiel_chance`.
* :mod:`.state_vector`: the privileged full-state vector of ``state()``.
"""

from __future__ import annotations

from pettingzoo import aec_registry, parallel_registry, register

from . import game, registration, uno_v1
from .game import SingleGame

__all__ = ["ENV_ID", "SingleGame", "game", "registration", "uno_v1"]

#: PettingZoo registry id of the UNO environment (namespace ``uno_rl``, version 1).
ENV_ID = "uno_rl/uno-v1"

# Registered once per process (re-importing or reloading does not warn about overriding).
if ENV_ID not in aec_registry:
    register("aec", ENV_ID, entry_point="uno_rl.envs.uno_v1:env")
if ENV_ID not in parallel_registry:
    register("parallel", ENV_ID, entry_point="uno_rl.envs.uno_v1:parallel_env")
