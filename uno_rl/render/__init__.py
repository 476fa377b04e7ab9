"""Rendering shared by the environments and the terminal programs.

* :mod:`.text`: the text view of one game, ANSI-colored cards (:func:`~.text.render_text`,
  :func:`~.text.color_card`), and :class:`~.text.TableView`, what both renderings draw.
* :mod:`.frames` (with :mod:`.card_art`): the ``rgb_array`` frames, drawn with Pillow.
* :mod:`.safe`: :func:`~.safe.printable`, text from files and command lines made safe to print.

The package sits just above the core: its modules may import :mod:`uno_rl.core` and the
shared base modules only, never the environments, agents or programs (so that
:mod:`uno_rl.envs` and :mod:`uno_rl.terminal` can both use it). This ``__init__`` imports
nothing, so that importing :mod:`.safe` (as the ``uno_rl`` command does) stays fast and loads
neither NumPy nor Pillow.
"""
