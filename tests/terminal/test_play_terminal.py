"""``python -m uno_rl.play`` driven through a pseudo-terminal like a person would, and in-process.

The scripted player (terminal_script.py) reads the menu on screen and answers with the first
choice matching its preferences. Each test first finds, in-process, a seed whose game asks the
questions it is about, then plays that game through the real program; between them the tests
see every question the program asks (play, drawn card, challenge, stacking, color of a wild,
color of a first-card wild, seven-zero target, multi-play, jump-in).
"""

from __future__ import annotations

import io
import json
import os
import re
import sys
from pathlib import Path

import pexpect
import pytest
from terminal_script import (
    default_sigint,
    find_seed,
    first_card_wild_seed,
    pick,
    play_in_process,
    questions_seen,
)

from uno_rl.programs import play
from uno_rl.render.text import strip_ansi
from uno_rl.replays import load

ROOT = Path(__file__).resolve().parents[2]
PROMPT = r"Your choice \[[^\]]*\]: "
TIMEOUT = 60  # seconds per expected output: generous for a loaded machine

OFFICIAL = ["--opponents", "random-playable"]
OFFICIAL_PREFER = ["challenge the +4", "then choose a color", "play it:", "play ["]
PARTY = ["--opponents", "random-playable", "rule", "--preset", "party"]
PARTY_PREFER = ["jump in:", " 7]", "stack", "play it:", "play ["]
MULTI = ["--opponents", "rule", "rule", "--preset", "seven-zero", "--set", "multi_play=true"]
MULTI_PREFER = ["challenge the +4", "add [", " 7]", "play it:", "play ["]


def spawn(*args: str) -> pexpect.spawn:
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    return pexpect.spawn(
        sys.executable, ["-m", "uno_rl.play", *args], encoding="utf-8", timeout=TIMEOUT,
        cwd=str(ROOT), env=env, dimensions=(60, 200), preexec_fn=default_sigint,
    )  # fmt: skip


def drive(child: pexpect.spawn, prefer, limit: int = 800) -> str:
    """Answer every question with the scripted player until the program ends."""
    screens = []
    for _ in range(limit):
        if child.expect([PROMPT, pexpect.EOF]) == 1:
            screens.append(child.before)
            child.close()
            return "".join(screens).replace("\r\n", "\n")
        screens.append(child.before + child.after)
        child.sendline(pick(child.before, prefer))
    raise AssertionError("the game did not end")


def test_a_full_game_in_color_is_saved_and_replays_exactly(tmp_path):
    wanted = {"play", "drawn", "challenge", "color"}
    seed = str(find_seed([*OFFICIAL, "--no-color"], OFFICIAL_PREFER, wanted))
    path = tmp_path / "game.json"
    child = spawn(*OFFICIAL, "--seed", seed, "--save", str(path))
    screen = drive(child, OFFICIAL_PREFER)
    assert child.exitstatus == 0, screen[-2000:]
    assert "\x1b[31m" in screen or "\x1b[33m" in screen  # colored cards on a terminal
    text = strip_ansi(screen)
    assert wanted <= questions_seen(text)
    assert re.search(r"(You deal|Seat 1 \(random-playable\) deals); the first card is \[", text)
    assert "Top card [" in text and "Your hand: [" in text and "seat 1 (random-playable)" in text
    assert "You challenge seat 1 (random-playable)'s +4." in text
    assert "Seat 1 (random-playable)'s hand: [" in text  # what the challenge revealed
    assert "---- game over" in text and "Traceback" not in text
    replay = load(path)  # checked: every action replays, the outcome is reproduced
    assert replay.seats == ("human", "random-playable") and replay.preset == "official"
    assert replay.source["seed"] == int(seed) and replay.outcome.finished
    winner = "You win the round!" if replay.outcome.winner == 0 else "Seat 1 (random-playable) wins"
    assert winner in text and f"Replay of the game saved to {path}" in text
    # the same seed and the same answers play the same game again
    again = tmp_path / "again.json"
    code, _ = play_in_process([*OFFICIAL, "--seed", seed, "--save", str(again)], OFFICIAL_PREFER)
    assert code == 0 and json.loads(again.read_text()) == json.loads(path.read_text())


def test_party_rules_ask_to_jump_in_stack_and_swap(tmp_path):
    wanted = {"play", "drawn", "jump", "target", "respond", "color"}
    seed = str(find_seed([*PARTY, "--no-color"], PARTY_PREFER, wanted))
    child = spawn(*PARTY, "--seed", seed, "--no-color", "--save", str(tmp_path / "p.json"))
    screen = drive(child, PARTY_PREFER)
    assert child.exitstatus == 0, screen[-2000:]
    assert "\x1b[" not in screen
    assert wanted <= questions_seen(screen)
    assert "You jump in with [" in screen and "Swap hands with whom? (seven-zero)" in screen
    assert "You swap hands with" in screen and "cards to draw are coming your way" in screen
    assert "---- game over" in screen
    replay = load(tmp_path / "p.json")
    assert replay.rules.players == 3 and replay.rules.jump_in and replay.outcome.finished


