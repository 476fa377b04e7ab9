"""Self-play collection: line-ups, recorded seats, rewards (and the truncation penalty)."""

import numpy as np
import torch

from uno_rl.agents import make_agent
from uno_rl.core import load_rules
from uno_rl.ppo.buffer import TurnBuffer
from uno_rl.ppo.config import ALL_FEATURES
from uno_rl.ppo.network import PolicyNetwork, feature_columns, input_scale
from uno_rl.ppo.selfplay import LEARNER, SelfPlay, sample_policy


def make(rules, mix, penalty=0.0, games=64):
    cols = feature_columns(ALL_FEATURES)
    torch.manual_seed(0)
    net = PolicyNetwork(len(cols), [16], input_scale(ALL_FEATURES))
    pool = [PolicyNetwork(len(cols), [16], input_scale(ALL_FEATURES))]
    zoo = [make_agent("rule", rules)]
    gen = torch.Generator().manual_seed(0)
    play = SelfPlay(rules, games, mix, zoo, pool, cols, np.random.default_rng(0), gen,
                    torch.device("cpu"), penalty)  # fmt: skip
    buffer = TurnBuffer(games * 120, len(cols), play.streams)
    learner = lambda f, m: sample_policy(net, f, m, gen, torch.device("cpu"))  # noqa: E731
    return play, buffer, learner


def test_only_learner_seats_are_recorded_and_rewards_sum_per_round():
    rules = load_rules("official", players=3)
    play, buffer, learner = make(rules, (0.0, 0.0, 1.0))
    assert ((play.lineup == LEARNER).sum(axis=1) == 1).all()  # zoo games: one learner seat
    play.collect(buffer, 100, learner)
    stats = play.take_stats()
    assert stats.learner_decisions == buffer.size and stats.zoo_rounds == stats.rounds > 0
    ended = buffer.terminal[: buffer.size]
    assert set(np.round(buffer.reward[: buffer.size][ended], 4)) <= {1.0, -0.5, 0.0}


def test_self_play_records_every_seat_and_truncation_costs_the_penalty():
    rules = load_rules("official", max_turns=10)  # every round is cut short
    play, buffer, learner = make(rules, (1.0, 0.0, 0.0), penalty=0.7)
    assert (play.lineup == LEARNER).all()
    play.collect(buffer, 30, learner)
    ended = buffer.terminal[: buffer.size]
    assert ended.any()
    np.testing.assert_allclose(buffer.reward[: buffer.size][ended], -0.7)
