"""The smallest real training run, shared by the tests that need one run's folder fast."""

#: A few thousand decisions of a tiny network (8 updates, a checkpoint every 4); no zoo and no
#: heuristic evaluation (the opponents are the pool), so the run tests the trainer alone.
TINY_TRAINING_ARGS = [
    "--num-games", "16", "--rollout-steps", "16", "--total-decisions", "2048",
    "--hidden", "16", "--minibatch-size", "128", "--update-epochs", "2",
    "--checkpoint-every", "4", "--torch-threads", "1", "--zoo-share", "0", "--zoo", "",
    "--self-play", "0.7", "--pool-share", "0.3", "--pool-size", "2", "--snapshot-every", "2",
    "--eval-every", "0", "--final-eval-rounds", "0", "--no-progress",
]  # fmt: skip
