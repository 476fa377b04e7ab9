import json

import pytest

pytest.importorskip("uno_rl.core.engine", reason="the game core has not landed yet")

from uno_rl.programs.bench import command as bench  # noqa: E402
from uno_rl.programs.bench import game_rows as bench_game_rows
from uno_rl.programs.bench import peers as bench_peers

KEYS = {"name", "players", "batch", "decisions_per_s", "rounds_per_s", "step_latency_us"}
# One engine: each row once (test_both_engines_run_each_row_side_by_side runs both).
TINY = ["--quick", "--repeats", "1", "--seconds", "0.05", "--seed", "3", "--engines", "numpy"]


def run_json(capsys, *args: str) -> list[dict]:
    bench.main([*TINY, "--json", *args])
    out = capsys.readouterr().out
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def test_core_rows_json(capsys):
    rows = run_json(
        capsys, "--rows", "core", "core-obs", "--players", "2", "4", "--batch", "1", "16"
    )
    got = {(r["name"], r["players"], r["batch"]) for r in rows}
    want = {(k, p, n) for k in ("core", "core-obs") for p in (2, 4) for n in (1, 16)}
    assert got == want and len(rows) == len(want)
    for r in rows:
        assert KEYS <= r.keys()
        for key in ("decisions_per_s", "step_latency_us", "bytes_per_game"):
            assert r[key] > 0, (key, r)
        assert r["rounds_per_s"] >= 0
        assert r["vs_rlcard"] is None  # no RLCard row requested


def test_both_engines_run_each_row_side_by_side(capsys):
    rows = run_json(capsys, "--rows", "core", "--players", "2", "--batch", "8",
                    "--engines", "compiled", "numpy")  # fmt: skip
    assert [(r["name"], r["engine"], r["batch"]) for r in rows] == [
        ("core", "compiled", 8), ("core", "numpy", 8),
    ]  # fmt: skip
    compiled, numpy_row = rows
    assert compiled["vs_numpy"] == pytest.approx(
        compiled["decisions_per_s"] / numpy_row["decisions_per_s"]
    )
    assert numpy_row["vs_numpy"] is None


def test_table_output(capsys):
    table = bench.main([*TINY, "--rows", "core", "--players", "2", "--batch", "4"])
    out = capsys.readouterr().out
    assert "decisions_per_s" in out and "bytes_per_game" in out
    assert list(table.name) == ["core"] and (table.decisions_per_s > 0).all()


def test_rlcard_rows_and_ratio(capsys):
    pytest.importorskip("rlcard")
    rows = run_json(capsys, "--rows", "core", "rlcard-step", "--players", "2", "4", "--batch", "1")
    rl = [r for r in rows if r["name"] == "rlcard-step"]
    assert rl and all(KEYS <= r.keys() and r["decisions_per_s"] > 0 for r in rl)
    # RLCard's UNO ignores the player count: a 4-player request runs (and is labelled) 2 players,
    # and is not measured twice.
    assert [r["players"] for r in rl] == [2]
    core2 = next(r for r in rows if r["name"] == "core" and r["players"] == 2)
    assert core2["vs_rlcard"] == pytest.approx(core2["decisions_per_s"] / rl[0]["decisions_per_s"])
    core4 = next(r for r in rows if r["name"] == "core" and r["players"] == 4)
    assert core4["vs_rlcard"] is None


def test_rlcard_note_when_players_ignored(capsys):
    pytest.importorskip("rlcard")
    rows = run_json(capsys, "--rows", "rlcard-step", "--players", "4")
    assert len(rows) == 1 and rows[0]["players"] == 2 and "ignores" in rows[0]["note"]


def test_aec_row_json(capsys):
    rows = run_json(capsys, "--rows", "aec", "--players", "2", "3")
    assert [(r["name"], r["players"], r["batch"]) for r in rows] == [("aec", 2, 1), ("aec", 3, 1)]
    for r in rows:
        assert KEYS <= r.keys() and r["decisions_per_s"] > 0 and r["step_latency_us"] > 0


def test_vector_row_json(capsys, monkeypatch):
    monkeypatch.setattr(bench_game_rows, "VECTOR_GAMES", 64)
    rows = run_json(capsys, "--rows", "vector", "--players", "2")
    assert [(r["name"], r["players"], r["batch"]) for r in rows] == [("vector", 2, 64)]
    assert KEYS <= rows[0].keys() and rows[0]["decisions_per_s"] > 0


