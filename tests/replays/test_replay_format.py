"""Replays: recorded games replay exactly; the file format round-trips and rejects bad files."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from uno_rl.agents import make_agent
from uno_rl.core import load_rules
from uno_rl.core.actions import DRAW, NUM_ACTIONS
from uno_rl.replays import (
    AgentSeat,
    GameRecorder,
    ReplayError,
    from_dict,
    load,
    play_game,
    save,
    simulate,
    to_dict,
    verify,
)
from uno_rl.replays.batch import ActionLog
from uno_rl.replays.format import VERSION, to_json

# (preset, overrides, line-up): every phase and random event the engine has is exercised
# somewhere: challenges, stacking, seven-zero swaps and rotations, jump-ins, multi-play,
# UNO forgetting, draw-until-playable, reshuffles, and a whole match of several deals.
GAMES = [
    ("official", {}, ["random-playable", "bayes-challenger"]),
    ("party", {"players": 4}, ["random", "rule", "color-first", "aggressive"]),
    ("seven-zero", {"players": 3, "multi_play": True}, ["random", "random", "bluffer"]),
    ("house", {"players": 3, "uno_forget_prob": 0.5, "uno_catch_prob": 0.5},
     ["random", "points-dumper", "random-playable"]),
    ("kids", {}, ["random-playable", "suspicious"]),
    ("official", {"max_turns": 40}, ["random", "random"]),  # truncated
]  # fmt: skip


def record_game(preset, overrides, lineup, seed):
    rules = load_rules(preset, **overrides)
    rng = np.random.default_rng(seed)
    players = [AgentSeat(make_agent(spec, rules), rng) for spec in lineup]
    recorder = GameRecorder(rules, seed, lineup, preset=preset, source={"test": True})
    state = play_game(rules, players, seed, recorder)
    return recorder.replay(state), state


@pytest.mark.parametrize("preset, overrides, lineup", GAMES)
def test_a_saved_game_replays_exactly(tmp_path, preset, overrides, lineup):
    for seed in (1, 2, 3):
        replay, final = record_game(preset, overrides, lineup, seed)
        path = save(replay, tmp_path / f"{preset}-{seed}.json")
        loaded = load(path)
        assert loaded == replay
        again = simulate(loaded)
        for name, array in final.arrays().items():
            np.testing.assert_array_equal(again.arrays()[name], array, err_msg=name)
        assert loaded.outcome is not None and loaded.outcome.finished
        assert loaded.outcome.decisions == len(loaded.actions) > 0


def test_reshuffles_and_matches_are_part_of_what_replays():
    """Randomness inside a game comes from the deal seed alone: the same actions replay it."""
    replay, final = record_game("official", {"max_turns": 3000}, ["random", "random"], 7)
    assert final.reshuffles[0] > 0  # random play draws the pile dry: reshuffles happened
    assert np.array_equal(simulate(replay).pile, final.pile)
    match, state = record_game("kids", {}, ["random-playable", "rule"], 4)
    assert match.outcome.rounds >= 3 and state.match_over[0]
    assert match.outcome.points == tuple(int(x) for x in state.scores[0])


def test_outcome_points_are_the_evaluators_zero_sum_points():
    replay, state = record_game("official", {"players": 3}, ["rule", "rule", "rule"], 5)
    outcome = replay.outcome
    assert sum(outcome.points) == 0 and outcome.points[outcome.winner] > 0
    assert outcome.scores[outcome.winner] == outcome.points[outcome.winner]  # winner-takes


def test_dict_round_trip_and_file_layout(tmp_path):
    replay, _ = record_game("party", {"players": 3}, ["rule", "rule", "rule"], 11)
    data = to_dict(replay)
    assert list(data) == ["format", "version", "source", "preset", "rules", "deck", "seats",
                          "seed", "actions", "outcome", "violation"]  # fmt: skip
    assert data["deck"]["red 0"] == 1 and data["deck"]["+4"] == 4 and len(data["deck"]) == 54
    assert data["format"] == "uno_rl.programs.replay" and data["version"] == VERSION
    assert data["rules"] == replay.rules.to_dict()  # the full rules, not only the preset
    assert from_dict(json.loads(json.dumps(data))) == replay
    text = to_json(replay)
    assert json.loads(text) == data
    assert text.count("\n") < 80 + len(replay.actions) // 10  # readable, not one number a line


def test_save_is_atomic_and_creates_folders(tmp_path, monkeypatch):
    replay, _ = record_game("official", {}, ["rule", "rule"], 1)
    other, _ = record_game("official", {}, ["rule", "rule"], 2)
    path = save(replay, tmp_path / "deep" / "er" / "game.json")
    assert load(path) == replay
    before = path.read_text()

    def fail(*_args):
        raise OSError("disk full")

    monkeypatch.setattr("uno_rl.replays.format.os.replace", fail)
    with pytest.raises(OSError, match="disk full"):
        save(other, path)
    assert path.read_text() == before  # the old file is intact
    assert [p.name for p in path.parent.iterdir()] == ["game.json"]  # no temporary file left


def test_recorder_replays_an_interrupted_game_consistently():
    rules = load_rules("official")
    rng = np.random.default_rng(0)

    class StopAfter:
        def __init__(self, agent, count):
            self.seat, self.left = AgentSeat(agent, rng), count

        def decide(self, state, legal):
            self.left -= 1
            if self.left < 0:
                raise KeyboardInterrupt
            return self.seat.decide(state, legal)

    recorder = GameRecorder(rules, 9, ["a", "b"])
    players = [StopAfter(make_agent("rule", rules), 5), StopAfter(make_agent("rule", rules), 5)]
    with pytest.raises(KeyboardInterrupt):
        play_game(rules, players, 9, recorder)
    replay = recorder.replay()  # no state: the actions are played again
    assert len(replay.actions) == 10 and not replay.outcome.finished
    assert replay.outcome.winner == -1 and verify(replay).turn[0] == 10


def test_play_game_rejects_an_illegal_choice():
    rules = load_rules("official")

    class Challenger:
        def decide(self, state, legal):
            return 62  # challenge, whatever the phase

    with pytest.raises(ValueError, match="seat .* chose illegal action 62 in phase 'play'"):
        play_game(rules, [Challenger(), Challenger()], 3)


# ------------------------------------------------------------------ bad files
@pytest.fixture(scope="module")
def good():
    replay, _ = record_game("official", {}, ["random-playable", "rule"], 21)
    return to_dict(replay)


def write(tmp_path, data, name="bad.json"):
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda d: d.update(format="something"), "not a uno_rl replay"),
        (lambda d: d.update(version=VERSION + 1), f"version {VERSION + 1} is not supported"),
        (lambda d: d.update(extra=1), "unknown key 'extra'"),
        (lambda d: d.pop("seed"), "lacks the key 'seed'"),
        (lambda d: d["rules"].update(stacking="sometimes"), "bad 'rules'.*'stacking'"),
        (lambda d: d["rules"].update(colour=1), "unknown rules key 'colour'"),
        (lambda d: d.update(seats=["one"]), "one seat name per player"),
        (lambda d: d.update(seed=-5), "'seed' must be an integer"),
        (lambda d: d["actions"].__setitem__(3, [0]), r"actions\[3\] must be a \[seat, action\] pair"),
        (lambda d: d["actions"].__setitem__(2, [5, 1]), r"actions\[2\]: seat 5 is not in \[0, 2\)"),
        (lambda d: d["actions"].__setitem__(2, [0, NUM_ACTIONS]), r"actions\[2\]: action 77"),
        (lambda d: d["outcome"].update(winner="me"), "outcome.winner must be an integer"),
        (lambda d: d["outcome"].update(bonus=1), "'outcome' has an unknown key 'bonus'"),
        (lambda d: d["outcome"].update(points=[0]), "outcome.points must be a list of 2"),
    ],
)  # fmt: skip
def test_malformed_files_are_rejected_with_the_problem_named(tmp_path, good, change, message):
    data = json.loads(json.dumps(good))
    change(data)
    with pytest.raises(ReplayError, match=message):
        load(write(tmp_path, data))


def test_a_rule_switch_missing_from_a_file_takes_its_default(tmp_path, good):
    data = json.loads(json.dumps(good))
    del data["rules"]["jump_in"], data["rules"]["max_turns"]  # a file older than the switches
    replay = load(write(tmp_path, data))
    assert replay.rules == load_rules("official")


def test_files_that_are_not_json_or_missing(tmp_path, good):
    with pytest.raises(ReplayError, match="bad.json is not JSON"):
        load(write(tmp_path, json.dumps(good)[:-40]))  # cut short
    with pytest.raises(ReplayError, match="is not JSON"):
        load(write(tmp_path, "UNO!"))
    with pytest.raises(ReplayError, match="a replay is a JSON object, got list"):
        load(write(tmp_path, "[1, 2]"))
    with pytest.raises(ReplayError, match="cannot read replay"):
        load(tmp_path / "nowhere.json")


def test_an_action_that_does_not_replay_names_the_step(tmp_path, good):
    data = json.loads(json.dumps(good))
    seat, _ = data["actions"][4]
    data["actions"][4] = [seat, 62]  # a challenge where none is possible
    with pytest.raises(ReplayError, match=r"actions\[4\] \(decision 5\): illegal action 62 "
                       r"\(challenge\) for seat \d in phase 'play'; legal actions: .*60 \(draw\)"):  # fmt: skip
        load(write(tmp_path, data))
    data = json.loads(json.dumps(good))
    seat, action = data["actions"][6]
    data["actions"][6] = [1 - seat, action]
    with pytest.raises(ReplayError, match=rf"actions\[6\].*recorded for seat {1 - seat}, but seat "
                       rf"{seat} is to act"):  # fmt: skip
        load(write(tmp_path, data))
    data = json.loads(json.dumps(good))
    data["actions"].append([0, DRAW])
    n = len(data["actions"]) - 1
    with pytest.raises(ReplayError, match=rf"actions\[{n}\].*the game is already over"):
        load(write(tmp_path, data))


def test_a_recorded_outcome_the_actions_do_not_reach_is_an_error(tmp_path, good):
    data = json.loads(json.dumps(good))
    data["outcome"]["winner"] = 1 - data["outcome"]["winner"]
    with pytest.raises(ReplayError, match="do not reproduce the recorded outcome: winner"):
        load(write(tmp_path, data))
    assert load(write(tmp_path, data), verify=False).outcome.winner == data["outcome"]["winner"]
    data = json.loads(json.dumps(good))
    data["actions"] = data["actions"][:-1]
    with pytest.raises(ReplayError, match="finished is False"):
        load(write(tmp_path, data))


def test_a_replay_may_carry_a_violation(tmp_path, good):
    data = json.loads(json.dumps(good))
    data["actions"] = data["actions"][:5]
    data["outcome"] = None
    actor = verify(from_dict(data)).actor[0]
    data["violation"] = {"seat": int(actor), "action": 99, "message": "agent 'x' chose ..."}
    replay = load(write(tmp_path, data))
    assert replay.violation.action == 99 and replay.outcome is None
    data["violation"]["seat"] = int(1 - actor)
    with pytest.raises(ReplayError, match="violation.seat"):
        load(write(tmp_path, data))


# ------------------------------------------------------------------ batched log
def test_action_log_appends_a_batch_at_once_and_grows():
    log = ActionLog(slots=3, capacity=2)
    for step in range(5):
        games = np.array([0, 2]) if step % 2 else np.array([0, 1, 2])
        log.append(games, games.astype(np.int8), np.full(games.size, step))
    assert log.capacity >= 5
    assert log.history(0) == [(0, s) for s in range(5)]
    assert log.history(1) == [(1, 0), (1, 2), (1, 4)]
    log.clear(np.array([0]))
    assert log.history(0) == [] and log.length.tolist() == [0, 3, 5]


def test_replays_compare_by_value():
    replay, _ = record_game("official", {}, ["rule", "rule"], 3)
    assert dataclasses.replace(replay, source={"other": 1}) != replay
