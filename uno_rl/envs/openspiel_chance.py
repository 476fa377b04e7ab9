"""UNO's random events as explicit chance outcomes: the one-game rules with their dice outside.

OpenSpiel's algorithms see a game's randomness as *chance nodes*: at each random event the
game names the possible outcomes with their probabilities, and someone outside picks one.
:class:`ChanceGame` is the fast one-game implementation
(:class:`~uno_rl.core.scalar.ScalarGame`, the reference rules unchanged) whose random events
are asked of a *source* instead of being derived from the deal seed:

* **a card from the draw pile** (the deal, the first card turned, every draw, the draws of
  a pile refilled from the discard pile): one outcome per card kind left in the pile, with
  probability count / pile size. Drawing the top card of a uniformly shuffled pile is
  drawing uniformly among the cards left, so the shuffles themselves (the deal's, the
  reshuffle of the discard pile when the pile runs out, a turned +4 put back) are no
  outcomes: each card is drawn as it is needed. When the draw pile and the discard pile
  (less the cards that stay) are both empty, a draw draws nothing, as in the engine;
* **the cards of a Shuffle Hands**, dealt out one at a time the same way;
* **the dealer** (one outcome per seat) and **a color chosen at random** (a random first Wild's,
  an auto-played drawn Wild's: four outcomes);
* **what the rules decide with a probability** (a player forgetting to call UNO, and being
  caught; the dispenser firing, and how many cards it shoots): one outcome per interval of
  the rule's thresholds in [0, 1), with the interval's width as its probability.

An event with a single possible outcome (a pile of one kind) is no chance node. Every
outcome is a small integer (a card kind, a seat, a color, an interval), below
:func:`max_chance_outcomes`.

The rules' methods that draw random numbers read the module :mod:`uno_rl.core.rng` under the
name ``rng``; ChanceGame runs those very functions with ``rng`` bound to :data:`DICE`, which
asks the source of the game being played (:data:`RANDOM_METHODS`, found by reading the
functions' code, so a method that starts drawing random numbers is taken over without
a change here). The rules are the reference's own code: every switch holds.

Two sources: :class:`ReplayChance` answers from a list of outcomes and raises
:class:`NeedChance` with the request when the list runs out (OpenSpiel's chance node:
:mod:`uno_rl.envs.openspiel_round`); :class:`SeededChance` draws every number exactly as the
reference does from the deal seed, and records the outcomes it drew, so a seeded
ChanceGame plays the same round as :class:`~uno_rl.core.reference.ReferenceGame` and its
record replays it.
"""

from __future__ import annotations

import bisect
import contextlib
import contextvars
import types
from typing import NamedTuple

import numpy as np

from uno_rl.core import rng
from uno_rl.core.cards import COLOR_NAMES
from uno_rl.core.reference import ReferenceGame
from uno_rl.core.rules import Rules
from uno_rl.core.scalar import ScalarGame

__all__ = [
    "DICE",
    "RANDOM_METHODS",
    "ChanceGame",
    "ChanceRequest",
    "NeedChance",
    "Pile",
    "ReplayChance",
    "SeededChance",
    "max_chance_outcomes",
]


class ChanceRequest(NamedTuple):
    """One random event: its possible ``outcomes`` (ints, ascending), their
    ``probabilities`` (summing to 1) and a short label of each (``labels``; None for a card
    drawn, whose outcome is the card kind: :meth:`label` names it)."""

    outcomes: tuple[int, ...]
    probabilities: tuple[float, ...]
    labels: tuple[str, ...] | None = None

    def label(self, outcome: int, rules: Rules) -> str:
        """``outcome``'s label (``'draw red 7'``, ``'dealer P2'``, ``'forgets UNO'``)."""
        if self.labels is None:
            return f"draw {rules.layout.card_name(outcome)}"
        return self.labels[self.outcomes.index(outcome)]


class NeedChance(Exception):
    """Raised by :class:`ReplayChance` when an event needs an outcome it was not given;
    ``game`` is the game as far as it got (for observations at the chance node)."""

    def __init__(self, request: ChanceRequest, game: ChanceGame):
        super().__init__(f"a chance outcome is needed ({len(request.outcomes)} possible)")
        self.request = request
        self.game = game


#: The game whose random events are being asked for (set while a ChanceGame deals or steps).
_ACTIVE: contextvars.ContextVar[ChanceGame] = contextvars.ContextVar("uno_rl_chance_game")


@contextlib.contextmanager
def _playing(game: ChanceGame):
    token = _ACTIVE.set(game)
    try:
        yield
    finally:
        _ACTIVE.reset(token)


# ------------------------------------------------------------------ requests
def card_request(pile: list[int]) -> ChanceRequest:
    """Drawing one card from ``pile`` (any order): each kind by its share of the cards."""
    counts: dict[int, int] = {}
    for card in pile:
        counts[card] = counts.get(card, 0) + 1
    kinds = sorted(counts)
    size = len(pile)
    return ChanceRequest(tuple(kinds), tuple(counts[k] / size for k in kinds))


