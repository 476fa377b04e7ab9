"""Decks as data (rules specification §11): the shipped deck files, user decks and their
validation, the two layouts (the classic one unchanged), and the differential test of every
playable shipped deck against the reference."""

from __future__ import annotations

import numpy as np
import pytest
import suite_profile

from uno_rl.core import actions, cards, engine, observe_layout, tables
from uno_rl.core.decks import DeckError, available_decks, load_deck
from uno_rl.core.layout import CLASSIC, EXTENDED
from uno_rl.core.observe import observe
from uno_rl.core.rules import Rules, RulesError, load_rules

try:
    from .test_differential import play_both
except ImportError:
    from test_differential import play_both

SHIPPED = {"classic": 108, "modern-112": 112, "swap-112": 112, "extension": 120, "extreme": 104}
PLAYABLE = ["modern-112", "swap-112", "extension", "extreme"]


def test_shipped_decks():
    assert set(SHIPPED) <= set(available_decks())
    for name, size in SHIPPED.items():
        deck = load_deck(name)
        assert deck.size == size, name
        assert deck.description
        assert deck.layout is (CLASSIC if name == "classic" else EXTENDED)
    assert load_deck("extreme").dispenser and not load_deck("classic").dispenser
    extreme = load_deck("extreme").table()
    assert "red 0" not in extreme and "red +2" not in extreme and "+4" not in extreme
    assert extreme["red 9"] == 2 and extreme["wild"] == 4 and extreme["red discard all"] == 1
    assert load_deck("modern-112").table()["wild shuffle hands"] == 1
    assert load_deck("swap-112").table()["wild customizable"] == 3


def test_classic_deck_and_layout_are_unchanged():
    deck = load_deck("classic")
    assert np.array_equal(deck.cards, cards.CANONICAL_DECK)
    assert np.array_equal(deck.copies, cards.KIND_COPIES)
    assert CLASSIC.num_actions == actions.NUM_ACTIONS == 77
    assert CLASSIC.obs_size == observe_layout.OBS_SIZE == 583
    assert CLASSIC.pieces == observe_layout.PIECES
    assert np.array_equal(CLASSIC.matches, tables.MATCHES)
    assert np.array_equal(CLASSIC.kind_actions, tables.KIND_ACTIONS)
    assert np.array_equal(CLASSIC.kind_points, cards.KIND_POINTS)
    assert [CLASSIC.action_name(a) for a in range(77)] == [
        actions.action_name(a) for a in range(77)
    ]
    # A classic game's state and observation have the shapes they always had.
    state = engine.reset(Rules(players=3), np.arange(4, dtype=np.uint64))
    assert state.hands.shape == (4, 3, 54) and state.pile.shape == (4, 108)
    assert state.swap_given.shape == (4, 2, 0)
    assert observe(state, 0).shape == (4, 583) and engine.legal_mask(state).shape == (4, 77)


def test_extended_layout():
    assert EXTENDED.num_kinds == 75 and EXTENDED.num_actions == 122 and EXTENDED.obs_size == 877
    # the classic kinds and actions keep their numbers
    assert np.array_equal(EXTENDED.kind_rank[:54], CLASSIC.kind_rank)
    assert np.array_equal(EXTENDED.action_card[:77], CLASSIC.action_card)
    names = [EXTENDED.card_name(k) for k in range(75)]
    assert len(set(names)) == 75
    assert all(EXTENDED.parse_card(n) == k for k, n in enumerate(names))
    actions_named = [EXTENDED.action_name(a) for a in range(122)]
    assert len(set(actions_named)) == 122
    assert EXTENDED.parse_action("wild shuffle hands naming green") == 101 + 2
    assert EXTENDED.action_name(121) == "play boomerang"
    state = engine.reset(Rules(deck="modern-112", players=4), np.arange(3, dtype=np.uint64))
    assert state.hands.shape == (3, 4, 75) and state.pile.shape == (3, 112)
    assert observe(state, 1).shape == (3, 877) and engine.legal_mask(state).shape == (3, 122)


