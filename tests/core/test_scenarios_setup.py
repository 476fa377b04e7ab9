"""Scenarios: setting up a round and the first card's effect (rules specification §2)."""

from __future__ import annotations

import numpy as np
import pytest

from uno_rl.core import engine, rng
from uno_rl.core.actions import CHOOSE_COLOR, DRAW
from uno_rl.core.cards import (
    CANONICAL_DECK,
    DECK_SIZE,
    DRAW_TWO_RANK,
    KIND_COPIES,
    KIND_RANK,
    REVERSE_RANK,
    SKIP_RANK,
    WILD,
    WILD_DRAW_FOUR,
)
from uno_rl.core.convert import states_equal
from uno_rl.core.phases import COLOR, PLAY
from uno_rl.core.reference import ReferenceGame

try:
    from .scenario import count_cards, rules, run_both
except ImportError:
    from scenario import count_cards, rules, run_both


def deck_order(seed: int) -> np.ndarray:
    """The shuffled deck of a deal seed (cards are dealt from its end)."""
    order = np.argsort(rng.sort_keys(seed, rng.DEAL, 0, DECK_SIZE), kind="stable")
    return CANONICAL_DECK[order]


def first_turned(seed: int, players: int, hand_size: int = 7) -> int:
    """The card turned after the deal, before any +4 is sent back."""
    return int(deck_order(seed)[DECK_SIZE - players * hand_size - 1])


def find_seed(players: int, wanted, hand_size: int = 7, start: int = 0) -> int:
    """First seed from ``start`` whose first turned card satisfies ``wanted(kind)``."""
    for seed in range(start, start + 20_000):
        if wanted(first_turned(seed, players, hand_size)):
            return seed
    raise AssertionError("no seed found")


def is_number(k: int) -> bool:
    return k < 52 and KIND_RANK[k] < 10


#: ``resume_actor`` is only read after a jump-in window set it; its value after a deal is
#: checked on its own by ``test_engine_reset_equals_reference_field_for_field``.
_AFTER_DEAL_UNUSED = {"resume_actor"}


def dealt_and_compared(r, seed: int) -> ReferenceGame:
    """The reference's deal of ``seed``; asserts the engine's reset deals the same."""
    game = ReferenceGame(r, seed)
    state = engine.reset(r, np.array([seed], np.uint64))
    assert set(states_equal(state, 0, game)) <= _AFTER_DEAL_UNUSED
    assert count_cards(game) == KIND_COPIES.tolist()
    return game


@pytest.mark.parametrize("players,hand_size", [(2, 7), (3, 7), (4, 1), (4, 20), (10, 7)])
def test_deal_seven_each_left_of_dealer_one_at_a_time(players, hand_size):
    r = rules(players=players, hand_size=hand_size)
    seed = find_seed(players, is_number, hand_size)
    game = dealt_and_compared(r, seed)
    deck = deck_order(seed)
    dealer = game.dealer
    expected = [[0] * 54 for _ in range(players)]
    for j in range(players * hand_size):
        expected[(dealer + 1 + j) % players][deck[DECK_SIZE - 1 - j]] += 1
    assert game.hands == expected
    assert [game.hand_size(s) for s in range(players)] == [hand_size] * players
    assert game.top == deck[DECK_SIZE - players * hand_size - 1]
    assert len(game.pile) == DECK_SIZE - players * hand_size - 1
    assert game.actor == (dealer + 1) % players
    assert game.phase == PLAY and game.direction == 1 and game.pending == 0
    run = run_both(game, ["draw"])
    assert run.game.hand_size((dealer + 1) % players) == hand_size + 1


def test_dealer_is_drawn_from_the_seed_and_varies():
    r = rules(players=4)
    dealers = {ReferenceGame(r, seed).dealer for seed in range(40)}
    assert dealers == {0, 1, 2, 3}
    state = engine.reset(r, np.arange(40, dtype=np.uint64))
    assert state.dealer.tolist() == [ReferenceGame(r, seed).dealer for seed in range(40)]