def choice_request(rules: Rules, stream: int) -> ChanceRequest:
    """The dealer (one seat of ``rules.players``) or a color chosen at random (four)."""
    if stream == rng.DEALER:
        seats = range(rules.players)
        return ChanceRequest(
            tuple(seats),
            (1.0 / rules.players,) * rules.players,
            tuple(f"dealer P{s}" for s in seats),
        )
    if stream in (rng.FIRST_COLOR, rng.DRAWN_COLOR):
        return ChanceRequest((0, 1, 2, 3), (0.25,) * 4, tuple(f"color {c}" for c in COLOR_NAMES))
    raise NotImplementedError(f"random stream {stream} is no chance event of a single round")


def interval_edges(game: ChanceGame, stream: int, lane: int) -> tuple[list[float], list[str]]:
    """``(edges, labels)``: the partition of [0, 1) that decides an event the rules draw a
    uniform number for (the number is compared with these thresholds), one label an interval."""
    rules = game.rules
    if stream == rng.FORGET_UNO:
        p = rules.uno_forget_prob if lane == 0 else rules.uno_catch_prob
        labels = ["forgets UNO", "calls UNO"] if lane == 0 else ["is caught", "is not caught"]
        return [0.0, p, 1.0], labels
    if stream == rng.DISPENSER and lane == 0:
        hazard = rules.dispenser_hazard
        return [0.0, hazard[min(game.presses, len(hazard) - 1)], 1.0], ["fires", "holds"]
    if stream == rng.DISPENSER:
        cdf = np.cumsum(rules.dispenser_count)
        edges = [0.0, *(float(c) for c in cdf[:-1]), 1.0]
        return edges, [f"shoots {n}" for n in range(1, len(cdf) + 1)]
    raise NotImplementedError(f"random stream {stream} is no chance event of a single round")


def interval_request(edges: list[float], labels: list[str]) -> ChanceRequest:
    """One outcome per interval of positive width, its width the probability."""
    kept = [j for j in range(len(labels)) if edges[j + 1] > edges[j]]
    return ChanceRequest(
        tuple(kept),
        tuple(edges[j + 1] - edges[j] for j in kept),
        tuple(labels[j] for j in kept),
    )


def max_chance_outcomes(rules: Rules) -> int:
    """An upper bound (exclusive) on every chance outcome under ``rules``."""
    return max(rules.layout.num_kinds, rules.players, 4, len(rules.dispenser_count), 2)


# ------------------------------------------------------------------ sources
class ReplayChance:
    """Outcomes given in advance, used in order; :class:`NeedChance` when they run out."""

    seeded = False

    def __init__(self, outcomes: list[int] | None = None):
        self.outcomes = [] if outcomes is None else outcomes
        self.used = 0

    def choose(self, request: ChanceRequest) -> int:
        """The next outcome given (an event with one possible outcome takes none)."""
        if len(request.outcomes) == 1:
            return request.outcomes[0]
        if self.used == len(self.outcomes):
            raise NeedChance(request, _ACTIVE.get())
        outcome = self.outcomes[self.used]
        self.used += 1
        if outcome not in request.outcomes:
            raise ValueError(f"chance outcome {outcome} is not one of {list(request.outcomes)}")
        return outcome

    def card(self, pile: Pile) -> int:
        card = self.choose(card_request(pile))
        pile.remove(card)  # the pile is a multiset here: its order means nothing
        return card

    def bits(self, game, key, stream, index, lane):
        return np.uint64(self.choose(choice_request(game.rules, stream)))

    def uniform(self, game, key, stream, index, lane):
        edges, labels = interval_edges(game, stream, lane)
        j = self.choose(interval_request(edges, labels))
        return (edges[j] + edges[j + 1]) / 2.0  # inside interval j: decides as it does

    def sort_keys(self, key, stream, index, lanes):
        return np.zeros(lanes, np.uint64)  # a shuffle's order is drawn card by card instead


class SeededChance:
    """The reference's own random numbers (from the deal seed), each event's outcome
    recorded in :attr:`outcomes` (events with one possible outcome are not recorded)."""

    seeded = True

    def __init__(self):
        self.outcomes: list[int] = []

    def record(self, request: ChanceRequest, outcome: int) -> None:
        if len(request.outcomes) > 1:
            self.outcomes.append(outcome)

    def card(self, pile: Pile) -> int:
        request = card_request(pile)
        card = list.pop(pile)
        self.record(request, card)
        return card

    def bits(self, game, key, stream, index, lane):
        request = choice_request(game.rules, stream)
        value = rng.bits(key, stream, index, lane)
        self.record(request, int(value % np.uint64(len(request.outcomes))))
        return value

    def uniform(self, game, key, stream, index, lane):
        edges, labels = interval_edges(game, stream, lane)
        value = rng.uniform(key, stream, index, lane)
        j = min(bisect.bisect_right(edges, float(value)) - 1, len(labels) - 1)
        self.record(interval_request(edges, labels), j)
        return value

    def sort_keys(self, key, stream, index, lanes):
        return rng.sort_keys(key, stream, index, lanes)


