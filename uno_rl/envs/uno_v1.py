# noqa: D212, D415
"""
# UNO

| Creation           | `pettingzoo.make("aec", "uno_rl/uno-v1")` or `uno_rl.envs.uno_v1.env()` |
|--------------------|------------------------------------------------------------------------|
| Parallel view      | `pettingzoo.make("parallel", "uno_rl/uno-v1")` or `uno_v1.parallel_env()` (turn-based) |
| Actions            | Discrete                                                               |
| Agents             | `agents = ['player_0', ..., 'player_{P-1}']`                          |
| Number of agents   | 2 to 10                                                                |
| Action shape       | (1)                                                                    |
| Action values      | [0, 76] (classic cards), [0, 121] (a deck with section-11 cards)      |
| Observation shape  | (583,) float32 + (77,) int8 mask; (877,) + (122,) for such a deck      |
| Observation values | see the table below                                                   |
| State shape        | (900,) float32 ((1397,) for such a deck), privileged: `state()`       |

UNO for 2 to 10 players, exactly as people play it: the official Mattel rules by default
(with the +4 bluff and its challenge) and every common house rule as a named switch. The
game is `uno_rl.core`'s engine (compiled with numba where it is installed, else vectorized
NumPy); this environment plays one game of it, one compiled call a decision.
Register it with `import uno_rl.envs` (which registers `uno_rl/uno-v1` in both PettingZoo
registries), or import this module directly.

```python
from uno_rl.envs import uno_v1

env = uno_v1.env(preset="official", players=4, render_mode="ansi")
env.reset(seed=0)
for agent in env.agent_iter():
    observation, reward, termination, truncation, info = env.last()
    if termination or truncation:
        action = None
    else:
        action = env.action_space(agent).sample(observation["action_mask"])
    env.step(action)
env.close()
```

### Arguments

``` python
uno_v1.env(preset="official", players=None, render_mode=None, render_agent=None, **rule_overrides)
```

`preset`: a preset name (see below), the path of a preset TOML file, or a
`uno_rl.core.Rules` object.

`players`: number of players, 2 to 10 (default: the preset's, 2 for the shipped presets).

`render_mode`: `None`, `"ansi"` (`render()` returns the text), `"human"` (printed after
every reset and step) or `"rgb_array"` (`render()` returns a `(640, 960, 3)` uint8 frame).

`render_agent`: the agent whose view `render()` shows (its hand, and its legal actions when
it is to act), e.g. `"player_0"` for a person playing that seat; `None` (the default): the
agent to act, whose view changes with every turn.

`rule_overrides`: any rule switch, e.g. `stacking="any"`, `match=True`, `deck="extreme"`.

### Decks

The deck is a rule like any other (`deck=`: `classic`, the default, `modern-112`,
`swap-112`, `extension`, `extreme`, a user deck's name or a TOML path; rules
specification §11). The spaces follow the deck's card layout (`env.rules.layout`,
`uno_rl.core.layout`): a deck of classic cards plays in the classic layout, with exactly
the spaces and values below (77 actions, 583 observation values, a 900-value state); a deck
holding any section-11 card (Discard All, Hit 2, Targeted +2/+4, the new Wilds, Downpour,
Boomerang) plays in the extended layout: `Discrete(122)`, a `(877,)` observation and a
`(122,)` mask, a `(1397,)` state. Its kinds, actions and observation pieces are the tables
of `uno_rl.core.layout` (kinds 0 .. 53 and actions 0 .. 76 mean the same in both; the
seat actions 64 .. 72 also name a Swap Hands' or a targeted draw's target), its state the
table of `uno_rl.envs.state_vector`. `env.rules.layout.action_name(a)` names an action.

An unknown preset (the message lists the available ones), an unknown rules key, a bad value
or a player count outside 2 to 10 raise `uno_rl.core.RulesError` (a `ValueError`) naming it.

### Agents and turns

Agent `player_k` sits at seat `k`; play starts left of a random dealer and goes clockwise
(seat order) until a Reverse. A turn may take several decisions (draw, then play or keep
the drawn card; answer a +4; choose a seven-zero target; ...), so the same agent may be
selected several times in a row, and an agent may be asked out of turn (the victim of a
+2/+4, a jump-in candidate). `agent_selection` is always the player the rules ask now.

### Observation space

The observation is a dict: `'observation'`, the agent's own view of the game as one flat
`float32` vector of 583 values (classic layout; see Decks), and `'action_mask'`, a `(77,)
int8` vector with 1 for every legal action. The mask is all zeros for every agent except the one to act. Nothing hidden
is in the observation: other hands appear only as sizes (tested in `uno_rl.core`). Seats
are relative to the observer (0 = the observer, 1 = the next seat clockwise, ...); slots
beyond the number of players are 0.

| piece            | size | content |
|------------------|------|---------|
| `hand`           | 54   | count of each card kind in the observer's hand |
| `top_card`       | 54   | one-hot kind of the discard pile's top card |
| `color`          | 4    | one-hot current color (all 0 before a first-card Wild gets its color) |
| `direction`      | 1    | +1 clockwise, -1 counter-clockwise |
| `phase`          | 8    | one-hot phase (play, drawn, respond, target, multi, color, jump, over) |
| `actor`          | 10   | one-hot relative seat of the player to act (all 0 when over) |
| `pending_draw`   | 1    | cards the victim of a +2/+4 chain will draw |
| `hand_sizes`     | 10   | hand size of each seat, relative seat order |
| `players`        | 9    | one-hot number of players (2 .. 10) |
| `discard`        | 54   | count of each kind in the discard pile (cards seen since the last reshuffle) |
| `draw_pile_size` | 1    | cards left in the draw pile |
| `drawn_card`     | 54   | one-hot card the observer just drew (drawn phase, observer acting) |
| `previous_color` | 4    | while a +4 is on top: one-hot color before it (what a challenge checks) |
| `draw4_player`   | 10   | while a +4 is on top: one-hot relative seat of who played it |
| `revealed_hand`  | 54   | the hand a challenge by the observer revealed (last one this round) |
| `revealed_seat`  | 10   | one-hot relative seat whose hand that was |
| `scores`         | 10   | match scores / `match_target`, relative seat order |
| `progress`       | 1    | decisions so far this round / `max_turns` |
| `void_color`     | 36   | per other seat: one-hot color its hand showed it lacks (it drew on it) |
| `void_symbol`    | 117  | per other seat: one-hot symbol (0-9, Skip, Reverse, +2) of the top card it drew on |
| `played_colors`  | 45   | per other seat: cards it played this round, per color then colorless |
| `named_color`    | 36   | per other seat: one-hot color it last named with a wild this round |

The last four pieces are what the other seats showed, in blocks of 4, 13, 5 and 4 values for
the relative seats 1 .. 9. A seat that draws in the play phase shows it holds no card of the
current color and none of the top card's symbol: that void holds until it next draws, moves
with its hand when hands are passed or swapped, and is forgotten when hands are shuffled.

Card kinds: `kind = color * 13 + rank` for colored cards (colors red, yellow, green, blue;
ranks 0-9, 10 Skip, 11 Reverse, 12 +2), 52 Wild, 53 Wild Draw Four. The pieces' positions
are `uno_rl.core.observe_layout.SLICES`. The space is a `Box` with per-value bounds (counts
of a kind at most its copies in the deck, card counts at most 108, cards played at most
`max_turns`, one-hots in [0, 1], direction in [-1, 1]).

### Action space

One fixed `Discrete(77)` space for every rule set of a classic deck (`Discrete(122)` for
an extended one, see Decks); the mask says what is legal now.

| action    | meaning |
|-----------|---------|
| 0 ... 51  | play the colored card of that kind |
| 52 ... 55 | play a Wild, naming red, yellow, green, blue |
| 56 ... 59 | play a +4, naming red, yellow, green, blue |
| 60        | draw |
| 61        | pass (keep the drawn card, stop a multi-play, decline a jump-in) |
| 62        | challenge the +4 just played on you |
| 63        | accept the pending draws |
| 64 ... 72 | (seven-zero) swap hands with the player 1 ... 9 seats clockwise |
| 73 ... 76 | name the color of a first-card Wild (red, yellow, green, blue) |

`uno_rl.core.action_name(a)` gives an action's meaning in words (`rules.layout.action_name(a)`
for every deck).

Illegal actions: `env()` follows PettingZoo's classic environments (its
`TerminateIllegalWrapper`): an illegal action ends the game at once with a reward of -1 for
the agent that made it and 0 for everyone else (all agents' terminations and truncations
become True). `raw_env` has no such policy: it raises `ValueError` naming the action, its
meaning and the legal actions, and leaves the game untouched. Both raise at the call for an
action that is not one integer in [0, A), A the layout's action count (`TypeError` for a wrong type such as `None`
for a live agent, `bool`, `float`, `str`; `ValueError` for out of range or an array that is
not 0-d).

### Rewards

Rewards are zero-sum and paid when a round ends; every other step pays 0.

| `reward` switch    | winner                       | each loser |
|--------------------|------------------------------|------------|
| `win-loss` (default) | +1                         | -1 / (P - 1) |
| `points`           | + the card points left in the losers' hands | - own card points |

Card points: number cards face value, Skip / Reverse / +2 20, Wild and +4 50. A round
that reaches `max_turns` decisions is truncated: everyone gets 0 and every agent is
truncated (not terminated).

### Episodes and infos

Without `match` an episode is one round. With `match=True` (the `kids` preset) an episode
is a whole match: rounds follow each other inside the episode, each round's rewards are
paid at the step that ends it, and the episode terminates when the match is decided. At
the end of an episode every agent's info holds `winner` (agent name of the last round's
winner, or `None`), `points` (card points the last round's losers held), `truncated`,
`decisions` (decisions of the last round) and, in a match, `scores` (per agent) and
`match_winner`. During play infos are empty (the parallel view adds `active_agent`).

`reset(seed=...)` seeds the environment's `numpy.random.Generator`, from which each reset
draws one deal seed; everything random in a round derives from that deal seed, so the same
seed and actions replay the same game. `reset(options={"deal_seed": s})` replays the deal
`s` (duplicate deals); other option keys are ignored.

### Hidden information

Observations, infos and `render()` show an agent only what its seat may see: its own hand,
other hands as sizes, never the draw pile's order nor a deal seed (which would rebuild every
hand). The full game is reachable for debugging and tests only through the *privileged*
attribute `privileged_game` (a `uno_rl.envs.game.SingleGame`: every hand, the draw pile, the
deal seed); never hand it, nor `np_random` / `np_random_seed` (which draw every deal), to an
agent.

### State (privileged, for centralised critics)

`state()` returns the whole game as one `(900,) float32` vector in `state_space` (a `Box`;
a deck of the extended layout: `(1397,)`, `uno_rl.envs.state_vector.state_layout`),
PettingZoo's `state()` / `state_space` convention, on the AEC env and on the parallel view
alike. It is **privileged**: it holds every seat's hand and the draw pile's contents, by
design, for a centralised critic (MAPPO-style) during training; never give it to a policy
that plays. Seats are absolute (slot `k` is `player_k`); slots beyond the number of players
are 0. The draw pile is given as counts per kind, not in order.

| piece            | offset | size | content |
|------------------|--------|------|---------|
| `hands`          | 0      | 540  | count of each kind in each seat's hand, seat `k` at `k * 54` |
| `hand_sizes`     | 540    | 10   | cards in each seat's hand |
| `top_card`       | 550    | 54   | one-hot kind of the top card |
| `color`          | 604    | 4    | one-hot current color |
| `direction`      | 608    | 1    | +1 clockwise, -1 counter-clockwise |
| `phase`          | 609    | 8    | one-hot phase |
| `actor`          | 617    | 10   | one-hot seat to act (all 0 when over) |
| `pending_draw`   | 627    | 1    | cards the victim of a +2/+4 chain will draw |
| `players`        | 628    | 9    | one-hot number of players (2 .. 10) |
| `dealer`         | 637    | 10   | one-hot dealer seat |
| `discard`        | 647    | 54   | count of each kind in the discard pile |
| `draw_pile`      | 701    | 54   | count of each kind in the draw pile |
| `draw_pile_size` | 755    | 1    | cards left in the draw pile |
| `drawn_card`     | 756    | 54   | one-hot card the actor just drew (drawn phase) |
| `previous_color` | 810    | 4    | while a +4 is on top: one-hot color before it |
| `draw4_player`   | 814    | 10   | while a +4 is on top: one-hot seat that played it |
| `draw4_bluff`    | 824    | 1    | while a +4 is on top: 1 if it is a bluff |
| `multi_rank`     | 825    | 10   | multi-play phase: one-hot number being played (none for a symbol: see the top card) |
| `jump_card`      | 835    | 54   | jump-in phase: one-hot card that may jump in |
| `scores`         | 889    | 10   | match scores / `match_target`, per seat |
| `progress`       | 899    | 1    | decisions so far this round / `max_turns` |

The slices are `uno_rl.envs.state_vector.STATE_SLICES` (`state_layout(layout).slices` for
every layout).

### Rule switches and presets

Rules are a frozen, validated `uno_rl.core.Rules`; presets are TOML files in the
repository's `envs/` folder (`official`, the default, and its variants). The presets and every
switch, with its values, default and meaning, are listed from the code itself: on the *Rules
and switches* page of the documentation, by `uno_rl presets`, and by
`dataclasses.fields(uno_rl.core.Rules)`; the rules they implement are set out in the rules
specification. Pass any switch to `env(**rule_overrides)`.

The `rlcard` preset makes each of RLCard's departures from the official rules a switch:
drawing only when stuck (`voluntary_draw=false`), a drawn Wild, +4 or card of the current
color played at once without a decision (`drawn_card="auto-play"`; a +4 so played makes
nobody draw, as in RLCard), a +4 only when nothing else plays and no challenge
(`draw_four_legal="no-playable-card"`, `bluffing="forbidden"`), a two-player Reverse that
does not skip, a first-card +2 that does not skip, a random first Wild color, no UNO call,
win/loss rewards. It does not copy RLCard's bugs (a reshuffle that puts the top card back
into the deck).

### Rendering

`render()` draws a text table, the view of one agent (`render_agent`, by default the agent
to act): the top card and the current color, the direction of play, the draw pile and
pending draws, every player's hand size (and match score), who acts and in which phase, that
agent's hand and, when it is to act, its legal actions (no other hand), the dispenser's
presses when it is on, and the seats of the last hand swap (the hands swapped only to the
two who swapped). Cards are colored with ANSI codes (red, yellow, green, blue; wilds bold
magenta). `"ansi"` returns the string, `"human"`
prints it. `"rgb_array"` returns the same view drawn as a picture (`uno_rl.render.frames`): a
`(640, 960, 3)` uint8 array, the same size in every game, for recording videos (the parallel
view's `render()` gives the same). To record a game, keep `env.render()` after every step and
write the list with `gymnasium.utils.save_video.save_video(frames, "videos", fps=4)` (which
needs `moviepy`).

### Version history

* v1: first release (uno_rl 0.1.0).
"""

