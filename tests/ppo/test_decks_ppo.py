"""PPO on any deck: the network follows the training rules' layout, checkpoints
record it, the shipped classic bots play exactly as before, and short runs train on
``extreme`` and ``extension``.

``data/shipped_golden.npz`` was recorded with the classic-only code, before the layout was
threaded through: 256 classic observations and masks (2- and 4-player official games under
random play) and, for every ``agents/ppo-*.pt``, its greedy action, that action's
log-probability and the value on each. ``data/shipped_golden_shown.npz`` (:mod:`golden_shown`)
holds the same for the bots that read the pieces of what other seats showed.
"""

from pathlib import Path

import numpy as np
import pytest
import torch
from golden_shown import CLASSIC_WIDTH, GOLDEN_SHOWN, bot_outputs, shown_bots
from tiny_training import TINY_TRAINING_ARGS

from uno_rl.agents import AgentError, make_agent
from uno_rl.core import engine, load_rules
from uno_rl.core.layout import CLASSIC, EXTENDED, EXTENDED_PIECES
from uno_rl.core.observe import observe
from uno_rl.core.observe_layout import OBS_SIZE
from uno_rl.ppo.agent import load_policy, load_policy_inputs
from uno_rl.ppo.buffer import TurnBuffer
from uno_rl.ppo.checkpoint import CheckpointError, load_checkpoint, network_spec, save_checkpoint
from uno_rl.ppo.config import ALL_FEATURES, TrainConfig, TrainConfigError
from uno_rl.ppo.inputs import NetworkInputs, resolve_features
from uno_rl.ppo.network import PolicyNetwork, feature_columns, input_scale
from uno_rl.ppo.runs import load_resume
from uno_rl.ppo.soup import average_policies
from uno_rl.programs import train

AGENTS = Path(__file__).resolve().parents[2] / "agents"
GOLDEN = Path(__file__).resolve().parent / "data" / "shipped_golden.npz"

TINY = TINY_TRAINING_ARGS


def run_dir(runs: Path, name: str) -> Path:
    (folder,) = (runs / name).iterdir()
    return folder


def play_legal_moves(agent, rules, games=32, steps=150, seed=0) -> int:
    """Play ``agent`` in every seat through the engine; assert every action is legal and
    return how many were taken."""
    state = engine.reset(rules, np.arange(seed, seed + games, dtype=np.uint64))
    rng, taken = np.random.default_rng(seed), 0
    for _ in range(steps):
        live = np.flatnonzero(state.phase != 7)
        if not live.size:
            break
        mask = engine.legal_mask(state, live)
        assert mask.shape == (live.size, rules.layout.num_actions)
        actions = agent.act(observe(state.take(live), state.actor[live]), mask, rng)
        assert mask[np.arange(live.size), actions].all()
        engine.step(state, actions, games=live, validate=True)
        taken += live.size
    return taken


# ------------------------------------------------------------------ the classic path


def recordings() -> list[dict[str, np.ndarray]]:
    """The classic recording, then the one of every observation piece (golden_shown)."""
    return [dict(np.load(GOLDEN)), dict(np.load(GOLDEN_SHOWN))]


