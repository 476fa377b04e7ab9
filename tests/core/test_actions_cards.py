"""Card tables and the action space: composition, points, names and encodings."""

from __future__ import annotations

import numpy as np
import pytest

from uno_rl.core import NUM_ACTIONS, action_name
from uno_rl.core import actions as A
from uno_rl.core import cards as C
from uno_rl.core.actions import parse_action, play_action
from uno_rl.core.cards import card_name, parse_card

# ------------------------------------------------------------------- cards


def test_deck_composition():
    assert C.NUM_KINDS == 54 and C.DECK_SIZE == 108
    assert C.KIND_COPIES.sum() == 108
    deck = C.CANONICAL_DECK
    assert deck.shape == (108,) and (np.diff(deck.astype(int)) >= 0).all()
    assert np.array_equal(np.bincount(deck, minlength=54), C.KIND_COPIES)
    for color in range(4):
        kinds = [C.kind(color, r) for r in range(13)]
        assert C.KIND_COPIES[kinds].sum() == 25
        assert C.KIND_COPIES[C.kind(color, 0)] == 1
        assert all(C.KIND_COPIES[C.kind(color, r)] == 2 for r in range(1, 13))
    assert C.KIND_COPIES[C.WILD] == 4 and C.KIND_COPIES[C.WILD_DRAW_FOUR] == 4