def test_evaluate_row_json(capsys):
    rows = run_json(capsys, "--rows", "evaluate", "--evaluate-rounds", "1000")
    assert [r["name"] for r in rows] == ["evaluate"]
    row = rows[0]
    assert KEYS <= row.keys() and row["players"] == 2
    assert row["rounds_per_s"] > 0 and row["decisions_per_s"] > row["rounds_per_s"]
    assert "1,000 rounds" in row["note"]


def test_train_row_json(capsys):
    rows = run_json(capsys, "--rows", "train", "--train-decisions", "70000")
    assert [r["name"] for r in rows] == ["train"]
    row = rows[0]
    assert KEYS <= row.keys() and row["decisions_per_s"] > 0 and "updates" in row["note"]


def test_pimc_row_json(capsys):
    rows = run_json(capsys, "--rows", "pimc", "--pimc-spec", "pimc:determinizations=2,rollouts=1")
    assert [(r["name"], r["players"], r["batch"]) for r in rows] == [("pimc", 2, 256)]
    row = rows[0]
    assert KEYS <= row.keys() and row["decisions_per_s"] > 0
    assert "pimc:determinizations=2,rollouts=1 playing every seat" in row["note"]
    assert row["vs_rlcard"] is None  # a search agent's decisions are not RLCard's steps


def test_pimc_row_refuses_a_bad_spec(capsys):
    with pytest.raises(SystemExit) as exit_info:
        bench.main([*TINY, "--rows", "pimc", "--pimc-spec", "pimc:determinizations=-1"])
    assert exit_info.value.code == 2
    assert "parameter 'determinizations' must be in" in capsys.readouterr().err


def test_maskable_ppo_rows_json(capsys, monkeypatch):
    """MaskablePPO over the SB3 adapter and over one env, in the same run, with the ratio."""
    pytest.importorskip("sb3_contrib")
    for name, value in {
        "SB3_GAMES": 16,
        "SB3_ROLLOUT": 128,
        "SB3_BATCH": 64,
        "SB3_EPOCHS": 1,
    }.items():
        monkeypatch.setattr(bench_peers, name, value)
    rows = run_json(capsys, "--rows", "maskable-ppo", "core", "--players", "2", "--batch", "4")
    ppo = [r for r in rows if r["name"] == "maskable-ppo"]
    assert [(r["players"], r["batch"]) for r in ppo] == [(2, 16), (2, 1)]
    adapter, one = ppo
    for r in ppo:
        assert KEYS <= r.keys() and r["decisions_per_s"] > 0 and r["step_latency_us"] > 0
        assert r["rounds_per_s"] >= 0 and r["vs_rlcard"] is None
        assert "128 samples per update, minibatch 64, 1 epochs" in r["note"]
    assert adapter["vs_one_env"] == pytest.approx(
        adapter["decisions_per_s"] / one["decisions_per_s"]
    )
    assert one["vs_one_env"] == 1.0
    assert f"{adapter['vs_one_env']:.1f}x one env" in adapter["note"]
    assert "UnoSB3VecEnv" in adapter["note"] and "one Gymnasium env" in one["note"]
    (core,) = [r for r in rows if r["name"] == "core"]
    assert core["vs_one_env"] is None


def test_maskable_ppo_rows_skipped_without_sb3(capsys, monkeypatch):
    find_spec = bench.importlib.util.find_spec
    monkeypatch.setattr(
        bench.importlib.util,
        "find_spec",
        lambda name: None if name == "sb3_contrib" else find_spec(name),
    )
    table = bench.main([*TINY, "--rows", "maskable-ppo", "core", "--players", "2", "--batch", "4"])
    assert list(table.name) == ["core"]
    assert "maskable-ppo rows skipped: sb3-contrib is not installed" in capsys.readouterr().err


def test_aec_and_rlcard_rows_interleave(capsys):
    """At 2 players the aec and rlcard-step rows are timed turn about, in one measurement."""
    pytest.importorskip("rlcard")
    rows = run_json(capsys, "--rows", "aec", "rlcard-step", "--players", "2", "4")
    names = [(r["name"], r["players"]) for r in rows]
    assert names == [("aec", 2), ("aec", 4), ("rlcard-step", 2)]
    aec2 = rows[0]
    rl = rows[2]
    assert "interleaved" in aec2["note"] and "interleaved" in rl["note"]
    assert "ignores" in rl["note"]  # the 4-player request still explains itself
    assert aec2["vs_rlcard"] == pytest.approx(aec2["decisions_per_s"] / rl["decisions_per_s"])
