"""The search agents' memory: ``lanes`` bounds what one search holds at once, the estimate of
a budget's peak memory is honest, and a budget over the limit is refused when it is made.

* ``lanes`` bounds the worlds and the play-out lanes of one game however large its budget
  (pimc's determinizations x rollouts, ismcts' wave), and of the belief's model;
* such a game still finds the sure win, with and without ``margin``;
* the estimate grows with the lanes, the players, the deck and a PPO rollout agent, and holds
  the memory a search really reached (Linux: its peak resident memory);
* the limit: 2 GiB, or ``UNO_RL_SEARCH_MEMORY``; over it, or more than 1,000,000 play-outs
  per action, one ``AgentError`` naming the number and what to lower; the shipped defaults
  pass at 2 to 10 players.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core"))

from scenario import act  # noqa: E402
from test_search import played_states, winning_card_actions  # noqa: E402

from uno_rl.agents import AgentError, belief, determinize, make_agent  # noqa: E402
from uno_rl.agents.determinize import join_states, reshuffle_piles, world_blocks  # noqa: E402
from uno_rl.agents.search_budget import (  # noqa: E402
    DEFAULT_LIMIT,
    LIMIT_VARIABLE,
    estimate,
    format_bytes,
    lane_bytes,
    memory_limit,
    parse_size,
)
from uno_rl.core import engine, load_rules  # noqa: E402

RULES = load_rules("official", players=2)


def spy(agent):
    """Record the worlds each search deals and the lanes each play-out batch steps."""
    seen = {"worlds": [], "lanes": []}
    worlds, evaluate = agent.worlds, agent.evaluate_actions

    def counted_worlds(*args, **kwargs):
        made = worlds(*args, **kwargs)
        seen["worlds"].append(made.num_games)
        return made

    def counted_evaluate(states, world_of_lane, *args, **kwargs):
        seen["lanes"].append(world_of_lane.size)
        return evaluate(states, world_of_lane, *args, **kwargs)

    agent.worlds, agent.evaluate_actions = counted_worlds, counted_evaluate
    return seen


def one_decision(spec, players=2, seed=3):
    """``spec``'s action at one position with at least 2 legal actions, and what it held."""
    state = played_states("official", players, games=12, steps=14, seed=seed)
    masks = engine.legal_mask(state)
    game = int(np.flatnonzero(masks.sum(axis=1) >= 2)[0])
    state = state.take([game])
    agent = make_agent(spec, state.rules)
    seen = spy(agent)
    masks = engine.legal_mask(state)
    action = agent.act(None, masks, np.random.default_rng(0), state=state, games=np.arange(1))
    assert masks[0, action[0]]
    return seen, int(masks.sum())


# ---------------------------------------------------------------- lanes bound one game


@pytest.mark.parametrize(
    "spec",
    ["pimc:determinizations=64,rollouts=16,lanes=256", "pimc:determinizations=3,rollouts=300,"
     "lanes=256,margin=1", "ismcts:iterations=1024,wave=512,lanes=256"],
)  # fmt: skip
def test_lanes_bound_the_worlds_of_one_large_game(spec):
    seen, legal = one_decision(spec)
    assert max(seen["lanes"]) <= 256 and max(seen["worlds"]) <= 256, seen
    budget = 512 if spec.startswith("ismcts") else 64 * 16 if "=64" in spec else 3 * 300
    assert sum(seen["lanes"]) >= legal * budget  # the whole budget was played


@pytest.mark.parametrize(
    "spec",
    ["pimc:determinizations=8,rollouts=16,lanes=64", "pimc:determinizations=8,rollouts=16,"
     "lanes=64,rollout=random,margin=0.5", "ismcts:iterations=64,wave=64,lanes=64"],
)  # fmt: skip
def test_a_game_searched_in_blocks_still_takes_the_winning_card(spec):
    assert (winning_card_actions(spec) == act("red 7")).all()


def test_the_belief_model_steps_at_most_lanes_lanes_one_game_at_least(monkeypatch):
    sizes = []
    model_actions = belief.rollout_actions

    def counted(policy, state, *args):
        sizes.append(state.num_games)
        return model_actions(policy, state, *args)

    monkeypatch.setattr(belief, "rollout_actions", counted)
    state = played_states("official", 2, games=16, steps=10, seed=4)
    agent = make_agent("pimc:particles=64,samples=4,lanes=300", state.rules)
    memory, ids = agent.new_memory(state.num_games), np.arange(state.num_games)
    observer = (state.actor.astype(np.int64) + 1) % 2  # every actor is another seat
    agent.watch(memory, ids, state, ids, observer, engine.legal_mask(state).argmax(axis=1))
    assert sizes and max(sizes) == 256  # one game's 64 particles x 4 samples a batch


