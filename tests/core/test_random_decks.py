"""Random user decks: every one is refused in one line, or deals and finishes rounds in bounded time.

A seeded generator draws deck files of any mix and count of cards (symbols, ranges of numbers,
single colored cards, 0 to 127 copies, the extension cards included), a player count from 2 to
10 and a hand size. Each deck is then either refused when it is read or when the rules are made
(a :class:`DeckError` or :class:`RulesError` whose message is one line naming the deck), or
the engine deals it and plays random legal moves until every game has ended a round, within the
round's turn limit, the deck's invariants checked along the way; a sample is also played
against the reference implementation step by step. Through ``uno_rl simulate`` a refused deck is
one ``error:`` line with exit status 2.
"""

from __future__ import annotations

import time

import numpy as np
import suite_profile
from bad_input.harness import assert_clean_error
from core.test_differential import play_both
from core.test_invariants import check_result, check_state, prefer_play

from uno_rl.core import engine, load_rules
from uno_rl.core.cards import COLOR_NAMES
from uno_rl.core.decks import DeckError, load_deck
from uno_rl.core.layout import SYMBOLS
from uno_rl.core.rules import RulesError
from uno_rl.programs import simulate

SYMBOL_NAMES = [name for name, _, _ in SYMBOLS.values()]
COLORED = [name for name, colored, _ in SYMBOLS.values() if colored]
#: Decks drawn (the ``ci`` profile plays a share) and the turn limit of their rounds.
DECKS = max(suite_profile.rounds(300), 30)  # enough to meet every outcome
MAX_TURNS = 150
GAMES = 8


#: Cards a deal never turns first: a deck heavy in them tests the first-card check.
NEVER_FIRST = ["+4", "wild-swap-hands", "wild-shuffle-hands", "targeted+4", "boomerang"]


def random_cards(gen: np.random.Generator) -> dict[str, int]:
    """A ``[cards]`` table: a few entries of any kind, counts skewed small but up to 127.

    Number entries rarely overlap (an overlap is refused, so it would hide the rest); a third
    of the decks are heavy in cards a deal never turns first.
    """
    cards: dict[str, int] = {}
    numbers: set[int] = set()

    def copies(high: int = 128) -> int:
        return int(gen.integers(0, 4)) if gen.random() < 0.7 else int(gen.integers(0, high))

    for _ in range(int(gen.integers(1, 12))):
        roll = gen.random()
        if roll < 0.6:
            key = str(gen.choice(SYMBOL_NAMES))
        elif roll < 0.75:
            low = int(gen.integers(0, 10))
            key = f"{low}-{int(gen.integers(low, 10))}"
        else:
            key = f"{gen.choice(COLOR_NAMES)} {gen.choice(COLORED)}"
        span = key.split("-") if key[0].isdigit() else []
        covered = set(range(int(span[0]), int(span[-1]) + 1)) if span else set()
        if covered & numbers and gen.random() < 0.9:
            continue
        numbers |= covered
        cards.setdefault(key, copies())
    if gen.random() < 0.35:
        for key in gen.choice(NEVER_FIRST, size=int(gen.integers(1, 4)), replace=False):
            cards[str(key)] = int(gen.integers(10, 128))
    return cards


def deck_text(cards: dict[str, int]) -> str:
    lines = "\n".join(f'"{key}" = {copies}' for key, copies in cards.items())
    return f'description = "random"\n\n[cards]\n{lines}\n'


def draws(count: int, seed: int):
    """``count`` (cards, players, hand_size) draws from one seeded generator."""
    gen = np.random.default_rng(seed)
    for _ in range(count):
        players = int(gen.integers(2, 11))
        hand_size = 7 if gen.random() < 0.6 else int(gen.integers(1, 21))
        yield random_cards(gen), players, hand_size


def make_rules(path, players: int, hand_size: int):
    """The rules of a drawn deck, or the one-line message that refuses it."""
    load_deck.cache_clear()
    try:
        return load_rules(
            "official", players=players, hand_size=hand_size, deck=str(path), max_turns=MAX_TURNS
        ), None
    except (DeckError, RulesError) as error:
        return None, str(error)


def play_one_round_each(rules, seed: int) -> int:
    """Play random legal moves until each of ``GAMES`` games ends its first round; the steps."""
    gen = np.random.default_rng(seed)
    seeds = gen.integers(0, 2**63 - 1, size=GAMES, dtype=np.int64).astype(np.uint64)
    started = time.perf_counter()
    state = engine.reset(rules, seeds)
    assert time.perf_counter() - started < 5.0, "a deal took more than 5 s"
    check_state(state)
    ended = np.zeros(GAMES, bool)
    steps = 0
    while not ended.all():
        steps += 1
        # one decision per turn at most a handful of phases (color, challenge, target...)
        assert steps <= 4 * MAX_TURNS, f"no round ended within {steps} steps"
        before = state.copy()
        actions = prefer_play(engine.legal_mask(state), gen)
        result = engine.step(state, actions)
        check_result(before, state, result)
        ended |= result.round_over
        if result.round_over.any():
            engine.reset_games(state, result.round_over, seeds[result.round_over] + np.uint64(1))
        if steps % 10 == 0:
            check_state(state)
    return steps


def test_random_decks_are_refused_in_one_line_or_deal_and_finish(tmp_path):
    refused = accepted = first_card = 0
    for index, (cards, players, hand_size) in enumerate(draws(DECKS, seed=2026)):
        path = tmp_path / f"deck{index}.toml"
        path.write_text(deck_text(cards))
        rules, message = make_rules(path, players, hand_size)
        if rules is None:
            refused += 1
            assert "\n" not in message and "deck" in message, message
            first_card += "turned as the first card" in message
            continue
        accepted += 1
        play_one_round_each(rules, seed=index)
    # the generator covers both outcomes generously
    assert refused >= DECKS // 10 and accepted >= DECKS // 10, (refused, accepted)
    assert first_card >= 3, first_card


def test_random_accepted_decks_match_the_reference(tmp_path):
    played = 0
    for index, (cards, players, hand_size) in enumerate(draws(200, seed=7)):
        path = tmp_path / f"deck{index}.toml"
        path.write_text(deck_text(cards))
        rules, _ = make_rules(path, players, hand_size)
        if rules is None:
            continue
        play_both(rules, num_games=4, rounds=10**9, seed=index, max_steps=40)
        played += 1
        if played == suite_profile.rounds(50):
            break
    assert played == suite_profile.rounds(50)


def refused_decks(folder, count: int):
    """Deck files of the draws that are refused: (path, players, hand_size)."""
    for index, (cards, players, hand_size) in enumerate(draws(60, seed=11)):
        path = folder / f"bad{index}.toml"
        path.write_text(deck_text(cards))
        if make_rules(path, players, hand_size)[0] is None:
            yield path, players, hand_size
            count -= 1
            if not count:
                return


def test_simulate_refuses_random_bad_decks_in_one_line(tmp_path, capsys):
    found = list(refused_decks(tmp_path, 3))
    assert len(found) == 3
    for path, players, hand_size in found:
        argv = ["--set", f"deck={path}", "--players", str(players)]
        argv += ["--set", f"hand_size={hand_size}", "--rounds", "5", "--no-progress"]
        assert_clean_error(simulate.main, argv, "deck", capsys)
