"""The plumbing every layer may use: command-line parsing and error lines (:mod:`.cli`),
durable writes (:mod:`.durable`), worker processes and Ctrl-C (:mod:`.processes`), the shipped
and user data folders (:mod:`.resources`) and small TOML files (:mod:`.tomlfile`).

Nothing here imports a layer of uno_rl (only :mod:`uno_rl.render.safe`, a leaf), so the core
can read presets and decks with it. Importing the package imports none of its modules.
"""