def test_kind_tables():
    for k in range(52):
        assert C.KIND_COLOR[k] == k // 13 and C.KIND_RANK[k] == k % 13
        assert C.kind(k // 13, k % 13) == k
        assert C.KIND_HAS_COLOR[k].sum() == 1 and C.KIND_HAS_COLOR[k, k // 13]
    assert C.KIND_COLOR[C.WILD] == C.NO_COLOR == C.KIND_COLOR[C.WILD_DRAW_FOUR] == -1
    assert not C.KIND_HAS_COLOR[52:].any()
    assert C.KIND_RANK[C.WILD] == 13 and C.KIND_RANK[C.WILD_DRAW_FOUR] == 14
    assert C.KIND_IS_NUMBER.sum() == 40 and not C.KIND_IS_NUMBER[52:].any()
    assert np.flatnonzero(C.KIND_IS_WILD).tolist() == [52, 53]
    assert np.flatnonzero(C.KIND_IS_DRAW).tolist() == [12, 25, 38, 51, 53]
    assert C.KIND_DRAW_AMOUNT[C.WILD_DRAW_FOUR] == 4
    assert all(C.KIND_DRAW_AMOUNT[C.kind(c, C.DRAW_TWO_RANK)] == 2 for c in range(4))
    assert C.KIND_DRAW_AMOUNT.sum() == 4 * 2 + 4
    # SAME_SYMBOL: colored, same rank; symmetric; wilds never
    assert (C.SAME_SYMBOL == C.SAME_SYMBOL.T).all()
    assert not C.SAME_SYMBOL[52:].any() and not C.SAME_SYMBOL[:, 52:].any()
    assert C.SAME_SYMBOL[:52, :52].sum() == 52 * 4


def test_points():
    for k in range(52):
        rank = k % 13
        assert C.KIND_POINTS[k] == (rank if rank < 10 else 20)
    assert C.KIND_POINTS[C.WILD] == C.KIND_POINTS[C.WILD_DRAW_FOUR] == 50
    # whole deck: per color 0 + 2*(1+..+9) + 3*2*20 = 210; wilds 8*50
    assert int((C.KIND_POINTS.astype(int) * C.KIND_COPIES).sum()) == 4 * 210 + 400


def test_card_names_round_trip():
    names = [card_name(k) for k in range(54)]
    assert len(set(names)) == 54
    for k, name in enumerate(names):
        assert parse_card(name) == k
        assert parse_card(name.upper()) == k
        assert parse_card(f"  {name} ") == k
    assert card_name(0) == "red 0" and card_name(C.kind(3, 12)) == "blue +2"
    assert card_name(C.kind(1, 10)) == "yellow skip" and card_name(C.kind(2, 11)) == "green reverse"
    assert card_name(52) == "wild" and card_name(53) == "+4"
    assert card_name(np.int8(5)) == "red 5"


@pytest.mark.parametrize(
    ("text", "kind"), [("w", 52), ("wild+4", 53), ("wild draw four", 53), ("WD4", 53)]
)
def test_parse_card_aliases(text, kind):
    assert parse_card(text) == kind


@pytest.mark.parametrize("text", ["", "red", "purple 7", "red 10", "red 7 7", "draw two", "+2"])
def test_parse_card_rejects(text):
    with pytest.raises(ValueError, match="cannot parse card"):
        parse_card(text)


@pytest.mark.parametrize("k", [-1, 54, 100])
def test_card_name_rejects(k):
    with pytest.raises(ValueError, match="card kind"):
        card_name(k)


@pytest.mark.parametrize(("color", "rank"), [(-1, 0), (4, 0), (0, 13), (0, -1)])
def test_kind_rejects(color, rank):
    with pytest.raises(ValueError):
        C.kind(color, rank)


# ----------------------------------------------------------------- actions


def test_action_space_layout():
    assert NUM_ACTIONS == A.NUM_ACTIONS == 77
    assert (A.PLAY_WILD, A.PLAY_DRAW_FOUR, A.DRAW, A.PASS, A.CHALLENGE, A.ACCEPT) == (
        52,
        56,
        60,
        61,
        62,
        63,
    )
    assert (A.TARGET, A.MAX_TARGETS, A.CHOOSE_COLOR) == (64, 9, 73)
    assert A.TARGET + A.MAX_TARGETS == A.CHOOSE_COLOR and A.CHOOSE_COLOR + 4 == NUM_ACTIONS
    for table in (A.ACTION_CARD, A.ACTION_COLOR, A.ACTION_TARGET):
        assert table.shape == (NUM_ACTIONS,)
    assert A.ACTION_CARD[:52].tolist() == list(range(52))
    assert (A.ACTION_CARD[52:56] == C.WILD).all() and (
        A.ACTION_CARD[56:60] == C.WILD_DRAW_FOUR
    ).all()
    assert (A.ACTION_CARD[60:] == -1).all()
    assert A.ACTION_COLOR[52:60].tolist() == [0, 1, 2, 3] * 2
    assert A.ACTION_COLOR[73:].tolist() == [0, 1, 2, 3]
    assert (A.ACTION_COLOR[:52] == -1).all() and (A.ACTION_COLOR[60:73] == -1).all()
    assert A.ACTION_TARGET[64:73].tolist() == list(range(1, 10))
    assert (A.ACTION_TARGET[:64] == 0).all() and (A.ACTION_TARGET[73:] == 0).all()


def test_action_names_round_trip():
    names = [action_name(a) for a in range(NUM_ACTIONS)]
    assert len(set(names)) == NUM_ACTIONS
    for a, name in enumerate(names):
        assert parse_action(name) == a
        assert parse_action(f" {name.upper()} ") == a
        assert action_name(np.int64(a)) == name
    assert action_name(7) == "play red 7"
    assert action_name(A.PLAY_WILD + 3) == "wild naming blue"
    assert action_name(A.PLAY_DRAW_FOUR + 1) == "+4 naming yellow"
    assert action_name(A.DRAW) == "draw" and action_name(A.PASS) == "pass"
    assert action_name(A.CHALLENGE) == "challenge"
    assert action_name(A.ACCEPT) == "accept the draw"
    assert action_name(A.TARGET) == "swap hands with the player 1 seat(s) clockwise"
    assert action_name(A.CHOOSE_COLOR + 2) == "name color green"


def test_action_names_mention_cards_and_colors():
    for a in range(52):
        assert action_name(a) == f"play {card_name(a)}"
    for a in range(52, 60):
        assert C.COLOR_NAMES[A.ACTION_COLOR[a]] in action_name(a)
    for a in range(A.TARGET, A.CHOOSE_COLOR):
        assert str(A.ACTION_TARGET[a]) in action_name(a)


@pytest.mark.parametrize("bad", [-1, 77, 1000])
def test_action_name_rejects(bad):
    with pytest.raises(ValueError, match=r"\[0, 77\)"):
        action_name(bad)


@pytest.mark.parametrize("text", ["", "play", "play red 13", "wild", "swap", "draw two"])
def test_parse_action_rejects(text):
    with pytest.raises(ValueError, match="unknown action"):
        parse_action(text)


def test_play_action():
    for k in range(52):
        assert play_action(k) == k
        assert A.ACTION_CARD[play_action(k)] == k
    for color in range(4):
        assert play_action(C.WILD, color) == A.PLAY_WILD + color
        assert play_action(C.WILD_DRAW_FOUR, color) == A.PLAY_DRAW_FOUR + color
        for kind in (C.WILD, C.WILD_DRAW_FOUR):
            a = play_action(kind, color)
            assert A.ACTION_CARD[a] == kind and A.ACTION_COLOR[a] == color
    assert play_action(parse_card("green +2")) == parse_action("play green +2")


@pytest.mark.parametrize(
    ("kind", "color", "match"),
    [
        (C.WILD, None, "needs a color"),
        (C.WILD, 4, "needs a color"),
        (C.WILD_DRAW_FOUR, -1, "needs a color"),
        (54, None, "no card kind"),
        (-1, None, "no card kind"),
    ],
)
def test_play_action_rejects(kind, color, match):
    with pytest.raises(ValueError, match=match):
        play_action(kind, color)