@pytest.mark.parametrize("players", [2, 3])
def test_first_draw_two_first_player_draws_two_and_is_skipped(players):
    r = rules(players=players)
    seed = find_seed(players, lambda k: k < 52 and KIND_RANK[k] == DRAW_TWO_RANK)
    game = dealt_and_compared(r, seed)
    first = (game.dealer + 1) % players
    assert game.hand_size(first) == 9
    assert all(game.hand_size(s) == 7 for s in range(players) if s != first)
    assert game.actor == (first + 1) % players and game.phase == PLAY
    assert game.pending == 0 and game.direction == 1
    run_both(game, ["draw"])


@pytest.mark.parametrize("players", [2, 3, 5])
def test_first_skip_skips_the_first_player(players):
    r = rules(players=players)
    seed = find_seed(players, lambda k: k < 52 and KIND_RANK[k] == SKIP_RANK)
    game = dealt_and_compared(r, seed)
    assert game.actor == (game.dealer + 2) % players
    assert all(game.hand_size(s) == 7 for s in range(players))
    run_both(game, ["draw"])


def test_first_reverse_dealer_plays_first_and_direction_flips():
    r = rules(players=4)
    seed = find_seed(4, lambda k: k < 52 and KIND_RANK[k] == REVERSE_RANK)
    game = dealt_and_compared(r, seed)
    dealer = game.dealer
    assert game.actor == dealer and game.direction == -1
    # Play goes the other way: after the dealer's draw (no playable card drawn or kept),
    # the seat on the dealer's right acts.
    run = run_both(game, ["draw"])
    if run.game.phase != PLAY:
        run = run_both(run.game, ["pass"])
    assert run.game.actor == (dealer - 1) % 4


def test_first_reverse_with_two_players_acts_as_skip():
    r = rules(players=2)
    seed = find_seed(2, lambda k: k < 52 and KIND_RANK[k] == REVERSE_RANK)
    game = dealt_and_compared(r, seed)
    # The first player (left of the dealer) is skipped: the dealer plays first.
    assert game.actor == game.dealer
    assert game.direction == -1
    run_both(game, ["draw"])


@pytest.mark.parametrize("players", [2, 4])
def test_first_wild_first_player_names_the_color_then_plays(players):
    r = rules(players=players)
    seed = find_seed(players, lambda k: k == WILD)
    game = dealt_and_compared(r, seed)
    first = (game.dealer + 1) % players
    assert game.phase == COLOR and game.actor == first and game.color == -1
    assert game.legal_actions() == [CHOOSE_COLOR + c for c in range(4)]
    run = run_both(game, ["color green"])
    assert run.game.color == 2 and run.game.top == WILD
    assert run.game.actor == first and run.game.phase == PLAY
    assert all(run.game.hand_size(s) == 7 for s in range(players))


def test_first_wild_color_chosen_by_dealer():
    r = rules(players=3, first_wild_color_by="dealer")
    seed = find_seed(3, lambda k: k == WILD)
    game = dealt_and_compared(r, seed)
    dealer = game.dealer
    assert game.phase == COLOR and game.actor == dealer
    run = run_both(game, ["color blue"])
    # The dealer named the color; the first player (left of the dealer) then plays.
    assert run.game.color == 3
    assert run.game.actor == (dealer + 1) % 3 and run.game.phase == PLAY


