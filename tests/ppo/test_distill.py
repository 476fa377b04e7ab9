"""uno_rl distill: search targets, the imitation loss, the iterated recipe and its resume."""

from __future__ import annotations

import shutil

import numpy as np
import pandas as pd
import pytest
import torch

from uno_rl.agents import make_agent
from uno_rl.core import load_rules
from uno_rl.ppo.checkpoint import load_checkpoint
from uno_rl.ppo.config import TrainConfig, TrainConfigError, load_train_config
from uno_rl.ppo.expert_iteration import DistillSettings, next_step, split_recipe
from uno_rl.ppo.inputs import NetworkInputs
from uno_rl.ppo.search_targets import (
    SearchTargets,
    TargetsError,
    collect_targets,
    load_targets,
    read_row,
    save_targets,
    search_gain,
)
from uno_rl.ppo.update import ImitationTargets
from uno_rl.programs import distill

pytestmark = pytest.mark.xdist_group("distill")

RECIPE = """
name = "tiny-distill"
seed = 5
switches = {{ match = true, reward = "points" }}
total_decisions = 1024
num_games = 64
rollout_steps = 16
self_play = 0.5
pool_share = 0.0
zoo_share = 0.5
zoo = ["color-first"]
eval_every = 0
final_eval_matches = 0
tensorboard = false
init_from = "ppo-official-2p.pt"
distill_batch = 64
{extra}
[distill]
iterations = 2
search = "pimc:determinizations=1,rollouts=1,margin=1"
deals = 2
chunk = 1
slots = 4
"""


def recipe(tmp_path, extra: str = "") -> str:
    path = tmp_path / "recipe.toml"
    path.write_text(RECIPE.format(extra=extra))
    return str(path)


def test_collected_targets_are_the_search_s_choices_with_a_choice():
    rules = load_rules("official")
    search = make_agent("pimc:determinizations=1,rollouts=1", rules)
    targets, outcomes = collect_targets(rules, search, make_agent("color-first", rules),
                                        np.array([7, 8], np.uint64), np.random.default_rng(0),
                                        slots=4)  # fmt: skip
    assert targets.size > 10 and targets.obs.shape == (targets.size, rules.layout.obs_size)
    assert (targets.mask.sum(1) > 1).all()
    assert targets.mask[np.arange(targets.size), targets.action.astype(np.int64)].all()
    points, wins, rounds = search_gain(outcomes)
    assert rounds == 4 and 0 <= wins <= 1  # two deals, the search in each seat
    assert points == outcomes.net_points[outcomes.position == 0].sum() / 4


def test_targets_files_round_trip_and_bad_files_get_one_line(tmp_path):
    rules = load_rules("official")
    layout = rules.layout
    mask = np.zeros((3, layout.num_actions), bool)
    mask[:, [0, 5]] = True
    targets = SearchTargets(np.ones((3, layout.obs_size), np.float32), mask,
                            np.array([0, 5, 5], np.int16))  # fmt: skip
    save_targets(tmp_path / "a.npz", targets, {"chunk": 0})
    back = load_targets([tmp_path / "a.npz", tmp_path / "a.npz"], rules)
    assert back.size == 6 and back.action.tolist() == [0, 5, 5] * 2
    assert read_row(tmp_path / "a.npz") == {"chunk": 0}
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    for path, words in ((tmp_path / "none.npz", "no such file"),
                        (tmp_path / "junk.npz", "not a targets file")):  # fmt: skip
        with pytest.raises(TargetsError, match=words) as error:
            load_targets([path], rules)
        assert "\n" not in str(error.value)
    illegal = SearchTargets(targets.obs, targets.mask, np.array([1, 5, 5], np.int16))
    save_targets(tmp_path / "b.npz", illegal)
    with pytest.raises(TargetsError, match="not legal"):
        load_targets([tmp_path / "b.npz"], rules)
    with pytest.raises(TargetsError, match="do not fit the extended layout"):
        load_targets([tmp_path / "a.npz"], load_rules("official", deck="extreme"))


def test_the_imitation_loss_pulls_the_policy_to_the_search_s_choice():
    rules = load_rules("official")
    inputs = NetworkInputs.of_rules(TrainConfig().features, rules)
    torch.manual_seed(0)
    network = inputs.network([16])
    layout = rules.layout
    obs = np.random.default_rng(1).random((32, layout.obs_size), np.float32)
    mask = np.zeros((32, layout.num_actions), bool)
    mask[:, [2, 9, 30]] = True
    targets = ImitationTargets(obs, mask, np.full(32, 9, np.int16), inputs.columns, network,
                               torch.device("cpu"))  # fmt: skip
    optimizer = torch.optim.Adam(network.parameters(), lr=0.01)
    rows = torch.arange(32)
    before, _ = targets.loss(network, rows)
    for _ in range(50):
        loss, _ = targets.loss(network, rows)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    after, agree = targets.loss(network, rows)
    assert after < before / 4 and agree == 1.0