def _write(tmp_path, text: str, name: str = "mine.toml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


BASE = '"0" = 1\n"1-9" = 2\nskip = 2\nreverse = 2\n"+2" = 2\nwild = 4\n"+4" = 4\n'


def test_user_deck_by_path_and_by_folder(tmp_path, monkeypatch):
    path = _write(tmp_path, f'description = "more +4s"\n[cards]\n{BASE.replace("= 4", "= 6")}')
    deck = load_deck(path)
    assert deck.size == 112 and deck.layout is CLASSIC
    rules = Rules(deck=path, players=4)
    state = engine.reset(rules, np.arange(2, dtype=np.uint64))
    assert state.pile.shape == (2, 112) and state.hand_size.sum() == 2 * 28
    monkeypatch.setenv("UNO_RL_DECKS", str(tmp_path))
    assert "mine" in available_decks()
    assert load_rules("official", deck="mine").deck_cards.size == 112
    one = _write(tmp_path, f'[cards]\n{BASE}"red 7" = 5\n', "single.toml")
    assert load_deck(one).table()["red 7"] == 5


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[cards]\nwidl = 4\n", "unknown card 'widl' (did you mean 'wild'?)"),
        ('[cards]\n"1-9" = 2\nskip = -1\n', "cards.skip must be an integer in 0..127"),
        ('[cards]\n"1-9" = 2\nskip = 2.5\n', "cards.skip must be an integer in 0..127"),
        ('[cards]\n"1-9" = 2\n"5" = 3\n', "red 5 is already set by '1-9'"),
        ('[cards]\n"0-12" = 2\n', "a range of numbers must lie in 0-9"),
        ('[cards]\n"red wild" = 2\n"1-9" = 2\n', "'wild' has no color"),
        ("[cards]\nwild = 4\n", "a deck needs 12 to 1000 cards, got 4"),
        ('[cards]\n"1-9" = 127\n"0" = 127\n', "a deck needs 12 to 1000 cards"),
        ("colors = 5\n[cards]\nwild = 40\n", "unknown top-level keys ['colors']"),
        ("cards = 3\n", "needs a [cards] table"),
        ("[cards\n", "is not valid TOML"),
        ('dispenser = "yes"\n[cards]\nwild = 40\n', "dispenser must be true or false"),
    ],
)
def test_bad_deck_files_name_the_entry(tmp_path, text, message):
    path = _write(tmp_path, text)
    with pytest.raises(DeckError) as error:
        load_deck(path)
    assert message in str(error.value) and "mine.toml" in str(error.value)
    with pytest.raises(RulesError, match="rules key 'deck'"):
        Rules(deck=path)


def test_unknown_deck_and_contradictions():
    with pytest.raises(RulesError, match="unknown deck 'clasic'; available decks: classic"):
        Rules(deck="clasic")
    with pytest.raises(RulesError, match="deck file nowhere/x.toml does not exist"):
        Rules(deck="nowhere/x.toml")
    with pytest.raises(RulesError, match="must be a deck name or a TOML path"):
        Rules(deck="")
    with pytest.raises(RulesError, match="the dispenser .* contradicts draw_until_playable"):
        Rules(deck="extreme", draw_until_playable=True)
    with pytest.raises(RulesError, match="contradicts .*drawn_card='auto-play'"):
        Rules(deck="classic", dispenser="on", drawn_card="auto-play")
    assert Rules(deck="extreme", dispenser="off", draw_until_playable=True).dispenser_on is False
    assert Rules(deck="extreme").dispenser_on and Rules(dispenser="on").dispenser_on
    assert Rules(deck="extension").boomerangs and not Rules(deck="extreme").boomerangs


def test_deal_size_follows_the_deck(tmp_path):
    small = _write(tmp_path, '[cards]\n"1-5" = 1\nwild = 4\n')  # 24 cards
    Rules(deck=small, players=2, hand_size=7)  # 14 dealt, 10 left
    with pytest.raises(RulesError, match="the deck '.*' has 24 cards"):
        Rules(deck=small, players=3, hand_size=7)


def test_dispenser_tables_are_validated():
    with pytest.raises(RulesError, match="last entry must be 1.0"):
        Rules(dispenser_hazard=[0.5, 0.5])
    with pytest.raises(RulesError, match="must sum to 1"):
        Rules(dispenser_count=[0.5, 0.4])
    with pytest.raises(RulesError, match="every entry must be a number in"):
        Rules(dispenser_count=[1.5, -0.5])
    assert abs(sum(Rules().dispenser_count) - 1.0) < 1e-9
    mean = sum((k + 1) * p for k, p in enumerate(Rules().dispenser_count))
    assert abs(mean - 4.96) < 1e-9


@pytest.mark.slow
@pytest.mark.parametrize("deck", PLAYABLE)
@pytest.mark.parametrize("players", [2, 4])
def test_shipped_decks_match_reference(deck, players):
    """Full rounds per (deck, player count), checked at every step: 1,000 in the long profile."""
    rounds = suite_profile.rounds(1000)
    cov = play_both(load_rules("official", deck=deck, players=players), 40, rounds, seed=players)
    assert cov.rounds >= rounds
    assert "new-wild" in cov.actions
