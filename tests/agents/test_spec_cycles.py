"""Agent specs that come back to themselves end in one line naming the cycle, never in a
``RecursionError``: a spec file naming itself as a search agent's rollout or model, spec files
naming each other (as strategy or as rollout), and inline specs nested without end."""

from __future__ import annotations

import pytest
from bad_input.harness import assert_clean_error

from uno_rl.agents import AgentError, make_agent
from uno_rl.agents.registry import MAX_NESTING, MAX_SPEC_CHAIN
from uno_rl.core import load_rules
from uno_rl.programs import evaluate

#: file stem -> spec file text: the agents folder of these tests.
SPEC_FILES = {
    "selfish": 'strategy = "pimc"\n[params]\nrollout = "selfish"\n',
    "modest": 'strategy = "ismcts"\n[params]\nmodel = "modest"\n',
    "ping": 'strategy = "pong"\n',
    "pong": 'strategy = "ping"\n',
    "left": 'strategy = "pimc"\n[params]\nrollout = "right"\n',
    "right": 'strategy = "ismcts"\n[params]\nrollout = "left"\n',
    "outer": 'strategy = "searcher"\n',
    "searcher": 'strategy = "pimc"\n[params]\nrollout = "outer"\n',
    "nameless": 'strategy = "nameless"\n',
    **{f"step{i}": f'strategy = "step{i + 1}"\n' for i in range(MAX_SPEC_CHAIN + 2)},
    f"step{MAX_SPEC_CHAIN + 2}": 'strategy = "rule"\n',
}

CYCLES = [
    ("selfish", "agent spec cycle: selfish -> selfish"),
    ("modest", "agent spec cycle: modest -> modest"),
    ("ping", "agent spec cycle: ping -> pong -> ping"),
    ("left", "agent spec cycle: left -> right -> left"),
    ("outer", "agent spec cycle: outer -> searcher -> outer"),
    ("pimc:rollout=selfish", "agent spec cycle: selfish -> selfish"),
    ("nameless", "agent spec cycle: nameless -> nameless (a spec file whose strategy"),
    ("step0", f"spec files name each other more than {MAX_SPEC_CHAIN} deep"),
    ("pimc:rollout=" * 2000 + "pimc", f"agents nested more than {MAX_NESTING} deep"),
    ("ismcts:model=" * 50 + "rule", f"agents nested more than {MAX_NESTING} deep"),
]


@pytest.fixture
def agents_folder(tmp_path, monkeypatch):
    for stem, text in SPEC_FILES.items():
        (tmp_path / f"{stem}.toml").write_text(text)
    monkeypatch.setenv("UNO_RL_AGENTS", str(tmp_path))
    return tmp_path


@pytest.mark.parametrize("spec,message", CYCLES, ids=[c[1][:40] for c in CYCLES])
def test_cycles_are_named(spec, message, agents_folder):
    with pytest.raises(AgentError) as info:
        make_agent(spec, load_rules("official"))
    assert message in str(info.value)
    assert len(str(info.value)) < 400  # a spec pages long is cut in the message


@pytest.mark.parametrize("spec,message", CYCLES[:3], ids=[c[0] for c in CYCLES[:3]])
def test_a_cycle_is_one_error_line(spec, message, agents_folder, capsys):
    argv = [spec, "random", "--rounds", "10", "--no-progress"]
    assert_clean_error(evaluate.main, argv, message, capsys)


def test_a_spec_file_given_by_path_that_names_itself(agents_folder):
    with pytest.raises(AgentError, match="agent spec cycle: selfish -> selfish"):
        make_agent(str(agents_folder / "selfish.toml"), load_rules("official"))


def test_agents_inside_agents_that_end_still_work(agents_folder):
    rules = load_rules("official")
    with pytest.raises(AgentError):  # a cycle leaves nothing behind: the next build is clean
        make_agent("selfish", rules)
    agent = make_agent("pimc:rollout=color-first", rules)
    assert agent.policy.name == "color-first" and agent.wary_policy is not None
    assert make_agent("ismcts:model=rule", rules).model.name == "rule"
    with pytest.raises(AgentError, match="the rollout agent cannot be a search agent"):
        make_agent("pimc:rollout=pimc", rules)  # no cycle: a search agent is refused as such
