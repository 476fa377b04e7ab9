"""Build helpers of the documentation site (``mkdocs.yml``; ``mkdocs build --strict``).

* :mod:`.code_tables`: Markdown tables generated from the code (the rule switches, the presets,
  the subcommands, the training config), so that the site cannot drift from what the code
  accepts.
* :mod:`.api_pages`: the API reference pages, one per layer, generated from the package tree.
* :mod:`.rst`: the reST-isms of this repository's docstrings (roles, ``::`` literal blocks,
  simple tables) rewritten as Markdown, which is what mkdocstrings renders.
* :mod:`.hooks`: the MkDocs hook that expands ``<!-- uno_rl ... -->`` markers in ``docs/`` and
  adds the reference pages.
* :mod:`.griffe_ext`: the Griffe extension that applies :mod:`.rst` to every docstring and
  loads ``uno_rl/ppo`` (a folder without ``__init__.py``, which Griffe skips).
* :mod:`.results` (``make results``): the Results pages' figures and tables, redrawn from the
  experiments' runs (:mod:`.results_frames` reads them, :mod:`.results_figures` and
  :mod:`.results_tables` draw and write them, :mod:`.bench_table` turns a
  ``uno_rl bench --json`` run into the benchmark table).
* :mod:`.exploit_tables`: the Exploitability page's tables, gathered from ``uno_rl exploit``
  runs.

:mod:`.code_tables`, :mod:`.api_pages` and :mod:`.rst` need nothing beyond uno_rl; :mod:`.hooks`
imports MkDocs when MkDocs calls it, and :mod:`.griffe_ext` imports Griffe (the ``docs`` extra).
"""
