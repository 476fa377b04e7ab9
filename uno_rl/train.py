"""``python -m uno_rl.train``: the same as ``uno_rl train`` (the program is :mod:`uno_rl.programs.train`)."""

import sys

from uno_rl.__main__ import main

if __name__ == "__main__":
    sys.exit(main(["train", *sys.argv[1:]], leaving=True))
