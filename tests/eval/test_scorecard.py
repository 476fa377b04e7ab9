"""``uno_rl scorecard AGENT``: the protocol's opponents and player counts, one quick run end
to end (in miniature: two heuristics as the zoo, no bots, a few rounds and one match a
match-up), its Markdown, JSON and CSV, the exploitability look-up, resuming, bad input and
Ctrl-C."""

from __future__ import annotations

import contextlib
import io
import json
import shutil

import pandas as pd
import pytest

from uno_rl.__main__ import main as uno_rl
from uno_rl.agents import make_agent
from uno_rl.core.rules import load_rules
from uno_rl.eval import scorecard_protocol as protocol
from uno_rl.eval import scorecard_report as report
from uno_rl.programs import scorecard as cli

#: The miniature protocol of the end-to-end run: the agent, its zoo and its sizes.
AGENT = "color-first"
ZOO = ("color-first", "rule")
TINY = protocol.Sizes(rounds=4, matches=1)


def small_protocol(patch: pytest.MonkeyPatch) -> None:
    patch.setattr(protocol, "HEURISTICS", ZOO)
    patch.setattr(protocol, "BOTS", {2: (), 4: ()})
    patch.setitem(protocol.SIZES, "quick", TINY)
    patch.setitem(protocol.SIZES, "search", TINY)


@pytest.fixture(scope="module")
def card(tmp_path_factory):
    """A finished miniature ``--quick`` scorecard of color-first: (folder, stdout, argv)."""
    out = tmp_path_factory.mktemp("scorecard") / "color-first"
    argv = [AGENT, "--quick", "--out", str(out), "--workers", "1", "--no-progress"]
    argv += ["--exploitability", str(out.parent / "exploitability.csv")]
    pd.DataFrame({
        "target": [AGENT, AGENT, AGENT], "measure": ["points_per_round"] * 2 + ["rounds_won"],
        "value": [7.3, 3.9, 0.5], "low": [6.2, 2.6, 0.4], "high": [8.4, 5.2, 0.6],
        "decisions": [20_000_000, 20_000_000, 20_000_000], "players": [2, 4, 2],
        "run": ["exploit-cf", "exploit-cf-4p", "exploit-cf"],
    }).to_csv(argv[-1], index=False)  # fmt: skip
    with pytest.MonkeyPatch.context() as patch:
        small_protocol(patch)
        text = io.StringIO()
        with contextlib.redirect_stdout(text):
            assert cli.main(argv) == 0
    return out, text.getvalue(), argv


def test_the_protocol_names_its_opponents_and_bots_by_their_player_count():
    assert protocol.PRESET == "official" and protocol.PLAYER_COUNTS == (2, 4)
    assert protocol.CONFIDENCE == 0.99 and set(protocol.SEEDS) == set(protocol.UNITS)
    assert len(protocol.HEURISTICS) == 9 and "bayes-challenger" in protocol.HEURISTICS
    assert not any(name.startswith(("pimc", "ismcts")) for p in (2, 4) for name in
                   protocol.opponents(p))  # fmt: skip
    for players, bots in protocol.BOTS.items():
        for bot in bots:  # each bot plays at the player count its checkpoint was trained for
            agent = make_agent(bot, load_rules("official", players=players))
            assert protocol.trained_players(agent) == players, bot


def test_an_agent_trained_for_2_players_gets_its_2_player_part_only():
    plan = protocol.plan_scorecard("ppo-official-2p", quick=True)
    assert plan.players == (2,) and "trained for 2 players" in plan.skipped[4]
    assert [p.name for p in plan.parts()] == ["2p-rounds", "2p-matches"]
    assert protocol.plan_scorecard("random").players == (2, 4)
    plan = protocol.plan_scorecard("random", players=[4])
    assert plan.players == (4,) and plan.skipped == {2: "left out by --players 4"}


def test_the_markdown_has_every_opponent_and_says_it_is_a_quick_run(card):
    out, printed, argv = card
    text = (out / "scorecard.md").read_text()
    assert printed.startswith(text)  # the Markdown is printed
    assert "Quick run (4 rounds and 1 match an opponent)" in text
    assert cli.command_line(argv) in text
    for players in (2, 4):
        assert f"## {players} players" in text
    assert text.count("| `rule` |") == 2
    assert text.count("| `color-first` (itself) | not played") == 2
    assert "at least 6.20 net points a round" in text and "at least 2.60" in text


