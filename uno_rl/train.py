"""The main job (``make train`` / ``python -m uno_rl.train``).

PPO self-play training arrives later (issue 5). Until then this entry point runs the batched
random-play simulation of :mod:`uno_rl.simulate` with its default arguments, so that the main job
exercises the real engine end to end and prints its statistics.
"""

from __future__ import annotations

from uno_rl import simulate


def main() -> None:
    """Run :func:`uno_rl.simulate.main` with default arguments (PPO comes in issue 5)."""
    simulate.main([])


if __name__ == "__main__":
    main()
