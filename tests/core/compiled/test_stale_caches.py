"""Cached kernels older than a source they read are dropped (numba itself sees only a change of
the file defining a kernel, not of a kernel it calls in another file)."""

from __future__ import annotations

import os
import time
from pathlib import Path
from types import SimpleNamespace

from uno_rl.agents.compiled import nb_memory
from uno_rl.core.compiled import nb_loops
from uno_rl.core.compiled.stale import drop_stale_caches, kernel_sources

PACKAGE = Path(nb_loops.__file__).resolve().parents[2]


def names(paths) -> set[str]:
    return {str(path.relative_to(PACKAGE.parent)) for path in paths}


def test_a_packages_sources_are_its_kernels_and_what_they_import():
    engine = names(kernel_sources([PACKAGE / "core" / "compiled"]))
    heuristics = names(kernel_sources([PACKAGE / "agents" / "compiled"]))
    assert {"uno_rl/core/compiled/nb_play.py", "uno_rl/core/phases.py"} <= engine
    assert not any(name.startswith("uno_rl/agents/") for name in engine)
    assert {
        "uno_rl/agents/compiled/nb_jobs.py",
        "uno_rl/agents/challenge.py",
        "uno_rl/core/compiled/nb_play.py",  # the heuristics' kernels call the engine's
        "uno_rl/core/compiled/nb_masks.py",
    } <= heuristics
    assert not any(name.startswith(("uno_rl/eval/", "uno_rl/ppo/")) for name in heuristics)


def test_only_cache_files_older_than_the_newest_source_are_dropped(tmp_path):
    newest = max(p.stat().st_mtime for p in kernel_sources([PACKAGE / "agents" / "compiled"]))
    files = {name: tmp_path / name for name in ("old.nbi", "old.1.nbc", "new.nbi", "old.pyc")}
    for name, path in files.items():
        path.write_bytes(b"")
        stamp = newest - 100 if name.startswith("old") else max(newest, time.time()) + 100
        os.utime(path, (stamp, stamp))
    dispatcher = SimpleNamespace(py_func=nb_memory.forget.py_func,
                                 _cache=SimpleNamespace(_cache_path=str(tmp_path)))  # fmt: skip
    assert drop_stale_caches([dispatcher]) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new.nbi", "old.pyc"]
    assert drop_stale_caches([dispatcher]) == 0
