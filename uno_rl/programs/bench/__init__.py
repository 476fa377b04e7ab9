"""``uno_rl bench``: the throughput benchmark. :mod:`.command` parses the command line and
prints the table; :mod:`.timing` times a step function; :mod:`.peers` steps RLCard and
Stable-Baselines3 in the same run; :mod:`.search_rows` times the search agents."""
