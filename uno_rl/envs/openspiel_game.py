"""UNO as an OpenSpiel game: ``python_uno_rl``, registered with ``pyspiel`` on import.

Needs the ``openspiel`` extra (``pip install 'uno_rl[openspiel]'``); ``import uno_rl`` never
imports it. Importing this module registers the game::

    import pyspiel
    import uno_rl.envs.openspiel_game  # registers python_uno_rl

    game = pyspiel.load_game("python_uno_rl(players=4,preset=official)")
    game = pyspiel.load_game("python_uno_rl(players=2,preset=party,switches=stacking:none)")

Parameters: ``preset`` (a preset name or TOML path, default ``official``), ``players`` (2 to
10; 0, the default: the preset's count) and ``switches``, rule switches on top of the preset
as ``KEY:VALUE`` items separated by ``;`` (``KEY=VALUE`` works too where the parameters are
given as a dict; OpenSpiel's game strings keep ``=`` and ``,`` for themselves). Values are
read as ``uno_rl --set`` reads them (:func:`uno_rl.plumbing.cli.parse_switch`). Bad
parameters raise one ``ValueError`` naming the game. Match rules are refused: a game is one
round.

The game (rules, engine, chance nodes: :mod:`uno_rl.envs.openspiel_round` and
:mod:`uno_rl.envs.openspiel_chance`):

* players' actions are uno_rl's action ids (``rules.layout.num_actions``: 77, 122 with an
  extended deck), the legal ones the rules' legal actions;
* chance nodes: every random event, each card drawn one at a time (no hidden randomness);
* returns: the engine's rewards of the round (``reward``: win-loss, +1 and -1/(P-1) each
  loser, or the net card points), zero-sum; a round the engine truncates after
  ``max_turns`` decisions returns zeros;
* observation tensor: the seat's uno_rl observation vector (``rules.layout.obs_size``: 583,
  877 with an extended deck), what the seat may see; the information-state tensor is the
  same vector: it summarizes the seat's history as uno_rl's observation does (the discard
  pile's counts, what each other seat played and the colors it named, the suits it is
  known to lack, a hand a challenge showed it) rather than listing every event;
* observation and information-state strings: one short readable line of the same view
  ending in a digest of the vector (equal exactly when the tensors are).

:meth:`UnoState.resample_from_infostate` draws a position the seat cannot tell from this one
(for OpenSpiel's IS-MCTS): :meth:`~uno_rl.envs.openspiel_round.ChanceRound.resampled`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel

from uno_rl.core.rules import MAX_FIRST_CARD_ATTEMPTS, RANGES, Rules, load_rules
from uno_rl.plumbing.cli import parse_switch

from .openspiel_chance import max_chance_outcomes
from .openspiel_round import ChanceRound

__all__ = ["GAME_TYPE", "SHORT_NAME", "UnoGame", "UnoObserver", "UnoState", "rules_from_params"]

#: The name ``pyspiel.load_game`` knows the game by.
SHORT_NAME = "python_uno_rl"

#: The game's parameters and their defaults (players 0: the preset's count).
PARAMETERS: dict[str, Any] = {"preset": "official", "players": 0, "switches": ""}

GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="UNO (uno_rl)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=RANGES["players"][1],
    min_num_players=RANGES["players"][0],
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=PARAMETERS,
)


def rules_from_params(params: dict[str, Any]) -> Rules:
    """The rules the game's parameters name; ``ValueError`` (one line naming the game) for a
    bad preset, count or switch."""
    try:
        switches = {}
        for item in str(params.get("switches", "")).split(";"):
            if not item.strip():
                continue
            colon, equals = item.find(":"), item.find("=")
            if colon < 0 and equals < 0:
                shown = item if len(item) <= 40 else item[:37] + "..."
                raise ValueError(f"a rule switch must be KEY:VALUE, got {shown!r}")
            if colon >= 0 and (equals < 0 or colon < equals):
                item = f"{item[:colon]}={item[colon + 1 :]}"
            key, value = parse_switch(item)
            switches[key] = value
        players = int(params.get("players", 0))
        if players:
            if "players" in switches:
                raise ValueError("give the player count once (players=N or switches=players:N)")
            switches["players"] = players
        rules = load_rules(str(params.get("preset", "official")), **switches)
        if rules.match:
            raise ValueError("a game is one round: match rules are not supported (match=false)")
        return rules
    except (ValueError, OSError, TypeError) as error:
        message = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise ValueError(f"{SHORT_NAME}: {message}") from None


def _utility_bound(rules: Rules) -> float:
    """The most a seat can win (its least is minus this, or -1/(P-1) under win-loss)."""
    if rules.reward == "win-loss":
        return 1.0
    deck = rules.deck_cards
    return float((deck.copies.astype(np.int64) * deck.layout.kind_points.astype(np.int64)).sum())


class UnoGame(pyspiel.Game):
    """``python_uno_rl``: one round of UNO under the rules its parameters name."""

    def __init__(self, params: dict[str, Any] | None = None):
        params = {**PARAMETERS, **(params or {})}
        self.rules = rules_from_params(params)
        rules = self.rules
        players, bound = rules.players, _utility_bound(rules)
        info = pyspiel.GameInfo(
            num_distinct_actions=rules.layout.num_actions,
            max_chance_outcomes=max_chance_outcomes(rules),
            num_players=players,
            min_utility=-1.0 / (players - 1) if rules.reward == "win-loss" else -bound,
            max_utility=bound,
            utility_sum=0.0,
            max_game_length=rules.max_turns,
        )
        super().__init__(GAME_TYPE, info, params)

    def max_chance_nodes_in_history(self) -> int:
        """A bound on a round's chance nodes: the deal (dealer, hands, turned cards) and, per
        decision, at most a deck of cards and three events decided by probability."""
        rules = self.rules
        deck = rules.deck_cards.size
        deal = 2 + rules.players * rules.hand_size + MAX_FIRST_CARD_ATTEMPTS + deck
        return deal + rules.max_turns * (deck + 3)

    def new_initial_state(self) -> UnoState:
        """The round before its deal (a chance node: the dealer)."""
        return UnoState(self)

    def make_py_observer(self, iig_obs_type=None, params=None) -> UnoObserver:
        """The seat's own view (the observation and the information state alike)."""
        return UnoObserver(self.rules, iig_obs_type, params)


