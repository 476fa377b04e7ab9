"""The trainer: a smoke run, exact resume after a kill, bad configs, corrupt checkpoints."""

import json
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import torch

from uno_rl.agents import AgentError, make_agent
from uno_rl.core import engine, load_rules
from uno_rl.core.observe import observe
from uno_rl.ppo.best_response import INIT_AUTO
from uno_rl.ppo.checkpoint import CheckpointError, load_checkpoint, save_checkpoint
from uno_rl.ppo.config import TrainConfig, TrainConfigError, load_train_config
from uno_rl.ppo.network import PolicyNetwork, feature_columns, masked_entropy, masked_logits
from uno_rl.programs import train

TINY = [
    "--num-games", "32", "--rollout-steps", "16", "--total-decisions", "3072",
    "--hidden", "32", "--minibatch-size", "128", "--update-epochs", "2",
    "--eval-every", "3", "--eval-rounds", "40", "--final-eval-rounds", "60",
    "--checkpoint-every", "2", "--torch-threads", "1", "--zoo", "random-playable,rule",
    "--pool-size", "2", "--snapshot-every", "2", "--no-progress",
]  # fmt: skip


def run_dir(runs: Path, name: str) -> Path:
    (folder,) = (runs / name).iterdir()
    return folder


def test_smoke_run_trains_logs_checkpoints_and_reports(tmp_path, capsys):
    runs = tmp_path / "runs"
    assert train.main([*TINY, "--runs-dir", str(runs), "--name", "smoke"]) == 0
    out = capsys.readouterr().out
    assert "Final evaluation" in out and "random-playable" in out and "color-first" in out
    run = run_dir(runs, "smoke")
    for name in ("config.json", "metrics.csv", "checkpoint.pt", "policy.pt"):
        assert (run / name).is_file(), name
    assert list((run / "tensorboard").iterdir())
    lines = (run / "metrics.csv").read_text().splitlines()
    header = lines[0].split(",")
    for key in ("losses/policy_loss", "losses/entropy", "losses/explained_variance",
                "losses/clipfrac", "losses/grad_norm", "charts/SPS", "charts/win_rate_vs_zoo",
                "behaviour/bluff_share", "eval/win_rate_vs_color-first"):  # fmt: skip
        assert key in header, key
    assert len(lines) == 1 + 6  # 3072 / (32 * 16) updates
    final = (run / "final_eval" / "agents.csv").read_text()
    assert "ppo" in final
    # The trained policy is an agent: legal actions only.
    rules = load_rules("official")
    agent = make_agent(f"ppo:checkpoint={run / 'policy.pt'}", rules)
    state = engine.reset(rules, np.arange(64, dtype=np.uint64))
    rng = np.random.default_rng(0)
    for _ in range(60):
        live = np.flatnonzero(state.phase != 7)
        if not live.size:
            break
        mask = engine.legal_mask(state, live)
        actions = agent.act(observe(state.take(live), state.actor[live]), mask, rng)
        assert mask[np.arange(live.size), actions].all()
        engine.step(state, actions, games=live)
    greedy = make_agent(f"ppo:checkpoint={run / 'policy.pt'},greedy=true", rules)
    assert greedy.params["greedy"]