def test_seven_zero_with_multi_play_asks_for_more_cards(tmp_path):
    wanted = {"play", "multi", "challenge", "target", "color", "drawn"}
    seed = str(find_seed([*MULTI, "--no-color"], MULTI_PREFER, wanted))
    child = spawn(*MULTI, "--seed", seed, "--no-color", "--save", str(tmp_path / "m.json"))
    screen = drive(child, MULTI_PREFER)
    assert child.exitstatus == 0, screen[-2000:]
    assert wanted <= questions_seen(screen)
    assert "You add [" in screen
    assert load(tmp_path / "m.json").rules.multi_play


def test_first_card_wild_color_then_quit_saves_the_unfinished_game(tmp_path):
    path = tmp_path / "left.json"
    seed, seat = first_card_wild_seed("official", 2)
    child = spawn(*OFFICIAL, "--seed", str(seed), "--seat", str(seat), "--no-color", "--save",
                  str(path))  # fmt: skip
    child.expect(PROMPT)
    assert "choose its color." in child.before and "1) red (" in child.before
    child.sendline("3")  # green
    child.expect(PROMPT)
    assert "You name green as the first card's color." in child.before
    child.sendline("q")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert "You left the table: the game is abandoned." in child.before
    assert "Replay of the unfinished game saved" in child.before
    replay = load(path)
    assert replay.actions[0] == (seat, 75) and not replay.outcome.finished


def test_bad_answers_are_explained_and_asked_again():
    seed = next(s for s in range(100) if _first_question_plays(s))
    child = spawn(*OFFICIAL, "--seed", str(seed), "--no-color")
    child.expect(PROMPT)
    assert "Your turn: play a card or draw." in child.before
    for answer, explanation in [
        ("", "Please type a number from 1 to"),
        ("abc", "'abc' is not a number: type a number from 1 to"),
        ("0", "There is no choice 0"),
        ("99", "There is no choice 99"),
        ("2.5", "'2.5' is not a number"),
        ("-1", "'-1' is not a number"),
    ]:
        child.sendline(answer)
        child.expect(PROMPT)
        assert explanation in child.before
        assert "Your turn" not in child.before  # the same question, not a new turn
    child.sendline("1")
    child.expect(PROMPT)
    assert re.search(r"You play \[[a-z]+ [^\]]+\]", child.before)
    child.sendeof()  # Ctrl-D: the end of input
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0 and "You left the table" in child.before
    assert "Traceback" not in child.before


def _first_question_plays(seed: int) -> bool:
    """The first question of ``seed``'s official game is a play with a colored card first."""

    def stop():
        raise EOFError

    out = io.StringIO()
    play.main([*OFFICIAL, "--seed", str(seed), "--no-color"], stop, out)
    menu = out.getvalue().split("Your choice")[0]
    return (
        "Your turn: play a card or draw." in menu
        and "  1) play [" in menu
        and ("1) play [wild]" not in menu and "1) play [+4]" not in menu)
    )


def test_ctrl_c_stops_cleanly_and_saves(tmp_path):
    path = tmp_path / "int.json"
    child = spawn(*PARTY, "--seed", "8", "--no-color", "--save", str(path))
    child.expect(PROMPT)
    child.sendline("1")
    child.expect(PROMPT)
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130 and child.signalstatus is None
    assert "Interrupted: the game is abandoned." in child.before
    assert "Traceback" not in child.before and "KeyboardInterrupt" not in child.before
    replay = load(path)
    assert len(replay.actions) >= 1 and replay.outcome.finished is False


# ------------------------------------------------------------------ in-process
@pytest.mark.parametrize(
    "argv, message",
    [
        (["--opponents", "nobody"], "unknown agent 'nobody'"),
        (["--opponents", "rule", "--preset", "nowhere"], "unknown preset 'nowhere'"),
        (["--opponents"] + ["rule"] * 10, "1 to 9 agents (2 to 10 players), got 10"),
        (["--opponents", "rule", "--seat", "2"], "--seat must be in [0, 1], got 2"),
        (["--opponents", "rule", "--set", "players=3"], "do not --set players"),
        (["--opponents", "rule", "--set", "stacking=maybe"], "'stacking' must be one of"),
        (["--opponents", "rule", "--set", "stackin=any"], "did you mean 'stacking'"),
        (["--opponents", "rule:bluff=2"], "'bluff' must be in"),
        (["--opponents", "rule", "--seed", "-3"], "argument --seed: a seed must be between"),
        (["--opponents", "rule", "--players", "3"], "--players 3 needs 2 --opponents, got 1"),
        (["--players", "11"], "argument --players: must be between 2 and 10, got 11"),
        (["--players", "3", "--seat", "3"], "--seat must be in [0, 2], got 3"),
    ],
)
def test_bad_command_lines_exit_2_naming_the_problem(capsys, argv, message):
    try:
        code = play.main(argv, lambda: "1")
    except SystemExit as stop:  # argparse-level errors (CliParser)
        code = stop.code
    assert code == 2
    assert message in capsys.readouterr().err


