"""``python -m uno_rl.evaluate``: the same as ``uno_rl evaluate`` (the program is :mod:`uno_rl.programs.evaluate`)."""

import sys

from uno_rl.__main__ import main

if __name__ == "__main__":
    sys.exit(main(["evaluate", *sys.argv[1:]], leaving=True))