def test_shipped_bots_choose_exactly_as_before_on_recorded_observations():
    classic, shown = recordings()
    shipped = sorted(AGENTS.glob("ppo-*.pt"))
    assert len(shipped) >= 10
    assert {p.stem for p in shown_bots()} >= {"ppo-official-2p"}
    for path in shipped:
        network, inputs = load_policy_inputs(path)
        assert inputs.layout is CLASSIC and inputs.deck_size == 108
        assert network.policy.out_features == 77
        # a bot that reads a piece of what other seats showed was recorded on all of them
        golden = shown if int(inputs.columns.max()) >= CLASSIC_WIDTH else classic
        assert f"{path.stem}/greedy" in golden, path.stem
        expected = bot_outputs(path, golden["obs"], golden["mask"])
        name = f"{path.stem}/greedy"
        np.testing.assert_array_equal(expected[name], golden[name], path.stem)
        for kind in ("logp", "value"):
            # A few float32 ulps: CPUs with other matmul kernels sum in another order.
            np.testing.assert_allclose(
                expected[f"{path.stem}/{kind}"], golden[f"{path.stem}/{kind}"],
                rtol=1e-5, atol=1e-5, err_msg=path.stem,
            )  # fmt: skip
    # Through the agent API too: the shipped specs play the recorded choices greedily. The
    # classic recording predates the pieces of what other seats showed, appended after the
    # others.
    obs, masks = classic["obs"], classic["mask"]
    wide = np.zeros((obs.shape[0], OBS_SIZE), np.float32)
    wide[:, : obs.shape[1]] = obs
    agent = make_agent("ppo-official-2p-v1", load_rules("official"), greedy=True)
    chosen = agent.act(wide, masks, np.random.default_rng(0))
    np.testing.assert_array_equal(chosen, classic["ppo-official-2p-v1/greedy"])
    agent = make_agent("ppo-official-2p", load_rules("official"), greedy=True)
    chosen = agent.act(shown["obs"], shown["mask"], np.random.default_rng(0))
    np.testing.assert_array_equal(chosen, shown["ppo-official-2p/greedy"])
    four = slice(128, None)  # the recording's 4-player observations
    agent = make_agent("ppo-official-4p", load_rules("official", players=4))
    chosen = agent.act(shown["obs"][four], shown["mask"][four], np.random.default_rng(0))
    np.testing.assert_array_equal(chosen, shown["ppo-official-4p/greedy"][four])


def test_classic_columns_and_scales_are_todays():
    columns = feature_columns(ALL_FEATURES, CLASSIC)
    np.testing.assert_array_equal(columns, np.arange(OBS_SIZE))
    np.testing.assert_array_equal(input_scale(ALL_FEATURES, CLASSIC), input_scale(ALL_FEATURES))
    inputs = NetworkInputs.of_rules(ALL_FEATURES, load_rules("official"))
    assert inputs.features == tuple(ALL_FEATURES) and inputs.actions == 77
    assert inputs.deck_size == 108 and inputs.deck == "classic"
    np.testing.assert_array_equal(inputs.scale, input_scale(ALL_FEATURES))
    spec = inputs.spec([32])
    assert spec["layout"] == "classic" and spec["deck_size"] == 108


def test_a_checkpoint_without_the_new_fields_loads_as_classic(tmp_path):
    net = PolicyNetwork(OBS_SIZE, [8], input_scale(ALL_FEATURES))
    path = tmp_path / "old.pt"
    old_spec = {"features": list(ALL_FEATURES), "hidden": [8], "scaled": True}
    save_checkpoint(path, {"network": old_spec, "model": net.state_dict()})
    spec = network_spec(load_checkpoint(path), path)
    assert (spec["layout"], spec["deck"], spec["deck_size"]) == ("classic", "classic", 108)
    agent = make_agent(f"ppo:checkpoint={path}", load_rules("official"))
    assert agent.inputs.layout is CLASSIC
    np.testing.assert_array_equal(agent.network.scale.numpy(), input_scale(ALL_FEATURES))


# ------------------------------------------------------------------ the extended layout


def test_extended_inputs_read_every_piece_with_their_scales():
    rules = load_rules("official", deck="extreme")
    inputs = NetworkInputs.of_rules(ALL_FEATURES, rules)
    assert inputs.layout is EXTENDED and inputs.actions == 122
    assert inputs.features == tuple(ALL_FEATURES) + tuple(n for n, _ in EXTENDED_PIECES)
    np.testing.assert_array_equal(inputs.columns, np.arange(EXTENDED.obs_size))
    scale, at = inputs.scale, EXTENDED.slices
    assert scale.shape == (877,) and inputs.deck_size == rules.deck_cards.size == 104
    expected = {
        "hand": 0.25, "discard": 0.25, "revealed_hand": 0.25, "hand_sizes": 0.05,
        "pending_draw": 0.05, "draw_pile_size": 1 / 104, "top_card": 1.0,
        "dispenser_presses": 0.25, "swap_seats": 1.0, "shuffled": 1.0,
        "swap_given": 0.25, "swap_received": 0.25,
    }  # fmt: skip
    for name, value in expected.items():
        np.testing.assert_array_equal(scale[at[name]], np.float32(value), name)
    assert at["hand"].stop - at["hand"].start == 75
    extension = NetworkInputs.of_rules(ALL_FEATURES, load_rules("official", deck="extension"))
    assert extension.scale[at["draw_pile_size"]][0] == np.float32(1 / 120)
    # A list other than the default is kept as given.
    assert resolve_features(["hand", "swap_seats"], EXTENDED) == ["hand", "swap_seats"]
    assert resolve_features(ALL_FEATURES, CLASSIC) == list(ALL_FEATURES)
    net = inputs.network([8])
    logits, value = net(torch.zeros(3, 877))
    assert logits.shape == (3, 122) and value.shape == (3,)
    buffer = TurnBuffer(4, 877, streams=2, actions=inputs.actions)
    assert buffer.mask.shape == (4, 122)


