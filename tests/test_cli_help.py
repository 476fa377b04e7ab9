"""Every subcommand's ``--help``: it exits 0, every option has a help line, every default it
shows is the default the program uses, and the shared options have the same names."""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import re

import pytest

from uno_rl.__main__ import COMMANDS
from uno_rl.__main__ import main as uno_rl

PROGRAMS = [
    name for name, (module, _, _) in COMMANDS.items() if module != "uno_rl.programs.listing"
]


def parser_of(name: str) -> argparse.ArgumentParser:
    return importlib.import_module(COMMANDS[name][0]).build_parser()


def options(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [a for a in parser._actions if not isinstance(a, argparse._HelpAction)]


def expanded_help(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    """The help line of ``action`` as ``--help`` prints it (``%(default)s`` filled in)."""
    return parser._get_formatter()._expand_help(action)


def shown_default(text: str) -> str | None:
    """The value after ``default`` in a help line (``(default 20000)`` -> ``20000``)."""
    found = re.search(r"\(default:? ([^;)]*)", text)
    return found.group(1).strip() if found else None


def as_shown(value) -> str:
    if isinstance(value, list | tuple):
        return " ".join(map(str, value))
    return str(value)


@pytest.mark.parametrize("name", PROGRAMS)
def test_help_exits_0_and_names_the_subcommand(name, capsys):
    assert uno_rl([name, "--help"]) == 0
    text = capsys.readouterr().out
    assert text.startswith(f"usage: uno_rl {name}")


@pytest.mark.parametrize("name", PROGRAMS)
def test_every_option_has_a_help_line(name):
    parser = parser_of(name)
    assert parser.prog == f"uno_rl {name}"
    for action in options(parser):
        assert action.help and action.help != argparse.SUPPRESS, (name, action.option_strings)
        assert expanded_help(parser, action).strip()


@pytest.mark.parametrize("name", PROGRAMS)
def test_every_parser_default_is_shown_as_it_is(name):
    """An option with a default (not None, not a flag, not an empty list) shows it; the value
    shown is the parser's default, the one a command line without the option runs with."""
    parser = parser_of(name)
    checked = 0
    for action in options(parser):
        default = action.default
        if default in (None, False, [], argparse.SUPPRESS) or action.nargs == 0:
            continue
        shown = shown_default(expanded_help(parser, action))
        assert shown is not None, f"uno_rl {name} {action.option_strings}: no default shown"
        assert shown.replace(",", "") == as_shown(default), (name, action.option_strings)
        checked += 1
    assert checked or name in ("replay", "average")  # no option with a default


@pytest.mark.parametrize("name", PROGRAMS)
def test_seed_has_help_where_there_is_one(name):
    for action in options(parser_of(name)):
        if "--seed" in action.option_strings:
            assert "seed" in action.help and "default" in action.help


SHARED = {
    "--preset": ["train", "evaluate", "play", "simulate"],
    "--players": ["train", "evaluate", "play", "simulate", "bench"],
    "--set": ["train", "evaluate", "play", "simulate"],
    "--seed": ["train", "evaluate", "play", "simulate", "bench"],
    "--rounds": ["evaluate", "simulate"],
    "--workers": ["train", "evaluate", "experiment"],
    "--out": ["evaluate"],
    "--no-progress": ["train", "evaluate", "experiment", "simulate"],
}


@pytest.mark.parametrize("flag", SHARED)
def test_shared_options_have_the_same_name_everywhere(flag):
    for name in SHARED[flag]:
        flags = {s for a in options(parser_of(name)) for s in a.option_strings}
        assert flag in flags, (name, flag)


@pytest.mark.parametrize("old", ["--rule", "--switches"])
def test_the_old_names_of_rule_switches_are_gone(old):
    for name in PROGRAMS:
        flags = {s for a in options(parser_of(name)) for s in a.option_strings}
        assert old not in flags, name


def test_set_is_repeatable_everywhere():
    for name in SHARED["--set"]:
        (action,) = [a for a in options(parser_of(name)) if "--set" in a.option_strings]
        assert isinstance(action, argparse._AppendAction), name
        assert action.metavar == "KEY=VALUE", name


# ------------------------------------------------------------------------------------ train
def test_train_shows_the_quick_start_config_it_runs_with():
    """Each config field's default shown, read back as the command line reads it, is the value
    of the config a run without --config uses (the quick-start config, not the dataclass)."""
    from uno_rl.ppo.config import TrainConfig, _kind, _parse_cli_value, load_train_config
    from uno_rl.programs import train

    parser = train.build_parser()
    args = parser.parse_args([])
    assert args.config is None  # so the run uses QUICKSTART
    used = load_train_config(train.QUICKSTART, {})
    by_dest = {a.dest: a for a in options(parser)}
    for f in dataclasses.fields(TrainConfig):
        action = by_dest[f.name]
        assert getattr(args, f.name) is None  # nothing overrides the file unless given
        shown = shown_default(expanded_help(parser, action))
        assert shown is not None, f.name
        if f.name == "switches":
            assert shown == "none" and used.switches == {}
            continue
        value = "" if shown == "''" else shown
        if _kind(f) is list and value == "":
            assert getattr(used, f.name) == [], f.name
            continue
        assert _parse_cli_value(f.name, value, _kind(f)) == getattr(used, f.name), f.name
    # the case that was wrong: the dataclass says 3,000,000, the quick start runs 6,000,000
    text = expanded_help(parser, by_dest["total_decisions"])
    assert shown_default(text) == str(used.total_decisions) == "6000000"


def test_train_set_example_in_help_works():
    from uno_rl.ppo.config import load_train_config
    from uno_rl.programs import train

    parser = train.build_parser()
    args = parser.parse_args(["--set", "stacking=any", "--set", "match=true"])
    config = load_train_config(train.QUICKSTART, {"switches": args.switches})
    assert config.switches == {"stacking": "any", "match": True}
    train.training_rules(config)  # the rules accept them


def test_train_set_adds_to_the_config_files_switches(tmp_path):
    from uno_rl.ppo.config import load_train_config

    path = tmp_path / "c.toml"
    path.write_text("switches = {stacking = 'any', max_turns = 100}\n")
    config = load_train_config(path, {"switches": ["max_turns=50", "jump_in=true"]})
    assert config.switches == {"stacking": "any", "max_turns": 50, "jump_in": True}


def test_train_init_from_takes_an_agent_name_or_a_path(tmp_path):
    from uno_rl.ppo.config import TrainConfigError
    from uno_rl.ppo.runs import init_from_path

    by_name = init_from_path("ppo-official-2p")
    assert by_name.is_file() and by_name.suffix == ".pt"
    assert init_from_path(str(by_name)) == by_name
    assert init_from_path(f"ppo:checkpoint={by_name}") == by_name
    for bad in ("color-first", "no-such-agent"):
        with pytest.raises(TrainConfigError, match="neither a checkpoint file nor an agent"):
            init_from_path(bad)


def test_train_init_from_an_agent_name_loads_its_weights():
    import torch

    from uno_rl.ppo.config import load_train_config
    from uno_rl.ppo.network import PolicyNetwork, feature_columns, input_scale
    from uno_rl.ppo.runs import init_from_path, initial_weights

    start = torch.load(init_from_path("ppo-official-2p"), weights_only=False)
    spec = start["network"]
    config = load_train_config(
        None,
        {"init_from": "ppo-official-2p", "hidden": ",".join(map(str, spec["hidden"])),
         "features": ",".join(spec["features"])},
    )  # fmt: skip
    network = PolicyNetwork(
        len(feature_columns(config.features)), config.hidden, input_scale(config.features)
    )
    initial_weights(config, network)
    loaded = {k: v for k, v in network.state_dict().items()}
    for key, value in start["model"].items():
        assert torch.equal(loaded[key], value), key


# ------------------------------------------------------------------------------------ bench
class _Captured(Exception):
    pass


def test_bench_defaults_shown_are_used(monkeypatch):
    """bench's --repeats, --seconds, --evaluate-rounds and --train-decisions are None in the
    parser and filled in by main: what main fills in is what --help shows."""
    from uno_rl.programs.bench import command as bench

    seen = {}

    def fake(
        rows,
        players,
        batch,
        seconds,
        repeats,
        seed,
        evaluate_rounds,
        train_decisions,
        decks,
        **_keywords,
    ):
        seen.update(seconds=seconds, repeats=repeats, evaluate_rounds=evaluate_rounds,
                    train_decisions=train_decisions)  # fmt: skip
        raise _Captured

    monkeypatch.setattr(bench, "run_bench", fake)
    monkeypatch.setattr(bench, "check_setup", lambda *a: None)
    with pytest.raises(_Captured):
        bench.main([])
    parser = bench.build_parser()
    for dest in ("seconds", "repeats", "evaluate_rounds", "train_decisions"):
        (action,) = [a for a in options(parser) if a.dest == dest]
        shown = shown_default(expanded_help(parser, action)).split(",")[0]
        assert float(shown) == seen[dest], dest


# --------------------------------------------------------------------------------- evaluate
def test_evaluate_rounds_default_shown_is_used(monkeypatch):
    from uno_rl.eval import run
    from uno_rl.programs import evaluate as program

    seen = {}

    def fake(rules, label, matchups, rounds, *args, **kwargs):
        seen["rounds"] = rounds
        raise _Captured

    monkeypatch.setattr(run, "evaluate_variant", fake)
    with pytest.raises(_Captured):
        run.evaluate(["color-first", "random-playable"], progress=False, workers=1)
    parser = program.build_parser()
    (action,) = [a for a in options(parser) if a.dest == "rounds"]
    assert shown_default(expanded_help(parser, action)) == str(seen["rounds"])


def test_every_program_reads_set_with_the_one_parser(monkeypatch):
    # simulate, evaluate and play read --set through uno_rl.programs.rules_options, train
    # through its config; both with uno_rl.plumbing.cli.parse_switches (parse_switch each)
    import uno_rl.plumbing.cli as cli
    from uno_rl.ppo import config
    from uno_rl.programs import evaluate, play, rules_options, simulate

    seen = []
    real = cli.parse_switch

    def spy(text):
        seen.append(text)
        return real(text)

    monkeypatch.setattr(cli, "parse_switch", spy)
    programs = {simulate: [], evaluate: ["rule", "random-playable"], play: []}
    for program, positional in programs.items():
        args = program.build_parser().parse_args([*positional, "--set", "stacking=any"])
        assert rules_options.rules_from_args(args, program.RULES_OPTIONS).stacking == "any"
        assert not hasattr(program, "parse_switch")
    play.resolve_rules("official", None, ["stacking=any"])
    config.parse_switches(["stacking=any"])
    assert seen == ["stacking=any"] * 5
    assert not hasattr(__import__("uno_rl.eval.run").eval.run, "parse_switch")