def test_a_killed_run_resumes_exactly(tmp_path):
    """kill -9 at a random moment after a checkpoint; the resumed run ends with the same
    weights and the same metrics.csv rows as the run nobody killed, none lost or doubled."""
    from test_resume import lost_and_doubled, rows, scalars

    longer = [*TINY]
    longer[longer.index("--total-decisions") + 1] = "6144"  # 12 updates
    command = [sys.executable, "-m", "uno_rl.train", *longer, "--eval-every", "5",
               "--final-eval-rounds", "0", "--eval-rounds", "20"]  # fmt: skip
    straight = tmp_path / "straight"
    subprocess.run([*command, "--runs-dir", str(straight), "--name", "a"], check=True,
                   capture_output=True, timeout=300)  # fmt: skip
    killed = tmp_path / "killed"
    process = subprocess.Popen([*command, "--runs-dir", str(killed), "--name", "a"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    deadline = time.time() + 120
    while time.time() < deadline:
        checkpoints = list(killed.glob("a/*/checkpoint.pt"))
        if checkpoints and load_checkpoint(checkpoints[0], ("update",))["update"] >= 4:
            break
        time.sleep(0.05)
    time.sleep(random.uniform(0, 0.5))  # somewhere in the updates after that checkpoint
    process.send_signal(signal.SIGKILL)
    process.wait()
    run = run_dir(killed, "a")
    stopped_at = load_checkpoint(run / "checkpoint.pt", ("update",))["update"]
    assert 4 <= stopped_at < 12
    result = subprocess.run([sys.executable, "-m", "uno_rl.train", "--resume", str(run), "--no-progress"],
                            capture_output=True, text=True, timeout=300)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "resuming" in result.stdout
    a = load_checkpoint(run_dir(straight, "a") / "checkpoint.pt")
    b = load_checkpoint(run / "checkpoint.pt")
    assert a["update"] == b["update"] == 12 and a["decisions"] == b["decisions"]
    for key in a["model"]:
        assert torch.equal(a["model"][key], b["model"][key]), key
    expected, got = rows(run_dir(straight, "a")), rows(run)
    assert lost_and_doubled(expected, got) == (0, 0)
    assert got == expected
    assert scalars(run) == scalars(run_dir(straight, "a"))


@pytest.mark.parametrize(
    "argv,message",
    [
        (["--num-games", "0"], "--num-games: must be in"),
        (["--players", "11"], "players: must be in"),
        (["--device", "tpu"], "device: must be one of"),
        (["--features", "hand,nose"], "unknown observation piece 'nose'"),
        (["--self-play", "0.9"], "must sum to 1"),
        (["--zoo", "random-playable,nobody"], "unknown agent 'nobody'"),
        (["--preset", "nope"], "unknown preset 'nope'"),
        (["--set", "stacking=most"], "'stacking' must be one of"),
        (["--anneal-lr", "maybe"], "--anneal-lr: cannot read 'maybe'"),
        (["--hidden", "0"], "hidden: must be a list"),
        (["--backend", "spark"], "backend: must be one of local, ray, got 'spark'"),
        (["--backend", "ray", "--workers", "0"], "workers: must be in [1, 4096], got 0"),
        (["--workers", "2"], "workers: the local backend plays every game in this process"),
        (["--address", "10.0.0.1:6379"], "address: only for backend = 'ray'"),
        (["--backend", "ray", "--workers", "33"], "each rollout actor plays at least one game"),
        (["--backend", "ray", "--worker-retries", "-1"], "--worker-retries: must be in [0, 100]"),
        (["--objective", "match"], "objective: 'match' rewards winning matches"),
        (["--objective", "points"], "objective: must be one of rules, match"),
        (["--precision", "fp8"], "precision: must be one of auto, bf16, fp32"),
        (["--reward-scale", "-1"], "--reward-scale: must be in [0, 100]"),
    ],
)
def test_bad_settings_fail_before_training(tmp_path, capsys, argv, message):
    assert train.main([*TINY, *argv, "--runs-dir", str(tmp_path / "r")]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "r").exists()  # no run folder is left behind


def test_the_ray_backend_without_ray_is_a_clear_error(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # as if the 'ray' extra were not installed
    args = [*TINY, "--backend", "ray", "--workers", "2", "--runs-dir", str(tmp_path)]
    assert train.main(args) == 2
    assert "the ray backend needs Ray: pip install -e '.[ray]'" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())  # no run folder is left behind


def test_config_files(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text('name = "x"\nplayers = 4\nhidden = [64]\n')
    config = load_train_config(path, {"seed": "5"})
    assert (config.name, config.players, config.hidden, config.seed) == ("x", 4, [64], 5)
    path.write_text("nme = 'x'\n")
    with pytest.raises(TrainConfigError, match="nme: unknown key"):
        load_train_config(path)
    quick = load_train_config(train.QUICKSTART)
    assert quick.preset == "official" and quick.players == 2
    assert TrainConfig().num_updates >= 1


def test_the_budget_rounds_to_the_nearest_whole_number_of_updates():
    """65,536 decisions per update: 300,000 asked are 5 updates (4.6), not 4; 1,000 one."""
    for asked, updates in [(300_000, 5), (1_000, 1), (98_304, 2), (6_000_000, 92), (262_144, 4)]:
        assert TrainConfig(total_decisions=asked).num_updates == updates, asked
    assert train.budget_line(TrainConfig(total_decisions=300_000)) == (
        "training 5 updates of 65,536 decisions: 327,680 decisions (asked 300,000)"
    )
    assert train.budget_line(TrainConfig(total_decisions=65_536)) == (
        "training 1 update of 65,536 decisions: 65,536 decisions"
    )


def test_training_says_what_it_will_run_before_it_starts(tmp_path, capsys):
    quick = [*TINY, "--eval-every", "0", "--final-eval-rounds", "0", "--tensorboard", "false"]
    quick[quick.index("--total-decisions") + 1] = "700"  # 1.4 updates of 32 x 16
    assert train.main([*quick, "--runs-dir", str(tmp_path), "--name", "one"]) == 0
    lines = capsys.readouterr().out.splitlines()
    plan = lines.index("training 1 update of 512 decisions: 512 decisions (asked 700)")
    assert plan < next(i for i, line in enumerate(lines) if "decisions in 1 update," in line)
    assert not [line for line in lines if "1 updates" in line]
    assert load_checkpoint(run_dir(tmp_path, "one") / "checkpoint.pt")["update"] == 1


def test_every_shipped_training_config_loads_and_names_existing_agents():
    from uno_rl.agents.registry import AGENTS_DIR

    root = Path(train.QUICKSTART).parent
    paths = sorted(root.glob("train-*.toml"))
    assert len(paths) >= 6
    for path in paths:
        if "\n[distill]" in path.read_text():  # a uno_rl distill recipe: its own test
            with pytest.raises(TrainConfigError, match="uno_rl distill"):
                load_train_config(path)
            continue
        config = load_train_config(path)
        assert config.name and config.total_decisions > 0, path
        if path.name == "train-exploit.toml":  # uno_rl exploit's: init_from "auto" is its own
            assert config.init_from == INIT_AUTO
        elif config.init_from:
            assert (AGENTS_DIR / config.init_from).is_file(), path


def test_help_lists_every_field(capsys):
    with pytest.raises(SystemExit):
        train.main(["--help"])
    text = capsys.readouterr().out
    for name in ("--num-games", "--ent-coef", "--features", "--zoo", "--checkpoint-every"):
        assert name in text


def test_corrupt_and_foreign_checkpoints_name_the_file(tmp_path, capsys):
    broken = tmp_path / "broken.pt"
    save_checkpoint(broken, {"model": {}, "network": {"features": ["hand"], "hidden": [8]}})
    broken.write_bytes(broken.read_bytes()[:40])
    with pytest.raises(CheckpointError, match="broken.pt is truncated or corrupt"):
        load_checkpoint(broken)
    foreign = tmp_path / "foreign.pt"
    torch.save({"weights": torch.zeros(2)}, foreign)
    with pytest.raises(CheckpointError, match="foreign.pt: not a"):
        load_checkpoint(foreign)
    with pytest.raises(AgentError, match="broken.pt is truncated"):
        make_agent(f"ppo:checkpoint={broken}", load_rules("official"))
    with pytest.raises(AgentError, match="no such file"):
        make_agent("ppo:checkpoint=/nowhere/x.pt", load_rules("official"))
    run = tmp_path / "run"
    run.mkdir()
    (run / "config.json").write_text(json.dumps(TrainConfig().to_dict()))
    (run / "checkpoint.pt").write_bytes(b"not a checkpoint")
    assert train.main(["--resume", str(run), "--no-progress"]) == 2
    assert "checkpoint.pt is truncated or corrupt" in capsys.readouterr().err


def test_a_checkpoint_of_another_version_is_refused_by_name(tmp_path, capsys):
    runs = tmp_path / "runs"
    args = [*TINY, "--eval-every", "0", "--final-eval-rounds", "0", "--tensorboard", "false"]
    assert train.main([*args, "--runs-dir", str(runs), "--name", "old"]) == 0
    run = run_dir(runs, "old")
    data = load_checkpoint(run / "checkpoint.pt")
    stats = data["games"]["state"]["stats"]
    data["games"]["state"]["stats"] = stats[:, :4]  # the counters of an older version
    save_checkpoint(run / "checkpoint.pt", data)
    capsys.readouterr()
    assert train.main(["--resume", str(run), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "checkpoint.pt: its game state does not fit" in err and "'stats'" in err


def test_masked_policy_never_picks_illegal_actions():
    torch.manual_seed(0)
    net = PolicyNetwork(len(feature_columns(["hand", "top_card"])), [16])
    logits, value = net(torch.randn(50, 108))
    mask = torch.zeros(50, 77, dtype=torch.bool)
    mask[:, [3, 60]] = True
    probs = torch.softmax(masked_logits(logits, mask), -1)
    assert torch.allclose(probs[:, [3, 60]].sum(1), torch.ones(50))
    entropy = masked_entropy(logits, mask)
    assert (entropy <= np.log(2) + 1e-6).all() and (entropy >= 0).all()
    assert value.shape == (50,)


def test_init_from_a_checkpoint(tmp_path, capsys):
    runs = tmp_path / "runs"
    short = [*TINY]
    short[short.index("--total-decisions") + 1] = "512"  # one update
    assert (
        train.main([*short, "--runs-dir", str(runs), "--name", "first", "--final-eval-rounds", "0"])
        == 0
    )
    policy = run_dir(runs, "first") / "policy.pt"
    again = ["--runs-dir", str(runs), "--final-eval-rounds", "0", "--init-from", str(policy)]
    assert train.main([*short, *again, "--name", "second"]) == 0
    start = load_checkpoint(policy)["model"]
    moved = load_checkpoint(run_dir(runs, "second") / "policy.pt")["model"]
    # One update from the first policy stays near it; a fresh start would be far away.
    drift = max((moved[k] - start[k]).abs().max().item() for k in start)
    assert drift < 0.05
    wider = [*short, *again, "--name", "wider", "--hidden", "64"]  # starts as the first
    assert train.main(wider) == 0
    assert load_checkpoint(run_dir(runs, "wider") / "policy.pt")["network"]["hidden"] == [64]
    capsys.readouterr()
    for name, hidden in (("narrower", "16"), ("deeper", "32,32")):
        assert train.main([*short, *again, "--name", name, "--hidden", hidden]) == 2
        assert "init_from" in capsys.readouterr().err
        assert not (runs / name).exists()


def test_a_match_run_trains_on_points_and_reports_rounds_points_and_matches(tmp_path, capsys):
    runs = tmp_path / "runs"
    args = [*TINY, "--set", "match=true", "--set", "match_target=100", "--set", "reward=points",
            "--zoo", "color-first", "--eval-agents", "color-first", "--eval-matches", "20",
            "--final-eval-matches", "20", "--precision", "fp32"]  # fmt: skip
    assert train.main([*args, "--runs-dir", str(runs), "--name", "m"]) == 0
    out = capsys.readouterr().out
    assert "20 duplicate-deal matches per opponent" in out
    assert "rounds won" in out and "points/round" in out and "matches won" in out
    lines = (run_dir(runs, "m") / "metrics.csv").read_text().splitlines()
    header = lines[0].split(",")
    for key in ("charts/points_per_round_vs_zoo", "charts/match_win_rate_vs_zoo",
                "eval/points_per_round_vs_color-first", "eval/match_win_rate_vs_color-first"):  # fmt: skip
        assert key in header, key
    config = json.loads((run_dir(runs, "m") / "config.json").read_text())
    assert config["reward_scale"] == 0.0  # automatic
    assert TrainConfig(**config).training_reward_scale("points") == 1 / 50
    assert TrainConfig(**config).training_reward_scale("win-loss") == 1.0


def test_same_seed_same_run_in_bf16(tmp_path):
    """The bfloat16 trunk is deterministic too: two runs of one seed end with equal weights."""
    args = [*TINY, "--eval-every", "0", "--final-eval-rounds", "0", "--precision", "bf16"]
    for name in ("a", "b"):
        assert train.main([*args, "--runs-dir", str(tmp_path), "--name", name]) == 0
    a = load_checkpoint(run_dir(tmp_path, "a") / "checkpoint.pt")
    b = load_checkpoint(run_dir(tmp_path, "b") / "checkpoint.pt")
    for key in a["model"]:
        assert torch.equal(a["model"][key], b["model"][key]), key
