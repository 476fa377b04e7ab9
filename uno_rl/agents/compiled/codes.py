"""The numbers the compiled heuristics and their Python side agree on: strategy and policy
codes, the indices of an agent's ``ints``, ``floats`` and ``tables`` arrays, and the condition
features (plain Python: importing it does not import numba)."""

from __future__ import annotations

# Strategies (``ints[STRATEGY]``).
RANDOM, RANDOM_PLAYABLE, COLOR_FIRST, POINTS_DUMPER, AGGRESSIVE, RULE = range(6)
# Challenge policies (``ints[CHALLENGE_POLICY]``), in the order of ``challenge.POLICIES``.
NEVER, ALWAYS, THRESHOLD, BAYES = range(4)
# Indices into ``ints``.
(
    STRATEGY, CHALLENGE_POLICY, CHALLENGE_HAND, CHALLENGE_COLOR, STACK, PLAY_DRAWN, ATTACK_AT,
    BLUFF_ANY, CHALLENGE_ANY, FORCED_KIND, CHANGES_HANDS, DISCARD_ALL_ON, BOOMERANG_KIND,
    BOOMERANG_ACTION, CLOSE_AT, NUM_INTS,
) = range(16)  # fmt: skip
# Indices into ``floats``.
BLUFF, BREAK_EVEN, NUM_FLOATS = range(3)
# Rows of ``tables`` ((NUM_TABLES, K) float64).
(
    FAVORITE_0, FAVORITE_1, FAVORITE_2, FAVORITE_3, POINTS, RANK_IF_COLORED, AGGRESSIVE_WILDS,
    NEXT_ATTACK, ANY_ATTACK, THREAT_WILDS, CALM_WILDS, COPIES, IS_SWAP, IS_SHUFFLE,
    IS_DISCARD_ALL, NUM_TABLES,
) = range(16)  # fmt: skip
#: The ``bayes`` bound of a game without a memory: every card of the +4 player's hand.
NO_CAP = 1 << 30
#: Features a condition reads (a condition row is ``(feature, bound, value)``).
NEXT, OWN, COLOR_CARDS, WILDS, LEAD, TOP, TURN, THEIR, KEPT = range(9)
#: A condition's bound: at least, at most, or (``KEPT``) equal to the value (1 kept, 0 changed).
AT_LEAST, AT_MOST, EQUALS = range(3)
