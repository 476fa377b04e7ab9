"""The evaluator's replay sample: the right games are kept, and they replay exactly."""

from __future__ import annotations

import csv

import numpy as np
import pytest

from uno_rl.agents import Agent, make_agent
from uno_rl.core import load_rules
from uno_rl.eval import replays as sampling
from uno_rl.eval.jobs import IllegalActionError, play_jobs
from uno_rl.eval.replays import (
    ReplayRequest,
    ReplaySample,
    SampledRecorder,
    play_sampled_chunk,
    random_picks,
)
from uno_rl.eval.run import evaluate
from uno_rl.eval.tournament import Chunk, Matchup, plan_chunks, play_chunk
from uno_rl.programs import evaluate as cli
from uno_rl.replays import load, outcome_of, save, simulate


def test_sample_specs_parse_or_say_what_is_wrong():
    assert ReplaySample.parse("longest:5,random:2,violations") == ReplaySample(
        longest=5, random=2, violations=True
    )
    assert ReplaySample.parse(" truncated:1 ") == ReplaySample(truncated=1)
    for text, message in [
        ("longest", "'longest' needs a count"),
        ("longest:0", "needs a count"),
        ("random:x", "needs a count"),
        ("violations:3", "takes no count"),
        ("shortest:3", "unknown selector 'shortest'"),
        ("random:1,random:2", "given twice"),
        ("", "selects nothing"),
    ]:
        with pytest.raises(ValueError, match=message):
            ReplaySample.parse(text)


def chunk_of(preset="official", players=2, deals=300, lineup=("random", "random-playable"),
             **overrides) -> Chunk:  # fmt: skip
    rules = load_rules(preset, players=players, **overrides)
    matchup = Matchup(tuple(lineup) + (lineup[-1],) * (players - len(lineup)))
    (chunk,) = plan_chunks(rules, [matchup], deals * players, seed=3, slots=64)
    return chunk


@pytest.mark.parametrize(
    "preset, players, overrides",
    [("official", 2, {"max_turns": 150}), ("party", 3, {}), ("kids", 2, {})],
)
def test_kept_games_are_the_sampled_ones_and_replay_to_the_evaluators_outcomes(
    preset, players, overrides
):
    chunk = chunk_of(preset, players, deals=150 if preset != "kids" else 40, **overrides)
    sample = ReplaySample(longest=4, random=3, truncated=2)
    jobs = chunk.deals * players
    picks = tuple(random_picks(sample, 3, chunk.rules, 0, jobs).tolist())
    plain = play_chunk(chunk)
    sampled = play_sampled_chunk(chunk, sample=sample, picks={0: picks})
    for name in (
        "winner",
        "net_points",
        "scores",
        "round_wins",
        "decisions",
        "truncated",
        "rounds",
    ):  # recording changes nothing
        np.testing.assert_array_equal(getattr(sampled, name), getattr(plain, name))
    kept = {k.job: k for k in sampled.kept}
    # decisions: of every round of the job (a match's: all its rounds')
    order = sorted(range(jobs), key=lambda j: (-int(plain.decisions[j]), j))
    assert {j for j in kept if "longest" in kept[j].reasons} == set(order[:4])
    truncated = np.flatnonzero(plain.truncated)[:2].tolist()
    assert {j for j in kept if "truncated" in kept[j].reasons} == set(truncated)
    assert {j for j in kept if "random" in kept[j].reasons} == set(picks)
    for job, entry in kept.items():
        replay = entry.replay
        final = simulate(replay)
        assert outcome_of(final, len(replay.actions)) == replay.outcome
        assert replay.outcome.winner == plain.winner[job]
        points = plain.scores if chunk.rules.match else plain.net_points  # as replays record
        assert replay.outcome.points == tuple(int(x) for x in points[job])
        assert replay.outcome.truncated == bool(plain.truncated[job])
        assert replay.outcome.rounds == plain.rounds[job]
        assert len(replay.actions) == plain.decisions[job]
        seats = tuple(chunk.lineup[int(p)] for p in plain.position[job])
        assert (
            replay.seats == seats
            and replay.source["deal"] * players + replay.source["rotation"] == job
        )


