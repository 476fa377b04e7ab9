"""The UNO AEC environment itself (:class:`raw_env`) and its observation bounds; the page that
documents it, and the wrapped constructors users call, are :mod:`uno_rl.envs.uno_v1`'s."""

from __future__ import annotations

import os
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from uno_rl.core.engine import match_winner
from uno_rl.core.rules import Rules, load_rules
from uno_rl.render.frames import render_frame
from uno_rl.render.text import present, render_text

from .game import SingleGame, check_action
from .state_vector import _score_high, game_state, state_bounds

__all__ = ["ActionCheckWrapper", "observation_bounds", "raw_env"]


def observation_bounds(rules: Rules) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) ``(rules.layout.obs_size,) float32`` bounds of every observation value.

    Counts of a kind are at most its copies in ``rules``' deck, card totals at most the
    deck's size, cards played at most ``max_turns``, the dispenser's presses below
    ``len(dispenser_hazard)``, one-hots in
    [0, 1], the direction in [-1, 1].
    """
    layout, deck = rules.layout, rules.deck_cards
    slices = layout.slices
    low = np.zeros(layout.obs_size, np.float32)
    high = np.ones(layout.obs_size, np.float32)
    copies = deck.copies.astype(np.float32)
    for piece in ("hand", "discard", "revealed_hand", "swap_given", "swap_received"):
        if piece in slices:
            high[slices[piece]] = copies
    low[slices["direction"]] = -1.0
    for piece in ("pending_draw", "hand_sizes", "draw_pile_size"):
        high[slices[piece]] = deck.size
    high[slices["played_colors"]] = rules.max_turns  # a seat plays at most once a decision
    if "dispenser_presses" in slices:
        high[slices["dispenser_presses"]] = len(rules.dispenser_hazard)
    # A score reaches at most target - 1 before the round that ends the match, which adds
    # at most the deck's points (or one round won); under match_rounds, the deck's points
    # a round.
    high[slices["scores"]] = _score_high(rules)
    return low, high


class raw_env(AECEnv):
    """UNO as a PettingZoo AEC environment, documented by :mod:`uno_rl.envs.uno_v1`.

    Args:
        preset: preset name, path of a preset TOML file, or a :class:`~uno_rl.core.Rules`.
        players: number of players (2 to 10); ``None`` keeps the preset's.
        render_mode: ``None``, ``"ansi"``, ``"human"`` or ``"rgb_array"``.
        render_agent: the agent whose view ``render()`` shows; ``None``: the agent to act.
        **rule_overrides: rule switches applied on top of the preset.

    An illegal action raises ``ValueError`` here; :func:`env` adds PettingZoo's
    terminate-on-illegal policy.
    """

    metadata = {
        "render_modes": ["human", "ansi", "rgb_array"],
        "name": "uno_v1",
        "is_parallelizable": False,  # turn-based: use turn_based_aec_to_parallel
        "render_fps": 1,
    }

    def __init__(
        self,
        preset: str | os.PathLike[str] | Rules = "official",
        players: int | None = None,
        render_mode: str | None = None,
        render_agent: str | None = None,
        **rule_overrides: Any,
    ):
        super().__init__()
        if not isinstance(preset, str | os.PathLike | Rules):
            raise TypeError(
                "preset must be a preset name, the path of a preset TOML file or a "
                f"uno_rl.core.Rules, got {type(preset).__name__} {preset!r}"
            )
        if players is not None:
            rule_overrides["players"] = players
        self.rules: Rules = load_rules(preset, **rule_overrides)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be None or one of {self.metadata['render_modes']}, "
                f"got {render_mode!r}"
            )
        self.render_mode = render_mode

        p = self.rules.players
        self.possible_agents = [f"player_{k}" for k in range(p)]
        if render_agent is not None and render_agent not in self.possible_agents:
            raise ValueError(
                f"render_agent must be None or one of {self.possible_agents}, got {render_agent!r}"
            )
        self.render_agent = render_agent
        self.agents = self.possible_agents[:]
        self._seats = {agent: k for k, agent in enumerate(self.possible_agents)}
        #: The deck's card layout: its actions (A) and observation values.
        self.layout = self.rules.layout
        actions = self.layout.num_actions
        low, high = observation_bounds(self.rules)
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(low=low, high=high, dtype=np.float32),
                    "action_mask": spaces.Box(low=0, high=1, shape=(actions,), dtype=np.int8),
                }
            )
            for agent in self.possible_agents
        }
        self.action_spaces = {agent: spaces.Discrete(actions) for agent in self.possible_agents}
        low, high = state_bounds(self.rules)
        #: PRIVILEGED: the space of :meth:`state` (every hand; see uno_rl.envs.state_vector).
        self.state_space = spaces.Box(low=low, high=high, dtype=np.float32)

        self._game = SingleGame(self.rules)
        self.np_random: np.random.Generator | None = None
        self.np_random_seed: int | None = None
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self.agent_selection = self.possible_agents[0]
        self._rewards_pending = False  # self.rewards holds a nonzero step reward
        self._skip_agent_selection = None

    # ------------------------------------------------------------------ spaces
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    @property
    def privileged_game(self) -> SingleGame:
        """PRIVILEGED: the whole game, hidden cards included (every hand, the draw pile, the
        deal seed; its ``state`` is a core State copy). For debugging, tests and wrappers;
        never give it to an agent."""
        return self._game

    # ------------------------------------------------------------------- reset
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new episode. ``seed`` reseeds the env's generator; ``options`` may hold
        ``deal_seed`` to replay a deal (other keys are ignored)."""
        if seed is not None or self.np_random is None:
            self.np_random, self.np_random_seed = seeding.np_random(seed)
        deal_seed = options.get("deal_seed") if options else None
        self._game.reset(self.np_random, deal_seed)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self._rewards_pending = False
        self._skip_agent_selection = None
        self.agent_selection = self.possible_agents[self._game.actor]
        if self.render_mode == "human":
            self.render()

    # ----------------------------------------------------------------- observe
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``agent``'s own view: ``{"observation": (obs_size,) float32, "action_mask": (A,)
        int8}`` (583 and 77 for a classic deck, 877 and 122 for an extended one)."""
        seat = self._seats.get(agent)
        if seat is None:
            raise ValueError(f"unknown agent {agent!r}; agents are {self.possible_agents}")
        observation, mask = self._game.view(seat)
        return {"observation": observation, "action_mask": mask}

    def state(self) -> np.ndarray:
        """PRIVILEGED: the full game as a ``(900,) float32`` vector in :attr:`state_space`
        (``(1397,)`` for a deck of the extended layout).

        Every seat's hand, the draw pile's contents, whether a +4 on top is a bluff: hidden
        cards **by design**, for a centralised critic (MAPPO-style) in training; never feed
        it to a policy that plays. Seats are absolute (slot ``k`` is ``player_k``); the
        layout (each piece's offset, shape, meaning) is :mod:`uno_rl.envs.state_vector`.
        A fresh array each call.
        """
        return game_state(self._game.live_state)

    # -------------------------------------------------------------------- step
    def step(self, action) -> None:
        """The selected agent takes ``action`` (``None`` once it is terminated or truncated).

        Raises:
            TypeError, ValueError: not one integer in [0, A), or an illegal action (the
                message names it and the legal actions); nothing changes.
        """
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._after(agent, self._game.step(action).round_over)

    def _step_if_legal(self, action: int) -> bool:
        """:meth:`step` for a live agent's ``int`` action in range (the wrapper's path): False,
        and nothing done, where it is illegal."""
        game = self._game
        if not game.is_legal(action):
            return False
        self._after(self.agent_selection, game.play_legal(action))
        return True

    def _after(self, agent: str, round_over: bool) -> None:
        """The bookkeeping of a step by ``agent``; ``round_over``: it ended a round (its
        outcome is then the game's :meth:`~uno_rl.envs.game.SingleGame.outcome`)."""
        game = self._game
        self._cumulative_rewards[agent] = 0.0
        rewards = self.rewards
        if self._rewards_pending:
            for name in rewards:
                rewards[name] = 0.0
            self._rewards_pending = False
        if round_over:
            result = game.outcome()
            for name, value in zip(self.possible_agents, result.rewards):
                rewards[name] = value
            self._rewards_pending = True
            self._accumulate_rewards()
            if game.over:
                self._end_episode(result)
                return
        self.agent_selection = self.possible_agents[game.actor]
        if self.render_mode == "human":
            self.render()

    def _end_episode(self, result) -> None:
        truncated = result.truncated
        self.terminations = dict.fromkeys(self.agents, not truncated)
        self.truncations = dict.fromkeys(self.agents, truncated)
        winner = result.winner
        info: dict[str, Any] = {
            "winner": self.possible_agents[winner] if winner >= 0 else None,
            "points": result.points,
            "truncated": truncated,
            "decisions": result.decisions,
        }
        if self.rules.match:
            state = self._game.state
            scores = state.scores[0].tolist()
            info["scores"] = dict(zip(self.possible_agents, scores))
            best = int(match_winner(state)[0])
            info["match_winner"] = self.possible_agents[best] if best >= 0 else None
            info["rounds"] = int(state.round_index[0]) + 1
        self.infos = {agent: dict(info) for agent in self.agents}
        self._deads_step_first()
        if self.render_mode == "human":
            self.render()

    # ------------------------------------------------------------------ render
    def render(self) -> str | np.ndarray | None:
        """The view of ``render_agent`` (default: the agent to act; see :mod:`uno_rl.envs.uno_v1`):
        the text table, returned (ansi) or printed (human), or the same drawn as a
        ``(640, 960, 3)`` uint8 frame (rgb_array)."""
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn(
                "You are calling render method without specifying any render mode."
            )
            return None
        state = self._game.state
        if state is None:
            raise RuntimeError("call reset() before render()")
        viewer = None if self.render_agent is None else self._seats[self.render_agent]
        names, title = self.possible_agents, str(self.metadata["name"])
        if self.render_mode == "rgb_array":
            return render_frame(state, 0, names, title=title, viewer=viewer)
        return present(render_text(state, 0, names, title=title, viewer=viewer), self.render_mode)

    def close(self) -> None:
        pass


class ActionCheckWrapper(wrappers.BaseWrapper):
    """Rejects a malformed action at the call with a ``TypeError`` / ``ValueError`` that
    names it (see :func:`uno_rl.envs.game.check_action`), before PettingZoo's wrappers see it.

    ``None`` passes for a terminated or truncated agent (its dead step).
    """

    def step(self, action) -> None:
        if action is None:
            agent = self.env.agent_selection
            if self.env.terminations[agent] or self.env.truncations[agent]:
                self.env.step(None)
                return
        check_action(action, self.env.unwrapped.layout.num_actions)
        self.env.step(action)

    def __str__(self) -> str:
        return str(self.env)
