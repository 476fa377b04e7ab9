"""Readable scenario building for rule tests, run through both implementations.

A scenario is a hand-made position on a :class:`ReferenceGame` (``build``), then a list of
actions played on the reference and, in lockstep, on the batched engine (``run_both``).
After every action the two must agree on everything: legal actions, step outcomes, the
whole state and every seat's observation. Rule tests then assert the expected behaviour
on the returned reference game (which equals the engine's state by then).

    g = build(rules(), hands={0: ["red 7", "+4"], 1: ["blue 3"]}, top="red 5")
    run = run_both(g, ["red 7"])
    assert run.game.actor == 1 and run.legal() == ["draw"]

Cards are written as ``parse_card`` names (``"red 7"``, ``"blue +2"``, ``"wild"``,
``"+4"``); actions as ``act`` strings (``"red 7"``, ``"wild blue"``, ``"+4 red"``,
``"draw"``, ``"pass"``, ``"accept"``, ``"challenge"``, ``"target 1"``, ``"color green"``)
or integers.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable, Sequence

import numpy as np

from uno_rl.core import engine
from uno_rl.core.actions import (
    ACCEPT,
    CHALLENGE,
    CHOOSE_COLOR,
    DRAW,
    PASS,
    PLAY_DRAW_FOUR,
    PLAY_WILD,
    TARGET,
)
from uno_rl.core.cards import (
    COLOR_NAMES,
)
from uno_rl.core.convert import states_equal, to_state
from uno_rl.core.layout import EXTENDED
from uno_rl.core.observe import observe
from uno_rl.core.phases import PHASE_NAMES, PLAY
from uno_rl.core.reference import ReferenceGame, StepOutcome
from uno_rl.core.rules import Rules, load_rules
from uno_rl.core.state import State

__all__ = [
    "Run",
    "act",
    "build",
    "card",
    "cards",
    "color",
    "count_cards",
    "hand_of",
    "rules",
    "run_both",
]


def rules(preset: str = "official", **overrides) -> Rules:
    """``load_rules(preset, **overrides)``: official rules unless told otherwise."""
    return load_rules(preset, **overrides)


def card(name: str | int) -> int:
    """Kind of a card name (ints pass through); the extended layout's names too
    (``"wild shuffle hands"``: kinds 0 .. 53 are the classic cards in both layouts)."""
    return int(name) if isinstance(name, int | np.integer) else EXTENDED.parse_card(name)


def cards(names: Iterable[str | int]) -> list[int]:
    return [card(n) for n in names]


def color(name: str | int) -> int:
    """Color index of ``"red"`` .. ``"blue"`` (ints pass through)."""
    return int(name) if isinstance(name, int | np.integer) else COLOR_NAMES.index(name)


def act(action: str | int) -> int:
    """An action from its readable form (see the module docstring); ints pass through."""
    if isinstance(action, int | np.integer):
        return int(action)
    text = action.strip().lower()
    simple = {"draw": DRAW, "pass": PASS, "challenge": CHALLENGE, "accept": ACCEPT}
    if text in simple:
        return simple[text]
    parts = text.split()
    if len(parts) == 2 and parts[0] in ("wild", "+4") and parts[1] in COLOR_NAMES:
        base = PLAY_WILD if parts[0] == "wild" else PLAY_DRAW_FOUR
        return base + COLOR_NAMES.index(parts[1])
    if len(parts) == 2 and parts[0] == "color" and parts[1] in COLOR_NAMES:
        return CHOOSE_COLOR + COLOR_NAMES.index(parts[1])
    if len(parts) == 2 and parts[0] == "target" and parts[1].isdigit():
        return TARGET + int(parts[1]) - 1
    if parts and parts[-1] in COLOR_NAMES:  # a section-11 wild: '<card> <color>'
        return EXTENDED.parse_action(f"{' '.join(parts[:-1])} naming {parts[-1]}")
    kind = EXTENDED.parse_card(text)
    if EXTENDED.names_color[kind]:
        raise ValueError(f"playing {text!r} needs a color: write e.g. '{text} red'")
    return int(EXTENDED.first_action[kind])


def hand_of(game: ReferenceGame, seat: int) -> Counter:
    """The hand of ``seat`` as a Counter of card names (easy to compare in asserts)."""
    return Counter({game.layout.card_name(k): n for k, n in enumerate(game.hands[seat]) if n})


def count_cards(game: ReferenceGame) -> list[int]:
    """Copies of each kind over hands, draw pile and discard pile (the deck: ``KIND_COPIES``)."""
    counts = [0] * game.layout.num_kinds
    for hand in game.hands:
        for k, n in enumerate(hand):
            counts[k] += n
    for k in game.pile:
        counts[k] += 1
    for k, n in enumerate(game.discard):
        counts[k] += n
    return counts


def build(
    rules: Rules,
    hands: dict[int, Sequence[str | int]],
    top: str | int,
    color: str | int | None = None,
    *,
    pile: Sequence[str | int] = (),
    discard: Sequence[str | int] = (),
    rest: str | int | None = "pile",
    actor: int = 0,
    phase: int = PLAY,
    direction: int = 1,
    dealer: int | None = None,
    scores: Sequence[int] | None = None,
    seed: int = 0,
    extra_copies: bool = False,
    **fields,
) -> ReferenceGame:
    """A reference game set up by hand.

    Args:
        rules: the rule set.
        hands: cards of each seat; seats not named hold nothing.
        top: the discard pile's top card (counted in the discard pile).
        color: the current color; defaults to the top card's color (required for a wild top).
        pile: the draw pile's top cards, the next card drawn LAST.
        discard: cards in the discard pile under the top card.
        rest: where every card not placed goes: ``"pile"`` (under the given pile cards, in a
            seeded shuffled order), ``"discard"``, a seat number (into that hand), or None
            (they leave the game: fewer than 108 cards).
        actor, phase, direction, scores: as in the game.
        dealer: the dealer seat; defaults to the seat before ``actor`` (against ``direction``).
        seed: the game's key (reshuffles and UNO forgetfulness derive from it) and the
            filler's shuffle.
        extra_copies: allow more copies of a kind than the deck holds (a non-standard deck,
            to reach situations 108 cards cannot; card conservation is then not checked).
        fields: any further ReferenceGame attribute to set (``pending``, ``turn``...).
    """
    game = ReferenceGame(rules, seed)
    p, kinds, copies = rules.players, rules.layout.num_kinds, rules.deck_cards.copies
    game.hands = [[0] * kinds for _ in range(p)]
    for seat, names in hands.items():
        if not 0 <= seat < p:
            raise ValueError(f"seat {seat} out of range for {p} players")
        for k in cards(names):
            game.hands[seat][k] += 1
    top_kind = card(top)
    game.top = top_kind
    game.discard = [0] * kinds
    game.discard[top_kind] += 1
    for k in cards(discard):
        game.discard[k] += 1
    explicit_pile = cards(pile)
    used = Counter(explicit_pile)
    for hand in game.hands:
        for k, n in enumerate(hand):
            used[k] += n
    for k, n in enumerate(game.discard):
        used[k] += n
    over = [rules.layout.card_name(k) for k in used if used[k] > copies[k]]
    if over and not extra_copies:
        raise ValueError(f"more copies than the deck holds of: {', '.join(over)}")
    missing = [k for k in range(kinds) for _ in range(int(copies[k]) - used[k])]
    filler: list[int] = []
    if rest == "pile":
        order = np.random.default_rng(seed).permutation(len(missing))
        filler = [missing[i] for i in order]
    elif rest == "discard":
        for k in missing:
            game.discard[k] += 1
    elif isinstance(rest, int) and 0 <= rest < p:
        for k in missing:
            game.hands[rest][k] += 1
    elif rest is not None:
        raise ValueError(f"rest must be 'pile', 'discard', a seat or None, got {rest!r}")
    game.pile = filler + explicit_pile

    if color is None:
        if rules.layout.kind_color[top_kind] < 0:
            raise ValueError("a wild top card needs an explicit color")
        game.color = int(rules.layout.kind_color[top_kind])
    else:
        game.color = COLOR_NAMES.index(color) if isinstance(color, str) else int(color)
    game.actor, game.phase, game.direction = actor, phase, direction
    game.dealer = (actor - direction) % p if dealer is None else dealer
    game.scores = list(scores) if scores is not None else [0] * p
    game.pending, game.drawn = 0, -1
    game.prev_top, game.prev_color = -1, -1
    game.draw4_player, game.draw4_bluff = -1, False
    game.multi_rank, game.multi_count = -1, 0
    game.skip_turn = [0] * p
    game.jump_card, game.jump_from, game.jump_cursor = -1, -1, 0
    game.resume_actor, game.resume_phase = -1, PLAY
    game.revealed = [0] * kinds
    game.reveal_viewer, game.reveal_target = -1, -1
    game.presses, game.press_index, game.shuffled = 0, 0, False
    game.swap_seats = [-1, -1]
    game.swap_given = [[0] * kinds, [0] * kinds] if rules.layout.name != "classic" else [[], []]
    game.turn, game.reshuffles = 0, 0
    game.winner, game.truncated, game.match_over = -1, False, False
    game.round_index = 0
    game.stats = {k: [0] * p for k in game.stats}
    for name, value in fields.items():
        if not hasattr(game, name):
            raise ValueError(f"ReferenceGame has no field {name!r}")
        setattr(game, name, value)
    return game


@dataclasses.dataclass
class Run:
    """What ``run_both`` played: the reference game, the engine state, one outcome per action."""

    game: ReferenceGame
    state: State
    outcomes: list[StepOutcome]
    results: list[engine.StepResult]

    @property
    def last(self) -> StepOutcome:
        return self.outcomes[-1]

    def legal(self) -> list[str]:
        """Names of the legal actions now (reference), for readable asserts."""
        return [self.game.layout.action_name(a) for a in self.game.legal_actions()]


def _describe(game: ReferenceGame) -> str:
    top = game.layout.card_name(game.top)
    return f"seat {game.actor} in phase {PHASE_NAMES[game.phase]}, top {top}"


def _check_agree(game: ReferenceGame, state: State, where: str, complete: bool) -> None:
    legal_ref = game.legal_actions()
    legal_eng = np.flatnonzero(engine.legal_mask(state)[0]).tolist()
    assert legal_ref == legal_eng, (
        f"{where}: legal actions differ ({_describe(game)}):\n"
        f"  reference {[game.layout.action_name(a) for a in legal_ref]}\n"
        f"  engine    {[game.layout.action_name(a) for a in legal_eng]}"
    )
    if complete:
        counts, copies = count_cards(game), game.rules.deck_cards.copies
        assert counts == copies.tolist(), (
            f"{where}: the reference no longer holds the deck's cards: "
            + ", ".join(
                f"{game.layout.card_name(k)} x{counts[k]} (deck {copies[k]})"
                for k in range(len(counts))
                if counts[k] != copies[k]
            )
        )
    diffs = states_equal(state, 0, game)
    assert not diffs, f"{where}: engine state differs from the reference in {diffs}"
    for seat in range(game.num_players):
        mine = observe(state, seat)[0]
        theirs = game.observe(seat)
        assert np.array_equal(mine, theirs), f"{where}: observation of seat {seat} differs"


def _check_outcome(out: StepOutcome, res: engine.StepResult, where: str) -> None:
    pairs = {
        "rewards": (out.rewards, res.rewards[0].tolist()),
        "round_over": (out.round_over, bool(res.round_over[0])),
        "truncated": (out.truncated, bool(res.truncated[0])),
        "match_over": (out.match_over, bool(res.match_over[0])),
        "winner": (out.winner, int(res.winner[0])),
        "points": (out.points, int(res.points[0])),
        "net_points": (out.net_points or [0] * len(out.rewards), res.net_points[0].tolist()),
        "decisions": (out.decisions, int(res.decisions[0])),
    }
    if out.round_over:
        for name in ("draw4_plays", "bluffs", "challenges", "challenges_won"):
            pairs[name] = (getattr(out, name), getattr(res, name)[0].tolist())
    for name, (ref, eng) in pairs.items():
        if name == "rewards":
            same = np.allclose(np.asarray(ref, np.float32), np.asarray(eng, np.float32))
        else:
            same = ref == eng
        assert same, f"{where}: step outcome {name} differs: reference {ref}, engine {eng}"


def run_both(
    game: ReferenceGame, actions: Sequence[str | int] = (), *, check_cards: bool | None = None
) -> Run:
    """Play ``actions`` on ``game`` (mutated) and on an engine copy, checking they agree.

    ``check_cards`` (default: whether the game starts with all 108 cards) also asserts
    after every action that no card appeared or vanished.
    """
    if check_cards is None:
        check_cards = count_cards(game) == game.rules.deck_cards.copies.tolist()
    state = to_state([game])
    _check_agree(game, state, "before any action", check_cards)
    run = Run(game, state, [], [])
    for i, action in enumerate(actions):
        a = act(action)
        names = game.layout.action_name
        if not 0 <= a < game.layout.num_actions:
            raise ValueError(f"no action {a}")
        where = f"after action {i} ({names(a)})"
        legal = game.legal_actions()
        assert a in legal, (
            f"action {i} ({names(a)}) is illegal for {_describe(game)}; legal: "
            f"{[names(x) for x in legal]}"
        )
        out = game.step(a)
        res = engine.step(state, np.array([a]))
        run.outcomes.append(out)
        run.results.append(res)
        _check_outcome(out, res, where)
        _check_agree(game, state, where, check_cards)
    return run
