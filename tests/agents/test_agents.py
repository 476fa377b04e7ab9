"""Every agent: legal actions in every preset and player count, specs, errors, protocol."""

import numpy as np
import pytest

from uno_rl.agents import Agent, AgentError, available_agents, describe, make_agent, parse_spec
from uno_rl.core import engine, load_rules
from uno_rl.core.observe import observe
from uno_rl.core.phases import OVER
from uno_rl.envs.vector import UnoVectorEnv

AGENTS = [
    "random",
    "random-playable",
    "rule",
    "color-first",
    "points-dumper",
    "aggressive",
    "color-first:bluff=0.5,challenge=bayes,objective=card-difference",
    "points-dumper:bluff=1,challenge=threshold,challenge_color=true",
    "aggressive:challenge=always,stack=false,play_drawn=false",
    "bayes-challenger",
    "ppo-official-2p",
]


def play_batch(spec, rules, games=96, steps=400, seed=0, log=None):
    """Random deals, every seat played by ``spec`` (with a memory per seat if it keeps one);
    returns the rounds finished. ``log``: a list that gets each step's actions."""
    agent = make_agent(spec, rules)
    rng = np.random.default_rng(seed)
    state = engine.reset(rules, rng.integers(0, 2**62, games).astype(np.uint64))
    memories = [agent.new_memory(games) for _ in range(rules.players)]
    finished = 0
    for _ in range(steps):
        live = np.flatnonzero(state.phase != OVER)
        if not live.size:
            break
        mask = engine.legal_mask(state, live)
        actor = state.actor[live].astype(np.int64)
        obs = observe(state.take(live), actor)
        actions = np.empty(live.size, np.int64)
        for seat in np.unique(actor):
            rows = np.flatnonzero(actor == seat)
            memory = memories[seat]
            if memory is None:
                actions[rows] = agent.act(obs[rows], mask[rows], rng)
            else:
                actions[rows] = agent.act(obs[rows], mask[rows], rng, memory, live[rows])
        assert mask[np.arange(live.size), actions].all(), spec
        if log is not None:
            log.append(actions)
        result = engine.step(state, actions, games=live)
        finished += int(result.round_over.sum())
    return finished


@pytest.mark.parametrize("spec", AGENTS)
@pytest.mark.parametrize(
    "preset,players",
    [("official", 2), ("official", 4), ("house", 3), ("party", 6), ("seven-zero", 3),
     ("no-bluff", 2), ("kids", 4), ("rlcard", 2), ("rlcard", 3)],
)  # fmt: skip
def test_agents_choose_legal_actions_everywhere(spec, preset, players):
    play_batch(spec, load_rules(preset, players=players), games=48, steps=160)


def test_agents_handle_every_rule_switch():
    rules = load_rules(
        "official", players=4, multi_play=True, jump_in=True, wild_cancels_draw=True,
        drawn_card="must-play", draw_four_legal="no-playable-card", caught_bluffer="takes-back",
        last_card="no-wild", first_wild_color_by="dealer",
    )  # fmt: skip
    for spec in AGENTS:
        play_batch(spec, rules, games=48, steps=250)


def test_agents_choose_legal_actions_when_drawing_needs_no_playable_card():
    """``voluntary_draw=false`` with bluffing allowed: holding a +4 makes drawing illegal.

    An agent that holds back a bluff +4 always has the card of the current color that makes
    it a bluff, so it is never left without a legal play; non-bluffers check that here.
    """
    rules = load_rules("official", voluntary_draw=False, players=3)
    for spec in [*AGENTS, "color-first:bluff=0", "aggressive:bluff=0"]:
        play_batch(spec, rules, games=48, steps=250)


def test_heuristics_finish_rounds_quickly():
    rules = load_rules("official")
    for spec in ("rule", "color-first", "points-dumper", "aggressive"):
        assert play_batch(spec, rules, games=64, steps=400) == 64


