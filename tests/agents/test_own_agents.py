"""Agents made elsewhere, named like any other: ``MODULE:Class``, ``FILE.py:Class``,
``sb3:MODEL.zip``, ``torch:MODULE.pt`` (``docs/own-agents.md``, :mod:`uno_rl.agents.own_agents`)."""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from bad_input.harness import assert_clean_error
from torch import nn

from uno_rl.__main__ import main as uno_rl
from uno_rl.agents import Agent, AgentError, make_agent, parse_spec
from uno_rl.agents.own_agents import PlainAgent
from uno_rl.core import engine, load_rules
from uno_rl.core.observe import observe
from uno_rl.core.phases import OVER
from uno_rl.envs.vector import UnoVectorEnv

#: TorchScript is deprecated in recent PyTorch, and still what many policies are saved as.
pytestmark = pytest.mark.filterwarnings("ignore:.torch.jit.* is deprecated:DeprecationWarning")

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "own-agents.md"
RULES = load_rules("official")

#: Plain agents and classes that are no agents, beside the documented example.
OTHERS = '''
import numpy as np


class Plain:
    """A random legal action."""

    def __init__(self, rules, temperature: float = 1.0, loud=False, tag=None):
        self.rules, self.temperature, self.loud, self.tag = rules, temperature, loud, tag

    def act(self, observations, masks, rng):
        return np.where(masks, rng.random(masks.shape), -1.0).argmax(axis=1)


class NoRules:
    def __init__(self, depth=2):
        self.depth = depth

    def act(self, observations, masks, rng):
        return masks.argmax(axis=1).astype(np.int32)


class KeywordRules:
    def __init__(self, depth: int = 2, *, rules=None):
        self.depth, self.rules = depth, rules

    def act(self, observations, masks, rng):
        return masks.argmax(axis=1)


class Illegal:
    def act(self, observations, masks, rng):
        return np.full(len(masks), 75)


class OutOfRange:
    def act(self, observations, masks, rng):
        return np.full(len(masks), 500)


class Floats:
    def act(self, observations, masks, rng):
        return np.zeros(len(masks))


class TooFew:
    def act(self, observations, masks, rng):
        return np.zeros(1, np.int64)


class Broken:
    def __init__(self):
        raise RuntimeError("no network here\\nsecond line")

    def act(self, observations, masks, rng):
        raise AssertionError


class Silent:
    def decide(self, observations):
        return 0


NOT_A_CLASS = 3
'''


