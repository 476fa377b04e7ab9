"""``python -m uno_rl.simulate``: the same as ``uno_rl simulate`` (the program is :mod:`uno_rl.programs.simulate`)."""

import sys

from uno_rl.__main__ import main

if __name__ == "__main__":
    sys.exit(main(["simulate", *sys.argv[1:]], leaving=True))