def test_spec_parsing_and_labels():
    assert parse_spec("color-first") == ("color-first", {})
    assert parse_spec(" a:b=1, c = x ") == ("a", {"b": "1", "c": "x"})
    rules = load_rules("official")
    agent = make_agent("color-first:challenge=bayes,bluff=0.25", rules)
    assert agent.params["bluff"] == 0.25 and agent.params["challenge"] == "bayes"
    assert agent.spec == "color-first:bluff=0.25,challenge=bayes"
    assert agent.label == "color-first:challenge=bayes,bluff=0.25"
    assert make_agent("bayes-challenger", rules).params["challenge"] == "bayes"
    assert make_agent("bayes-challenger:challenge=never", rules).params["challenge"] == "never"
    assert make_agent("aggressive", rules, attack_at=5).params["attack_at"] == 5
    assert "bayes" in describe("bayes-challenger").lower()
    names = available_agents()
    for name in ("random", "random-playable", "rule", "color-first", "points-dumper", "aggressive"):
        assert name in names


@pytest.mark.parametrize(
    "spec,message",
    [
        ("nope", "unknown agent 'nope'"),
        ("color-first:blu=1", "no parameter 'blu'"),
        ("color-first:bluff=2", "'bluff' must be in [0, 1]"),
        ("color-first:bluff=lots", "'bluff' must be float"),
        ("color-first:challenge=sometimes", "'challenge' must be one of"),
        ("color-first:stack=maybe", "'stack' must be bool"),
        ("color-first:bluff", "expected key=value"),
        ("color-first:bluff=1,bluff=0", "given twice"),
        ("random:bluff=0.1", "no parameter 'bluff'"),
        ("", "non-empty"),
        ("color-first:bluff=nan", "'bluff' must be a finite number, got nan"),
        ("color-first:bluff=-inf", "'bluff' must be a finite number, got -inf"),
    ],
)
def test_bad_specs_name_the_problem(spec, message):
    with pytest.raises(AgentError, match=None) as info:
        make_agent(spec, load_rules("official"))
    assert message in str(info.value)


def test_bad_spec_files(tmp_path):
    rules = load_rules("official")
    bad = tmp_path / "bad.toml"
    bad.write_text('strategy = "color-first"\ncolour = "red"\n')
    with pytest.raises(AgentError, match="unknown key 'colour'"):
        make_agent(str(bad), rules)
    loop = tmp_path / "loop.toml"
    loop.write_text(f'strategy = "{tmp_path / "loop2.toml"}"\n')
    (tmp_path / "loop2.toml").write_text(f'strategy = "{loop}"\n')
    with pytest.raises(AgentError, match="loop"):
        make_agent(str(loop), rules)
    broken = tmp_path / "broken.toml"
    broken.write_text("strategy = \n")
    with pytest.raises(AgentError, match="broken.toml"):
        make_agent(str(broken), rules)
    nan = tmp_path / "nan.toml"
    nan.write_text('strategy = "color-first"\n[params]\nbluff = nan\n')
    with pytest.raises(AgentError, match="'bluff' must be a finite number"):
        make_agent(str(nan), rules)
    binary = tmp_path / "binary.toml"
    binary.write_bytes(b"\x00\xff\xfe binary")
    with pytest.raises(AgentError, match="binary.toml: not a text file"):
        make_agent(str(binary), rules)
    good = tmp_path / "mine.toml"
    good.write_text('strategy = "rule"\n[params]\nchallenge = "always"\n')
    assert make_agent(str(good), rules).params["challenge"] == "always"


def test_agents_are_vector_env_opponents_and_reject_bad_batches():
    rules = load_rules("official")
    env = UnoVectorEnv(num_envs=32, opponents=make_agent("color-first", rules))
    _, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(50):
        _, _, _, _, info = env.step(engine.sample_legal_actions(info["action_mask"], rng))
    agent = make_agent("rule", rules)
    with pytest.raises(ValueError, match="masks must be"):
        agent.act(np.zeros((2, 583), np.float32), np.zeros((2, 10), bool), rng)
    with pytest.raises(ValueError, match="observations"):
        agent.act(None, np.ones((2, 77), bool), rng)
    with pytest.raises(TypeError, match="rules"):
        make_agent("rule", "official")  # type: ignore[arg-type]
    assert isinstance(agent, Agent)


def test_memory_resets_and_records_passes():
    rules = load_rules("official")
    agent = make_agent("bayes-challenger", rules)
    memory = agent.new_memory(4)
    memory["possible"][:] = 3
    agent.reset_memory(memory, np.array([1, 2]))
    assert (memory["possible"][[1, 2]] > 100).all() and (memory["possible"][[0, 3]] == 3).all()
    assert make_agent("color-first", rules).new_memory(4) is None
    assert make_agent("bayes-challenger", load_rules("no-bluff")).new_memory(4) is None
