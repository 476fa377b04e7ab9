"""``uno_rl play`` on the decks of rules specification §11: scripted games on ``extreme`` (the
dispenser, Discard All, hits) and ``extension`` (targeted draws, Downpours, Boomerangs),
saved and replayed exactly, and nothing hidden shown to the person."""

from __future__ import annotations

import re

from terminal_script import find_seed, play_in_process, questions_seen

from uno_rl.render.text import strip_ansi
from uno_rl.replays import load

PREFER = ["target", "send it back", "challenge", "discard all", "hit", "play", "press"]


def _game(deck: str, wanted: set[str], tmp_path, opponents=("random-playable", "rule")):
    argv = ["--opponents", *opponents, "--set", f"deck={deck}", "--no-color"]
    seed = find_seed(argv, PREFER, wanted, tries=200)
    path = tmp_path / f"{deck}.json"
    code, out = play_in_process([*argv, "--seed", str(seed), "--save", str(path)], PREFER)
    text = strip_ansi(out)
    assert code == 0 and "Traceback" not in text, text[-3000:]
    assert wanted <= questions_seen(text)
    replay = load(path)  # verified: the actions replay to the recorded outcome
    assert replay.rules.deck == deck and replay.seats[0] == "human"
    assert f"Replay of the game saved to {path}" in text
    again = tmp_path / f"{deck}-again.json"
    code, _ = play_in_process([*argv, "--seed", str(seed), "--save", str(again)], PREFER)
    assert code == 0 and again.read_text() == path.read_text()  # the same game again
    return text, replay


def _hidden_hands_stay_hidden(text: str, players: int) -> None:
    """Only the person's own hand is listed before the game is over."""
    playing = text.split("---- game over")[0]
    for seat in range(1, players):
        assert not re.search(rf"Hand of seat {seat}", playing)
        assert not re.search(rf"\(Seat {seat} \([^)]*\) drew ", playing)  # their draws


def test_a_scripted_game_on_extreme(tmp_path):
    text, replay = _game("extreme", {"play"}, tmp_path)
    assert "Deck extreme (104 cards) with the random card dispenser." in text
    assert "press the dispenser" in text  # the menu's draw is a press
    assert re.search(r"dispenser: \d+ press(es)? since it fired", text)  # on the table
    assert re.search(r"Dispenser: \d+ press(es)?, it (did not )?fire", text)  # narrated
    assert replay.rules.dispenser_on and replay.outcome.finished
    _hidden_hands_stay_hidden(text, 3)


def test_a_scripted_game_on_extension(tmp_path):
    text, replay = _game("extension", {"play", "target draw", "skip"}, tmp_path)
    assert "Deck extension (120 cards)." in text
    assert re.search(
        r"You target seat \d \([^)]*\) with \[(red |yellow |green |blue )?targeted", text
    )
    assert "send it back with a boomerang" in text
    assert "You accept the Skip and lose the turn." in text or "Skip came back" in text
    _hidden_hands_stay_hidden(text, 3)
