"""Replays on every deck: recorded, saved, loaded and played again to the same outcome; the
file records the deck's cards; a deck the reader does not know (or whose cards changed) is
refused in one clear line."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest

from uno_rl.agents import make_agent
from uno_rl.core import load_rules
from uno_rl.core.decks import available_decks, load_deck
from uno_rl.programs import replay as viewer
from uno_rl.replays import (
    AgentSeat,
    GameRecorder,
    ReplayError,
    from_dict,
    load,
    outcome_of,
    play_game,
    save,
    simulate,
    to_dict,
)
from uno_rl.terminal.style import Style

SHIPPED = ["classic", "modern-112", "swap-112", "extension", "extreme"]
SMALL_DECK = """description = "a small test deck"
[cards]
"1-9" = 1
skip = 1
"targeted+2" = 1
boomerang = 2
"""


def record(rules, seed: int, lineup=("random-playable", "rule", "random")):
    lineup = list(lineup)[: rules.players]
    rng = np.random.default_rng(seed)
    recorder = GameRecorder(rules, seed, lineup, preset="official")
    players = [AgentSeat(make_agent(spec, rules), rng) for spec in lineup]
    state = play_game(rules, players, seed, recorder)
    return recorder.replay(state), state


def test_the_shipped_decks_are_these():
    assert set(SHIPPED) <= set(available_decks())


@pytest.mark.parametrize("deck", SHIPPED)
def test_a_recorded_game_replays_to_the_same_outcome(deck, tmp_path):
    rules = load_rules("official", players=3, deck=deck)
    replay, state = record(rules, seed=5)
    assert replay.outcome.finished
    path = save(replay, tmp_path / "game.json")
    data = json.loads(path.read_text())
    assert data["rules"]["deck"] == deck
    copies = rules.deck_cards.copies
    assert sum(data["deck"].values()) == rules.deck_cards.size == int(copies.sum())
    back = load(path)  # verified on load
    assert back == replay and from_dict(to_dict(replay)) == replay
    final = simulate(back)
    assert outcome_of(final, len(back.actions)) == replay.outcome
    np.testing.assert_array_equal(final.hands, state.hands)
    out = io.StringIO()
    viewer.show(back, None, Style(color=False), out)  # every decision narrated, hands open
    text = out.getvalue()
    assert "Traceback" not in text and text.count("---- decision") == len(replay.actions)
    if deck != "classic":
        assert f"deck {deck}," in text.splitlines()[0]
    seat = io.StringIO()
    viewer.show(back, 1, Style(color=False), seat)
    assert "deal seed" not in seat.getvalue()


def test_new_card_actions_are_recorded_and_range_checked(tmp_path):
    rules = load_rules("official", players=3, deck="extension")
    replay = next(r for r, _ in (record(rules, s) for s in range(30))
                  if any(a >= 77 for _, a in r.actions))  # fmt: skip
    data = to_dict(replay)
    data["actions"][0][1] = 122
    with pytest.raises(ReplayError, match=r"actions\[0\]: action 122 is not in \[0, 122\)"):
        from_dict(data)
    classic = to_dict(record(load_rules("official", players=3), 1)[0])
    classic["actions"][0][1] = 77
    with pytest.raises(ReplayError, match=r"action 77 is not in \[0, 77\)"):
        from_dict(classic)


def test_an_unknown_deck_fails_with_one_clear_line(tmp_path, capsys):
    deck = tmp_path / "mine.toml"
    deck.write_text(SMALL_DECK)
    rules = load_rules("official", players=2, hand_size=3, deck=str(deck))
    replay, _ = record(rules, seed=2)
    path = save(replay, tmp_path / "game.json")
    assert load(path).outcome == replay.outcome
    deck.unlink()  # the reader does not have the deck
    load_deck.cache_clear()  # as in a new process (decks are loaded once per process)
    with pytest.raises(ReplayError, match="the replay's deck is unknown here") as error:
        load(path)
    assert "\n" not in str(error.value)
    assert viewer.main([str(path), "--no-color"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and "deck" in err


def test_a_deck_whose_cards_changed_is_refused(tmp_path):
    deck = tmp_path / "mine.toml"
    deck.write_text(SMALL_DECK)
    rules = load_rules("official", players=2, hand_size=3, deck=str(deck))
    path = save(record(rules, seed=3)[0], tmp_path / "game.json")
    deck.write_text(SMALL_DECK.replace("boomerang = 2", "boomerang = 3"))
    load_deck.cache_clear()  # as in a new process (decks are loaded once per process)
    with pytest.raises(ReplayError, match=r"is not the one the replay was recorded with "
                                          r"\('boomerang': 3 here, 2 in the file\)"):  # fmt: skip
        load(path)


def test_a_file_without_the_deck_key_plays_on_its_rules_deck(tmp_path):
    replay, _ = record(load_rules("official", players=2), seed=4)
    data = to_dict(replay)
    del data["deck"]  # a file saved before decks existed
    assert from_dict(data) == replay
    data["deck"] = {"red 0": "one"}
    with pytest.raises(ReplayError, match="'deck' must be an object of card name -> copies"):
        from_dict(data)
