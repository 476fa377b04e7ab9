"""A scripted player for the terminal programs: reads the menu on screen, picks a choice.

Shared by the pseudo-terminal tests (the real ``python -m uno_rl.play``) and by in-process
runs of :func:`uno_rl.programs.play.main`, so both play the same game for the same seed.
"""

from __future__ import annotations

import re
import signal
from collections.abc import Sequence

from uno_rl.render.text import strip_ansi

#: The question of each kind of decision, as the program prints it.
QUESTIONS = {
    "play": "Your turn: play a card or draw.",
    "drawn": "Play the drawn card?",
    "challenge": "Challenge the +4?",
    "respond": "cards to draw are coming your way",
    "color": "Choose a color for your",
    "first color": "choose its color.",
    "target": "Swap hands with whom?",
    "multi": "in the same turn?",
    "jump": "Jump in with",
    # the cards of rules specification §11
    "target draw": "Whom do you target with",
    "skip": "A Skip is coming your way",
    "challenge targeted": "Challenge the targeted +4?",
}

_CHOICE = re.compile(r"^\s+(\d+)\) (.*)$", re.MULTILINE)


def choices(screen: str) -> list[str]:
    """The labels of the last menu printed in ``screen`` (ANSI codes removed)."""
    text = strip_ansi(screen)
    start = max(text.rfind(q) for q in QUESTIONS.values())
    return [label for _, label in _CHOICE.findall(text[max(start, 0) :])]


def pick(screen: str, prefer: Sequence[str]) -> str:
    """The answer: the first choice containing the first matching preference, else ``1``."""
    labels = choices(screen)
    for wanted in prefer:
        for number, label in enumerate(labels, 1):
            if wanted in label:
                return str(number)
    return "1"


def questions_seen(screen: str) -> set[str]:
    """Which kinds of question appear in ``screen``."""
    text = strip_ansi(screen)
    return {kind for kind, question in QUESTIONS.items() if question in text}


def play_in_process(argv: Sequence[str], prefer: Sequence[str], limit: int = 3000):
    """Run :func:`uno_rl.programs.play.main` with the scripted player; (exit code, whole output)."""
    import io

    from uno_rl.programs import play

    out = io.StringIO()
    seen = 0
    answers = 0

    def read_line() -> str:
        nonlocal seen, answers
        answers += 1
        if answers > limit:
            raise EOFError
        screen = out.getvalue()[seen:]
        seen += len(screen)
        return pick(screen, prefer)

    code = play.main(list(argv), read_line, out)
    return code, out.getvalue()


def find_seed(argv: Sequence[str], prefer: Sequence[str], wanted: set[str], start: int = 0,
              tries: int = 300) -> int:  # fmt: skip
    """The first ``--seed`` from ``start`` whose game, played by the scripted player, asks every
    kind of question in ``wanted`` (played in-process: a few milliseconds a game). Found at
    test time, so the tests do not depend on what a given seed deals."""
    for seed in range(start, start + tries):
        code, out = play_in_process([*argv, "--seed", str(seed)], prefer)
        if code == 0 and wanted <= questions_seen(out):
            return seed
    raise AssertionError(f"no seed in [{start}, {start + tries}) asks {sorted(wanted)}")


def first_card_wild_seed(preset: str, players: int) -> tuple[int, int]:
    """(``--seed``, seat) of a game whose first card is a Wild that this seat names."""
    import numpy as np

    from uno_rl.core import engine, load_rules
    from uno_rl.core.phases import COLOR
    from uno_rl.programs.play import game_seeds

    rules = load_rules(preset, players=players)
    for seed in range(5000):
        deal_seed, _ = game_seeds(seed)
        state = engine.reset(rules, np.array([deal_seed], np.uint64))
        if state.phase[0] == COLOR:
            return seed, int(state.actor[0])
    raise AssertionError("no first-card Wild in 5000 deals")


def default_sigint() -> None:
    """``preexec_fn`` for a spawned program: Ctrl-C as in an interactive shell. A test run
    started in the background (``pytest &``) ignores SIGINT, and children inherit that."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
