"""Rendering shared by the environments and the terminal programs.

* :mod:`.text`: the text view of one game, ANSI-colored cards (:func:`~.text.render_text`,
  :func:`~.text.color_card`), and :class:`~.text.TableView`, what both renderings draw.
* :mod:`.frames` (with :mod:`.card_art`): the ``rgb_array`` frames, drawn with Pillow.

Names and messages are made safe to print by :mod:`uno_rl.plumbing.safe_text` (below the core,
for every program's error lines). The package sits just above the core: its modules may import
:mod:`uno_rl.core` and the plumbing only, never the environments, agents or programs (so that
:mod:`uno_rl.envs` and :mod:`uno_rl.terminal` can both use it). This ``__init__`` imports
nothing, so that importing one of its modules loads only what that module needs.
"""