def quit_at_once(argv: list[str]) -> tuple[int, str]:
    """Run ``uno_rl play argv`` in-process, answering ``q`` to the first question."""
    out = io.StringIO()
    code = play.main([*argv, "--no-color", "--seed", "1"], lambda: "q", out)
    return code, out.getvalue()


@pytest.mark.parametrize(
    "argv, players, opponents",
    [
        ([], 2, ["color-first"]),
        (["--players", "4"], 4, ["color-first"] * 3),
        (["--players", "3", "--opponents", "rule", "rule"], 3, ["rule", "rule"]),
        (["--opponents", "rule", "aggressive"], 3, ["rule", "aggressive"]),
    ],
)
def test_opponents_default_to_color_first_in_every_other_seat(argv, players, opponents):
    code, out = quit_at_once(argv)
    assert code == 0 and "You left the table" in out
    assert f"official rules, {players} players" in out
    seats = ", ".join(f"seat {seat} ({name})" for seat, name in enumerate(opponents, 1))
    assert f"Opponents: {seats}." in out


def test_default_opponents_fill_the_presets_table(tmp_path):
    preset = tmp_path / "three.toml"
    preset.write_text("[rules]\nplayers = 3\n")
    code, out = quit_at_once(["--preset", str(preset)])
    assert code == 0 and "Opponents: seat 1 (color-first), seat 2 (color-first)." in out


def test_help_names_the_default_opponents(capsys):
    with pytest.raises(SystemExit) as stop:
        play.main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert stop.value.code == 0
    assert "(default: color-first in every other seat" in text


def test_a_match_is_played_round_after_round_to_its_target(tmp_path):
    path = tmp_path / "kids.json"
    seed, seat = first_card_wild_seed("kids", 2)
    code, out = play_in_process(
        ["--opponents", "random-playable", "--preset", "kids", "--seed", str(seed), "--seat",
         str(seat), "--no-color", "--save", str(path)], OFFICIAL_PREFER,
    )  # fmt: skip
    assert code == 0
    assert "a match: the first to win 3 rounds" in out and "Round 2: " in out
    assert "---- round 2, decision 1 " in out or "---- round 2, decision 2 " in out
    assert "wins the match!" in out or "win the match!" in out
    replay = load(path)
    assert replay.outcome.rounds >= 3 and max(replay.outcome.scores) == 3
    assert "first color" in questions_seen(out)  # the seed deals a first-card wild to you


def test_a_shipped_checkpoint_is_an_opponent(tmp_path):
    code, out = play_in_process(
        ["--opponents", "ppo-official-2p", "--seed", "3", "--no-color", "--save",
         str(tmp_path / "ppo.json")], OFFICIAL_PREFER,
    )  # fmt: skip
    assert code == 0 and "seat 1 (ppo-official-2p)" in out and "---- game over" in out
    assert load(tmp_path / "ppo.json").seats == ("human", "ppo-official-2p")


def test_an_unwritable_save_path_is_refused_before_the_game(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("")
    code, out = play_in_process([*OFFICIAL, "--seed", "5", "--save", str(blocker / "x.json")],
                                OFFICIAL_PREFER)  # fmt: skip
    assert code == 2 and "is a file, not a folder" in capsys.readouterr().err
    assert "Your turn" not in out  # nothing was played


def test_a_save_that_fails_at_the_end_is_reported(tmp_path, capsys, monkeypatch):
    def refuse(replay, path):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(play, "save", refuse)
    code, _ = play_in_process([*OFFICIAL, "--seed", "5", "--save", str(tmp_path / "x.json")],
                              OFFICIAL_PREFER)  # fmt: skip
    err = capsys.readouterr().err
    assert code == 1 and "cannot save the replay" in err and "Permission denied" in err


def test_a_search_agent_is_an_opponent_and_its_game_replays(tmp_path):
    from uno_rl.replays import verify

    code, out = play_in_process(
        ["--opponents", "pimc:determinizations=4,rollouts=1", "--seed", "5", "--no-color",
         "--save", str(tmp_path / "pimc.json")], OFFICIAL_PREFER,
    )  # fmt: skip
    assert code == 0 and "seat 1 (pimc)" in out  # its label; the full spec said once
    assert "Seat 1 (pimc) plays pimc:determinizations=4,rollouts=1." in out
    replay = load(tmp_path / "pimc.json")
    assert replay.seats == ("human", "pimc:determinizations=4,rollouts=1")
    verify(replay)  # the saved actions replay to the recorded outcome