@pytest.mark.parametrize("players", [2, 4])
def test_first_draw_four_goes_back_and_a_new_card_is_turned(players):
    r = rules(players=players)
    seed = find_seed(players, lambda k: k == WILD_DRAW_FOUR)
    game = dealt_and_compared(r, seed)
    assert game.top != WILD_DRAW_FOUR
    assert game.discard == [int(k == game.top) for k in range(54)]
    assert count_cards(game) == KIND_COPIES.tolist()
    assert sum(count_cards(game)) == DECK_SIZE
    # The hands are exactly as dealt; the +4 went back into the (reshuffled) pile.
    deck = deck_order(seed)
    dealt = players * 7
    held = sorted(k for s in range(players) for k, n in enumerate(game.hands[s]) for _ in range(n))
    assert held == sorted(deck[DECK_SIZE - dealt :].tolist())
    in_hands = sum(game.hands[s][WILD_DRAW_FOUR] for s in range(players))
    assert game.pile.count(WILD_DRAW_FOUR) == 4 - in_hands
    assert len(game.pile) == DECK_SIZE - dealt - 1
    # The pile (the +4 included) was reshuffled and its new top card turned.
    rest = deck[: DECK_SIZE - dealt - 1].tolist()
    assert sorted(game.pile + [game.top]) == sorted(rest + [WILD_DRAW_FOUR])
    assert game.pile != rest
    run_both(game, ["draw"])


def test_first_draw_four_turned_twice_is_sent_back_twice():
    """Seeds where the card turned after the first reshuffle is again a +4 (about 1 in 700)."""
    r = rules(players=2)
    found = None
    for seed in range(200_000):
        if first_turned(seed, 2) != WILD_DRAW_FOUR:
            continue
        probe = ReferenceGame.__new__(ReferenceGame)
        probe.key = seed
        pile = deck_order(seed)[: DECK_SIZE - 15].tolist()
        again = probe._shuffled(sorted(pile + [WILD_DRAW_FOUR]), rng.FIRST_DRAW4, 0)
        if again[-1] == WILD_DRAW_FOUR:
            found = seed
            break
    assert found is not None
    game = dealt_and_compared(r, found)
    assert game.top != WILD_DRAW_FOUR
    assert count_cards(game) == KIND_COPIES.tolist()
    run_both(game, ["draw"])


@pytest.mark.parametrize(
    "rank", [DRAW_TWO_RANK, SKIP_RANK, REVERSE_RANK], ids=["draw-two", "skip", "reverse"]
)
def test_first_card_effects_off(rank):
    r = rules(players=3, first_card_effects=False)
    seed = find_seed(3, lambda k: k < 52 and KIND_RANK[k] == rank)
    game = dealt_and_compared(r, seed)
    assert game.actor == (game.dealer + 1) % 3
    assert game.direction == 1 and game.phase == PLAY
    assert all(game.hand_size(s) == 7 for s in range(3))
    run = run_both(game, [DRAW])
    assert run.game.hand_size((game.dealer + 1) % 3) == 8


def test_first_card_effects_off_still_names_a_wild_color_and_sends_back_a_draw_four():
    r = rules(players=3, first_card_effects=False)
    game = dealt_and_compared(r, find_seed(3, lambda k: k == WILD))
    assert game.phase == COLOR and game.actor == (game.dealer + 1) % 3
    run_both(game, ["color red"])
    game = dealt_and_compared(r, find_seed(3, lambda k: k == WILD_DRAW_FOUR))
    assert game.top != WILD_DRAW_FOUR


def test_batched_reset_matches_reference_for_many_seeds_and_first_cards():
    r = rules(players=3)
    seeds = np.arange(300, dtype=np.uint64)
    state = engine.reset(r, seeds)
    tops = set()
    for i, seed in enumerate(seeds):
        game = ReferenceGame(r, int(seed))
        tops.add(int(game.top))
        assert set(states_equal(state, i, game)) <= _AFTER_DEAL_UNUSED
    assert WILD in tops and any(KIND_RANK[t] == REVERSE_RANK for t in tops if t < 52)


@pytest.mark.parametrize("players", [2, 4])
def test_engine_reset_equals_reference_field_for_field(players):
    r = rules(players=players)
    for seed in range(5):
        state = engine.reset(r, np.array([seed], np.uint64))
        assert states_equal(state, 0, ReferenceGame(r, seed)) == []
