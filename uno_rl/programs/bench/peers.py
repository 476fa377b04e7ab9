"""Benchmark rows of peers (:mod:`uno_rl.programs.bench.command`): MaskablePPO over the SB3 adapter against
one Gymnasium env, and RLCard's UNO ``env.step`` loop. Both need an optional extra (``sb3``,
``rlcard``) and import it only when the row runs."""

from __future__ import annotations

import math
import random

import numpy as np

from uno_rl.programs.bench.timing import StepFn, log, measure, measure_pair

#: The maskable-ppo rows: games of the adapter, samples per update (rollout), minibatch, epochs.
SB3_GAMES = 128
SB3_ROLLOUT = 1024
SB3_BATCH = 512
SB3_EPOCHS = 4


def maskable_ppo_rows(players: int, seconds: float, repeats: int, seed: int) -> list[dict]:
    """MaskablePPO learner steps/s over the SB3 adapter (``SB3_GAMES`` games) and over one
    Gymnasium env, same hyperparameters, random opponents, repeats interleaved; each timed
    step is one ``learn()`` of one rollout of ``SB3_ROLLOUT`` samples and its update."""
    import gymnasium
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback

    from uno_rl.envs.registration import ENV_ID
    from uno_rl.envs.sb3 import UnoSB3VecEnv

    class Episodes(BaseCallback):
        """Counts the learner episodes that end."""

        episodes = 0

        def _on_step(self) -> bool:
            self.episodes += int(np.count_nonzero(self.locals["dones"]))
            return True

    def stepper(env, games: int) -> StepFn:
        model = MaskablePPO(
            "MlpPolicy", env, n_steps=max(1, SB3_ROLLOUT // games), batch_size=SB3_BATCH,
            n_epochs=SB3_EPOCHS, seed=seed, device="cpu",
        )  # fmt: skip
        counter = Episodes()

        def step() -> tuple[int, int]:
            steps, episodes = model.num_timesteps, counter.episodes
            model.learn(model.n_steps * games, callback=counter, reset_num_timesteps=False)
            return model.num_timesteps - steps, counter.episodes - episodes

        return step

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        adapter, one = measure_pair(
            stepper(UnoSB3VecEnv(SB3_GAMES, players=players, opponents="random"), SB3_GAMES),
            stepper(gymnasium.make(ENV_ID, players=players, opponents="random"), 1),
            seconds,
            repeats,
        )
    finally:
        torch.set_num_threads(threads)
    setup = (
        f"{SB3_ROLLOUT:,} samples per update, minibatch {SB3_BATCH}, {SB3_EPOCHS} epochs, "
        "1 torch thread"
    )
    ratio = adapter["decisions_per_s"] / one["decisions_per_s"]
    common = {"name": "maskable-ppo", "players": players, "bytes_per_game": math.nan}
    return [
        {**common, "batch": SB3_GAMES, **adapter, "vs_one_env": ratio,
         "note": f"UnoSB3VecEnv adapter, {SB3_GAMES} games; {setup}; {ratio:.1f}x one env"},
        {**common, "batch": 1, **one, "vs_one_env": 1.0,
         "note": f"one Gymnasium env (uno_rl/Uno-v1 in a DummyVecEnv); {setup}"},
    ]  # fmt: skip


def rlcard_stepper(players: int, seed: int) -> tuple[StepFn, int, str]:
    """RLCard's UNO ``env.step`` loop with uniformly random legal actions: the step, the player
    count RLCard really runs (it ignores ``game_num_players``) and a note saying so."""
    import rlcard

    env = rlcard.make("uno", config={"game_num_players": players, "seed": int(seed)})
    real = int(env.num_players)
    note = ""
    if real != players:
        note = f"asked for {players} players; RLCard ignores game_num_players and ran {real}"
    pick = random.Random(seed)
    state, _ = env.reset()

    def step() -> tuple[int, int]:
        nonlocal state
        legal = list(state["legal_actions"])
        state, _ = env.step(legal[pick.randrange(len(legal))])
        if env.is_over():
            state, _ = env.reset()
            return 1, 1
        return 1, 0

    return step, real, note


def rlcard_record(players: int, timing: dict[str, float], note: str) -> dict:
    """The ``rlcard-step`` row of a timing (:func:`uno_rl.programs.bench.timing.measure`)."""
    return {
        "name": "rlcard-step",
        "players": players,
        "batch": 1,
        **timing,
        "bytes_per_game": math.nan,
        "note": note,
    }


def rlcard_row(players: int, seconds: float, repeats: int, seed: int, done: dict[int, dict]):
    """RLCard's UNO ``env.step`` loop, or None if the player count it runs is in ``done``

    (rows measured so far, by player count; the note then goes to that row).
    """
    step, real, note = rlcard_stepper(players, seed)
    if real in done:
        log(f"rlcard-step players={players} skipped: {note or 'duplicate'} (already measured)")
        if note:
            done[real]["note"] = "; ".join(filter(None, [done[real]["note"], note]))
        return None
    return rlcard_record(real, measure(step, seconds, repeats), note)
