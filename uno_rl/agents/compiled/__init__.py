"""The zoo heuristics compiled with the engine's kernel: the same actions as the batched agents
for the same generator, decided per game without NumPy's per-call costs (search play-outs, and
evaluations where every seat is one of them). :func:`.policy.compiled_policy` says which
agents are compiled."""
