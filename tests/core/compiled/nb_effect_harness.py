"""Shared by ``test_nb_draw_effects`` and ``test_nb_hand_effects``: the compiled card effects
held to the reference at positions that real play reaches.

A :class:`CheckedGame` is a :class:`ReferenceGame` whose effect methods (``_finish_play``,
``_challenge``, ``_press``, ...) first check themselves: on a deep copy of the game (a plain
ReferenceGame) the reference method runs, on ``to_state`` of the same copy the kernel
function of the same name runs, and both must leave the same state
(``convert.states_equal``) and return the same thing (a card effect's hand-over, ``(-1,
-1)`` for None). :func:`play` plays such games with random legal actions (preferring plays)
and, before each decision, runs probes (checks of effects the position allows, whatever the
policy picks).
"""

from __future__ import annotations

import copy
import inspect
from collections import Counter
from pathlib import Path

import numpy as np

from uno_rl.core.actions import DRAW
from uno_rl.core.compiled import nb_card_effects, nb_draw_effects, nb_hand_effects
from uno_rl.core.compiled.nb_rules import rule_tables
from uno_rl.core.compiled.nb_state import game_arrays
from uno_rl.core.convert import states_equal, to_state
from uno_rl.core.phases import OVER, PHASE_NAMES, PLAY
from uno_rl.core.reference import CARD_EFFECTS, ReferenceGame
from uno_rl.core.rules import Rules

DECKS = Path(__file__).resolve().parents[1] / "decks"
PLAY_PROB = 0.9


def _swap_targets(a, t, g, seat):
    out = np.full(t.players, -7, np.int64)
    n = nb_hand_effects.swap_targets(a, t, g, seat, out)
    return out[:n].tolist()


def _fire_count(a, t, g):
    return int(nb_draw_effects.fire_count(a, t, g))


def _shuffle_hands(a, t, g, seat):
    return bool(nb_hand_effects.shuffle_hands(a, t, g, seat))


#: Reference method -> the kernel function that mirrors it, ``f(a, t, g, *args)``.
KERNEL = {
    "_challenge": nb_draw_effects.challenge,
    "_target_draw": nb_draw_effects.target_draw,
    "_play_last_card": nb_draw_effects.play_last_card,
    "_first_card_draws": nb_draw_effects.first_card_draws,
    "_press": nb_draw_effects.press,
    "_fire_count": _fire_count,
    "_hit": nb_draw_effects.hit,
    "_downpour_draws": nb_draw_effects.downpour_draws,
    "_boomerang": nb_hand_effects.boomerang,
    "_swap": nb_hand_effects.swap,
    "_discard_all": nb_hand_effects.discard_all,
    "_shuffle_hands": _shuffle_hands,
    "_swap_targets": _swap_targets,
}
#: CARD_EFFECTS entries by name -> their kernel functions.
EFFECTS = {
    "_draw_penalty": nb_draw_effects.draw_penalty,
    "_targeted": nb_draw_effects.targeted,
    "_downpour": nb_draw_effects.downpour,
    "_hits": nb_draw_effects.hits,
    "_skip": nb_hand_effects.skip,
    "_reverse": nb_hand_effects.reverse,
    "_seven": nb_hand_effects.seven,
    "_zero": nb_hand_effects.zero,
    "_swap_card": nb_hand_effects.swap_card,
    "_shuffle_card": nb_hand_effects.shuffle_card,
}
_SIGNATURES = {name: inspect.signature(getattr(ReferenceGame, name)) for name in KERNEL}
_SIGNATURES["_finish_play"] = inspect.signature(ReferenceGame._finish_play)


def _clone(value):
    """A deep copy of a game attribute (ints, bools, lists and dicts of them)."""
    if isinstance(value, list):
        return (
            [_clone(x) for x in value] if value and isinstance(value[0], list | dict) else value[:]
        )
    if isinstance(value, dict):
        return {k: _clone(v) for k, v in value.items()}
    if isinstance(value, int | float | bool | np.generic | None):
        return value
    return copy.deepcopy(value)


def snapshot(game: ReferenceGame) -> ReferenceGame:
    """A deep copy of ``game`` as a plain ReferenceGame (the rules shared, no checker)."""
    snap = ReferenceGame.__new__(ReferenceGame)
    for name, value in vars(game).items():
        if name != "_checker":
            setattr(snap, name, game.rules if name == "rules" else _clone(value))
    return snap


def _kernel_arg(x):
    return x if isinstance(x, bool) else np.int64(x)


def _handover(value):
    return (-1, -1) if value is None else (int(value[0]), int(value[1]))


def _reference_finish(game, seat, kind, count):
    """What ``ReferenceGame._finish_play`` does short of ``_end_turn``: the hand-over."""
    rank = int(game.rules.effect_rank[kind])
    effect = CARD_EFFECTS.get(rank)
    if rank in (0, 7) and not game.rules.seven_zero:
        effect = None
    handover = effect(game, seat, kind, rank, count) if effect else (game._next(seat), PLAY)
    return _handover(handover), effect