def test_a_recipe_distills_iterates_and_resumes_without_a_lost_or_doubled_row(tmp_path, capsys):
    runs = tmp_path / "runs"
    args = ["--config", recipe(tmp_path), "--runs-dir", str(runs), "--no-progress"]
    assert distill.main(args) == 0
    out = capsys.readouterr().out
    assert "iteration 0: the search" in out and "iteration 1: the search" in out
    (run,) = (runs / "tiny-distill").iterdir()
    table = pd.read_csv(run / "search.csv")
    assert table[["iteration", "chunk"]].values.tolist() == [[0, 0], [0, 1], [1, 0], [1, 1]]
    assert table.policy[2].endswith("iter-0/train/policy.pt") and (table.decisions > 0).all()
    second = load_checkpoint(run / "iter-1" / "train" / "policy.pt")
    assert second["config"]["distill_data"] == [
        str(run / f"iter-{k}" / f"targets-00{c}.npz") for k in (0, 1) for c in (0, 1)
    ]
    assert second["config"]["init_from"] == str(run / "iter-0" / "train" / "policy.pt")
    metrics = pd.read_csv(run / "iter-1" / "train" / "metrics.csv")
    assert metrics["losses/distill_loss"].notna().all()
    rules = load_rules("official")
    saved = load_targets([run / "iter-1" / "targets-001.npz"], rules)
    # Killed in iteration 1: its last targets file and its training never written.
    (run / "iter-1" / "targets-001.npz").unlink()
    shutil.rmtree(run / "iter-1" / "train")
    (run / "policy.pt").unlink()
    settings, _ = split_recipe({"distill": {"iterations": 2, "deals": 2, "chunk": 1}}, "x")
    assert next_step(run, settings) == (1, "search", 1)
    assert distill.main(["--resume", str(run), "--no-progress"]) == 0
    remade = load_targets([run / "iter-1" / "targets-001.npz"], rules)  # the same seeds
    for name in ("obs", "mask", "action"):
        np.testing.assert_array_equal(getattr(remade, name), getattr(saved, name))
    again = pd.read_csv(run / "search.csv")
    assert again.drop(columns="seconds").equals(table.drop(columns="seconds"))
    assert (run / "policy.pt").is_file() and next_step(run, settings)[1] == "done"


def test_bad_recipes_and_resumes_get_one_line(tmp_path, capsys):
    runs = ["--runs-dir", str(tmp_path / "runs"), "--no-progress"]
    cases = [
        (["--config", str(tmp_path / "none.toml")], "no such file"),
        (["--config", recipe(tmp_path), "--deals", "0"], "--deals"),
        (["--resume", str(tmp_path)], "not a distillation run"),
        (["--resume", str(tmp_path), "--iterations", "3"], "no other settings"),
        (["--config", recipe(tmp_path), "--distill-data", "x.npz"], "makes each iteration's"),
    ]
    bad = tmp_path / "bad.toml"
    bad.write_text(RECIPE.format(extra="").replace("chunk = 1", "chunk = 1\nwhen = 3"))
    cases.append((["--config", str(bad)], "distill.when is not a setting"))
    plain = tmp_path / "plain.toml"
    plain.write_text('name = "x"\n')
    cases.append((["--config", str(plain)], "not a distillation recipe"))
    for argv, words in cases:
        with pytest.raises(SystemExit) if "--deals" in argv else _no_raise():
            assert distill.main([*argv, *runs]) == 2
        err = capsys.readouterr().err.strip()
        assert words in err and len(err.splitlines()) == 1, (argv, err)
    assert not (tmp_path / "runs").exists()


class _no_raise:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_train_refuses_a_recipe_and_distill_settings_are_checked(tmp_path):
    with pytest.raises(TrainConfigError, match="run it with uno_rl distill"):
        load_train_config(recipe(tmp_path))
    with pytest.raises(TrainConfigError, match="distill.iterations"):
        DistillSettings(iterations=0)
    assert DistillSettings(deals=101, chunk=25).chunks == 5


def test_the_shipped_recipe_reads():
    from uno_rl.ppo.config import config_from_dict, read_config_file

    settings, fields = split_recipe(read_config_file(distill.DEFAULT_RECIPE), "recipe")
    config = config_from_dict(fields, "recipe")
    assert settings.iterations >= 2 and settings.search.startswith("pimc")
    assert config.init_from and config.distill_coef > 0 and config.rules().match
