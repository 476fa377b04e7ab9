"""A deck that may leave no card to turn first is refused when the rules are made.

A deal turns cards from the pile until one may start the discard pile (a +4, Swap or Shuffle
Hands, Targeted +4 or Boomerang goes back). A deck whose every such card could end up in the
hands would deal forever; it is refused in one line, in Python and from every program.
"""

from __future__ import annotations

import numpy as np
import pytest

from uno_rl.core import engine, load_rules
from uno_rl.core.rules import RulesError
from uno_rl.programs import simulate


def deck_file(folder, cards: str):
    path = folder / "mine.toml"
    path.write_text(f'description = "test deck"\n\n[cards]\n{cards}\n')
    return path


@pytest.mark.parametrize(
    "cards, players",
    [
        ('"+4" = 40', 2),
        ('"wild-shuffle-hands" = 40', 2),
        ('"boomerang" = 30\n"targeted+4" = 30', 3),
        ('"+4" = 40\n"red 1" = 1', 4),  # one red 1, which the deal may hand to a player
        ('"+4" = 40\n"1" = 7', 4),  # 28 number cards: all of them can be dealt at 4 x 7
    ],
)
def test_a_deck_without_enough_first_cards_is_refused(tmp_path, cards, players):
    path = deck_file(tmp_path, cards)
    with pytest.raises(RulesError, match=r"may be turned as the first card.*needs more than"):
        load_rules("official", players=players, deck=str(path))


def test_a_deck_with_just_enough_first_cards_deals_every_seed(tmp_path):
    # 4 x 7 = 28 cards dealt, 29 that may be turned: every deal finds one, however it falls.
    path = deck_file(tmp_path, '"+4" = 40\n"1-7" = 1\n"red 8" = 1')
    rules = load_rules("official", players=4, deck=str(path))
    seeds = np.random.default_rng(0).integers(0, 2**63, size=2_000, dtype=np.uint64)
    state = engine.reset(rules, seeds)
    turned = rules.layout.returns_as_first_card[state.top]
    assert not turned.any()


def test_simulate_refuses_the_deck_in_one_line(tmp_path, capsys):
    path = deck_file(tmp_path, '"+4" = 40')
    with pytest.raises(SystemExit) as stop:
        simulate.main(["--set", f"deck={path}", "--rounds", "10", "--no-progress"])
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and "first card" in err[0], err


def test_the_deal_is_bounded_even_if_the_deck_check_were_bypassed(tmp_path, monkeypatch):
    # With the bound lowered to 2 reshuffles, a deck keeping one first card in a pile of 42
    # needs more in some deals: both the NumPy engine and the reference stop with an error
    # (the compiled engine's bound is compiled in).
    from uno_rl.core import deal, numpy_engine, reference

    path = deck_file(tmp_path, '"+4" = 40\n"1-7" = 1\n"red 8" = 1')
    rules = load_rules("official", players=4, deck=str(path))
    monkeypatch.setattr(deal, "MAX_FIRST_CARD_ATTEMPTS", 2)
    monkeypatch.setattr(reference, "MAX_FIRST_CARD_ATTEMPTS", 2)
    seeds = np.arange(200, dtype=np.uint64)
    with pytest.raises(RuntimeError, match=r"could be turned first after 2 reshuffles"):
        numpy_engine.reset(rules, seeds)
    with pytest.raises(RuntimeError, match=r"could be turned first after 2 reshuffles"):
        for seed in range(200):
            reference.ReferenceGame(rules, seed)