def test_an_extended_piece_on_a_classic_deck_is_one_clear_error(capsys):
    with pytest.raises(ValueError, match="'swap_seats' in the classic layout"):
        feature_columns(["hand", "swap_seats"], CLASSIC)
    with pytest.raises(ValueError, match="deck_size must be"):
        input_scale(["hand"], CLASSIC, 0)
    TrainConfig(features=["hand", "swap_given"])  # a valid name: the deck decides
    with pytest.raises(TrainConfigError, match="unknown observation piece 'nose'"):
        TrainConfig(features=["hand", "nose"])
    assert train.main(["--features", "hand,swap_given", "--runs-dir", "/nonexistent/x"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: features:") and "'swap_given'" in err
    assert "classic layout" in err and len(err.splitlines()) == 1


def _save_policy(path: Path, inputs: NetworkInputs, hidden=(8,)) -> None:
    net = inputs.network(list(hidden))
    save_checkpoint(path, {"network": inputs.spec(list(hidden)), "model": net.state_dict()})


def test_a_policy_plays_only_decks_of_its_layout(tmp_path):
    extreme = load_rules("official", deck="extreme")
    ext_path = tmp_path / "extreme.pt"
    _save_policy(ext_path, NetworkInputs.of_rules(ALL_FEATURES, extreme))
    with pytest.raises(AgentError) as caught:
        make_agent(f"ppo:checkpoint={ext_path}", load_rules("official"))
    message = str(caught.value)
    assert len(message.splitlines()) == 1
    for part in ("'extreme'", "extended layout", "'classic'", "classic layout", "122", "77"):
        assert part in message, part
    with pytest.raises(AgentError, match="trained on deck 'classic' .*classic layout.*'extension'"):
        make_agent("ppo-official-2p", load_rules("official", deck="extension"))
    # Same layout, another deck: it plays (its scales stay those of its training deck).
    agent = make_agent(f"ppo:checkpoint={ext_path}", load_rules("official", deck="extension"))
    assert agent.inputs.deck == "extreme" and agent.inputs.deck_size == 104
    assert agent.network.scale[EXTENDED.slices["draw_pile_size"]][0] == np.float32(1 / 104)
    with pytest.raises(ValueError, match=r"masks must be a \(k, 122\) bool array"):
        agent.act(np.zeros((2, 877), np.float32), np.ones((2, 77), bool), None)
    with pytest.raises(ValueError, match=r"observations must be a \(k, 877\) array"):
        agent.act(np.zeros((2, 583), np.float32), np.ones((2, 122), bool), None)
    # Averaging policies of two layouts is refused; of one layout it works.
    classic_path = tmp_path / "classic.pt"
    _save_policy(classic_path, NetworkInputs.of_rules(ALL_FEATURES, load_rules("official")))
    with pytest.raises(CheckpointError, match="differs"):
        average_policies([ext_path, classic_path])
    twin = tmp_path / "extreme-b.pt"
    _save_policy(twin, NetworkInputs.of_rules(ALL_FEATURES, extreme))
    assert average_policies([ext_path, twin])["network"]["layout"] == "extended"


def test_bad_layout_fields_in_a_checkpoint_are_named(tmp_path):
    inputs = NetworkInputs.of_rules(ALL_FEATURES, load_rules("official"))
    for field, value, message in (
        ("layout", "hexagonal", "layout must be one of classic, extended"),
        ("deck_size", 0, "deck_size must be a number of cards"),
        ("deck_size", True, "deck_size must be a number of cards"),
        ("deck", "", "deck must be a deck name"),
    ):
        path = tmp_path / f"{field}.pt"
        spec = {**inputs.spec([8]), field: value}
        save_checkpoint(path, {"network": spec, "model": inputs.network([8]).state_dict()})
        with pytest.raises(CheckpointError, match=message):
            load_policy(path)


# ------------------------------------------------------------------ training on new decks


@pytest.fixture(scope="module")
def extreme_run(tmp_path_factory):
    runs = tmp_path_factory.mktemp("runs")
    argv = [*TINY, "--set", "deck=extreme", "--runs-dir", str(runs), "--name", "extreme"]
    assert train.main(argv) == 0
    return run_dir(runs, "extreme")


def _check_run(run: Path, deck: str, updates: int) -> None:
    for name in ("config.json", "metrics.csv", "checkpoint.pt", "policy.pt"):
        assert (run / name).is_file(), name
    assert list((run / "tensorboard").iterdir())
    lines = (run / "metrics.csv").read_text().splitlines()
    assert len(lines) == 1 + updates
    header = lines[0].split(",")
    for key in ("losses/policy_loss", "losses/entropy", "charts/SPS", "charts/rounds"):
        assert key in header, key
    for name in ("checkpoint.pt", "policy.pt"):
        spec = network_spec(load_checkpoint(run / name), run / name)
        assert spec["layout"] == "extended" and spec["deck"] == deck, name
        assert spec["deck_size"] == load_rules("official", deck=deck).deck_cards.size
        assert len(spec["features"]) == len(ALL_FEATURES) + len(EXTENDED_PIECES)
    model = load_checkpoint(run / "policy.pt")["model"]
    assert model["policy.weight"].shape[0] == 122


def test_training_on_extreme_runs_checkpoints_logs_and_plays_legally(extreme_run):
    _check_run(extreme_run, "extreme", updates=8)  # 2048 / (16 * 16)
    rows = (extreme_run / "metrics.csv").read_text().splitlines()
    rounds = int(float(rows[-1].split(",")[rows[0].split(",").index("charts/rounds")]))
    assert rounds > 0  # games of the extreme deck were finished
    for players in (2, 4):
        rules = load_rules("official", players=players, deck="extreme")
        agent = make_agent(f"ppo:checkpoint={extreme_run / 'policy.pt'}", rules)
        assert play_legal_moves(agent, rules) > 1000
    greedy = make_agent(
        f"ppo:checkpoint={extreme_run / 'policy.pt'},greedy=true",
        load_rules("official", deck="extreme"),
    )
    assert play_legal_moves(greedy, load_rules("official", deck="extreme"), games=8) > 0
    # It resumes on its deck only: the same config fits, the classic deck does not.
    config = TrainConfig(**{**load_checkpoint(extreme_run / "checkpoint.pt")["config"]})
    assert load_resume(extreme_run, config)["update"] == 8
    classic = TrainConfig(**{**config.to_dict(), "switches": {}})
    with pytest.raises(CheckpointError, match="extended layout.*classic layout"):
        load_resume(extreme_run, classic)


def test_training_on_extension_evaluates_against_a_policy_and_plays_legally(tmp_path, extreme_run):
    runs = tmp_path / "runs"
    config = TrainConfig(**{
        "name": "extension", "num_games": 16, "rollout_steps": 16,
        "total_decisions": 2048, "hidden": [16], "minibatch_size": 128, "update_epochs": 2,
        "checkpoint_every": 4, "torch_threads": 1, "zoo_share": 0.0, "zoo": [],
        "self_play": 0.7, "pool_share": 0.3, "pool_size": 2, "snapshot_every": 2,
        "eval_every": 4, "eval_rounds": 20, "final_eval_rounds": 0,
        # an extreme policy plays the extension deck (the same layout)
        "eval_agents": [f"ppo:checkpoint={extreme_run / 'policy.pt'}"],
        "switches": {"deck": "extension"},
    })  # fmt: skip
    run = runs / "extension" / "one"
    summary = train.train(config, run, progress=False)
    assert summary["learner_decisions"] > 0 and summary["rounds"] > 0
    _check_run(run, "extension", updates=8)
    lines = (run / "metrics.csv").read_text().splitlines()
    header = lines[0].split(",")
    evaluated = [row.split(",")[header.index("eval/evaluated")] for row in lines[1:]]
    assert evaluated.count("1") == 2  # updates 4 and 8
    assert any(h.startswith("eval/win_rate_vs_") for h in header)
    rules = load_rules("official", players=3, deck="extension")
    agent = make_agent(f"ppo:checkpoint={run / 'policy.pt'}", rules)
    assert play_legal_moves(agent, rules) > 1000


def test_init_from_a_classic_bot_on_a_new_deck_is_one_clear_error(tmp_path, capsys):
    argv = [*TINY, "--set", "deck=extreme", "--init-from", "ppo-official-2p", "--hidden",
            "128,128", "--runs-dir", str(tmp_path / "runs")]  # fmt: skip
    assert train.main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: init_from:") and len(err.splitlines()) == 1
    assert "classic layout" in err and "extended layout" in err and "'extreme'" in err
    assert not (tmp_path / "runs").exists()  # nothing made


def test_resuming_a_finished_extreme_run_restores_it_on_its_deck(extreme_run, capsys):
    assert train.main(["--resume", str(extreme_run), "--no-progress"]) == 0
    assert "nothing left to train" in capsys.readouterr().out


def test_a_rollout_actor_plays_the_extension_deck(keep_torch_threads):
    from uno_rl.ppo.ray_workers import RolloutActor

    config = TrainConfig(
        num_games=6, rollout_steps=12, hidden=[8], zoo_share=0.0, zoo=[], self_play=0.7,
        pool_share=0.3, pool_size=1, workers=2, backend="ray", torch_threads=1,
        switches={"deck": "extension"},
    )  # fmt: skip
    inputs = NetworkInputs.of_config(config)
    assert inputs.layout is EXTENDED and inputs.deck_size == 120
    weights = inputs.network([8]).state_dict()
    actor = RolloutActor(config.to_dict(), 1, None, [weights], 0)
    rollout, state = actor.collect(weights, 0, 1)
    assert rollout.size > 0 and rollout.stats.decisions == 3 * 12
    assert rollout.obs.shape[1] == 877 and rollout.mask.shape[1] == 122
    assert rollout.mask[np.arange(rollout.size), rollout.action].all()


@pytest.fixture
def keep_torch_threads():
    threads = torch.get_num_threads()  # an actor sets its process's torch threads
    yield
    torch.set_num_threads(threads)


def test_the_command_line_trains_on_extreme_with_the_zoo_and_a_final_evaluation(tmp_path, capsys):
    """``uno_rl train --set deck=extreme`` with the quick-start zoo and eval agents (the
    heuristics play the new cards too)."""
    runs = tmp_path / "runs"
    argv = [
        "--num-games", "16", "--rollout-steps", "16", "--total-decisions", "1024",
        "--hidden", "16", "--minibatch-size", "128", "--eval-every", "2", "--eval-rounds", "20",
        "--final-eval-rounds", "40", "--torch-threads", "1", "--checkpoint-every", "2",
        "--no-progress", "--set", "deck=extreme", "--runs-dir", str(runs), "--name", "zoo",
    ]  # fmt: skip
    assert train.main(argv) == 0
    out = capsys.readouterr().out
    assert "Final evaluation" in out and "ppo vs random-playable" in out
    run = run_dir(runs, "zoo")
    _check_run(run, "extreme", updates=4)
    header = (run / "metrics.csv").read_text().splitlines()[0].split(",")
    assert "charts/win_rate_vs_zoo" in header and "eval/win_rate_vs_color-first" in header
    assert "ppo" in (run / "final_eval" / "agents.csv").read_text()