def test_evaluate_saves_the_same_sample_for_any_number_of_workers(tmp_path):
    kwargs = dict(rounds=4200, seed=7, progress=False, switches={"max_turns": 200})
    sample = ReplaySample.parse("longest:2,random:3,truncated:2")
    folders = []
    for workers in (1, 2):
        folder = tmp_path / f"w{workers}"
        evaluate(["random", "rule"], workers=workers, replays=ReplayRequest(folder, sample),
                 **kwargs)  # fmt: skip
        folders.append(folder)
    names = [sorted(p.name for p in f.iterdir()) for f in folders]
    assert names[0] == names[1] and "index.csv" in names[0]
    for name in names[0]:
        assert (folders[0] / name).read_text() == (folders[1] / name).read_text()
    rows = list(csv.DictReader((folders[0] / "index.csv").open()))
    reasons = [set(r["reasons"].split("+")) for r in rows]
    assert sum("longest" in r for r in reasons) == 2 and sum("random" in r for r in reasons) == 3
    assert sum("truncated" in r for r in reasons) == 2
    for row in rows:
        replay = load(folders[0] / row["file"])  # verified: the actions replay the outcome
        assert replay.source["program"] == "uno_rl.programs.evaluate"
        assert replay.source["variant"] == "official, max_turns=200"
        assert set(replay.source["reasons"]) == set(row["reasons"].split("+"))
        assert len(replay.actions) == int(row["decisions"])
    longest = [int(r["decisions"]) for r, why in zip(rows, reasons) if "longest" in why]
    assert all(d == 200 for d in longest)  # the longest rounds are truncated ones here


def test_nothing_is_recorded_unless_asked(monkeypatch):
    def refuse(*_args, **_kwargs):
        raise AssertionError("recorded without --save-replays")

    monkeypatch.setattr(sampling.SampledRecorder, "__init__", refuse)
    monkeypatch.setattr(sampling.ActionLog, "__init__", refuse)
    result = evaluate(["rule", "random"], rounds=200, workers=1, progress=False)
    assert result.agents["rounds"].iloc[0] == 200


class Cheater(Agent):
    """Plays well for a while, then challenges in the play phase (illegal)."""

    name = "cheater"
    needs_observation = False

    def act(self, observations, masks, rng, memory=None, rows=None):
        first_legal = masks.argmax(axis=1)
        return np.where(rng.random(masks.shape[0]) < 0.97, first_legal, 62)


def test_a_violation_carries_the_replay_up_to_the_illegal_action(tmp_path):
    rules = load_rules("official")
    chunk = chunk_of(deals=50, lineup=("cheater", "rule"))
    recorder = SampledRecorder(chunk, ReplaySample(violations=True))
    lineup = [Cheater(rules), make_agent("rule", rules)]
    with pytest.raises(IllegalActionError, match="agent 'cheater' chose illegal action 62") as info:
        play_jobs(rules, lineup, chunk.deal_seeds(), np.random.default_rng(0), slots=16,
                  recorder=recorder)  # fmt: skip
    replay = info.value.replay
    assert replay.violation.action == 62 and replay.seats[replay.violation.seat] == "cheater"
    assert replay.source["reasons"] == ["violation"] and not replay.outcome.finished
    loaded = load(save(replay, tmp_path / "v.json"))
    assert loaded == replay and len(loaded.actions) == replay.outcome.decisions
    with pytest.raises(IllegalActionError) as plain:  # the same error without a recorder
        play_jobs(rules, lineup, chunk.deal_seeds(), np.random.default_rng(0), slots=16)
    assert plain.value.replay is None and str(plain.value) == str(info.value)


def test_the_command_line_saves_replays_and_the_violation(tmp_path, capsys, monkeypatch):
    out, folder = tmp_path / "ev", tmp_path / "replays"
    code = cli.main(["rule", "random-playable", "--rounds", "300", "--workers", "1",
                     "--out", str(out), "--no-progress", "--save-replays", str(folder),
                     "--replay-sample", "longest:2,random:2"])  # fmt: skip
    assert code == 0
    assert f"replays in {folder}/" in capsys.readouterr().out
    rows = list(csv.DictReader((folder / "index.csv").open()))
    assert 2 <= len(rows) <= 4 and all(load(folder / r["file"]) for r in rows)

    real = make_agent

    def with_cheater(spec, rules, **params):
        return Cheater(rules) if spec == "cheater" else real(spec, rules, **params)

    monkeypatch.setattr("uno_rl.eval.run.make_agent", with_cheater)
    monkeypatch.setattr("uno_rl.eval.tournament.make_agent", with_cheater)
    bad = tmp_path / "bad"
    code = cli.main(["cheater", "rule", "--rounds", "100", "--workers", "1", "--out",
                     str(tmp_path / "ev2"), "--no-progress", "--save-replays", str(bad)])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and "agent 'cheater' chose illegal action 62" in err
    (saved,) = bad.glob("violation-*.json")
    assert f"uno_rl replay {saved}" in err
    replay = load(saved)
    assert replay.violation.action == 62 and replay.source["variant"] == "official"


def test_bad_replay_options_exit_2(tmp_path, capsys):
    assert cli.main(["rule", "random", "--replay-sample", "longest:2"]) == 2
    assert "--replay-sample needs --save-replays" in capsys.readouterr().err
    assert cli.main(["rule", "random", "--save-replays", str(tmp_path),
                     "--replay-sample", "best:2"]) == 2  # fmt: skip
    assert "unknown selector 'best'" in capsys.readouterr().err