class Checker:
    """Runs the checks and counts them by name (``counts``)."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()

    def compare(self, name: str, game: ReferenceGame, reference, kernel) -> None:
        """``reference(copy)`` against ``kernel(a, t, 0)`` on a deep copy of ``game``."""
        snap = snapshot(game)
        state = to_state([snap])
        before = (PHASE_NAMES[game.phase], game.actor, game.turn, game.key)
        expected = reference(snap)
        got = kernel(game_arrays(state), rule_tables(game.rules), 0)
        diffs = states_equal(state, 0, snap)
        assert not diffs, f"{name}: state differs in {diffs} (phase, actor, turn, key: {before})"
        assert got == expected, f"{name}: returned {got}, reference {expected} ({before})"
        self.counts[name] += 1

    def method(self, name: str, game: ReferenceGame, *args) -> None:
        """Reference method ``name`` with ``args`` against its kernel function."""
        base, kernel = getattr(ReferenceGame, name), KERNEL[name]
        self.compare(
            name[1:],
            game,
            lambda snap: base(snap, *args),
            lambda a, t, g: kernel(a, t, g, *(_kernel_arg(x) for x in args)),
        )

    def finish(self, game: ReferenceGame, seat: int, kind: int, count: int = 1) -> None:
        """The card effect of ``kind`` through the dispatcher and through its own function."""
        rank = int(game.rules.effect_rank[kind])
        args = tuple(np.int64(x) for x in (seat, kind, rank, count))
        effect = None

        def reference(snap):
            nonlocal effect
            handover, effect = _reference_finish(snap, seat, kind, count)
            return handover

        def dispatcher(a, t, g):
            return _handover(nb_card_effects.card_effect(a, t, g, *args))

        self.compare("card_effect", game, reference, dispatcher)
        if effect is not None:
            own = EFFECTS[effect.__name__]
            self.compare(
                effect.__name__[1:],
                game,
                lambda snap: _handover(effect(snap, seat, kind, rank, count)),
                lambda a, t, g: _handover(own(a, t, g, *args)),
            )

    def __call__(self, name: str, game: ReferenceGame, args: tuple) -> None:
        if name == "_finish_play":
            self.finish(game, *args)
        else:
            self.method(name, game, *args)


def _checked(name: str):
    base = getattr(ReferenceGame, name)
    signature = _SIGNATURES[name]

    def method(self, *args, **kwargs):
        checker = vars(self).get("_checker")
        if checker is not None:
            bound = signature.bind(self, *args, **kwargs)
            bound.apply_defaults()
            checker(name, self, tuple(bound.arguments.values())[1:])
        return base(self, *args, **kwargs)

    method.__name__ = name
    return method


class CheckedGame(ReferenceGame):
    """A ReferenceGame whose effect methods check themselves first (``checker``)."""

    def __init__(self, rules: Rules, seed: int, checker: Checker) -> None:
        self._checker = checker  # before the deal: a first card's draws are checked too
        super().__init__(rules, seed)


for _name in _SIGNATURES:
    setattr(CheckedGame, _name, _checked(_name))


def branch(
    game: ReferenceGame, checker: Checker, action: int, gen: np.random.Generator, depth: int = 0
) -> None:
    """Step a checked copy of ``game`` with ``action`` (a decision not taken), then up to
    ``depth`` random decisions more."""
    other = snapshot(game)
    other.__class__ = CheckedGame
    other._checker = checker
    other.step(action)
    for _ in range(depth):
        if other.phase == OVER:
            return
        other.step(choose(other, gen))


def explore(checker: Checker, game: ReferenceGame, gen: np.random.Generator, k: int) -> None:
    """Branch on ``k`` random legal actions; where the actor holds one card, on every one, two
    decisions deep (a final card: what it still does, its victim's choice and answer)."""
    legal = game.legal_actions()
    if game.hand_size(game.actor) == 1:
        for action in legal:
            branch(game, checker, int(action), gen, depth=2)
        return
    for i in gen.permutation(len(legal))[:k]:
        branch(game, checker, int(legal[i]), gen)


def choose(game: ReferenceGame, gen: np.random.Generator) -> int:
    """A random legal action, a non-draw one with probability PLAY_PROB where there is one."""
    legal = game.legal_actions()
    plays = [x for x in legal if x != DRAW]
    if plays and gen.random() < PLAY_PROB:
        return int(plays[gen.integers(len(plays))])
    return int(legal[gen.integers(len(legal))])


def play(rules: Rules, seed: int, steps: int, probe=None, max_round_steps: int = 400) -> Checker:
    """``steps`` decisions of CheckedGames (a new round when one ends or runs past
    ``max_round_steps``); ``probe(checker, game, gen)`` before each decision."""
    gen = np.random.default_rng(seed)
    checker = Checker()
    game, in_round = None, 0
    for _ in range(steps):
        if game is None or game.phase == OVER or in_round >= max_round_steps:
            game = CheckedGame(rules, int(gen.integers(2**63 - 1)), checker)
            in_round = 0
        if probe is not None:
            probe(checker, game, gen)
        game.step(choose(game, gen))
        in_round += 1
    return checker


def deal_many(rules: Rules, seed: int, deals: int, probe=None) -> Checker:
    """``deals`` fresh deals (a first card's draws are checked as it is turned);
    ``probe(checker, game, gen)`` on each."""
    gen = np.random.default_rng(seed)
    checker = Checker()
    for _ in range(deals):
        game = CheckedGame(rules, int(gen.integers(2**63 - 1)), checker)
        if probe is not None:
            probe(checker, game, gen)
    return checker
