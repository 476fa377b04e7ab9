"""Importing uno_rl keeps PyTorch's OpenMP threads from spinning long at a barrier (two
processes sharing the cores otherwise slow each other about tenfold), unless the user chose."""

import os
import subprocess
import sys

import pytest

from uno_rl.plumbing.openmp import SPIN_COUNT, shorten_openmp_spin

READ = "import os, uno_rl, torch; print(os.environ.get('GOMP_SPINCOUNT'))"


def _spin_count_after_import(**chosen: str) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("GOMP_SPINCOUNT", "OMP_WAIT_POLICY")}
    done = subprocess.run([sys.executable, "-c", READ], env={**env, **chosen},
                          capture_output=True, text=True, timeout=120, check=True)  # fmt: skip
    return done.stdout.strip()


def test_importing_uno_rl_shortens_the_spin_before_torch_loads():
    assert _spin_count_after_import() == SPIN_COUNT == "10000"


@pytest.mark.parametrize(
    "chosen,expected",
    [({"GOMP_SPINCOUNT": "123"}, "123"), ({"OMP_WAIT_POLICY": "ACTIVE"}, "None")],
)
def test_a_users_choice_is_kept(chosen, expected):
    assert _spin_count_after_import(**chosen) == expected


def test_shorten_openmp_spin_on_a_given_environment():
    environ: dict[str, str] = {}
    shorten_openmp_spin(environ)
    assert environ == {"GOMP_SPINCOUNT": SPIN_COUNT}
    environ = {"OMP_WAIT_POLICY": "PASSIVE"}
    shorten_openmp_spin(environ)
    assert environ == {"OMP_WAIT_POLICY": "PASSIVE"}