def documented_example() -> str:
    """The ``# my_agent.py`` block of the docs page."""
    blocks = re.findall(r"```python\n(.*?)\n```", PAGE.read_text("utf-8"), re.S)
    found = [block for block in blocks if block.startswith("# my_agent.py\n")]
    assert len(found) == 1, "docs/own-agents.md has one '# my_agent.py' example"
    return found[0] + "\n"


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """A folder with ``my_agent.py`` (the docs' example) and ``others.py``, the current one."""
    (tmp_path / "my_agent.py").write_text(documented_example(), "utf-8")
    (tmp_path / "others.py").write_text(OTHERS, "utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def play(agent, rules=RULES, games=16, steps=120, seed=0) -> np.ndarray:
    """Play ``agent`` in every seat through the engine, asserting every action legal; the
    actions taken, in order."""
    state = engine.reset(rules, np.arange(seed, seed + games, dtype=np.uint64))
    rng, taken = np.random.default_rng(seed), []
    for _ in range(steps):
        live = np.flatnonzero(state.phase != OVER)
        if not live.size:
            break
        mask = engine.legal_mask(state, live)
        actions = agent.act(observe(state.take(live), state.actor[live]), mask, rng)
        assert actions.shape == (live.size,) and actions.dtype == np.int64
        assert mask[np.arange(live.size), actions].all()
        engine.step(state, actions, games=live, validate=True)
        taken.append(actions)
    assert taken
    return np.concatenate(taken)


# ------------------------------------------------------------------ how specs read


@pytest.mark.parametrize(
    "spec,parsed",
    [
        ("color-first", ("color-first", {})),
        ("color-first:bluff=0.3", ("color-first", {"bluff": "0.3"})),
        ("color-first:bluff=0.3,challenge=bayes", ("color-first", {"bluff": "0.3", "challenge": "bayes"})),
        ("agents/x.toml:challenge=always", ("agents/x.toml", {"challenge": "always"})),
        ("pimc:rollout=ppo-official-2p", ("pimc", {"rollout": "ppo-official-2p"})),
        ("pimc:rollout=ppo-official-2p,cutoff=20", ("pimc", {"rollout": "ppo-official-2p", "cutoff": "20"})),
        ("ppo:checkpoint=runs/a/best.pt", ("ppo", {"checkpoint": "runs/a/best.pt"})),
        ("pimc:rollout=my_agent.py:MyAgent", ("pimc", {"rollout": "my_agent.py:MyAgent"})),
        ("mypkg.agents:MyAgent", ("mypkg.agents:MyAgent", {})),
        ("mypkg:Bot:a=1,b=x", ("mypkg:Bot", {"a": "1", "b": "x"})),
        ("bots/my_agent.py:MyAgent:aggression=2", ("bots/my_agent.py:MyAgent", {"aggression": "2"})),
        ("sb3:models/uno.zip", ("sb3", {"file": "models/uno.zip"})),
        ("sb3:uno,deterministic=true", ("sb3", {"file": "uno", "deterministic": "true"})),
        ("torch:file=policy.pt,greedy=false", ("torch", {"file": "policy.pt", "greedy": "false"})),
    ],
)  # fmt: skip
def test_specs_read_as_documented(spec, parsed):
    assert parse_spec(spec) == parsed


@pytest.mark.parametrize(
    "spec,message",
    [
        ("rule:bluff", "expected key=value, got 'bluff'"),  # a strategy's name: not a module
        ("random:Foo", "expected key=value, got 'Foo'"),
        ("color-first:bluff", "expected key=value, got 'bluff'"),
        ("my_agent.py", "a Python file names its class after a colon"),
        ("my_agent.py:My-Agent", "got 'My-Agent'"),
    ],
)
def test_specs_of_the_old_form_keep_their_errors(spec, message):
    with pytest.raises(AgentError, match=re.escape(message)):
        parse_spec(spec)


def test_existing_agents_are_made_as_before():
    assert make_agent("color-first:bluff=0.3", RULES).params["bluff"] == 0.3
    assert make_agent("bayes-challenger:challenge=never", RULES).params["challenge"] == "never"


# ------------------------------------------------------------------ classes


def test_the_documented_example_plays_with_its_parameters(folder):
    agent = make_agent("my_agent.py:MyAgent:aggression=2", RULES)
    assert isinstance(agent, Agent) and agent.name == "my-agent"
    assert agent.params == {"aggression": 2.0}
    assert agent.label == "my_agent.py:MyAgent:aggression=2"
    play(agent)
    absolute = make_agent(f"{folder / 'my_agent.py'}:MyAgent", RULES)
    assert type(absolute) is type(agent)  # loaded once while unchanged
    with pytest.raises(AgentError, match="no parameter 'agression'"):
        make_agent("my_agent.py:MyAgent:agression=2", RULES)
    with pytest.raises(AgentError, match="'aggression' must be in"):
        make_agent("my_agent.py:MyAgent:aggression=-1", RULES)


def test_the_documented_example_is_evaluated_from_the_command_line(folder, capsys):
    argv = ["evaluate", "my_agent.py:MyAgent", "random", "--rounds", "200", "--seed", "0"]
    assert uno_rl([*argv, "--no-progress", "--out", str(folder / "out")]) == 0
    assert "my_agent.py:MyAgent" in capsys.readouterr().out


def test_a_class_of_a_module_by_its_dotted_name(folder, monkeypatch):
    package = folder / "uno_rl_test_own_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    shutil.copy(folder / "my_agent.py", package / "bots.py")
    monkeypatch.syspath_prepend(str(folder))
    try:
        agent = make_agent("uno_rl_test_own_pkg.bots:MyAgent:aggression=0.5", RULES)
        assert agent.params["aggression"] == 0.5
        play(agent, games=4, steps=40)
    finally:
        sys.modules.pop("uno_rl_test_own_pkg.bots", None)
        sys.modules.pop("uno_rl_test_own_pkg", None)


def test_a_plain_class_is_adapted_and_its_parameters_parsed(folder):
    agent = make_agent("others.py:Plain:temperature=0.5,loud=yes,tag=7", RULES)
    assert isinstance(agent, PlainAgent) and agent.plain.rules is RULES
    assert agent.plain.temperature == 0.5 and agent.plain.loud is True
    assert agent.plain.tag == "7"  # no type to parse by: the text
    play(agent)
    no_rules = make_agent("others.py:NoRules:depth=3", RULES)
    assert no_rules.plain.depth == 3
    assert play(no_rules, games=4, steps=30).dtype == np.int64  # int32 answers widened
    keyword = make_agent("others.py:KeywordRules:depth=4", RULES)
    assert keyword.plain.depth == 4 and keyword.plain.rules is RULES
    with pytest.raises(AgentError, match="no parameter 'rules'"):  # given by uno_rl only
        make_agent("others.py:KeywordRules:rules=x", RULES)
    with pytest.raises(AgentError, match=r"has no parameter 'depht' \(parameters: depth\)"):
        make_agent("others.py:NoRules:depht=3", RULES)
    with pytest.raises(AgentError, match="'temperature' must be float, got 'hot'"):
        make_agent("others.py:Plain:temperature=hot", RULES)


@pytest.mark.parametrize(
    "name,message",
    [
        ("Illegal", "played action 75 in row 0, which its mask forbids"),
        ("OutOfRange", "played action 500 in row 0, not an action (0 to 76)"),
        ("Floats", "answered with float64 actions; expected integers"),
        ("TooFew", "actions of shape (1,); expected (4,), one per row"),
    ],
)
def test_a_plain_agent_s_bad_answers_are_refused_in_one_line(folder, name, message):
    agent = make_agent(f"others.py:{name}", RULES)
    state = engine.reset(RULES, np.arange(4, dtype=np.uint64))
    masks = engine.legal_mask(state, np.arange(4))
    with pytest.raises(AgentError) as info:
        agent.act(observe(state, state.actor), masks, np.random.default_rng(0))
    assert message in str(info.value) and f"'others.py:{name}'" in str(info.value)
    assert "\n" not in str(info.value)


def test_own_agents_are_opponents_of_the_environments(folder):
    env = UnoVectorEnv(num_envs=8, opponents="my_agent.py:MyAgent:aggression=2")
    _, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(30):
        _, _, _, _, info = env.step(engine.sample_legal_actions(info["action_mask"], rng))


def test_a_spec_file_may_name_a_class(folder):
    (folder / "mine.toml").write_text(
        'strategy = "my_agent.py:MyAgent"\n[params]\naggression = 3.0\n', "utf-8"
    )
    assert make_agent("mine.toml", RULES).params["aggression"] == 3.0


def test_the_same_seed_gives_the_same_play(folder):
    for spec in ("my_agent.py:MyAgent", "others.py:Plain"):
        first = play(make_agent(spec, RULES), seed=3)
        assert np.array_equal(first, play(make_agent(spec, RULES), seed=3))
        assert not np.array_equal(first[:200], play(make_agent(spec, RULES), seed=4)[:200])


# ------------------------------------------------------------------ errors from the command line


@pytest.mark.parametrize(
    "spec,message",
    [
        ("uno_rl_no_such_module:Bot", "agent module 'uno_rl_no_such_module' not found"),
        ("uno_rl_no_such.pkg:Bot", "agent module 'uno_rl_no_such.pkg' not found"),
        ("my_agent:MyAgent", "a module of the current folder: name its file, my_agent.py:Class"),
        ("missing.py:Bot", "agent file 'missing.py' not found"),
        ("my_agent.py:MyAgnet", "has no class 'MyAgnet' (did you mean 'MyAgent'?)"),
        ("others.py:Zzz", "its classes with an act method: Broken, Floats, Illegal, KeywordRules"),
        ("others.py:Silent", "class Silent is not an agent (it has no act("),
        ("others.py:NOT_A_CLASS", "'NOT_A_CLASS' in 'others.py' is not a class (int)"),
        ("others.py:Broken", "could not be made: RuntimeError: no network here"),
        ("json:JSONDecoder", "class JSONDecoder is not an agent"),
        ("others.py:Illegal", "played action 75 in row"),
        ("sb3:missing.zip", "agent 'sb3': model file 'missing.zip' not found"),
        ("torch:missing.pt", "agent 'torch': model file 'missing.pt' not found"),
        ("torch", "name the model file (torch:PATH or file=PATH)"),
        ("broken.py:Bot", "agent file 'broken.py' could not be loaded: SyntaxError"),
        ("qqqq", "or a path to a .toml spec file, MODULE:Class, FILE.py:Class, sb3:MODEL.zip"),
    ],
)
def test_every_error_is_one_line_and_exit_status_2(folder, spec, message, capsys):
    (folder / "broken.py").write_text("def (:\n", "utf-8")
    argv = ["evaluate", spec, "random", "--rounds", "10", "--no-progress"]
    assert_clean_error(uno_rl, [*argv, "--out", str(folder / "out")], message, capsys)


# ------------------------------------------------------------------ PyTorch modules


class LogitsAndValue(nn.Module):
    """(logits, value), as uno_rl's own policy network answers."""

    def __init__(self, width: int = 583, actions: int = 77):
        super().__init__()
        self.policy = nn.Linear(width, actions)
        self.value = nn.Linear(width, 1)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.policy(x), self.value(x)


@pytest.fixture
def modules(tmp_path):
    """Module files: TorchScript, pickled, of the wrong widths, a state dict."""
    torch.manual_seed(0)
    linear = nn.Sequential(nn.Linear(583, 16), nn.ReLU(), nn.Linear(16, 77))
    torch.jit.save(torch.jit.script(linear), tmp_path / "script.pt")
    torch.save(linear, tmp_path / "pickled.pt")
    torch.save(linear.state_dict(), tmp_path / "weights.pt")
    torch.jit.save(torch.jit.script(LogitsAndValue()), tmp_path / "pair.pt")
    torch.save(nn.Sequential(nn.Linear(877, 122)), tmp_path / "extended.pt")
    torch.save(nn.Sequential(nn.Linear(583, 10)), tmp_path / "few.pt")
    return tmp_path


@pytest.mark.parametrize("name", ["script.pt", "pickled.pt", "pair.pt"])
def test_a_torch_module_plays(modules, name):
    agent = make_agent(f"torch:{modules / name}", RULES)
    greedy = play(agent)
    assert np.array_equal(greedy, play(agent))  # argmax: no randomness at all
    sampled = make_agent(f"torch:{modules / name},greedy=false", RULES)
    first = play(sampled, seed=1)
    assert np.array_equal(first, play(sampled, seed=1))
    assert not np.array_equal(first, play(agent, seed=1))


def test_a_torch_module_of_the_extended_layout_plays_its_decks(modules):
    rules = load_rules("official", deck="extension")
    play(make_agent(f"torch:{modules / 'extended.pt'}", rules), rules=rules)


@pytest.mark.parametrize(
    "name,message",
    [
        ("extended.pt", "reads observations of 877 values (the extended layout's); the rules' "
         "deck 'classic' (classic layout) has 583"),
        ("few.pt", "gives 10 logits a row; the rules' deck 'classic' (classic layout) has 77"),
        ("weights.pt", "holds a dict (a state_dict?), not a module"),
    ],
)  # fmt: skip
def test_a_torch_module_of_other_widths_is_refused_in_one_line(modules, name, message):
    with pytest.raises(AgentError) as info:
        make_agent(f"torch:{modules / name}", RULES)
    assert message in str(info.value) and "\n" not in str(info.value)


# ------------------------------------------------------------------ Stable-Baselines3 models


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """Untrained SB3 models saved on uno_rl's SB3 env: MaskablePPO, PPO and DQN on the
    classic layout, MaskablePPO on the extended one."""
    pytest.importorskip("stable_baselines3")
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO
    from stable_baselines3 import DQN, PPO

    from uno_rl.envs.sb3 import UnoSB3VecEnv

    folder = tmp_path_factory.mktemp("sb3")
    small = {"policy_kwargs": {"net_arch": [8]}, "device": "cpu", "seed": 0}
    classic = UnoSB3VecEnv(num_envs=2, opponents="random")
    extended = UnoSB3VecEnv(num_envs=2, opponents="random", deck="extension")
    MaskablePPO("MlpPolicy", classic, n_steps=8, batch_size=16, **small).save(folder / "mppo.zip")
    PPO("MlpPolicy", classic, n_steps=8, batch_size=16, **small).save(folder / "ppo.zip")
    DQN("MlpPolicy", classic, buffer_size=10, **small).save(folder / "dqn.zip")
    MaskablePPO("MlpPolicy", extended, n_steps=8, batch_size=16, **small).save(
        folder / "extended.zip"
    )
    return folder


@pytest.mark.parametrize("spec", ["mppo.zip", "mppo.zip,deterministic=true", "ppo.zip", "dqn.zip"])
def test_an_sb3_model_plays_legal_moves(models, spec):
    agent = make_agent(f"sb3:{models / spec}", RULES)
    first = play(agent, games=8, steps=60, seed=2)
    again = make_agent(f"sb3:{models / spec}", RULES)
    assert np.array_equal(first, play(again, games=8, steps=60, seed=2))


def test_an_sb3_model_is_evaluated_by_name_from_the_command_line(models, tmp_path, capsys):
    argv = ["evaluate", f"sb3:{models / 'mppo.zip'}", "random", "--rounds", "10", "--seed", "0"]
    assert uno_rl([*argv, "--no-progress", "--out", str(tmp_path / "out")]) == 0
    assert "sb3" in capsys.readouterr().out


def test_an_sb3_model_of_another_layout_is_refused_in_one_line(models, tmp_path, capsys):
    argv = ["evaluate", f"sb3:{models / 'extended.zip'}", "random", "--rounds", "10"]
    line = assert_clean_error(
        uno_rl, [*argv, "--no-progress", "--out", str(tmp_path / "out")], "877 values", capsys
    )
    assert "122 actions (the extended layout)" in line and "583 observation values" in line
    extended = load_rules("official", deck="extension")
    play(make_agent(f"sb3:{models / 'extended.zip'}", extended), extended, games=4, steps=30)


def test_an_sb3_file_that_is_no_model_is_refused_in_one_line(models, tmp_path):
    (tmp_path / "notes.zip").write_text("not a zip")
    with pytest.raises(AgentError, match=r"could not be loaded: ValueError: .*zip-file"):
        make_agent(f"sb3:{tmp_path / 'notes.zip'}", RULES)


def test_without_stable_baselines3_the_sb3_agent_says_what_to_install(
    models, tmp_path, monkeypatch
):
    copy = tmp_path / "copy.zip"  # a file not read yet: the import is tried
    shutil.copy(models / "mppo.zip", copy)
    monkeypatch.setitem(sys.modules, "stable_baselines3.common.save_util", None)
    with pytest.raises(AgentError, match=re.escape("install uno_rl[sb3]")):
        make_agent(f"sb3:{copy}", RULES)