def test_the_json_has_the_version_the_command_the_protocol_and_the_rows(card):
    out, _, argv = card
    data = json.loads((out / "scorecard.json").read_text())
    assert data["uno_rl"] == __import__("uno_rl").__version__
    assert data["command"] == cli.command_line(argv) and data["quick"] is True
    assert data["protocol"]["seeds"] == protocol.SEEDS
    assert data["protocol"]["sizes"] == {"rounds": 4, "matches": 1}
    assert data["exploitability"]["2"]["at_least"] == pytest.approx(6.2)
    rows = pd.DataFrame(data["rows"])
    assert len(rows) == 2 * 3  # 2 player counts x 1 opponent x 3 measures
    assert set(rows["measure"]) == set(report.MEASURES)
    assert ((rows["low"] <= rows["value"]) & (rows["value"] <= rows["high"])).all()
    assert (rows["count"] > 0).all() and set(rows["opponent"]) == {"rule"}
    csv = pd.read_csv(out / "rows.csv")
    assert list(csv.columns) == report.ROW_COLUMNS and len(csv) == len(rows)
    assert csv["quick"].all() and data["note"].startswith("Quick run")


def test_the_same_command_resumes_and_plays_only_the_missing_part(card, tmp_path, monkeypatch):
    out, _, argv = card
    copy = tmp_path / "copy"
    shutil.copytree(out, copy)
    (copy / "parts" / "2p-rounds.parquet").unlink()
    played = []
    real = protocol._play_part
    monkeypatch.setattr(protocol, "_play_part", lambda part, *a: (played.append(part.name),
                                                                  real(part, *a)))  # fmt: skip
    small_protocol(monkeypatch)
    again = [copy.as_posix() if a == str(out) else a for a in argv]
    assert cli.main(again) == 0
    assert played == ["2p-rounds"]
    assert pd.read_csv(copy / "rows.csv").equals(pd.read_csv(out / "rows.csv"))


def test_a_part_is_played_an_opponent_at_a_time_with_the_rows_of_one_call(
    tmp_path, monkeypatch, capsys
):
    """Each opponent's rows are kept as it ends (a stopped part resumes at the next
    opponent, and the interruption line says how many), and the part's table is the rows of
    one evaluator call over every opponent."""
    small_protocol(monkeypatch)
    plan = protocol.plan_scorecard("random-playable", players=[2], quick=True)
    part = plan.parts()[0]
    assert part.opponents == ZOO
    rules, label = protocol.scorecard_rules(part.players, part.unit)
    whole = protocol.evaluate_variant(
        rules, label, part.matchups(), part.games, part.seed, 1, protocol.CONFIDENCE,
        rating_rounds=0, progress=False,
    ).agents  # fmt: skip
    real, calls = protocol.evaluate_variant, []

    def second_opponent_stopped(*args, **kwargs):
        calls.append(kwargs["first_matchup"])
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(protocol, "evaluate_variant", second_opponent_stopped)
    out = tmp_path / "out"
    argv = ["random-playable", "--quick", "--players", "2", "--out", str(out), "--workers", "1",
            "--no-progress"]  # fmt: skip
    assert cli.main(argv) == 130
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("interrupted: 0 of 2 parts of the scorecard and 1 of 2 opponents")
    assert protocol.pieces_done(part, out / "parts") == 1
    assert protocol._missing(part, out / "parts") == part.matchups()[1:]  # what is estimated
    monkeypatch.setattr(
        protocol, "evaluate_variant", lambda *a, **k: (calls.append(k), real(*a, **k))[1]
    )
    assert cli.main(argv) == 0
    assert calls[2]["first_matchup"] == 1 and len(calls) == 2 + 1 + len(ZOO)
    played = pd.read_parquet(out / "parts" / "2p-rounds.parquet")
    pd.testing.assert_frame_equal(played, whole.reset_index(drop=True), check_dtype=False)
    assert not (out / "parts" / "2p-rounds").exists()


