"""The programs: one module per ``uno_rl`` subcommand (``train``, ``evaluate``, ``experiment``,
``play``, ``replay``, ``simulate``, ``average``, ``notebooks``, the listings ``presets``,
``decks``, ``agents`` and ``experiments``) and the benchmark as the sub-package :mod:`.bench`.

Each module holds the argument parser and a ``main(argv) -> int``; the work itself lives in the
layers below. ``uno_rl.__main__`` imports a program only when its subcommand runs. Importing the
package imports none of its modules.
"""
