"""``python -m uno_rl.experiment``: the same as ``uno_rl experiment`` (the program is :mod:`uno_rl.programs.experiment`)."""

import sys

from uno_rl.__main__ import main

if __name__ == "__main__":
    sys.exit(main(["experiment", *sys.argv[1:]], leaving=True))
