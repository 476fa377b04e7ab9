"""Which agents play compiled, and their parameters as the compiled kernel reads them.

:func:`compiled_policy` gives a :class:`CompiledPolicy` for the zoo heuristics (``random``,
``random-playable``, ``color-first``, ``points-dumper``, ``aggressive``, ``rule``, with every
bluff, challenge and condition parameter, on every deck) when the compiled engine is in use
(:func:`uno_rl.core.backend.compiled_engine`); None otherwise (a subclass, the NumPy engine):
those agents play batched.
:meth:`CompiledPolicy.actions` returns the batched agent's ``act_on_state`` actions, with the
same generator draws, for the acting seats of a state's games.
"""

from __future__ import annotations

import sys

import numpy as np

from uno_rl.core.backend import compiled_engine
from uno_rl.core.cards import WILD_DRAW_FOUR
from uno_rl.core.layout import DISCARD_ALL, SHUFFLE_HANDS, SWAP_HANDS
from uno_rl.core.state import State

from .. import bluff as bluff_module
from .. import challenge
from ..base import Agent
from ..challenge import POLICIES
from ..conditions import active_conditions
from ..heuristic import _targeted_four
from ..play_order import changes_hands
from ..random_agents import RandomAgent, RandomPlayableAgent
from ..responses import boomerang_play
from ..state_view import StateView
from ..strategies import (
    AggressiveAgent,
    ColorFirstAgent,
    PointsDumperAgent,
    RuleAgent,
    _tables,
)
from . import codes as S

__all__ = ["CompiledPolicy", "cache_is_cold", "compiled_policy", "entry_points"]

_STRATEGIES = {
    RandomAgent: S.RANDOM,
    RandomPlayableAgent: S.RANDOM_PLAYABLE,
    ColorFirstAgent: S.COLOR_FIRST,
    PointsDumperAgent: S.POINTS_DUMPER,
    AggressiveAgent: S.AGGRESSIVE,
    RuleAgent: S.RULE,
}
#: What each condition reads, by the middle of its name (``bluff_next_max``: ``next``).
_FEATURES = {
    "next": S.NEXT, "hand": S.OWN, "own": S.OWN,
    "color": S.COLOR_CARDS, "wilds": S.WILDS, "lead": S.LEAD,
    "top": S.TOP, "turn": S.TURN, "their": S.THEIR,
}  # fmt: skip
#: NumPy's ``log(max(count, 1e-12))`` of a float32 card count (the rule agent's scores).
_LOG_HELD = np.log(np.maximum(np.arange(256, dtype=np.float32), 1e-12))


def _condition_rows(params, side: str) -> np.ndarray:
    """(C, 3) int64 ``(feature, bound, value)``: the set conditions of ``side``."""
    rows = []
    for name, value in active_conditions(params, side).items():
        if name == "challenge_named":
            rows.append((S.KEPT, S.EQUALS, 1 if value == "kept" else 0))
            continue
        what, bound = name.split("_", 1)[1].rsplit("_", 1)
        rows.append((_FEATURES[what], S.AT_LEAST if bound == "min" else S.AT_MOST,
                     int(value)))  # fmt: skip
    return np.array(rows, np.int64).reshape(len(rows), 3)


