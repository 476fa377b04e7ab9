"""The plumbing every layer may use: command-line parsing and error lines (:mod:`.cli`),
durable writes (:mod:`.durable`), worker processes and Ctrl-C (:mod:`.processes`), the shipped
and user data folders (:mod:`.resources`), small TOML files (:mod:`.tomlfile`), text made
safe to print (:mod:`.safe_text`) and PyTorch's OpenMP spinning kept short (:mod:`.openmp`).

Nothing here imports another package of uno_rl, so the core can read presets and decks with it.
Importing the package imports none of its modules.
"""
