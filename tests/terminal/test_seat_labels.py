"""The terminal game and the replay viewer name each seat by its agent's short label, and say
the full spec once."""

from __future__ import annotations

import io

import pytest
from terminal_script import find_seed, play_in_process

from uno_rl.programs import replay as viewer
from uno_rl.terminal.table import seat_names, spec_notes

BLUFFER = ["--opponents", "color-first:bluff=1", "--no-color"]
CHALLENGE = ["challenge the +4", "then choose a color", "play it:", "play ["]


def test_seat_names_use_labels_that_tell_the_seats_apart():
    alone = seat_names(["human", "color-first:bluff=1"])
    assert alone == ["seat 0 (human)", "seat 1 (color-first)"]
    both = seat_names(["human", "color-first:bluff=1", "color-first", "color-first"])
    assert both == ["seat 0 (human)", "seat 1 (color-first:bluff=1)", "seat 2 (color-first)",
                    "seat 3 (color-first)"]  # fmt: skip
    assert spec_notes(["human", "color-first:bluff=1"]) == [
        "Seat 1 (color-first) plays color-first:bluff=1."
    ]
    assert spec_notes(["human", "color-first:bluff=1", "color-first"]) == []
    assert spec_notes(["pimc:rollouts=1", "human", "pimc:rollouts=1"]) == [
        "Seat 0 (pimc) and seat 2 (pimc) play pimc:rollouts=1."
    ]


@pytest.fixture(scope="module")
def bluffer_game(tmp_path_factory):
    """(output, replay path) of a game against ``color-first:bluff=1`` in which the person is
    asked to challenge its +4."""
    seed = find_seed(BLUFFER, CHALLENGE, {"challenge"})
    path = tmp_path_factory.mktemp("labels") / "game.json"
    code, out = play_in_process([*BLUFFER, "--seed", str(seed), "--save", str(path)], CHALLENGE)
    assert code == 0
    return out, path


def test_the_narration_names_the_opponent_by_its_label(bluffer_game):
    out, _ = bluffer_game
    assert "You challenge seat 1 (color-first)'s +4." in out
    assert "Opponents: seat 1 (color-first)." in out
    # the spec is said once, at the start, and nowhere else
    assert out.count("color-first:bluff=1") == 1
    assert "Seat 1 (color-first) plays color-first:bluff=1." in out


def test_the_replay_viewer_names_seats_by_their_labels(bluffer_game):
    _, path = bluffer_game
    shown = io.StringIO()
    assert viewer.main([str(path), "--no-color"], lambda: "", shown) == 0
    text = shown.getvalue()
    assert "Seats: seat 0 (human), seat 1 (color-first)." in text
    assert "Seat 1 (color-first) plays color-first:bluff=1." in text
    assert text.count("color-first:bluff=1") == 1
    assert "seat 1 (color-first)" in text.split("Seat 1 (color-first) plays", 1)[1]
