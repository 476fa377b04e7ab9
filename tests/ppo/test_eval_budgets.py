"""The evaluations of a training run: sized by the run (``auto``: a share of its decisions,
capped), rounds and matches counted by fields of their own, said before the run starts, each
shown by the evaluator's progress bar; a config written before the matches had fields of their
own resumes as it started."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
from bad_input.harness import assert_clean_error
from test_resume import lost_and_doubled, rows

from uno_rl.core import load_rules
from uno_rl.ppo.config import (
    MAX_EVAL_MATCHES,
    MAX_EVAL_ROUNDS,
    TrainConfig,
    TrainConfigError,
    load_train_config,
    option_name,
)
from uno_rl.ppo.plan import evaluation_line
from uno_rl.ppo.runs import read_run_config
from uno_rl.programs import train

FIELDS = {
    "num_games": "32", "rollout_steps": "16", "total_decisions": "3072", "hidden": "32",
    "minibatch_size": "128", "update_epochs": "1", "checkpoint_every": "2",
    "torch_threads": "1", "zoo": "random-playable", "pool_size": "2", "snapshot_every": "2",
    "tensorboard": "false",
}  # fmt: skip
#: 6 updates of 512 decisions, on the command line.
TINY = [text for name, value in FIELDS.items() for text in (option_name(name), value)]
#: Short matches, so that a tiny run plays a few whole ones.
MATCH = ["--set", "match=true", "--set", "match_target=100", "--set", "reward=points"]
SIZES = ("eval_rounds", "eval_matches", "final_eval_rounds", "final_eval_matches")


def sizes(config: TrainConfig) -> dict[str, int]:
    """Each evaluation size field as the run resolves it."""
    return {
        config.eval_size(final, match)[0]: config.eval_size(final, match)[1]
        for final in (False, True)
        for match in (False, True)
    }


def run_dir(runs: Path, name: str) -> Path:
    (folder,) = (runs / name).iterdir()
    return folder


# ----------------------------------------------------------------------- the rule
def test_auto_sizes_are_a_share_of_the_decisions_capped_at_the_long_runs_sizes():
    assert sizes(TrainConfig(total_decisions=300_000)) == {
        "eval_rounds": 300, "eval_matches": 3, "final_eval_rounds": 3_000,
        "final_eval_matches": 30,
    }  # fmt: skip
    assert sizes(TrainConfig(total_decisions=6_000_000)) == {
        "eval_rounds": 2_000, "eval_matches": 60, "final_eval_rounds": 20_000,
        "final_eval_matches": 600,
    }  # fmt: skip
    long = {"eval_rounds": 2_000, "eval_matches": 2_000, "final_eval_rounds": 20_000,
            "final_eval_matches": 20_000}  # fmt: skip
    assert sizes(TrainConfig(total_decisions=200_000_000)) == long
    assert sizes(TrainConfig(total_decisions=10**12)) == long
    assert sizes(TrainConfig(total_decisions=1)) == dict.fromkeys(SIZES, 2)  # the least
    explicit = TrainConfig(eval_rounds=7, eval_matches=5, final_eval_rounds=0,
                           final_eval_matches=9)  # fmt: skip
    assert sizes(explicit) == {"eval_rounds": 7, "eval_matches": 5, "final_eval_rounds": 0,
                               "final_eval_matches": 9}  # fmt: skip


def test_every_size_field_documents_its_auto_rule():
    """The docs site's config table is generated from these docs: each says its unit, when it
    applies and its rule, and the rule it states is the one applied."""
    import dataclasses

    fields = {f.name: f for f in dataclasses.fields(TrainConfig)}
    for name in SIZES:
        doc, (divisor, cap) = fields[name].metadata["doc"], fields[name].metadata["auto"]
        unit = "matches" if "matches" in name else "rounds"
        assert f"{'whole matches' if unit == 'matches' else 'single rounds'} per eval agent" in doc
        assert f"auto: total_decisions / {divisor:,}, between 2 and {cap:,}" in doc, name
        assert ("match = true" in doc) == (unit == "matches"), name
        assert ("0: skip" in doc) == name.startswith("final_"), name
        assert TrainConfig().eval_size(name.startswith("final_"), unit == "matches") == (
            name,
            min(cap, TrainConfig().total_decisions // divisor),
        )


def test_the_evaluators_limits_bound_the_sizes():
    from uno_rl.eval.run import MAX_MATCHES, MAX_ROUNDS

    assert (MAX_EVAL_ROUNDS, MAX_EVAL_MATCHES) == (MAX_ROUNDS, MAX_MATCHES)


def test_the_command_line_and_files_take_auto_or_a_number(tmp_path):
    config = load_train_config(None, {"eval_rounds": "auto", "final_eval_matches": "40"})
    assert (config.eval_rounds, config.final_eval_matches) == ("auto", 40)
    path = tmp_path / "c.toml"
    path.write_text('eval_matches = 12\nfinal_eval_rounds = "auto"\n')
    config = load_train_config(path)
    assert (config.eval_matches, config.final_eval_rounds) == (12, "auto")
    with pytest.raises(TrainConfigError, match="eval_matches: must be int or 'auto', got 'x'"):
        TrainConfig(eval_matches="x")


# --------------------------------------------------------------- shipped recipes
def test_the_quick_start_evaluates_as_it_did_and_a_short_run_briefly():
    quick = load_train_config(train.QUICKSTART)
    assert quick.total_decisions == 6_000_000
    assert [quick.eval_size(False, False), quick.eval_size(True, False)] == [
        ("eval_rounds", 2_000), ("final_eval_rounds", 20_000)]  # fmt: skip
    short = load_train_config(train.QUICKSTART, {"total_decisions": "300000",
                                                 "switches": ["match=true", "reward=points"]})  # fmt: skip
    assert short.eval_size(False, True) == ("eval_matches", 3)
    assert short.eval_size(True, True) == ("final_eval_matches", 30)


def test_shipped_recipes_size_evaluations_in_the_unit_their_rules_play():
    """A size set in a recipe is of the unit its rules play (a match recipe that skipped its
    final evaluation with final_eval_rounds = 0 skips it with final_eval_matches = 0)."""
    paths = sorted(Path(train.QUICKSTART).parent.glob("train-*.toml"))
    assert len(paths) >= 6
    for path in paths:
        if "\n[distill]" in path.read_text():  # a uno_rl distill recipe: its own test
            continue
        config = load_train_config(path)
        match = load_rules(config.preset, players=config.players, **config.switches).match
        table = tomllib.loads(path.read_text())
        other = "rounds" if match else "matches"
        for name in SIZES:
            if name.endswith(other):
                assert table.get(name, "auto") == "auto", (path.name, name)
        if match and config.eval_every == 0:
            assert config.eval_size(True, True)[1] == 0, path.name  # as before: none


# -------------------------------------------------------------------- the plan
def test_the_plan_says_how_big_the_evaluations_are():
    short = load_train_config(train.QUICKSTART, {"total_decisions": "300000",
                                                 "switches": ["match=true", "reward=points"]})  # fmt: skip
    assert evaluation_line(short, True) == (
        "evaluating against random-playable, color-first: 3 matches each after the last "
        "update (eval_matches auto); 30 matches each at the end (final_eval_matches auto)"
    )
    quick = load_train_config(train.QUICKSTART)
    assert evaluation_line(quick, False) == (
        "evaluating against random-playable, color-first: 2,000 rounds each every 25 updates "
        "and after the last (4 evaluations) (eval_rounds auto); 20,000 rounds each at the end "
        "(final_eval_rounds auto)"
    )
    recipe = load_train_config(train.QUICKSTART.parent / "train-official-2p-more.toml")
    assert evaluation_line(recipe, False) == (
        "evaluating against color-first, aggressive: 4,000 rounds each every 100 updates and "
        "after the last (10 evaluations) (eval_rounds); no final evaluation "
        "(final_eval_rounds = 0)"
    )
    # A single-round recipe played in matches: its rounds sizes are named, unused.
    rounds_recipe = train.QUICKSTART.parent / "train-official-2p.toml"
    as_matches = load_train_config(rounds_recipe, {"switches": ["match=true"], "eval_every": "0"})
    assert evaluation_line(as_matches, True).endswith(
        "no periodic evaluation (eval_every = 0); 6,000 matches each at the end "
        "(final_eval_matches auto) (final_eval_rounds = 20000: for single rounds, unused: "
        "these rules play matches)"
    )
    exact = TrainConfig(total_decisions=4 * 65_536, eval_every=2, final_eval_rounds=0)
    assert evaluation_line(exact, False).endswith(
        "every 2 updates (2 evaluations) (eval_rounds auto); no final evaluation "
        "(final_eval_rounds = 0)"
    )


def test_a_run_says_how_big_its_evaluations_are_before_it_trains(tmp_path, capsys):
    args = [*TINY, *MATCH, "--eval-every", "4", "--final-eval-matches", "0", "--no-progress"]
    assert train.main([*args, "--runs-dir", str(tmp_path), "--name", "m"]) == 0
    lines = capsys.readouterr().out.splitlines()
    plan = lines.index(
        "evaluating against random-playable, color-first: 2 matches each every 4 updates and "
        "after the last (2 evaluations) (eval_matches auto); no final evaluation "
        "(final_eval_matches = 0)"
    )
    assert lines[plan - 1].startswith("training 6 updates of 512 decisions")
    assert plan < next(i for i, line in enumerate(lines) if "decisions in 6 updates," in line)


# -------------------------------------------------------------------- progress
def test_every_evaluation_shows_a_named_progress_bar_unless_no_progress(tmp_path, capsys):
    args = [*TINY, "--eval-every", "3", "--eval-rounds", "12", "--final-eval-rounds", "16"]
    assert train.main([*args, "--runs-dir", str(tmp_path / "a"), "--name", "p"]) == 0
    err = capsys.readouterr().err
    for what in ("evaluation at update 3", "evaluation at update 6"):
        for opponent in ("random-playable", "color-first"):
            assert f"{what}: 12 rounds vs {opponent}" in err, (what, opponent)
    for opponent in ("random-playable", "color-first"):
        assert f"final evaluation: 16 rounds vs {opponent}" in err, opponent
    assert train.main([*args, "--no-progress", "--runs-dir", str(tmp_path / "b"),
                       "--name", "p"]) == 0  # fmt: skip
    assert "evaluation" not in capsys.readouterr().err


def test_a_match_runs_evaluations_count_matches(tmp_path, capsys):
    args = [*TINY, *MATCH, "--eval-every", "6", "--eval-matches", "4",
            "--final-eval-matches", "6", "--eval-agents", "color-first"]  # fmt: skip
    assert train.main([*args, "--runs-dir", str(tmp_path), "--name", "m"]) == 0
    captured = capsys.readouterr()
    assert "evaluation at update 6: 4 matches vs color-first" in captured.err
    assert "final evaluation: 6 matches vs color-first" in captured.err
    assert "Final evaluation (6 duplicate-deal matches per opponent" in captured.out


# ----------------------------------------------------------------------- bad values
BAD = [
    (["--eval-matches", "1"], "--eval-matches: must be in [2, 10000000], got 1"),
    (["--eval-matches", "10000001"], "--eval-matches: must be in [2, 10000000]"),
    (["--final-eval-matches", "-1"], "--final-eval-matches: must be in [0, 10000000], got -1"),
    (["--final-eval-rounds", "200000000"], "--final-eval-rounds: must be in [0, 100000000]"),
    (["--eval-rounds", "many"], "--eval-rounds: cannot read 'many' as int or 'auto'"),
    (["--eval-matches", "2.5"], "--eval-matches: cannot read '2.5' as int or 'auto'"),
    (["--final-eval-matches", "nan"], "--final-eval-matches: cannot read 'nan' as int or 'auto'"),
    (["--final-eval-rounds", "Auto"], "--final-eval-rounds: cannot read 'Auto' as int or 'auto'"),
    (["--eval-every", "0", "--eval-agents", ""],
     "eval_agents: name at least one agent for the final evaluation (final_eval_rounds = 0: none)"),
    ([*MATCH, "--eval-every", "0", "--final-eval-rounds", "0", "--eval-agents", ""],
     "eval_agents: name at least one agent for the final evaluation (final_eval_matches = 0"),
]  # fmt: skip


@pytest.mark.parametrize("argv,message", BAD, ids=[" ".join(a)[:50] for a, _ in BAD])
def test_bad_sizes_fail_cleanly_naming_the_option(tmp_path, capsys, argv, message):
    runs = tmp_path / "runs"
    assert_clean_error(train.main, [*TINY, *argv, "--runs-dir", str(runs)], message, capsys)
    assert not runs.exists()


TOML = [
    ('eval_matches = "lots"\n', "eval_matches: must be int or 'auto', got 'lots'"),
    ("final_eval_rounds = true\n", "final_eval_rounds: must be int or 'auto', got True"),
    ("eval_rounds = 2.5\n", "eval_rounds: must be int or 'auto', got 2.5"),
    ("final_eval_matches = 1e400\n", "final_eval_matches: must be int or 'auto', got inf"),
]


@pytest.mark.parametrize("text,message", TOML)
def test_bad_sizes_in_a_file_name_the_file_and_field(tmp_path, capsys, text, message):
    path = tmp_path / "c.toml"
    path.write_text(text)
    runs = tmp_path / "runs"
    line = assert_clean_error(
        train.main, ["--config", str(path), "--runs-dir", str(runs)], message, capsys
    )
    assert str(path) in line
    assert not runs.exists()


def test_without_eval_agents_a_run_without_evaluations_starts(tmp_path):
    args = [*TINY, "--eval-every", "0", "--final-eval-rounds", "0", "--eval-agents", "",
            "--no-progress", "--total-decisions", "512"]  # fmt: skip
    assert train.main([*args, "--runs-dir", str(tmp_path), "--name", "none"]) == 0
    assert not (run_dir(tmp_path, "none") / "final_eval").exists()


# ---------------------------------------------------------------- older configs
def old_config(**fields) -> dict:
    """A config as a version before ``eval_matches`` wrote it: every field of the time, its
    evaluation sizes counting matches under match rules."""
    table = {**TrainConfig().to_dict(), "eval_rounds": 2000, "final_eval_rounds": 20000}
    del table["eval_matches"], table["final_eval_matches"]
    return {**table, **fields}


def test_an_older_match_runs_sizes_move_to_the_matches_fields(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    matches = old_config(switches={"match": True}, eval_rounds=40, final_eval_rounds=60)
    (run / "config.json").write_text(json.dumps(matches))
    config = read_run_config(run)
    assert (config.eval_matches, config.final_eval_matches) == (40, 60)
    assert (config.eval_rounds, config.final_eval_rounds) == ("auto", "auto")
    assert sizes(config)["eval_matches"] == 40 and sizes(config)["final_eval_matches"] == 60
    # The kids preset plays matches of itself.
    kids = old_config(preset="kids", eval_rounds=8, final_eval_rounds=0)
    (run / "config.json").write_text(json.dumps(kids))
    config = read_run_config(run)
    assert (config.eval_matches, config.final_eval_matches) == (8, 0)
    # Single rounds: the sizes were rounds, and stay where they are.
    rounds = old_config(eval_rounds=40, final_eval_rounds=0)
    (run / "config.json").write_text(json.dumps(rounds))
    config = read_run_config(run)
    assert (config.eval_rounds, config.final_eval_rounds) == (40, 0)
    assert (config.eval_matches, config.final_eval_matches) == ("auto", "auto")
    # Today's config is read as written.
    today = {**TrainConfig().to_dict(), "switches": {"match": True}, "eval_rounds": 40}
    (run / "config.json").write_text(json.dumps(today))
    config = read_run_config(run)
    assert (config.eval_rounds, config.eval_matches) == (40, "auto")


def test_an_older_match_run_killed_and_resumed_evaluates_as_it_started(tmp_path, capsys):
    """A match run whose config.json counted its matches in eval_rounds and
    final_eval_rounds, killed after a checkpoint, resumes, evaluates 4 matches periodically and
    6 at the end, and logs the rows of a run of today's config nobody killed."""

    class Killed(Exception):
        pass

    def kill(update, source):
        if update == 4:
            raise Killed

    config = load_train_config(None, {
        **FIELDS, "switches": MATCH[1::2], "eval_every": "2", "eval_agents": "color-first",
        "eval_matches": "4", "final_eval_matches": "6",
    })  # fmt: skip
    straight = tmp_path / "straight"
    train.train(config, straight, progress=False)
    killed = tmp_path / "killed"
    with pytest.raises(Killed):
        train.train(config, killed, progress=False, on_rollout=kill)
    old = old_config(**{**config.to_dict(), "eval_rounds": 4, "final_eval_rounds": 6})
    del old["eval_matches"], old["final_eval_matches"]
    (killed / "config.json").write_text(json.dumps(old))
    assert train.main(["--resume", str(killed), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "resuming" in out and "Final evaluation (6 duplicate-deal matches per opponent" in out
    expected, got = rows(straight), rows(killed)
    assert lost_and_doubled(expected, got) == (0, 0)
    assert got == expected  # the evaluations after the resume played 4 matches, as before
