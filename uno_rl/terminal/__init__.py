"""Text-mode pieces of the terminal programs (``python -m uno_rl.play``, ``python -m uno_rl.replay``).

* :mod:`.style`: ANSI colors for cards and color names, or plain text.
* :mod:`.narrate`: the events of a decision in words, each with who may see it.
* :mod:`.effect_lines`: what each card did, in words (one sentence maker per effect).
* :mod:`.voice`: the lines of the narration and how they name the players.
* :mod:`.table`: the table as one seat sees it, or with every hand open.
* :mod:`.menu`: the numbered legal choices and phase questions; parsing answers.
* :mod:`.console`: a person at the terminal as one seat of a game.
"""
