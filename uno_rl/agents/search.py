"""What the search agents share: the state protocol, the rollout agent, the objective, what
a seat knows of the others' hands, and batched play-outs of candidate actions.

A search agent (:attr:`~uno_rl.agents.base.Agent.needs_state`) is handed the engine state and
the game of each row; it reads it only through :func:`~uno_rl.agents.determinize.determinize`,
which draws everything the acting seat cannot see afresh (honest search). With a memory (the
evaluator gives every agent one), it also remembers the hand its own challenge revealed:
those cards, less any card of the same kind that reached the discard pile since, stay in that
player's hand in every world until a reshuffle, a hand shuffle or a swap. While a +4 of
another seat awaits its answer, ``bluff_belief`` of the worlds hold a bluff (the +4 player holds
a card that made it one) and the others none (:meth:`SearchAgent.answer_constraints`): drawn
uniformly, most hands would hold such a card, and a search would challenge players who never
bluff. With ``explain`` < 1 (the default) the memory also keeps *belief particles*: guesses of
the other hands weighted by how well a model of their play (the rollout agent by default)
explains each of their decisions (:mod:`uno_rl.agents.belief`); the worlds take the other
hands from them, except while a +4 awaits this seat's answer or after a challenge showed a
hand (the knowledge above then decides).

The rollout agent answers the searcher's +4s as its own ``challenge`` policy says (``never``
for the zoo's heuristics): a bluff then looks free. Once another seat has challenged a +4 in a
game (the memory keeps it for the rest of the match), that game's play-outs take the
``challengers`` policy instead (``bayes`` by default): against ``suspicious``, which
challenges most +4s, the search had bluffed at 0.21 a round and seen 87% of those bluffs
caught (100 matches to 500: level with it). Against a seat that never challenges nothing
changes: the same actions as without it.

A decision with one legal action is played without search. A play-out still running after
``horizon`` decisions (100) counts as a draw: the few long rounds kept the batch stepping
with nearly empty steps. ``cutoff = K`` stops every
play-out after K decisions and values the unfinished lanes with the rollout agent's value
estimate (a PPO policy's value head, in the objective's units:
:meth:`uno_rl.ppo.agent.PPOAgent.estimate`); it needs a rollout agent that has one.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from uno_rl.core import engine
from uno_rl.core.actions import CHALLENGE
from uno_rl.core.phases import RESPOND
from uno_rl.core.state import State

from .base import Agent, AgentError, Param, check_batch
from .belief import Belief, current_belief, new_belief, observe_event, resample
from .challenge import POLICIES as CHALLENGE_POLICIES
from .determinize import (
    bluff_kinds,
    determinize,
    join_states,
    reshuffle_piles,
    unseen_cards,
    world_blocks,
)
from .knowledge import constraints, new_knowledge, watch
from .playout import OBJECTIVES, CutOff, play_out, rollout_actions, values_of
from .search_budget import check as check_memory
from .search_budget import worlds_at_once

__all__ = ["Knowledge", "SearchAgent", "reshuffle_piles"]


class Knowledge(NamedTuple):
    """What the acting seats know of the others (:func:`uno_rl.agents.knowledge.constraints`):
    ``cards`` (k, P, K) known held, ``void`` (k, P, K) kinds not held among ``covered`` (k, P)
    of their cards; ``belief`` the particles of their hands (:mod:`uno_rl.agents.belief`);
    ``wary`` (k,) bool another seat has challenged a +4 in the game (its match); all None
    without a memory."""

    cards: np.ndarray | None = None
    void: np.ndarray | None = None
    covered: np.ndarray | None = None
    belief: Belief | None = None
    wary: np.ndarray | None = None

    def take(self, rows: np.ndarray) -> Knowledge:
        return Knowledge(
            *(None if a is None else a[rows] for a in self[:3]),
            None if self.belief is None else self.belief.take(rows),
            None if self.wary is None else self.wary[rows],
        )

    def wary_worlds(self, copies: int) -> np.ndarray | None:
        """(k * copies,) bool: :attr:`wary` of each of ``copies`` worlds per game (None:
        none is)."""
        if self.wary is None or not self.wary.any():
            return None
        return np.repeat(self.wary, copies)


class SearchAgent(Agent):
    """Base of the search agents: the rollout agent, the objective, what the seat knows.

    Subclasses implement :meth:`search` for the games that have a choice.
    """

    needs_state = True
    PARAMS: dict[str, Param] = {
        "rollout": Param(
            "color-first", "agent of every seat in the play-outs (a name or spec file)"
        ),
        "objective": Param(
            "points", "what a play-out is worth: points, win (the round), match", choices=OBJECTIVES
        ),
        "cutoff": Param(
            0,
            "stop play-outs after this many decisions, valued by the rollout "
            "agent's value estimate (0: play to the end)",
            low=0,
            high=100000,
        ),
        "horizon": Param(
            100,
            "count a play-out still running after this many decisions as a draw (0 points, "
            "not won; 0: play every round to its end; objective=match plays to the end): "
            "about 1-3% of the play-outs run longer, and their tail of nearly empty batched "
            "steps took about a seventh of the search's time",
            low=0,
            high=100000,
        ),
        "challengers": Param(
            "bayes",
            "challenge policy of the play-outs' agent in a game once another seat has "
            "challenged a +4 there (the rest of the match; off: always the rollout agent's "
            "own; heuristic rollout agents only)",
            choices=("off", *CHALLENGE_POLICIES),
        ),
        "infer_draws": Param(
            True,
            "assume a player who draws in the play phase held nothing playable (certain "
            "under voluntary_draw=false; the zoo's heuristics draw only when they must)",
        ),
        "infer_wilds": Param(
            False,
            "assume a player who plays a wild in the play phase held no playable colored "
            "card (color-first and rule play wilds last; off: it did not help)",
        ),
        "bluff_belief": Param(
            0.0,
            "share of the others' +4s awaiting this agent's answer it believes are bluffs (the "
            "zoo's heuristics never bluff unless told to): that share of the worlds hold a bluff",
            low=0.0,
            high=1.0,
        ),
        "explain": Param(
            -1.0,
            "weight floor of a belief particle for each of the others' decisions the model "
            "would not have taken (1: no particles, worlds drawn uniformly; 0: such particles "
            "are all but dropped; -1: 0.1 at 2 players, 0.01 at more, where the particles "
            "guessed 15% of the other hands' cards instead of 13.5%, uniform worlds 11%)",
            low=-1.0,
            high=1.0,
        ),
        "particles": Param(
            64,
            "belief particles per game (guesses of the other hands), when explain < 1",
            low=1,
            high=4096,
        ),
        "samples": Param(
            4,
            "draws of the model per decision and particle (it breaks ties at random)",
            low=1,
            high=64,
        ),
        "model": Param(
            "", "agent whose play explains the others' decisions (empty: the rollout agent)"
        ),
        "lanes": Param(
            131072,
            "most play-out lanes stepped at once (memory: about 3 KB each at 2 players, "
            "more with more players, larger decks or a PPO rollout agent; and speed); left "
            "unset, fewer where this many would pass the memory limit",
            low=64,
            high=4_000_000,
        ),
    }

    def __init__(self, rules, **params: Any):
        super().__init__(rules, **params)
        self.lanes_given = "lanes" in params  # a default over the memory limit is lowered
        if self.params["objective"] == "match" and not rules.match:
            raise AgentError(
                f"agent {self.name!r}: objective 'match' needs match rules (--set match=true)"
            )
        if -1.0 < self.params["explain"] < 0.0:
            raise AgentError(
                f"agent {self.name!r}: parameter 'explain' must be -1 (by the player count) "
                f"or in [0.0, 1.0], got {self.params['explain']!r}"
            )
        from .registry import STRATEGIES, make_agent

        # Before loading the rollout agent: whether it reads observations is known for the
        # built-in strategies (none does), not for spec files and PPO policies.
        named = (self.params["rollout"], self.params["model"] or self.params["rollout"])
        built_in = all(name.partition(":")[0].strip() in STRATEGIES for name in named)
        self.check_budget(observes=False if built_in else None)

        self.policy = make_agent(self.params["rollout"], rules)
        if self.policy.needs_state:
            raise AgentError(f"agent {self.name!r}: the rollout agent cannot be a search agent")
        self.model = self.policy
        if self.params["model"]:
            self.model = make_agent(self.params["model"], rules)
            if self.model.needs_state:
                raise AgentError(f"agent {self.name!r}: the model cannot be a search agent")
        columns = max(_observes(agent) for agent in (self.policy, self.model))
        if columns:
            self.check_budget(observes=columns)
        # The play-outs' agent once the others have shown they challenge (None: the same).
        self.wary_policy = None
        wary = self.params["challengers"]
        if wary != "off" and self.policy.params.get("challenge", wary) != wary:
            self.wary_policy = make_agent(self.params["rollout"], rules, challenge=wary)
        self.cut_off = None
        if self.params["cutoff"]:
            objective = self.params["objective"]
            problem = getattr(
                self.policy, "estimate_problem", lambda _o: "it has no value estimate"
            )
            why = problem(objective)
            if why:
                raise AgentError(
                    f"agent {self.name!r}: cutoff={self.params['cutoff']} needs a rollout agent "
                    f"that estimates {objective!r}; {self.policy.label!r} cannot: {why}"
                )
            estimate = self.policy.estimate
            self.cut_off = lambda state, seat: estimate(state, seat, objective)

    # ------------------------------------------------------------------ budget
    def check_budget(self, observes: bool | int | None) -> None:
        """Refuse (:class:`~uno_rl.agents.base.AgentError`) a budget whose memory estimate
        exceeds the limit (:mod:`uno_rl.agents.search_budget`); ``observes``: the rollout
        agent or model reads observations, an int how many of their columns (None: not known
        yet)."""
        check_memory(self, observes)

    def bookkeeping(self, lanes: int) -> tuple[int, str]:
        """``(bytes, advice)``: the most memory of the agent's own arrays at a decision with
        ``lanes`` lanes (beyond the lanes' states), and which parameter to lower."""
        return 0, ""

    # ------------------------------------------------------------------ memory
    @property
    def explain_floor(self) -> float:
        """The particles' weight floor: ``explain``, or for ``explain=-1`` 0.1 at 2 players
        and 0.01 at more (4 players, against ``color-first``: with 0.01 the particles
        guessed 15.1% of the other hands' cards, with 0.1 13.5%)."""
        if self.params["explain"] == -1.0:
            return 0.1 if self.rules.players == 2 else 0.01
        return self.params["explain"]

    @property
    def explains(self) -> bool:
        """Whether the memory keeps belief particles (:mod:`uno_rl.agents.belief`)."""
        return self.explain_floor < 1.0

    def new_memory(self, num_games: int) -> dict[str, np.ndarray]:
        memory = new_knowledge(num_games, self.rules.players, self.rules.layout.num_kinds)
        memory["seen_challenge"] = np.zeros(num_games, bool)  # kept for the whole match
        if self.explains:
            memory.update(new_belief(num_games, self.rules, self.params["particles"]))
        return memory

    def watch(self, memory, rows, state, games, observer, actions) -> None:
        """Remember the public events of ``games`` (the actors' ``actions``, before the step)
        as seat ``observer`` sees them (:func:`uno_rl.agents.knowledge.watch`)."""
        watch(
            memory, rows, state, games, observer, actions, self.params["infer_draws"],
            self.params["infer_wilds"],
        )  # fmt: skip
        challenged = np.asarray(actions, np.int64) == CHALLENGE
        challenged &= state.actor[np.asarray(games, np.int64)] != np.asarray(observer)
        memory["seen_challenge"][np.asarray(rows, np.int64)[challenged]] = True
        if "belief_hands" in memory:
            observe_event(
                memory, np.asarray(rows, np.int64), state, np.asarray(games, np.int64),
                np.asarray(observer, np.int64), np.asarray(actions, np.int64), self.model,
                self.explain_floor, self.params["samples"], self.params["lanes"],
            )  # fmt: skip

    # ------------------------------------------------------------------ protocol
    def act(self, observations, masks, rng, memory=None, rows=None, state=None, games=None):
        k = check_batch(None, masks, False, self.rules)
        if state is None or games is None:
            raise ValueError(
                f"agent {self.label!r} searches the game: it needs the engine state and the "
                "game of each row (state=, games=); uno_rl evaluate, experiments, the terminal "
                "game and replays pass them"
            )
        games = np.asarray(games, np.int64)
        if games.shape != (k,):
            raise ValueError(f"games must have one entry per mask row ({k}), got {games.shape}")
        cards, void, covered = constraints(memory, rows, state, games)
        belief = None
        if memory is not None and "belief_hands" in memory:
            belief = current_belief(memory, np.asarray(rows, np.int64), state, games)
        wary = None
        if memory is not None and self.wary_policy is not None:
            wary = memory["seen_challenge"][np.asarray(rows, np.int64)]
        known = Knowledge(cards, void, covered, belief, wary)
        legal = masks.sum(axis=1)
        actions = masks.argmax(axis=1).astype(np.int64)
        choice = np.flatnonzero(legal >= 2)
        if choice.size:
            actions[choice] = self.search(
                state, games[choice], masks[choice], rng, known.take(choice)
            )
        return actions

    def search(self, state, games, masks, rng, known: Knowledge) -> np.ndarray:
        """(k,) int64: the chosen action of each of ``games`` (k,), each with a choice."""
        raise NotImplementedError

    def worlds(
        self, state: State, games: np.ndarray, copies: int, rng: np.random.Generator,
        known: Knowledge,
    ) -> State:  # fmt: skip
        """``copies`` worlds of each of ``games`` (repeats allowed) for its acting seat, under
        what it knows and its belief about a +4 awaiting its answer; where the memory keeps
        belief particles (and no challenge showed a hand), the other hands are particles
        drawn by weight (:mod:`uno_rl.agents.belief`). They are dealt in parts of at most
        :func:`~uno_rl.agents.search_budget.worlds_at_once` worlds."""
        most = worlds_at_once(self.rules)
        if games.size * copies <= most:
            return self._deal_worlds(state, games, copies, rng, known)
        return join_states(
            [
                self._deal_worlds(state, games[rows], count, rng, known.take(rows))
                for rows, count, _ in world_blocks(games.size, copies, most)
            ]
        )

    def _deal_worlds(self, state, games, copies, rng, known: Knowledge) -> State:
        """:meth:`worlds`, all at once."""
        seat = state.actor[games].astype(np.int64)
        cards, void, covered = self.answer_constraints(state, games, seat, copies, rng, known)
        belief = known.belief
        if belief is not None:
            # A revealed hand and a +4 awaiting this seat's answer (bluff_belief) keep the
            # knowledge's worlds.
            use = belief.on & ~self._answering(state, games, seat)
            if known.cards is not None:
                use &= ~known.cards.any(axis=(1, 2))
            if use.any():
                cards, void, covered = self._particle_constraints(
                    games.size, copies, cards, void, covered, belief, use, rng
                )
        return determinize(state, games, seat, copies, rng, cards, void, covered)

    def _particle_constraints(self, k, copies, cards, void, covered, belief, use, rng):
        """Per-world ``(known, void, covered)``: the games ``use`` (k,) bool take every other
        hand from a particle drawn by weight, the others keep ``cards``, ``void``,
        ``covered`` (per game or per world, or None)."""
        p, kinds, n = self.rules.players, self.rules.layout.num_kinds, belief.log_weight.shape[1]

        def per_world(array, shape, dtype):
            if array is None:
                return np.zeros((k * copies, *shape), dtype)
            if array.shape[0] == k * copies and copies != 1:
                return array.astype(dtype, copy=True)
            return np.repeat(array, copies, axis=0).astype(dtype)

        cards = per_world(cards, (p, kinds), np.int16)
        void = per_world(void, (p, kinds), bool)
        covered = per_world(covered, (p,), np.int64)
        u = np.flatnonzero(use)
        pick = resample(belief.log_weight[u], u.size, n, copies, rng) % n
        lanes = (u[:, None] * copies + np.arange(copies)[None, :]).ravel()
        cards[lanes] = belief.hands[np.repeat(u, copies), pick]
        void[lanes] = False
        covered[lanes] = 0
        return cards, void, covered

    def answer_constraints(
        self, state: State, games: np.ndarray, seat: np.ndarray, copies: int,
        rng: np.random.Generator, known: Knowledge,
    ) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None]:  # fmt: skip
        """``(known, void, void_cards)`` for :func:`determinize`: ``known`` as it is, except
        where a +4 of another seat awaits this seat's answer. There a ``bluff_belief`` share
        of the worlds give its player one card that made it a bluff, and the others none of
        those cards in the whole hand (with the draws' void where it still covered every
        card); per world then, per game elsewhere."""
        rules = self.rules
        player = state.draw4_player[games].astype(np.int64)
        answering = self._answering(state, games, seat)
        if not answering.any():
            return known.cards, known.void, known.covered
        k, p, kinds = games.size, rules.players, state.hands.shape[2]
        n = k * copies

        def per_world(array, shape, dtype):
            out = np.zeros((n, *shape), dtype)
            if array is not None:
                out[:] = np.repeat(array, copies, axis=0)
            return out

        cards = per_world(known.cards, (p, kinds), np.int16)
        void = per_world(known.void, (p, kinds), bool)
        covered = per_world(known.covered, (p,), np.int64)
        g = np.flatnonzero(answering)
        lanes = (g[:, None] * copies + np.arange(copies)[None, :]).ravel()
        owner = np.repeat(player[g], copies)
        kinds_of_bluff = np.repeat(bluff_kinds(state, games[g]), copies, axis=0)  # (m, K)
        unseen = np.repeat(unseen_cards(state, games[g], seat[g]), copies, axis=0)
        candidates = np.where(kinds_of_bluff, np.maximum(unseen, 0), 0).astype(np.float64)
        bluff = (rng.random(lanes.size) < self.params["bluff_belief"]) & (candidates.sum(1) > 0)
        hand = state.hand_size[np.repeat(games[g], copies), owner].astype(np.int64)
        whole = covered[lanes, owner] >= hand  # the draws' void still covers every card
        honest = ~bluff
        l, o = lanes[honest], owner[honest]
        void[l, o] = kinds_of_bluff[honest] | (void[l, o] & whole[honest][:, None])
        covered[l, o] = hand[honest]
        if bluff.any():
            weights = candidates[bluff] / candidates[bluff].sum(axis=1, keepdims=True)
            pick = (weights.cumsum(axis=1) < rng.random(int(bluff.sum()))[:, None]).sum(axis=1)
            cards[lanes[bluff], owner[bluff], np.minimum(pick, kinds - 1)] += 1
        return cards, void, covered

    def _answering(self, state: State, games: np.ndarray, seat: np.ndarray) -> np.ndarray:
        """(k,) bool: a +4 of another seat awaits the answer of ``seat`` (k,) in ``games``."""
        if not self.rules.challenge_enabled:
            return np.zeros(games.size, bool)
        player = state.draw4_player[games].astype(np.int64)
        top = state.top[games].astype(np.int64)
        answering = (state.phase[games] == RESPOND) & self.rules.layout.draw_four_like[top]
        return answering & (player >= 0) & (player != seat) & (state.prev_top[games] >= 0)

    def own_choice(
        self, state: State, games: np.ndarray, masks: np.ndarray, rng: np.random.Generator,
        wary: np.ndarray | None = None,
    ) -> np.ndarray:  # fmt: skip
        """(k,) int64: what the play-outs' agent would play itself at the decisions of
        ``games`` (k,) with legal ``masks`` (k, A), from the acting seat's own view (the
        ``challengers`` agent in the games ``wary`` (k,) bool)."""
        chosen = np.empty(games.size, np.int64)
        on = np.zeros(games.size, bool) if wary is None else np.asarray(wary, bool)
        for rows, policy in ((~on, self.policy), (on, self.wary_policy)):
            if rows.any():
                here = state.take(games[rows])
                chosen[rows] = rollout_actions(policy, here, None, masks[rows], rng)
        return chosen

    def play_out_limit(self) -> tuple[int, CutOff | None]:
        """``(max_decisions, cut_off)`` of the play-outs: ``cutoff`` and the rollout agent's
        value estimate where set, else ``horizon`` valued as a draw (none under
        objective=match)."""
        if self.params["cutoff"]:
            return self.params["cutoff"], self.cut_off
        if self.params["objective"] == "match":
            return 0, None
        return self.params["horizon"], None

    def evaluate_actions(
        self, worlds: State, world_of_lane: np.ndarray, actions: np.ndarray,
        rng: np.random.Generator, wary: np.ndarray | None = None,
    ) -> np.ndarray:  # fmt: skip
        """(L,) float64: the value, to the seat acting in each world, of playing ``actions``
        (L,) in worlds ``world_of_lane`` (L,) and playing out, ``lanes`` lanes at a time;
        the worlds ``wary`` (num worlds,) bool (:meth:`Knowledge.wary_worlds`) are played out
        by the ``challengers`` agent."""
        budget = self.params["lanes"]
        values = np.empty(world_of_lane.size, np.float64)
        for start in range(0, world_of_lane.size, budget):
            part = slice(start, start + budget)
            lanes = worlds.take(world_of_lane[part])
            seat = lanes.actor.astype(np.int64)
            result = engine.step(lanes, actions[part], validate=False)
            over = result.match_over if self.params["objective"] == "match" else result.round_over
            out = np.zeros(lanes.num_games, np.float64)
            ended = np.flatnonzero(over)
            if ended.size:
                finished = lanes.take(ended) if self.params["objective"] == "match" else None
                out[ended] = values_of(
                    self.params["objective"], result, ended, seat[ended], finished
                )
            going = np.flatnonzero(~over)
            groups = [(going, self.policy)]
            if wary is not None:
                on = wary[world_of_lane[part][going]]
                groups = [(going[~on], self.policy), (going[on], self.wary_policy)]
            for rows, policy in groups:
                if rows.size:  # lanes, not read again, played in place when all go on
                    playing = lanes if rows.size == lanes.num_games else lanes.take(rows)
                    out[rows] = play_out(playing, policy, rng, seat[rows], self.params["objective"],
                                         *self.play_out_limit())  # fmt: skip
            values[part] = out
        return values


def _observes(agent) -> int:
    """Observation columns ``agent`` reads in the play-outs (a PPO policy: its network's;
    another observing agent: all), 0 if it reads the state itself or nothing."""
    if not agent.needs_observation or hasattr(agent, "act_on_state"):
        return 0
    columns = getattr(agent, "columns", None)
    return agent.rules.layout.obs_size if columns is None else len(columns)