class CompiledPolicy:
    """An agent's parameters and tables for the compiled kernel (:mod:`.nb_phases`)."""

    def __init__(self, agent: Agent, strategy: int):
        rules = agent.rules
        params = agent.params
        layout = rules.layout
        kinds = layout.num_kinds
        self.rules = rules
        ints = np.zeros(S.NUM_INTS, np.int64)
        floats = np.zeros(S.NUM_FLOATS, np.float64)
        tables = np.zeros((S.NUM_TABLES, kinds), np.float64)
        ints[S.STRATEGY] = strategy
        ints[S.FORCED_KIND] = WILD_DRAW_FOUR
        ints[S.BOOMERANG_KIND] = ints[S.BOOMERANG_ACTION] = -1
        if strategy >= S.COLOR_FIRST:
            t = _tables(agent)
            ints[S.FORCED_KIND] = _targeted_four(layout)
            ints[S.CHANGES_HANDS] = changes_hands(rules)
            ints[S.DISCARD_ALL_ON] = t.discard_all
            ints[S.CLOSE_AT] = agent.close_at()
            boomerang = boomerang_play(layout)
            if boomerang is not None:
                ints[S.BOOMERANG_KIND], ints[S.BOOMERANG_ACTION] = boomerang
            effect = rules.effect_rank
            tables[S.IS_SWAP] = effect == SWAP_HANDS
            tables[S.IS_SHUFFLE] = effect == SHUFFLE_HANDS
            tables[S.IS_DISCARD_ALL] = effect == DISCARD_ALL
            ints[S.CHALLENGE_POLICY] = POLICIES.index(params["challenge"])
            ints[S.CHALLENGE_HAND] = params["challenge_hand"]
            ints[S.CHALLENGE_COLOR] = params["challenge_color"]
            ints[S.STACK] = params["stack"]
            ints[S.PLAY_DRAWN] = params["play_drawn"]
            ints[S.ATTACK_AT] = params.get("attack_at", 0)
            ints[S.BLUFF_ANY] = params["bluff_when"] == "any"
            ints[S.CHALLENGE_ANY] = params["challenge_when"] == "any"
            floats[S.BLUFF] = params["bluff"]
            if params["challenge"] == "bayes" and rules.challenge_enabled:
                floats[S.BREAK_EVEN] = bluff_module.challenge_break_even(rules, params["objective"])
            tables[S.FAVORITE_0 : S.FAVORITE_3 + 1] = t.color_first_by_favorite
            tables[S.POINTS] = t.points
            tables[S.RANK_IF_COLORED] = t.rank_if_colored
            tables[S.AGGRESSIVE_WILDS] = t.aggressive_wilds
            tables[S.NEXT_ATTACK] = t.next_attack
            tables[S.ANY_ATTACK] = t.any_attack
            tables[S.THREAT_WILDS] = t.threat_wilds
            tables[S.CALM_WILDS] = t.calm_wilds
            tables[S.COPIES] = rules.deck_cards.copies
        self.ints, self.floats, self.tables = ints, floats, tables
        self.log_held = _LOG_HELD
        #: (C, 3) int64 set conditions (none for the random agents, which have no parameters).
        heuristic = strategy >= S.COLOR_FIRST
        none = np.zeros((0, 3), np.int64)
        self.bluff_rows = _condition_rows(params, "bluff") if heuristic else none
        self.challenge_rows = _condition_rows(params, "challenge") if heuristic else none
        self.label = agent.label

    def __setstate__(self, state: dict) -> None:
        # Unpickled arrays can be read-only (Ray's zero-copy object store); numba compiles a
        # read-only array as another type, so a worker would compile the kernels anew.
        self.__dict__.update(
            {key: np.array(value) if isinstance(value, np.ndarray) else value
             for key, value in state.items()}
        )  # fmt: skip

    def kernel_arguments(self) -> tuple:
        """The policy's arguments of :func:`.nb_phases.decide`, in order."""
        return (self.ints, self.floats, self.tables, self.log_held, self.bluff_rows,
                self.challenge_rows)  # fmt: skip

    def actions(self, state: State, masks: np.ndarray, rng: np.random.Generator,
                rows: np.ndarray | None = None, caps: np.ndarray | None = None) -> np.ndarray:  # fmt: skip
        """(k,) int64: the actions of the acting seats of games ``rows`` ((k,) int64; None:
        all N) of ``state`` with legal ``masks`` ((k, A) bool), as the batched agent's
        ``act_on_state`` returns them; ``caps`` ((k,) ints): a ``bayes`` memory's bounds
        (:func:`uno_rl.agents.challenge.memory_caps`; None: no memory)."""
        from uno_rl.core.compiled.nb_pcg64 import reads_in_place
        from uno_rl.core.compiled.nb_rules import rule_tables
        from uno_rl.core.compiled.nb_state import game_arrays

        from . import nb_phases

        games = (
            np.arange(state.num_games, dtype=np.int64)
            if rows is None
            else np.ascontiguousarray(rows, dtype=np.int64)
        )
        masks = np.ascontiguousarray(masks, dtype=bool)
        out = np.empty(games.size, np.int64)
        bad = nb_phases.heuristic_actions_kernel(
            game_arrays(state), rule_tables(state.rules), *self.kernel_arguments(), games,
            masks, _NO_CAPS if caps is None else np.ascontiguousarray(caps, dtype=np.int64), rng,
            reads_in_place(rng), out,
        )  # fmt: skip
        if bad >= 0:
            if self.ints[S.STRATEGY] <= S.RANDOM_PLAYABLE:
                raise ValueError(f"game {bad} has no legal action (is it over?)")
            raise ValueError(
                f"{self.label}: no decision in phase {int(state.phase[games[bad]])} "
                "(is the game over?)"
            )
        return out

    def remembering_actions(self, state: State, masks: np.ndarray, rng: np.random.Generator,
                            rows: np.ndarray, memory) -> np.ndarray:  # fmt: skip
        """:meth:`actions` of a ``challenge=bayes`` agent with its ``memory`` (of every game
        slot; ``rows`` (k,) int64 the games): the memory is folded in and kept as the batched
        agent's ``act`` does (:mod:`uno_rl.agents.challenge`), the decisions compiled."""
        rows = np.asarray(rows, np.int64)
        view = StateView(state, rows)
        challenge.update_memory(memory, rows, view)
        actions = self.actions(state, masks, rng, rows, challenge.memory_caps(memory, rows, view))
        challenge.remember_action(memory, rows, view, actions, state.rules)
        return actions


#: The kernel's ``caps`` without a memory.
_NO_CAPS = np.empty(0, np.int64)


def compiled_policy(agent: Agent) -> CompiledPolicy | None:
    """The compiled form of ``agent``, or None where it plays batched (see the module)."""
    strategy = _STRATEGIES.get(type(agent))
    if strategy is None or not compiled_engine():
        return None
    policy = agent.__dict__.get("_compiled_policy")
    if policy is None:
        _announce_compilation()
        policy = agent.__dict__["_compiled_policy"] = CompiledPolicy(agent, strategy)
    return policy


_announced = False


def entry_points() -> tuple:
    """The heuristics' kernels that Python calls (compiled dispatchers)."""
    from . import nb_jobs, nb_phases, nb_playout

    return (nb_phases.heuristic_actions_kernel, nb_playout.play_out_lanes,
            nb_jobs.play_job_steps)  # fmt: skip


def cache_is_cold() -> bool:
    """Whether some of the heuristics' kernels (the ones Python calls) has no machine code on
    disk yet (its first call compiles; :mod:`.precompile` compiles them up front)."""
    from uno_rl.core.compiled import warm as engine_warm

    return engine_warm.cache_is_cold(entry_points())


def _announce_compilation() -> None:
    """Say once, on stderr, that the heuristics' kernels are about to compile (a cold cache:
    the first process on a machine), as the engine does."""
    global _announced
    if _announced:
        return
    _announced = True
    if cache_is_cold():
        print("uno_rl: compiling the heuristics, once on a machine (about 40 seconds)",
              file=sys.stderr, flush=True)  # fmt: skip
