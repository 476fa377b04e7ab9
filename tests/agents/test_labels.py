"""Short labels of agent specs: the name, then only what tells the agents shown together
apart; distinct, short, the same for any order of the specs."""

from __future__ import annotations

import itertools

import pytest

from uno_rl.agents.labels import MAX_LABEL, agent_label, agent_labels, bare_name, checkpoint_name
from uno_rl.envs.opponents import short_name

RUN = "runs/official-2p/11111111-111111/policy.pt"


def check(labels: dict[str, str]) -> dict[str, str]:
    """``labels`` after checking what every call promises: distinct, at most MAX_LABEL
    characters, the same for the specs in any order."""
    assert len(set(labels.values())) == len(labels), labels
    assert all(len(label) <= MAX_LABEL for label in labels.values()), labels
    for order in itertools.islice(itertools.permutations(labels), 24):
        assert agent_labels(order) == labels
    return labels


@pytest.mark.parametrize(
    ("spec", "label"),
    [
        ("color-first", "color-first"),
        ("color-first:bluff=1", "color-first"),  # alone, its parameters tell nothing apart
        ("ppo-official-2p", "ppo-official-2p"),
        ("bots/cautious.toml:challenge=bayes", "cautious"),
        (f"ppo:checkpoint={RUN}", "ppo:official-2p"),  # a run's policy: the run's name
        ("ppo:checkpoint=runs/official-2p/11111111-111111/checkpoint.pt", "ppo:official-2p"),
        ("ppo:checkpoint=runs/a/best.pt,greedy=true", "ppo:best"),
        ("ppo:checkpoint=policy.pt", "ppo:policy"),
        ("pimc:determinizations=4,rollouts=1", "pimc"),
        ("not a spec:at all", "not a spec:at all"),  # no key=value: shown as written
    ],
)
def test_a_spec_alone_is_shown_by_its_name(spec, label):
    assert agent_label(spec) == label


def test_parameters_are_kept_where_they_tell_agents_apart():
    labels = check(agent_labels(["color-first:bluff=1", "color-first"]))
    assert labels == {"color-first:bluff=1": "color-first:bluff=1", "color-first": "color-first"}
    # only the parameter that differs: the shared ones stay in the spec
    shared = "color-first:challenge_hand=0.7,challenge_color=0.3,bluff="
    labels = check(agent_labels([shared + "0.25", shared + "0.5", "rule"]))
    assert labels == {shared + "0.25": "color-first:bluff=0.25",
                      shared + "0.5": "color-first:bluff=0.5", "rule": "rule"}  # fmt: skip


def test_checkpoints_are_told_apart_by_the_folders_they_differ_in():
    other = "runs/official-2p/22222222-222222/policy.pt"
    beside = "runs/official-2p/22222222-222222/checkpoint.pt"
    specs = [f"ppo:checkpoint={p}" for p in (RUN, other, beside)]
    labels = check(agent_labels(specs))
    assert labels[specs[0]].endswith("111-111111")  # its run's timestamp
    assert labels[specs[1]].endswith("/policy") and labels[specs[2]].endswith("checkpoint")
    assert all(label.startswith("ppo:official-") for label in labels.values())
    two = check(agent_labels(["ppo:checkpoint=/a/x/best.pt", "ppo:checkpoint=runs/x/best.pt"]))
    assert sorted(two.values()) == ["ppo:a/best", "ppo:runs/best"]
    # the same checkpoint with other parameters: the parameter
    greedy = check(agent_labels([f"ppo:checkpoint={RUN},greedy=true", f"ppo:checkpoint={RUN}"]))
    assert sorted(greedy.values()) == ["ppo:official-2p", "ppo:official-2p:greedy=true"]


def test_long_labels_are_cut_and_coinciding_ones_get_a_suffix():
    long = "color-first:bluff=" + "9" * 60
    labels = check(agent_labels([long, long[:-1] + "8", "color-first"]))
    assert labels[long].startswith("color-first:") and ".." in labels[long]
    assert labels[long].endswith("99") and labels[long[:-1] + "8"].endswith("98")
    # nothing tells them apart but the spec itself: a suffix of it
    same = check(agent_labels(["rule", " rule", "bots/rule.toml"]))
    assert all(label.startswith("rule~") for label in same.values())
    # a cut that makes two labels equal is told apart the same way
    cut = check(agent_labels(["x" * 40 + "a" + "y" * 20, "x" * 40 + "b" + "y" * 20]))
    assert all("~" in label for label in cut.values())


def test_hostile_text_is_labelled_without_failing():
    names = ["\x1b]0;pwned\x07", "bot\r\nseat 9 (fake) wins", "\ud800", "", "human"]
    labels = check(agent_labels(names))
    assert labels["human"] == "human" and labels["\x1b]0;pwned\x07"] == "\x1b]0;pwned\x07"


def test_the_bare_name_is_the_first_step_and_the_envs_short_name():
    assert checkpoint_name(RUN) == "official-2p"
    assert checkpoint_name("runs/x/policy.pt") == "x" and checkpoint_name("a/best.pt") == "best"
    for spec, name in [(f"ppo:checkpoint={RUN}", "official-2p"), ("color-first:bluff=1",
                       "color-first"), ("bots/cautious.toml", "cautious"), ("a:b c", "a"),
                      ("bots/mine.py:Bot:x=1", "mine.py:Bot"), ("mypkg.bots:Bot", "mypkg.bots:Bot"),
                      ("sb3:models/uno.zip", "sb3")]:  # fmt: skip
        assert bare_name(spec) == short_name(spec) == name
