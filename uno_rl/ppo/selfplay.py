"""Self-play collection: N games in lockstep, the learner's seats recorded turn by turn.

Each game slot is given a mode once (shares ``self_play``, ``pool_share``, ``zoo_share``) and
a line-up each time it is dealt: self-play slots seat the current policy everywhere; in pool
and zoo slots one random seat is the learner and the others are past snapshots of the policy
(self-play until the first snapshot) or zoo agents, drawn per seat (a share ``zoo_tables`` of
the zoo line-ups seats one zoo agent in every other seat).
Each engine step, every game's acting seat is played by its owner, one batched call per owner
(the learner, each snapshot, each zoo agent). Only the learner's decisions become transitions
(:class:`~uno_rl.ppo.buffer.TurnBuffer`). Objective ``rules``: when a round ends, each learner
seat's last transition receives that seat's round reward under the rules (``win-loss``, or
``points`` times ``reward_scale``; plus ``win_bonus`` for the winner) and ends its stream (one round, one episode). Objective
``match`` (match rules only): a seat's stream runs through the whole match and its last
transition receives +1 (match won) or -1/(P-1) when the match ends.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

import numpy as np
import torch

from uno_rl.agents import Agent
from uno_rl.core import engine
from uno_rl.core.observe import observe
from uno_rl.core.rng import new_seeds
from uno_rl.core.rules import Rules
from uno_rl.core.state import State

from .buffer import TurnBuffer
from .network import PolicyNetwork, masked_log_probs, sample_masked
from .stored_obs import input_dtype, network_input

__all__ = ["LEARNER", "Stats", "SelfPlay", "sample_policy"]

#: Line-up code of the learner's seats; snapshots are 1..pool_size, zoo agents follow.
LEARNER = 0


@torch.no_grad()
def sample_policy(
    network: PolicyNetwork,
    features: np.ndarray,
    masks: np.ndarray,
    generator: torch.Generator,
    device: torch.device,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sample one legal action per row: ``(actions int64, log-probabilities, values)``.

    ``features``: (k, F) float32 or stored (:mod:`uno_rl.ppo.stored_obs`)."""
    obs = network_input(features, device, input_dtype(network.trunk_bf16))
    mask = torch.from_numpy(masks).to(device)
    logits, value = network(obs)
    log_probs = masked_log_probs(logits, mask)
    actions = sample_masked(log_probs, generator)
    logp = log_probs.gather(1, actions[:, None]).squeeze(1)
    return actions.cpu().numpy(), logp.cpu().numpy(), value.cpu().numpy()


@dataclasses.dataclass
class Stats:
    """Counters since the last :meth:`SelfPlay.take_stats` (learner seats only)."""

    decisions: int = 0
    learner_decisions: int = 0
    rounds: int = 0
    learner_rounds: int = 0
    learner_wins: int = 0
    pool_rounds: int = 0
    pool_wins: int = 0
    zoo_rounds: int = 0
    zoo_wins: int = 0
    draw4_plays: int = 0
    bluffs: int = 0
    challenges: int = 0
    challenges_won: int = 0
    #: zero-sum net card points of the learner seats' rounds (winner + the others' cards,
    #: loser - its own), in all games, against the pool and against the zoo
    learner_points: int = 0
    pool_points: int = 0
    zoo_points: int = 0
    #: matches finished by learner seats (match rules), and those they won
    learner_matches: int = 0
    learner_match_wins: int = 0
    pool_matches: int = 0
    pool_match_wins: int = 0
    zoo_matches: int = 0
    zoo_match_wins: int = 0
    #: decisions (every seat) of the rounds that ended, and those rounds cut at max_turns
    round_decisions: int = 0
    truncated_rounds: int = 0
    #: learner episodes (streams) that ended, and the training reward handed to learner
    #: seats (objective ``match``: the penalties of cut rounds within a match too)
    learner_episodes: int = 0
    learner_reward: float = 0.0

    def __add__(self, other: Stats) -> Stats:
        """The counters of two slices of games together (rollout workers' stats summed)."""
        return Stats(
            **{
                f.name: getattr(self, f.name) + getattr(other, f.name)
                for f in dataclasses.fields(self)
            }
        )


