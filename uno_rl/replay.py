"""``python -m uno_rl.replay``: the same as ``uno_rl replay`` (the program is :mod:`uno_rl.programs.replay`)."""

import sys

from uno_rl.__main__ import main

if __name__ == "__main__":
    sys.exit(main(["replay", *sys.argv[1:]], leaving=True))