def test_world_blocks_reshuffles_and_joins_cover_everything_once(monkeypatch):
    blocks = list(world_blocks(5, 3, 7))  # 2 games (6 worlds) a block
    assert [(rows.tolist(), c, s) for rows, c, s in blocks] == [
        ([0, 1], 3, 0), ([2, 3], 3, 6), ([4], 3, 12)
    ]  # fmt: skip
    parts = [(rows.tolist(), c, s) for rows, c, s in world_blocks(2, 10, 4)]
    assert parts == [([0], 4, 0), ([0], 4, 4), ([0], 2, 8), ([1], 4, 10), ([1], 4, 14),
                     ([1], 2, 18)]  # fmt: skip
    state = played_states("official", 2, games=6, steps=4, seed=1)
    joined = join_states([state.take([0, 1]), state.take([2]), state.take([3, 4, 5])])
    for name, array in state.arrays().items():
        assert np.array_equal(getattr(joined, name), array), name
    # In parts or at once, the same generator gives the same pile orders.
    a, b = state.copy(), state.copy()
    reshuffle_piles(a, np.random.default_rng(9))
    monkeypatch.setattr(determinize, "_RESHUFFLE_BATCH_BYTES", 8 * state.pile.shape[1] * 2)
    reshuffle_piles(b, np.random.default_rng(9))  # two lanes at a time
    assert np.array_equal(a.pile, b.pile)


# ---------------------------------------------------------------- the estimate


def test_the_estimate_grows_with_lanes_players_deck_and_observations():
    small = estimate(make_agent("pimc:lanes=1000", RULES)).total
    large = estimate(make_agent("pimc:lanes=100000", RULES)).total
    assert small < large
    players = estimate(make_agent("pimc", load_rules("official", players=10))).total
    assert players > estimate(make_agent("pimc", RULES)).total
    extension = load_rules("official", players=2, deck="extension")
    assert lane_bytes(extension) > lane_bytes(RULES)
    assert lane_bytes(RULES, observes=True) > lane_bytes(RULES) + 4 * RULES.layout.obs_size


MEASURE = """
import re, sys
import numpy as np
sys.path.insert(0, {tests!r})
from test_search import played_states
from uno_rl.agents import make_agent
from uno_rl.agents.search_budget import estimate
from uno_rl.core import engine

def status(key):
    text = open("/proc/self/status").read()
    return int(re.search(key + r":\\s+(\\d+)", text).group(1)) * 1024

state = played_states("official", 2, games=12, steps=14, seed=3)
masks = engine.legal_mask(state)
state = state.take([int(np.flatnonzero(masks.sum(axis=1) >= 2)[0])])
agent = make_agent({spec!r}, state.rules)
masks = engine.legal_mask(state)
with open("/proc/self/clear_refs", "w") as reset:
    reset.write("5")  # the peak starts again from here
before = status("VmRSS")
agent.act(None, masks, np.random.default_rng(0), state=state, games=np.arange(1))
print(status("VmHWM") - before, estimate(agent).total)
"""


@pytest.mark.skipif(not Path("/proc/self/clear_refs").exists(), reason="Linux peak memory")
def test_the_estimate_holds_the_peak_memory_of_a_search():
    tests = str(Path(__file__).resolve().parent)
    spec = "ismcts:iterations=6000,wave=6000,lanes=4096"  # a game's wave: 3 or more blocks
    script = textwrap.dedent(MEASURE.format(tests=tests, spec=spec))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    used, estimated = (int(x) for x in done.stdout.split())
    assert 0 < used <= estimated, (format_bytes(used), format_bytes(estimated))


# ---------------------------------------------------------------- the limit


@pytest.mark.parametrize("players", [2, 4, 10])
def test_the_default_budgets_fit_the_default_limit(players, monkeypatch):
    monkeypatch.delenv(LIMIT_VARIABLE, raising=False)
    rules = load_rules("official", players=players)
    for spec in ("pimc", "ismcts", "pimc:particles=128", "pimc:objective=win"):
        assert estimate(make_agent(spec, rules)).total <= DEFAULT_LIMIT, spec
    searcher = make_agent("pimc-ppo-official-2p", RULES)  # the bot's network reads 349 columns
    assert estimate(searcher, len(searcher.policy.columns)).total <= DEFAULT_LIMIT


