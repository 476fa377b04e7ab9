"""``python -m uno_rl.play``: the same as ``uno_rl play`` (the program is :mod:`uno_rl.programs.play`)."""

import sys

from uno_rl.__main__ import main

if __name__ == "__main__":
    sys.exit(main(["play", *sys.argv[1:]], leaving=True))
