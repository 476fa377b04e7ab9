"""The Benchmark page's table comes from a real ``uno_rl bench --json`` run."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys

import pytest

from uno_rl.docsite import results
from uno_rl.docsite.bench_table import bench_table, read_bench_rows

COMMAND = [
    "bench", "--rows", "core", "rlcard-step", "--players", "2", "--batch", "64",
    "--repeats", "1", "--seconds", "0.1", "--engines", "compiled", "numpy", "--json",
]  # fmt: skip


@pytest.mark.skipif(importlib.util.find_spec("rlcard") is None, reason="the rlcard extra")
def test_a_bench_run_becomes_the_table(tmp_path):
    out = subprocess.run(
        [sys.executable, "-m", "uno_rl", *COMMAND], capture_output=True, text=True, check=True
    ).stdout
    path = tmp_path / "bench.json"
    path.write_text(out)
    rows = read_bench_rows(path)
    assert [(row["name"], row["engine"]) for row in rows] == [
        ("core", "compiled"), ("core", "numpy"), ("rlcard-step", ""),
    ]  # fmt: skip
    table = bench_table(rows, "2 CPU cores")
    lines = table.splitlines()
    assert lines[0].startswith("# ")
    core = next(line for line in lines if line.startswith("| `core` | compiled |"))
    assert f"{rows[0]['vs_rlcard']:.2f}x" in core and f"{rows[0]['vs_numpy']:.2f}x" in core
    assert f"{rows[0]['decisions_per_s']:,.0f}" in core
    numpy_core = next(line for line in lines if line.startswith("| `core` | numpy |"))
    assert numpy_core.endswith("x |  |")  # no ratio of the NumPy engine to itself
    assert "rows `core`, `rlcard-step`; 2 players" in table and "2 CPU cores" in table


def test_a_file_that_is_not_a_bench_run_is_named(tmp_path):
    path = tmp_path / "bench.json"
    path.write_text('{"name": "core"}\n')
    with pytest.raises(ValueError, match=r"bench.json: line 1 is not a row of uno_rl bench"):
        read_bench_rows(path)
    path.write_text("not json\n")
    with pytest.raises(ValueError, match=r"line 1 is not JSON"):
        read_bench_rows(path)
    path.write_text("")
    with pytest.raises(ValueError, match=r"no rows"):
        read_bench_rows(path)


def test_the_results_command_refuses_a_bad_bench_file_in_one_line(tmp_path, capsys):
    bad = tmp_path / "bench.json"
    bad.write_text("not json\n")
    with pytest.raises(SystemExit) as stop:
        results.main(["--bench", str(bad), "--runs-dir", str(tmp_path), "--out", str(tmp_path)])
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: --bench ") and "not JSON" in err[0]


def test_the_results_command_reads_the_runs_bench_file(tmp_path):
    row = {"name": "core", "players": 2, "batch": 64, "decisions_per_s": 1.0e6}
    (tmp_path / "bench.json").write_text(json.dumps(row) + "\n")
    args = results.build_parser().parse_args(["--runs-dir", str(tmp_path)])
    assert results._bench_rows(args) == [row]
    quick = results.build_parser().parse_args(["--runs-dir", str(tmp_path), "--quick"])
    assert results._bench_rows(quick) is None
    empty = results.build_parser().parse_args(["--runs-dir", str(tmp_path / "none")])
    assert results._bench_rows(empty) is None
