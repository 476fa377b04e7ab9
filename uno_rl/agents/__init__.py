"""Batched agents: random baselines, heuristics with bluff and challenge parameters.

``make_agent("color-first:bluff=0.3,challenge=bayes", rules)`` builds an agent from a spec
string (:mod:`.registry`); every agent follows the batched protocol of :mod:`.base`.

===================  ===========================================================================
name                 strategy
===================  ===========================================================================
``random``           uniformly random legal action
``random-playable``  random playable card; draws only when it must (the peers' "random")
``rule``             RLCard's rule agent: random colored card, then Wild, then +4
``color-first``      its most common color first, action cards before numbers, wilds last
``points-dumper``    sheds its highest-value cards first
``aggressive``       saves Draw Two / Skip / +4 for a neighbor close to UNO
===================  ===========================================================================

Every heuristic (all but the random ones) takes the parameters of
:data:`.heuristic.COMMON_PARAMS`: ``bluff`` (probability of playing a +4 that would be a bluff),
``challenge`` (``never``, ``always``, ``threshold``, ``bayes``: :mod:`.challenge`),
``challenge_hand``, ``challenge_color``, ``objective``, ``stack``, ``play_drawn``.

Every agent plays both layouts of :mod:`uno_rl.core.layout`, by its rules' deck: the classic
one (583 observation values, 77 actions) exactly as before, and the extended one (877 values,
122 actions) of the cards of rules specification §11. How each heuristic plays those cards is in
its class docstring ("New cards"), and what they share by role: what to play first or hold back
(:mod:`.play_order`), whom to target (:mod:`.targets`), answering with a Boomerang
(:mod:`.responses`), which color to name (:mod:`.colors`).
"""

from .base import Agent, AgentError, Param
from .heuristic import COMMON_PARAMS, HeuristicAgent
from .random_agents import RandomAgent, RandomPlayableAgent
from .registry import AGENTS_DIR, STRATEGIES, available_agents, describe, make_agent, parse_spec
from .strategies import AggressiveAgent, ColorFirstAgent, PointsDumperAgent, RuleAgent
from .view import ObservationView

__all__ = [
    "AGENTS_DIR",
    "COMMON_PARAMS",
    "STRATEGIES",
    "Agent",
    "AgentError",
    "AggressiveAgent",
    "ColorFirstAgent",
    "HeuristicAgent",
    "ObservationView",
    "Param",
    "PointsDumperAgent",
    "RandomAgent",
    "RandomPlayableAgent",
    "RuleAgent",
    "available_agents",
    "describe",
    "make_agent",
    "parse_spec",
]