class _Dice:
    """What the rules' random methods see as ``rng``: the streams of :mod:`uno_rl.core.rng`,
    and its functions answered by the source of the game being played."""

    def __getattr__(self, name: str):
        value = getattr(rng, name)
        if callable(value):
            raise AttributeError(f"rng.{name} is no random event ChanceGame knows")
        return value

    def bits(self, key, stream, index, lane):
        game = _ACTIVE.get()
        return game.source.bits(game, key, stream, index, lane)

    def uniform(self, key, stream, index, lane):
        game = _ACTIVE.get()
        return game.source.uniform(game, key, stream, index, lane)

    def sort_keys(self, key, stream, index, lanes):
        return _ACTIVE.get().source.sort_keys(key, stream, index, lanes)


#: The ``rng`` of :data:`RANDOM_METHODS` in a ChanceGame.
DICE = _Dice()


class Pile(list):
    """The draw pile: a list whose :meth:`pop` asks the game's source for the card (the
    seeded source pops the last card, as the reference does; a replayed one removes the card
    its outcome names, the order meaning nothing)."""

    def pop(self, index: int = -1) -> int:  # the rules only ever pop the top card
        return _ACTIVE.get().source.card(self)


def _global_names(code: types.CodeType) -> set[str]:
    """The global names a function's code reads, its nested code (comprehensions) included."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _global_names(const)
    return names


def _with_dice(function: types.FunctionType) -> types.FunctionType:
    """``function`` as it is, reading :data:`DICE` as its global ``rng``."""
    rebound = types.FunctionType(
        function.__code__,
        {**function.__globals__, "rng": DICE},
        function.__name__,
        function.__defaults__,
        function.__closure__,
    )
    rebound.__kwdefaults__ = function.__kwdefaults__
    rebound.__qualname__, rebound.__doc__ = function.__qualname__, function.__doc__
    return rebound


class ChanceGame(ScalarGame):
    """One round of ``rules`` whose random events ask ``source`` (module docstring).

    Args:
        rules: the rules (single rounds: ``match`` must be off).
        source: :class:`ReplayChance` or :class:`SeededChance`.
        seed: the deal seed (read by a :class:`SeededChance` only).
    """

    def __init__(self, rules: Rules, source: ReplayChance | SeededChance, seed: int = 0):
        if rules.match:
            raise ValueError("a chance game is a single round: match rules are not supported")
        self.source = source
        with _playing(self):
            super().__init__(rules, seed)

    @property
    def pile(self) -> Pile:
        """The draw pile (every list assigned to it becomes a :class:`Pile`)."""
        return self._pile

    @pile.setter
    def pile(self, cards) -> None:
        self._pile = cards if type(cards) is Pile else Pile(cards)

    def step(self, action: int):
        """:meth:`ReferenceGame.step`, its random events asked of :attr:`source`."""
        with _playing(self):
            return super().step(action)

    def _shuffled(self, cards: list[int], stream: int, index: int):
        """A shuffled pile (seeded: in the reference's order; replayed: any order). The
        cards of a Shuffle Hands come one at a time, each drawn as it is dealt."""
        if self.source.seeded:
            cards = ReferenceGame._shuffled(self, cards, stream, index)
        if stream != rng.SHUFFLE_HANDS:
            return Pile(cards)
        pile = Pile(cards[::-1])  # popped from the end: the shuffled order, first card first
        return (pile.pop() for _ in range(len(pile)))

    def clone(self, source: ReplayChance | SeededChance | None = None) -> ChanceGame:
        """A copy sharing nothing mutable (the rules are shared), with ``source`` if given."""
        new = object.__new__(type(self))
        fields = dict(self.__dict__)
        for name, value in fields.items():
            if type(value) is list:
                fields[name] = [v[:] if type(v) is list else v for v in value]
            elif type(value) is dict:
                fields[name] = {k: v[:] for k, v in value.items()}
        fields["_pile"] = Pile(self._pile)
        if source is not None:
            fields["source"] = source
        new.__dict__ = fields
        return new

    @classmethod
    def adopt(cls, game: ReferenceGame, source: ReplayChance | SeededChance) -> ChanceGame:
        """A ChanceGame in the position of ``game`` (e.g. from
        :func:`uno_rl.core.convert.to_reference`), drawing from ``source`` from now on."""
        new = object.__new__(cls)
        fields = dict(game.__dict__)
        pile = fields.pop("pile", None)
        if pile is None:
            pile = fields.pop("_pile")
        new.__dict__.update(fields)
        new.pile = list(pile)
        new.source = source
        return new


#: Every method of the rules that draws random numbers, as ChanceGame runs it (reading
#: :data:`DICE` as ``rng``); ChanceGame's own ``_shuffled`` overrides the reference's.
RANDOM_METHODS: dict[str, types.FunctionType] = {}
for _name in dir(ScalarGame):
    _function = getattr(ScalarGame, _name)
    if (
        isinstance(_function, types.FunctionType)
        and _name not in ChanceGame.__dict__
        and "rng" in _global_names(_function.__code__)
    ):
        RANDOM_METHODS[_name] = _with_dice(_function)
        setattr(ChanceGame, _name, RANDOM_METHODS[_name])
del _name, _function