@pytest.mark.parametrize(
    ("spec", "players", "expected"),
    [
        ("pimc:lanes=4000000", 2, ("4,000,000 play-out lanes", "the limit is 2.0 GiB",
                                   "lanes=", "fits", LIMIT_VARIABLE)),
        ("ismcts:lanes=4000000", 10, ("GiB of memory at once", "lower lanes (lanes=")),
        ("pimc:particles=4096", 4, ("4,096 belief particles in each of 1,024 games",
                                    "lower particles")),
        ("pimc:determinizations=4096,rollouts=4096", 2, ("16,777,216 play-outs per legal action",
                                                         "at most 1,000,000")),
        ("pimc:determinizations=4096,rollouts=245", 2, ("1,003,520 play-outs",)),
    ],
)  # fmt: skip
def test_budgets_over_the_limit_are_refused_with_the_number(spec, players, expected, monkeypatch):
    monkeypatch.delenv(LIMIT_VARIABLE, raising=False)
    with pytest.raises(AgentError) as error:
        make_agent(spec, load_rules("official", players=players))
    message = str(error.value)
    assert "\n" not in message and spec in message
    for part in expected:
        assert part in message, (part, message)


def test_the_suggested_lanes_fit(monkeypatch):
    monkeypatch.delenv(LIMIT_VARIABLE, raising=False)
    with pytest.raises(AgentError) as error:
        make_agent("ismcts:lanes=4000000", RULES)
    fit = int(str(error.value).split("lanes=")[-1].split(" ")[0])
    assert 100_000 < fit < 4_000_000
    assert estimate(make_agent(f"ismcts:lanes={fit}", RULES)).total <= DEFAULT_LIMIT


def test_the_limit_variable_raises_or_lowers_the_limit(monkeypatch):
    monkeypatch.setenv(LIMIT_VARIABLE, "64G")
    assert memory_limit() == 64 * 2**30
    make_agent("pimc:lanes=4000000", RULES)
    monkeypatch.setenv(LIMIT_VARIABLE, "300MB")
    with pytest.raises(AgentError, match=r"the limit is 300 MiB: lower lanes \(lanes=") as error:
        make_agent("pimc:lanes=131072", RULES)
    fit = int(str(error.value).split("lanes=")[-1].split(" ")[0])
    make_agent(f"pimc:lanes={fit}", RULES)  # fits
    assert make_agent("pimc", RULES).params["lanes"] == fit  # the default: what fits
    monkeypatch.setenv(LIMIT_VARIABLE, "20M")
    with pytest.raises(AgentError, match="the limit is 20.0 MiB: no value of lanes fits"):
        make_agent("pimc", RULES)
    for bad in ("lots", "-5G", "0", "5 parsecs"):
        monkeypatch.setenv(LIMIT_VARIABLE, bad)
        with pytest.raises(AgentError, match=f"{LIMIT_VARIABLE}=.* is not a memory size"):
            make_agent("pimc", RULES)
    monkeypatch.setenv(LIMIT_VARIABLE, "")
    assert memory_limit() == DEFAULT_LIMIT == 2 * 2**30


@pytest.mark.parametrize(
    ("text", "size"),
    [("2147483648", 2**31), ("2G", 2**31), ("2gb", 2**31), ("2 GiB", 2**31), ("1.5k", 1536),
     ("512M", 2**29), ("1T", 2**40), ("12b", 12), ("G", None), ("2Q", None), ("", None)],
)  # fmt: skip
def test_sizes(text, size):
    assert parse_size(text) == size


def test_a_default_lanes_that_would_pass_the_limit_is_lowered_to_what_fits(monkeypatch):
    monkeypatch.setenv(LIMIT_VARIABLE, "1G")
    default = make_agent("pimc:rollout=ppo-official-2p", RULES)
    assert not default.lanes_given
    assert default.params["lanes"] < 131072
    assert estimate(default, len(default.policy.columns)).total <= 2**30
    with pytest.raises(AgentError, match="lower lanes"):
        make_agent("pimc:rollout=ppo-official-2p,lanes=131072", RULES)