def test_other_settings_in_the_folder_are_refused_in_one_line(card, capsys, monkeypatch):
    out, _, _ = card
    small_protocol(monkeypatch)
    assert cli.main(["rule", "--quick", "--out", str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: --out") and "--fresh" in err[0]


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["no-such-agent"], "unknown agent 'no-such-agent'"),
        (["ppo-official-2p", "--players", "4"], "trained for 2 players"),
        (["color-first", "--players", "3"], "invalid choice"),
        (["color-first", "--workers", "0"], "--workers"),
        (["color-first", "--exploitability", "missing.csv"], "no such file"),
        (["pimc", "--quick", "--search"], "choose one size"),
    ],
)
def test_bad_input_is_one_error_line_and_status_2(argv, words, capsys, tmp_path):
    assert uno_rl(["scorecard", *argv, "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and words in err[0], err
    assert not (tmp_path / "out").exists()


def test_ctrl_c_is_one_line_and_status_130(tmp_path, capsys, monkeypatch):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(protocol, "evaluate_variant", interrupted)
    small_protocol(monkeypatch)
    argv = ["rule", "--quick", "--out", str(tmp_path / "out"), "--workers", "1", "--no-progress"]
    assert cli.main(argv) == 130
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        f"interrupted: 0 of 4 parts of the scorecard done in {tmp_path / 'out'}; run the same "
        "command to resume"
    ]


def test_a_search_agent_gets_the_search_sizes_and_every_output_says_so(
    tmp_path, capsys, monkeypatch
):
    """``--search``: a search agent's scorecard at the search sizes (here miniature), its
    Markdown, JSON and settings naming them; a scorecard refused as too long points to
    ``--search`` (the limit lowered here to an hour: the full sizes of ``pimc`` are days)."""
    agent = "pimc:determinizations=2,rollouts=1"
    out = tmp_path / "pimc"
    argv = [agent, "--search", "--players", "2", "--out", str(out), "--workers", "1",
            "--no-progress"]  # fmt: skip
    with pytest.MonkeyPatch.context() as patch:
        small_protocol(patch)
        assert cli.main(argv) == 0
    text = (out / "scorecard.md").read_text()
    assert "**Search sizes (4 rounds and 1 match an opponent" in text and "Quick" not in text
    data = json.loads((out / "scorecard.json").read_text())
    assert data["size"] == "search" and data["quick"] is False
    assert data["note"].startswith("Search sizes") and len(data["rows"]) == 2 * 3
    assert json.loads((out / "settings.json").read_text())["sizes"] == {"rounds": 4, "matches": 1}
    assert protocol.SIZES["search"] is protocol.SEARCH
    assert protocol.SEARCH.rounds < protocol.FULL.rounds
    capsys.readouterr()
    monkeypatch.setattr("uno_rl.eval.estimate.MAX_SECONDS", 3600)
    full = ["pimc", "--players", "2", "--out", str(tmp_path / "full"), "--no-progress"]
    assert cli.main(full) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--search" in err[0] and not (tmp_path / "full" / "parts").exists()


def test_the_exploitability_is_the_largest_budget_then_the_highest_bound():
    table = pd.DataFrame({
        "target": ["a"] * 4, "measure": ["points_per_round"] * 4, "players": [2, 2, 2, 4],
        "value": [1.0, 2.0, 3.0, 9.0], "low": [-0.5, 0.5, 1.5, 8.0], "high": [2.0, 3.0, 4.0, 10.0],
        "decisions": [10, 10, 5, 10], "run": ["r1", "r2", "r3", "r4"],
    })  # fmt: skip
    figure = report.exploitability(table, "a", 2)
    assert figure["run"] == "r2" and figure["at_least"] == 0.5
    assert report.exploitability(table, "b", 2)["status"] == "not measured"
    assert report.exploitability(None, "a", 2)["status"] == "not measured"
    assert report.exploitability(table.assign(low=-1.0), "a", 4)["at_least"] == 0.0


def test_by_default_the_table_shipped_with_uno_rl_is_read():
    """A shipped agent's scorecard has its exploitability wherever uno_rl is installed: the
    table comes with the package (``agents/exploitability.csv``)."""
    assert cli.build_parser().parse_args(["color-first"]).exploitability == cli.SHIPPED
    table = report.read_exploitability(report.shipped_exploitability())
    assert table is not None
    figure = report.exploitability(table, "ppo-official-2p-v1", 2, report.EXPLOITABILITY_TABLE)
    assert figure["status"] == "measured" and figure["at_least"] >= 0
    assert report.exploitability(table, "no-such-agent", 2)["status"] == "not measured"


def test_the_default_folder_is_named_by_the_agent():
    assert cli.default_out("color-first").as_posix() == "scorecards/color-first"
    assert cli.default_out("my.py:Agent").as_posix() == "scorecards/my.py-Agent"