class SelfPlay:
    """The games, their line-ups and the acting loop.

    Args:
        rules: rules of every game.
        num_games: N.
        mix: shares ``(self_play, pool, zoo)`` summing to 1.
        zoo: zoo agents (built for ``rules``).
        pool: snapshot networks (their weights change as the pool is refreshed).
        columns: observation columns the networks read (of the rules' layout).
        rng: the generator of deals, line-ups and zoo agents.
        generator: torch generator of the policies' sampling.
        device: torch device of the networks.
        truncation_penalty: reward of each learner seat in a round cut at ``max_turns``
            (negated).
        reward_scale: multiplier of the rules' round reward (``points`` are card points).
        objective: ``rules`` (the rules' round reward, one round an episode) or ``match``
            (+1 for winning the match, -1/(P-1) for losing it; match rules only).
        win_bonus: objective ``rules``: added to the round's winner, and -win_bonus/(P-1) to
            each loser (a round's win counts besides its points).
        zoo_tables: share of the zoo line-ups with one zoo agent in every other seat (0: each
            seat's drawn separately, and nothing more is drawn from ``rng``).
    """

    def __init__(
        self,
        rules: Rules,
        num_games: int,
        mix: tuple[float, float, float],
        zoo: Sequence[Agent],
        pool: Sequence[PolicyNetwork],
        columns: np.ndarray,
        rng: np.random.Generator,
        generator: torch.Generator,
        device: torch.device,
        truncation_penalty: float = 0.0,
        reward_scale: float = 1.0,
        objective: str = "rules",
        win_bonus: float = 0.0,
        zoo_tables: float = 0.0,
    ):
        if objective not in ("rules", "match"):
            raise ValueError(f"objective must be 'rules' or 'match', got {objective!r}")
        if objective == "match" and not rules.match:
            raise ValueError("objective 'match' needs match rules (match = true)")
        self.reward_scale, self.objective = float(reward_scale), objective
        self.win_bonus, self.zoo_tables = float(win_bonus), float(zoo_tables)
        self.rules, self.n, self.players = rules, num_games, rules.players
        self.mix = np.asarray(mix, np.float64)
        self.zoo, self.pool = list(zoo), list(pool)
        self.pool_filled = 0  # snapshots available
        self.columns = columns
        # Every column, in order (the default features): rows need no second gather.
        size = rules.layout.obs_size
        if columns.size and (columns.min() < 0 or columns.max() >= size):
            raise ValueError(
                f"columns must lie in [0, {size}) (the {rules.layout.name} layout's observation), "
                f"got [{columns.min()}, {columns.max()}]"
            )
        self.every_column = bool(columns.size == size and np.array_equal(columns, np.arange(size)))
        self.rng, self.generator, self.device = rng, generator, device
        self.truncation_penalty = float(truncation_penalty)
        self.lineup = np.zeros((num_games, self.players), np.int16)
        self.state: State = engine.reset(rules, new_seeds(rng, num_games))
        # Each slot keeps its mode (0 self-play, 1 pool, 2 zoo) for good: drawing the mode
        # per round instead would let long rounds (early self-play) take over the slots.
        self.slot_mode = rng.choice(3, size=num_games, p=self.mix / self.mix.sum())
        self.stats = Stats()
        self._deal_lineups(np.arange(num_games))

    @property
    def streams(self) -> int:
        return self.n * self.players

    def _deal_lineups(self, games: np.ndarray) -> None:
        """Choose the line-ups of freshly dealt ``games``."""
        k, p = games.size, self.players
        mode = self.slot_mode[games].copy()
        if not self.pool_filled:
            mode[mode == 1] = 0  # no snapshot yet: self-play
        if not self.zoo:
            mode[mode == 2] = 0
        lineup = np.zeros((k, p), np.int16)
        learner_seat = self.rng.integers(0, p, size=k)
        pool_pick = 1 + self.rng.integers(0, max(self.pool_filled, 1), size=(k, p))
        zoo_pick = 1 + len(self.pool) + self.rng.integers(0, max(len(self.zoo), 1), size=(k, p))
        if self.zoo_tables > 0:  # drawn only then: the line-ups of other runs stay as they were
            same = self.rng.random(k) < self.zoo_tables
            zoo_pick[same] = zoo_pick[same, :1]
        lineup[mode == 1] = pool_pick[mode == 1]
        lineup[mode == 2] = zoo_pick[mode == 2]
        lineup[np.arange(k), learner_seat] = LEARNER
        self.lineup[games] = lineup

    def collect(
        self,
        buffer: TurnBuffer,
        steps: int,
        learner: Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray, np.ndarray]],
    ) -> None:
        """Play ``steps`` engine steps of every game, recording the learner's decisions."""
        s, p, rows = self.state, self.players, np.arange(self.n)
        for _ in range(steps):
            masks = engine.legal_mask(s)
            actor = s.actor.astype(np.int64)
            owner = self.lineup[rows, actor]
            obs = observe(s, actor)
            actions = np.empty(self.n, np.int64)
            for code in np.unique(owner):
                sel = np.flatnonzero(owner == code)
                if code == LEARNER:
                    feats = buffer.store(self._features(obs, sel))
                    a, logp, value = learner(feats, masks[sel])
                    buffer.add(sel * p + actor[sel], feats, masks[sel], a, logp, value)
                elif code <= len(self.pool):
                    a, _, _ = sample_policy(
                        self.pool[code - 1], self._features(obs, sel), masks[sel],
                        self.generator, self.device,
                    )  # fmt: skip
                else:
                    a = np.asarray(
                        self.zoo[code - 1 - len(self.pool)].act(obs[sel], masks[sel], self.rng)
                    )
                actions[sel] = a
            if not masks[rows, actions].all():
                bad = int(np.flatnonzero(~masks[rows, actions])[0])
                raise RuntimeError(f"line-up code {owner[bad]} chose illegal action {actions[bad]}")
            result = engine.step(s, actions, validate=False)
            self.stats.decisions += self.n
            self.stats.learner_decisions += int((owner == LEARNER).sum())
            self._finish_rounds(buffer, result)

    def _features(self, obs: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """(k, F) float32: the network's columns of the observations of ``rows``."""
        picked = np.take(obs, rows, axis=0)
        return picked if self.every_column else picked[:, self.columns]

    def _finish_rounds(self, buffer: TurnBuffer, result: engine.StepResult) -> None:
        ended = np.flatnonzero(result.round_over)
        if not ended.size:
            return
        p = self.players
        lineup = self.lineup[ended]
        learner = lineup == LEARNER  # (k, P)
        g, seat = np.nonzero(learner)
        truncated = result.truncated[ended[g]]
        match_over = result.match_over[ended] if self.rules.match else np.ones(ended.size, bool)
        champion = None  # (k,) each ended game's match winner, where its match is over
        if self.rules.match and match_over.any():
            champion = engine.match_winner(self.state.take(ended))
        if self.objective == "rules":
            rewards = result.rewards[ended[g], seat] * self.reward_scale
            if self.win_bonus:
                won_round = result.winner[ended[g]] == seat
                rewards = rewards + np.where(won_round, 1.0, -1.0 / (p - 1)) * self.win_bonus
            # A round cut at max_turns is a draw (reward 0) by the rules; for training it
            # costs every learner seat ``truncation_penalty``, or stalling would pay against
            # stronger seats.
            rewards = np.where(truncated, -self.truncation_penalty, rewards)
            buffer.finish(ended[g] * p + seat, rewards)
            self.stats.learner_episodes += int(g.size)
            self.stats.learner_reward += float(np.sum(rewards, dtype=np.float64))
        else:
            cut = truncated & ~match_over[g]
            if cut.any():  # the match goes on: a penalty, no end of the stream
                buffer.add_reward(
                    ended[g[cut]] * p + seat[cut], np.full(int(cut.sum()), -self.truncation_penalty)
                )
                self.stats.learner_reward -= float(cut.sum()) * self.truncation_penalty
            over = match_over[g]
            if over.any():
                won = champion[g[over]] == seat[over]
                rewards = np.where(won, 1.0, -1.0 / (p - 1)).astype(np.float32)
                buffer.finish(ended[g[over]] * p + seat[over], rewards)
                self.stats.learner_episodes += int(over.sum())
                self.stats.learner_reward += float(np.sum(rewards, dtype=np.float64))
        st = self.stats
        st.rounds += ended.size
        st.round_decisions += int(result.decisions[ended].sum(dtype=np.int64))
        st.truncated_rounds += int(result.truncated[ended].sum())
        won = (result.winner[ended][:, None] == np.arange(p)[None, :]) & learner
        net = result.net_points[ended]  # (k, P) int32
        st.learner_rounds += int(learner.sum())
        st.learner_wins += int(won.sum())
        st.learner_points += int(net[learner].sum())
        solo = learner.sum(axis=1) == 1  # one learner against others: the pool or the zoo
        against_pool = solo & (lineup.max(axis=1) <= len(self.pool))
        against_zoo = solo & ~against_pool
        st.pool_rounds += int(against_pool.sum())
        st.pool_wins += int(won[against_pool].sum())
        st.pool_points += int(net[against_pool][learner[against_pool]].sum())
        st.zoo_rounds += int(against_zoo.sum())
        st.zoo_wins += int(won[against_zoo].sum())
        st.zoo_points += int(net[against_zoo][learner[against_zoo]].sum())
        st.draw4_plays += int(result.draw4_plays[ended][learner].sum())
        st.bluffs += int(result.bluffs[ended][learner].sum())
        st.challenges += int(result.challenges[ended][learner].sum())
        st.challenges_won += int(result.challenges_won[ended][learner].sum())
        if champion is not None:
            finished = np.flatnonzero(match_over)
            mine = learner[finished]  # (m, P)
            took = (champion[finished][:, None] == np.arange(p)[None, :]) & mine
            st.learner_matches += int(mine.sum())
            st.learner_match_wins += int(took.sum())
            pool_rows, zoo_rows = against_pool[finished], against_zoo[finished]
            st.pool_matches += int(pool_rows.sum())
            st.pool_match_wins += int(took[pool_rows].sum())
            st.zoo_matches += int(zoo_rows.sum())
            st.zoo_match_wins += int(took[zoo_rows].sum())
        over = result.match_over if self.rules.match else result.round_over
        done = np.flatnonzero(over)
        if done.size:
            engine.reset_games(self.state, done, new_seeds(self.rng, done.size))
            self._deal_lineups(done)

    def take_stats(self) -> Stats:
        stats, self.stats = self.stats, Stats()
        return stats