class UnoState(pyspiel.State):
    """A position of ``python_uno_rl``: a :class:`~uno_rl.envs.openspiel_round.ChanceRound`."""

    def __init__(self, game: UnoGame, round_: ChanceRound | None = None):
        super().__init__(game)
        self.round = ChanceRound(game.rules) if round_ is None else round_

    def current_player(self) -> int:
        if self.round.request is not None:
            return pyspiel.PlayerId.CHANCE
        if self.round.over:
            return pyspiel.PlayerId.TERMINAL
        return self.round.actor

    def _legal_actions(self, player: int) -> list[int]:
        return self.round.legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        request = self.round.request
        return list(zip(request.outcomes, request.probabilities))

    def _apply_action(self, action: int) -> None:
        if self.round.request is not None:
            self.round.apply_outcome(int(action))
        else:
            self.round.apply_action(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            request = self.round.request
            if request is not None and action in request.outcomes:
                return request.label(action, self.round.rules)
            return f"chance outcome {action}"
        rules = self.round.rules
        if 0 <= action < rules.layout.num_actions:
            return rules.layout.action_name(action)
        return f"action {action}"

    def is_terminal(self) -> bool:
        return self.round.over

    def returns(self) -> list[float]:
        return self.round.returns()

    def rewards(self) -> list[float]:
        return self.round.returns()  # terminal rewards: all at the end

    def resample_from_infostate(self, player_id: int, probability_sampler) -> UnoState:
        """A position ``player_id`` cannot tell from this one, its hidden cards drawn with a
        generator seeded from ``probability_sampler`` (a callable giving floats in [0, 1))."""
        seed = int(float(probability_sampler()) * 2**53)
        generator = np.random.default_rng(seed)
        return UnoState(self.get_game(), self.round.resampled(int(player_id), generator))

    def __str__(self) -> str:
        return str(self.round)


class UnoObserver:
    """The seat's uno_rl observation vector (``tensor``, one piece ``observation``) and its
    line of text; the observation and the information state alike."""

    def __init__(self, rules: Rules, iig_obs_type=None, params=None):
        if params:
            raise ValueError(f"{SHORT_NAME}: observation parameters are not supported: {params}")
        if iig_obs_type is not None and (
            not iig_obs_type.public_info
            or iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER
        ):
            raise ValueError(
                f"{SHORT_NAME}: only the seat's own view is observed (public and private "
                "information of a single player)"
            )
        self.tensor = np.zeros(rules.layout.obs_size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: UnoState, player: int) -> None:
        self.tensor[:] = state.round.observe(player)

    def string_from(self, state: UnoState, player: int) -> str:
        return state.round.describe(player)


pyspiel.register_game(GAME_TYPE, UnoGame)
