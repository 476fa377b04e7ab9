"""A training run's evaluations play the policy being trained as an agent object (no file read
back), named ``ppo`` in every table, with the same numbers as the saved ``policy.pt`` played
the old way (``ppo:checkpoint=FILE``) under the same seed."""

from __future__ import annotations

import functools
import pickle
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from uno_rl.agents import make_agent
from uno_rl.agents.base import Agent
from uno_rl.agents.registry import AGENTS_DIR
from uno_rl.core import engine, load_rules
from uno_rl.core.observe import observe
from uno_rl.eval.replays import ReplayRequest, ReplaySample
from uno_rl.eval.run import evaluate_variant
from uno_rl.eval.tournament import make_matchups, plan_chunks, play_chunk
from uno_rl.ppo import report
from uno_rl.ppo.agent import load_policy_inputs
from uno_rl.ppo.checkpoint import load_checkpoint
from uno_rl.ppo.config import TrainConfig
from uno_rl.ppo.live_policy import LivePolicyAgent
from uno_rl.programs import train

SHIPPED = AGENTS_DIR / "ppo-official-2p.pt"
#: The shipped bot sampling its actions, as a live policy in training does.
SAMPLING = "ppo-official-2p:greedy=false"
#: Columns naming the policy by its spec's label: ``ppo:<run>`` the old way, ``ppo`` now.
LABELS = ["label", "matchup_label", "label_a", "label_b"]


def numbers(table: pd.DataFrame) -> pd.DataFrame:
    return table.drop(columns=[c for c in LABELS if c in table]).reset_index(drop=True)


def shipped_live(rules) -> LivePolicyAgent:
    """The shipped 2-player policy as a live agent (its network's weights copied)."""
    network, inputs = load_policy_inputs(SHIPPED)
    hidden = load_checkpoint(SHIPPED)["network"]["hidden"]
    return LivePolicyAgent(rules, inputs, hidden, {}, network)


def test_a_runs_evaluation_plays_the_live_policy_with_the_numbers_of_its_saved_file(
    tmp_path, monkeypatch
):
    config = TrainConfig(
        name="live", num_games=16, rollout_steps=16, total_decisions=256, hidden=[16],
        minibatch_size=128, update_epochs=1, eval_every=1, eval_rounds=40, final_eval_rounds=0,
        torch_threads=1, zoo=["random-playable"], pool_size=2, tensorboard=False,
    )  # fmt: skip
    evaluations = []
    real = train.evaluate_policy

    def recorded(policy, *args, **kwargs):
        result = real(policy, *args, **kwargs)
        evaluations.append((policy, result))
        return result

    monkeypatch.setattr(train, "evaluate_policy", recorded)
    summary = train.train(config, tmp_path / "run", progress=False)
    ((policy, live),) = evaluations  # one update: one evaluation, after it
    assert isinstance(policy, Agent) and not isinstance(policy, Path)
    assert summary["policy"] is policy
    # The saved policy.pt, evaluated the old way (a spec naming the file), same seed.
    saved = real(tmp_path / "run" / "policy.pt", config, 40, config.seed + 0)
    for name in ("agents", "seats", "pairs"):
        pd.testing.assert_frame_equal(numbers(getattr(live, name)), numbers(getattr(saved, name)))
    assert report.eval_metrics(live, False) == report.eval_metrics(saved, False)
    for table in (live.agents, live.seats, live.ratings):
        assert set(table.agent) == {"ppo", "random-playable", "color-first"}
        assert "ppo" in set(table.label)


def test_the_final_report_evaluates_the_policy_it_is_given(tmp_path):
    rules = load_rules("official")
    config = TrainConfig(eval_agents=["random-playable"], final_eval_rounds=20, seed=5)
    text = report.final_report(tmp_path, config, {}, policy=shipped_live(rules))
    assert text.startswith("Final evaluation (20 duplicate-deal rounds")
    assert "ppo vs random-playable" in text
    agents = pd.read_csv(tmp_path / "final_eval" / "agents.csv")
    assert set(agents.agent) == {"ppo", "random-playable"}


def test_a_live_agent_pickles_and_plays_exactly_as_its_checkpoint():
    rules = load_rules("official")
    live = pickle.loads(pickle.dumps(shipped_live(rules)))
    loaded = make_agent(SAMPLING, rules)
    assert live.label == "ppo" and live.checkpoint_path is None
    state = engine.reset(rules, np.arange(32, dtype=np.uint64))
    for _ in range(20):
        live_games = np.flatnonzero(state.phase != 7)  # 7: over
        view = state.take(live_games)
        obs, masks = observe(view, view.actor), engine.legal_mask(view)
        ours = live.act(obs, masks, np.random.default_rng(1))
        theirs = loaded.act(obs, masks, np.random.default_rng(1))
        np.testing.assert_array_equal(ours, theirs)
        engine.step(state, ours, games=live_games)


def test_the_evaluator_plays_live_agents_under_their_name_as_a_worker_would():
    rules = load_rules("official")
    live = {"ppo": shipped_live(rules)}
    by_name = make_matchups(["ppo", "color-first"], 2, "head-to-head")
    by_spec = make_matchups([SAMPLING, "color-first"], 2, "head-to-head")
    kwargs = dict(rounds=64, seed=3, workers=1, progress=False)
    ours = evaluate_variant(rules, "official", by_name, live=live, **kwargs)
    theirs = evaluate_variant(rules, "official", by_spec, **kwargs)
    spec_free = numbers(theirs.agents).replace(re.escape(SAMPLING), "ppo", regex=True)
    pd.testing.assert_frame_equal(numbers(ours.agents), spec_free)
    assert set(ours.ratings.agent) == {"ppo", "color-first"}
    # What a worker process runs: the task, pickled with its live agent.
    (chunk,) = plan_chunks(rules, by_name, 64, 3, live=live)
    task = pickle.loads(pickle.dumps(functools.partial(play_chunk, live=live)))
    np.testing.assert_array_equal(task(chunk).winner, play_chunk(chunk, live=live).winner)


def test_live_agents_must_be_agents_of_the_rules_without_replays(tmp_path):
    rules = load_rules("official")
    matchups = make_matchups(["ppo", "color-first"], 2, "head-to-head")
    kwargs = dict(rounds=8, seed=0, workers=1, progress=False)
    other = load_rules("official", stacking="any")
    with pytest.raises(ValueError, match="live agent 'ppo' was made for other rules"):
        evaluate_variant(rules, "official", matchups, live={"ppo": shipped_live(other)}, **kwargs)
    with pytest.raises(ValueError, match="must be an Agent, got str"):
        evaluate_variant(rules, "official", matchups, live={"ppo": "ppo-official-2p"}, **kwargs)
    replays = ReplayRequest(tmp_path, ReplaySample.parse("random:1"))
    with pytest.raises(ValueError, match="replays are not recorded"):
        evaluate_variant(
            rules, "official", matchups, live={"ppo": shipped_live(rules)}, replays=replays,
            **kwargs,
        )  # fmt: skip
