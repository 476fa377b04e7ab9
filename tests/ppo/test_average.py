"""uno_rl average: the mean of policies' weights, checked inputs, one-line errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from bad_input.harness import assert_clean_error

from uno_rl.agents import make_agent
from uno_rl.core.rules import load_rules
from uno_rl.plumbing.resources import shipped_dir
from uno_rl.ppo import soup as weight_average
from uno_rl.ppo.checkpoint import load_checkpoint, save_checkpoint
from uno_rl.programs import average

SHIPPED = "ppo-official-4p-v1.pt"


def shipped_path():
    return shipped_dir("agents") / SHIPPED


def perturbed(tmp_path, name: str, seed: int, **network):
    """A copy of the shipped 4-player policy with every tensor moved by seeded noise."""
    data = load_checkpoint(shipped_path())
    generator = torch.Generator().manual_seed(seed)
    data["model"] = {
        key: (t.float() + 0.01 * torch.randn(t.shape, generator=generator)).to(t.dtype)
        for key, t in data["model"].items()
    }
    data["network"] = {**data["network"], **network}
    del data["format"]
    path = tmp_path / name
    save_checkpoint(path, data)
    return path


def test_mean_of_every_tensor(tmp_path):
    a, b, c = (perturbed(tmp_path, f"{k}.pt", seed) for k, seed in zip("abc", (1, 2, 3)))
    out = tmp_path / "soup.pt"
    assert average.main([str(out), str(a), str(b), str(c)]) == 0
    soup = load_checkpoint(out)
    inputs = [load_checkpoint(p)["model"] for p in (a, b, c)]
    for key, tensor in soup["model"].items():
        expected = sum(m[key].float() for m in inputs) / 3
        assert tensor.dtype == inputs[0][key].dtype
        torch.testing.assert_close(tensor.float(), expected.to(tensor.dtype).float())
    assert soup["network"] == load_checkpoint(a)["network"]
    assert soup["averaged_from"] == [str(a), str(b), str(c)]


def test_a_policy_averaged_with_itself_plays_as_before(tmp_path):
    out, copy = tmp_path / "same.pt", tmp_path / "copy.pt"
    copy.write_bytes(shipped_path().read_bytes())
    # shipped agent names resolve to their checkpoint; the same file twice would be refused
    assert average.main([str(out), "ppo-official-4p-v1", str(copy)]) == 0
    rules = load_rules("official", players=4)
    mine = make_agent(f"ppo:checkpoint={out},greedy=true", rules)
    shipped = make_agent("ppo-official-4p-v1", rules)
    rng = np.random.default_rng(0)
    from uno_rl.core import engine, observe
    from uno_rl.core.rng import new_seeds

    state = engine.reset(rules, new_seeds(np.random.default_rng(5), 256))
    masks = engine.legal_mask(state).astype(bool)
    observations = observe.observe(state, state.actor)
    np.testing.assert_array_equal(
        mine.act(observations, masks, rng), shipped.act(observations, masks, rng)
    )


def test_run_folder_means_its_policy(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    (run / "policy.pt").write_bytes(shipped_path().read_bytes())
    assert weight_average.resolve_policy(str(run)) == run / "policy.pt"


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        ("one", "at least two"),
        ("missing", "no such file"),
        ("corrupt", "truncated or corrupt"),
        ("other-network", "differs"),
        ("exists", "exists (use --force"),
        ("out-folder", "is a folder"),
        ("no-parent", "does not exist"),
        ("not-ppo", "not a PPO policy"),
        ("unknown", "not a policy file, run folder or PPO agent"),
    ],
)
def test_bad_input_one_line(case, expected, tmp_path, capsys):
    a = perturbed(tmp_path, "a.pt", 1)
    out = tmp_path / "out.pt"
    argv = {
        "one": [str(out), str(a)],
        "missing": [str(out), str(a), str(tmp_path / "nope.pt")],
        "corrupt": [str(out), str(a), str(tmp_path / "bad.pt")],
        "other-network": [str(out), str(a), str(tmp_path / "wide.pt")],
        "exists": [str(a), str(a), str(a)],
        "out-folder": [str(tmp_path), str(a), str(a)],
        "no-parent": [str(tmp_path / "x" / "out.pt"), str(a), str(a)],
        "not-ppo": [str(out), str(a), "color-first"],
        "unknown": [str(out), str(a), "no-such-agent"],
    }[case]
    (tmp_path / "bad.pt").write_bytes(b"not a checkpoint")
    if case == "other-network":
        perturbed(tmp_path, "wide.pt", 2, scaled=not load_checkpoint(a)["network"]["scaled"])
    before = a.read_bytes()
    assert_clean_error(average.main, argv, expected, capsys)
    assert a.read_bytes() == before  # nothing overwritten
    assert not out.exists()


def test_force_overwrites(tmp_path):
    a, b = perturbed(tmp_path, "a.pt", 1), perturbed(tmp_path, "b.pt", 2)
    out = tmp_path / "out.pt"
    out.write_bytes(b"old")
    assert average.main([str(out), str(a), str(b), "--force"]) == 0
    assert "averaged_from" in load_checkpoint(out)
