"""Experiments: a config file's grid of presets x rule switches x player counts x agents
(:mod:`.config`, its checks, focus and behaviour sections and size limits), the runner that plays
its cells through the evaluator and resumes them (:mod:`.runner`) and the overview it prints
(:mod:`.overview`). The command line is :mod:`uno_rl.programs.experiment`."""
