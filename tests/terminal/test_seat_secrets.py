"""Seeds give away every card: a seat's view never shows one while the game is on.

``python -m uno_rl.play`` prints the session seed only once the game is over (or abandoned);
``python -m uno_rl.replay --seat K`` never prints the deal seed, nor another seat's legal
actions from a recorded violation; the open view shows both.
"""

from __future__ import annotations

import io
import json

import numpy as np
from terminal_script import play_in_process

from uno_rl.agents import make_agent
from uno_rl.core import load_rules
from uno_rl.programs import replay as cli
from uno_rl.programs.play import game_seeds
from uno_rl.replays import AgentSeat, GameRecorder, play_game, simulate, to_dict
from uno_rl.replays.format import from_dict

PREFER = ["play it:", "play ["]


def test_play_shows_the_seed_only_when_the_game_is_over():
    seed = 987654321
    deal_seed, _ = game_seeds(seed)
    code, out = play_in_process(["--opponents", "rule", "--seed", str(seed), "--no-color"], PREFER)
    assert code == 0
    during, _, after = out.partition("---- game over")
    assert after, "the game did not finish"
    assert str(seed) not in during and str(deal_seed) not in during
    assert f"--seed {seed}" in after and str(deal_seed) not in after


def test_play_shows_the_seed_when_the_person_leaves():
    out = io.StringIO()
    from uno_rl.programs import play

    assert play.main(["--opponents", "rule", "--seed", "4242", "--no-color"], lambda: "q", out) == 0
    during, _, after = out.getvalue().partition("the game is abandoned")
    assert "4242" not in during and "--seed 4242" in after


def _replay_file(tmp_path, violation_message: str):
    rules = load_rules("official")
    rng = np.random.default_rng(8)
    lineup = ["rule", "color-first"]
    players = [AgentSeat(make_agent(spec, rules), rng) for spec in lineup]
    recorder = GameRecorder(rules, 31337, lineup, preset="official", source={})
    play_game(rules, players, 31337, recorder)
    data = to_dict(recorder.replay())
    data["actions"], data["outcome"] = data["actions"][:12], None
    actor = int(simulate(from_dict(data)).actor[0])
    data["violation"] = {"seat": actor, "action": 0, "message": violation_message}
    path = tmp_path / "game.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path, actor


def test_replay_seat_view_hides_the_deal_seed_and_others_legal_actions(tmp_path):
    secret = "legal actions: 7 (play red 7), 60 (draw)"
    path, offender = _replay_file(tmp_path, secret)
    views = {}
    for view in (None, 0, 1):
        out = io.StringIO()
        argv = [str(path), "--no-color"] + ([] if view is None else ["--seat", str(view)])
        assert cli.main(argv, lambda: "", out) == 0
        views[view] = out.getvalue()
    assert "deal seed 31337" in views[None] and secret in views[None]
    for seat in (0, 1):
        assert "31337" not in views[seat]
        assert (secret in views[seat]) == (seat == offender)
        assert "chose an illegal action" in views[seat]
