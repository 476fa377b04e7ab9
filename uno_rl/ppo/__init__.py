"""PPO self-play training: the config (:mod:`.config`), the network (:mod:`.network`), rollouts
and updates, checkpoints, the logger and report, and the trained bot as an agent
(:mod:`.agent`, registered through the ``uno_rl.agents`` entry point). Importing the package
imports none of its modules (torch loads with them)."""
