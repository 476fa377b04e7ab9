"""``python -m uno_rl.bench``: the same as ``uno_rl bench`` (the program is :mod:`uno_rl.programs.bench.command`)."""

import sys

from uno_rl.__main__ import main

if __name__ == "__main__":
    sys.exit(main(["bench", *sys.argv[1:]], leaving=True))
