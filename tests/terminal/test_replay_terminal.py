"""``python -m uno_rl.replay``: a played game shown again, from one seat or with every hand open."""

from __future__ import annotations

import io
import json
import re
import sys
from pathlib import Path

import pexpect
import pytest
from terminal_script import default_sigint, find_seed, play_in_process

from uno_rl.programs import replay as cli
from uno_rl.replays import load

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 60
STEP = r"\[Enter: next decision, q: stop\] "


@pytest.fixture(scope="module")
def game(tmp_path_factory) -> Path:
    """A game a (scripted) person played against a bot, with a challenge in it."""
    path = tmp_path_factory.mktemp("replays") / "game.json"
    argv = ["--opponents", "random-playable", "--no-color"]
    prefer = ["challenge the +4", "then choose a color", "play it:", "play ["]
    seed = find_seed(argv, prefer, {"challenge", "drawn"})
    code, _ = play_in_process([*argv, "--seed", str(seed), "--save", str(path)], prefer)
    assert code == 0
    return path


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    code = cli.main(list(argv), lambda: "", out)
    return code, out.getvalue()


def spawn(*args: str) -> pexpect.spawn:
    return pexpect.spawn(sys.executable, ["-m", "uno_rl.replay", *args], encoding="utf-8",
                         timeout=TIMEOUT, cwd=str(ROOT), dimensions=(60, 200),
                         preexec_fn=default_sigint)  # fmt: skip


def test_open_view_prints_the_whole_game_with_every_hand(game):
    child = spawn(str(game), "--no-color")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    text = child.before.replace("\r\n", "\n")
    replay = load(game)
    headers = re.findall(r"^---- decision (\d+): ", text, re.MULTILINE)
    assert [int(h) for h in headers] == list(range(1, len(replay.actions) + 1))
    assert "View: every hand open." in text and "Recorded by uno_rl.programs.play" in text
    first_table = text.split("---- decision 1:")[1]
    rows = [line for line in first_table.splitlines()[1:4] if "cards" in line]
    assert len(rows) == 2 and all("[" in row for row in rows)  # both hands shown
    assert "(Seat 1 (random-playable) drew" in text or "(Seat 0 (human) drew" in text
    assert "Seat 0 (human) challenges seat 1 (random-playable)'s +4." in text
    winner = replay.seats[replay.outcome.winner]
    assert re.search(rf"Seat {replay.outcome.winner} \({re.escape(winner)}\) wins the round!", text)


def test_a_seat_sees_its_own_hand_and_public_events_only(game):
    code, text = run(str(game), "--seat", "1", "--no-color")
    assert code == 0
    assert "View: seat 1 (random-playable)'s seat." in text
    assert "Hand of" not in text.split("---- end")[0]  # only "Your hand" before the end
    assert "Your hand: [" in text
    for line in text.splitlines():
        if " drew [" in line:
            assert line.strip().startswith("(You drew"), line  # nobody else's drawn cards
    actions = load(game).actions
    assert ("Seat 0 (human)'s hand:" in text) == ((1, 62) in actions)  # shown if 1 challenged
    assert "Seat 0 (human) challenges your +4." in text
    assert text.count("---- decision") == sum(seat == 1 for seat, _ in actions)  # its own turns
    code, human_view = run(str(game), "--seat", "0", "--no-color")
    assert "Seat 1 (random-playable)'s hand: [" in human_view  # the challenge showed it to 0


def test_step_mode_waits_for_enter_and_q_stops(game):
    child = spawn(str(game), "--seat", "0", "--step", "--no-color")
    child.expect(STEP)
    first = child.before
    child.sendline("")
    child.expect(STEP)
    assert child.before and child.before != first
    child.sendline("q")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0 and "Stopped." in child.before


def test_step_mode_ctrl_c_exits_cleanly(game):
    child = spawn(str(game), "--step")
    child.expect(STEP)
    assert "\x1b[" in child.before  # colors on a terminal
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130 and "Interrupted." in child.before
    assert "Traceback" not in child.before


def test_step_mode_stops_at_the_end_of_input(game):
    out = io.StringIO()

    def no_more() -> str:
        raise EOFError

    assert cli.main([str(game), "--step", "--no-color"], no_more, out) == 0
    assert out.getvalue().rstrip().endswith("Stopped.")


def test_bad_files_and_seats_exit_2(tmp_path, game, capsys):
    data = json.loads(game.read_text())
    data["actions"][3][1] = 62
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(data))
    assert run(str(broken))[0] == 2
    assert r"actions[3] (decision 4): illegal action 62" in capsys.readouterr().err
    assert run(str(tmp_path / "missing.json"))[0] == 2
    assert "cannot read replay" in capsys.readouterr().err
    assert run(str(game), "--seat", "2")[0] == 2
    assert "--seat must be in [0, 1], got 2" in capsys.readouterr().err
    with pytest.raises(SystemExit) as stop:
        cli.main([str(game), "--seat", "0", "--open"])
    assert stop.value.code == 2