from __future__ import annotations

from typing import Any

from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

from .aec import ActionCheckWrapper, observation_bounds, raw_env
from .classic import ClassicWrapper

__all__ = ["ActionCheckWrapper", "env", "observation_bounds", "parallel_env", "raw_env"]


def env(**kwargs: Any) -> AECEnv:
    """The AEC environment with PettingZoo's classic wrappers (see the module docstring).

    An illegal action ends the game with -1 for the offender and 0 for the others
    (``TerminateIllegalWrapper``); a malformed action raises at the call.
    """
    return ClassicWrapper(raw_env(**kwargs), illegal_reward=-1)


def classic_stack(**kwargs: Any) -> AECEnv:
    """The same environment behind PettingZoo's own classic wrapper stack, layer by layer
    (slower: each layer forwards attribute reads); :func:`env` must behave exactly like it."""
    aec = raw_env(**kwargs)
    aec = wrappers.TerminateIllegalWrapper(aec, illegal_reward=-1)
    aec = wrappers.AssertOutOfBoundsWrapper(aec)
    aec = ActionCheckWrapper(aec)
    return wrappers.OrderEnforcingWrapper(aec)


def parallel_env(**kwargs: Any):
    """A parallel view of :func:`env` (``turn_based_aec_to_parallel``): each step takes
    the action of the agent to act (``infos[agent]["active_agent"]``); others are ignored."""
    return turn_based_aec_to_parallel(env(**kwargs))
