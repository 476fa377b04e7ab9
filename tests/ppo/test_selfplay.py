"""Self-play collection: line-ups, recorded seats, rewards (and the truncation penalty)."""

import numpy as np
import pytest
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


def against_color_first(rules, steps, penalty=0.0, **options):
    """32 zoo games of a fresh policy against color-first, played ``steps`` engine steps;
    ``options`` go to :class:`SelfPlay`. Returns ``(play, buffer, stats)``."""
    cols = feature_columns(ALL_FEATURES)
    torch.manual_seed(0)
    net = PolicyNetwork(len(cols), [16], input_scale(ALL_FEATURES))
    gen = torch.Generator().manual_seed(0)
    zoo = [make_agent("color-first", rules)]
    play = SelfPlay(rules, 32, (0.0, 0.0, 1.0), zoo, [], cols, np.random.default_rng(0), gen,
                    torch.device("cpu"), penalty, **options)  # fmt: skip
    buffer = TurnBuffer(32 * (steps + 100), len(cols), play.streams)
    learner = lambda f, m: sample_policy(net, f, m, gen, torch.device("cpu"))  # noqa: E731
    play.collect(buffer, steps, learner)
    return play, buffer, play.take_stats()


def test_points_reward_is_scaled_and_stats_count_net_points():
    rules = load_rules("official", reward="points")
    play, buffer, stats = against_color_first(rules, 150, reward_scale=0.02)
    ended = buffer.terminal[: buffer.size]
    rewards = buffer.reward[: buffer.size][ended].astype(np.float64)
    assert stats.rounds > 0 and rewards.size == stats.learner_rounds
    # Card points over 0.02: integers again, summing to the learner's net points.
    np.testing.assert_allclose(rewards / 0.02, np.round(rewards / 0.02), atol=1e-3)
    assert np.abs(rewards).max() > 0.1  # real card points, not +-1
    assert round(rewards.sum() / 0.02) == stats.learner_points == stats.zoo_points


def test_win_bonus_adds_to_the_points_of_a_round():
    rules = load_rules("official", reward="points")
    play, buffer, stats = against_color_first(rules, 150, reward_scale=0.02, win_bonus=0.5)
    rewards = buffer.reward[: buffer.size][buffer.terminal[: buffer.size]].astype(np.float64)
    losses = stats.learner_rounds - stats.learner_wins  # no round was truncated this short
    expected = 0.02 * stats.learner_points + 0.5 * stats.learner_wins - 0.5 * losses
    assert stats.learner_wins > 0 and rewards.sum() == pytest.approx(expected, abs=1e-3)
    assert (rewards[rewards > 0] >= 0.5).all()  # every win is worth at least the bonus


def test_match_objective_rewards_the_match_only():
    rules = load_rules("official", match=True, match_target=60)  # short matches
    play, buffer, stats = against_color_first(rules, 1000, penalty=0.5, objective="match")
    assert stats.learner_matches > 0 and stats.rounds > stats.learner_matches
    assert stats.zoo_matches == stats.learner_matches >= stats.zoo_match_wins
    ended = buffer.terminal[: buffer.size]
    assert ended.sum() == stats.learner_matches  # one episode per match, not per round
    # A match ends with +1 or -1 (P = 2); a truncated round inside a match costs 0.5.
    final = buffer.reward[: buffer.size][ended]
    assert set(np.round(final, 4)) <= {1.0, -1.0, 0.5, -0.5, -1.5}
    assert (final > 0).sum() == stats.learner_match_wins
    with pytest.raises(ValueError, match="match rules"):
        against_color_first(load_rules("official"), 1, objective="match")


def test_round_length_truncations_and_episode_returns_are_counted():
    rules = load_rules("official", max_turns=10)  # every round is cut at 10 decisions
    play, buffer, learner = make(rules, (1.0, 0.0, 0.0), penalty=0.7)
    play.collect(buffer, 30, learner)
    stats = play.take_stats()
    assert stats.rounds > 0 and stats.truncated_rounds == stats.rounds
    assert stats.round_decisions == 10 * stats.rounds
    # Self-play: both seats are the learner's; each round ends both seats' episodes.
    assert stats.learner_episodes == 2 * stats.rounds == int(buffer.terminal[: buffer.size].sum())
    assert stats.learner_reward == pytest.approx(-0.7 * stats.learner_episodes)
    assert play.take_stats().rounds == 0  # taken: the counters start again


def zoo_lineups(zoo_tables: float, games: int = 400) -> np.ndarray:
    """(games, 4) line-ups of 4-player zoo games against three zoo agents."""
    rules = load_rules("official", players=4)
    cols = feature_columns(ALL_FEATURES)
    zoo = [make_agent(name, rules) for name in ("random-playable", "color-first", "rule")]
    play = SelfPlay(rules, games, (0.0, 0.0, 1.0), zoo, [], cols, np.random.default_rng(3),
                    torch.Generator().manual_seed(0), torch.device("cpu"),
                    zoo_tables=zoo_tables)  # fmt: skip
    return play.lineup


@pytest.mark.parametrize("share", [0.0, 0.5, 1.0])
def test_zoo_tables_seat_one_agent_in_every_other_seat(share):
    lineup = zoo_lineups(share)
    assert ((lineup == LEARNER).sum(axis=1) == 1).all()
    others = lineup[lineup != LEARNER].reshape(-1, 3)
    same = (others == others[:, :1]).all(axis=1)
    # Drawn separately, three seats of three agents agree in 1/9 of the games.
    expected = share + (1 - share) / 9
    assert abs(same.mean() - expected) < 0.07, (same.mean(), expected)
    assert set(np.unique(others)) == {1, 2, 3}  # every zoo agent still plays


def test_no_zoo_tables_draws_the_line_ups_as_before():
    # The share at 0 draws nothing more: the line-ups of a run without it are unchanged.
    assert np.array_equal(zoo_lineups(0.0), zoo_lineups(0.0))
    rng = np.random.default_rng(3)
    rng.integers(0, 2**63, size=400, dtype=np.uint64)  # the deals (new_seeds)
    rng.choice(3, size=400, p=[0.0, 0.0, 1.0])  # the slots' modes
    learner_seat = rng.integers(0, 4, size=400)
    rng.integers(0, 1, size=(400, 4))  # the pool's picks
    zoo_pick = 1 + rng.integers(0, 3, size=(400, 4))
    zoo_pick[np.arange(400), learner_seat] = LEARNER
    assert np.array_equal(zoo_lineups(0.0), zoo_pick)
