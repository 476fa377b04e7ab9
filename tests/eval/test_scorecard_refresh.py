"""``uno_rl scorecard AGENT --out DIR --refresh OPPONENT``: only the match-ups against the
opponent are played again, with the rows a whole scorecard gives them; every other row, the
command and the files' form are kept; bad input and Ctrl-C change nothing (in miniature, as
``test_scorecard``)."""

from __future__ import annotations

import json
import shutil

import pandas as pd
import pytest
from test_scorecard import ZOO, small_protocol

from uno_rl.eval import scorecard_protocol as protocol
from uno_rl.eval import scorecard_refresh as refresh
from uno_rl.programs import scorecard as cli

AGENT = "random-playable"
#: The opponent refreshed: the second of the miniature zoo.
CHANGED = ZOO[1]


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """A finished miniature 2-player scorecard of random-playable against the zoo: (folder,
    argv)."""
    out = tmp_path_factory.mktemp("refresh") / AGENT
    argv = [AGENT, "--quick", "--players", "2", "--out", str(out), "--workers", "1",
            "--no-progress"]  # fmt: skip
    with pytest.MonkeyPatch.context() as patch:
        small_protocol(patch)
        assert cli.main(argv) == 0
    return out, argv


def copied(finished, tmp_path):
    out, argv = finished
    copy = tmp_path / "copy"
    shutil.copytree(out, copy, ignore=shutil.ignore_patterns("parts", "settings.json"))
    return copy, [copy.as_posix() if a == str(out) else a for a in argv]


def test_only_the_opponent_is_played_again_with_the_rows_of_the_whole_scorecard(
    finished, tmp_path, monkeypatch, capsys
):
    out, _ = finished
    copy, argv = copied(finished, tmp_path)
    original = pd.read_csv(out / "rows.csv")
    stale = original.copy()
    changed = stale["opponent"] == CHANGED
    stale.loc[changed, ["value", "low", "high"]] = 0.0  # what the old opponent gave
    stale.loc[~changed, "value"] = 0.123  # the others: kept as they are, not played again
    stale.to_csv(copy / "rows.csv", index=False)
    small_protocol(monkeypatch)
    real, calls = refresh.evaluate_variant, []
    monkeypatch.setattr(
        refresh, "evaluate_variant", lambda *a, **k: (calls.append((a[2], k)), real(*a, **k))[1]
    )
    capsys.readouterr()
    assert cli.main([*argv, "--refresh", CHANGED]) == 0
    assert [(m[0].lineup, k["first_matchup"]) for m, k in calls] == [((AGENT, CHANGED), 1)] * 2
    rows = pd.read_csv(copy / "rows.csv")
    pd.testing.assert_frame_equal(rows[changed], original[changed])
    pd.testing.assert_frame_equal(rows[~changed], stale[~changed])
    data = json.loads((copy / "scorecard.json").read_text())
    assert data["command"] == json.loads((out / "scorecard.json").read_text())["command"]
    assert "--refresh" not in data["command"] and data["size"] == "quick"
    assert pd.DataFrame(data["rows"])["opponent"].tolist() == rows["opponent"].tolist()
    text = (copy / "scorecard.md").read_text()
    line = {o: [x for x in text.splitlines() if x.startswith(f"| `{o}`")] for o in ZOO}
    was = [x for x in (out / "scorecard.md").read_text().splitlines() if x.startswith("| `rule`")]
    assert line[CHANGED] == was and "12.3%" in line[ZOO[0]][0]
    assert capsys.readouterr().out.startswith(text)


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (["--refresh", "random"], "--refresh random: not an opponent of this scorecard"),
        (["--refresh", CHANGED, "--fresh"], "--refresh and --fresh: choose one"),
        (["--refresh", CHANGED, "--search"], "holds a scorecard of other settings (size"),
    ],
)
def test_bad_input_is_one_line_and_changes_nothing(
    finished, tmp_path, monkeypatch, capsys, extra, words
):
    copy, argv = copied(finished, tmp_path)
    before = {p.name: p.read_bytes() for p in copy.iterdir()}
    small_protocol(monkeypatch)
    capsys.readouterr()
    argv = [a for a in argv if a != "--quick" or "--search" not in extra]
    assert cli.main([*argv, *extra]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and words in err[0], err
    assert {p.name: p.read_bytes() for p in copy.iterdir()} == before


def test_a_folder_without_a_finished_scorecard_is_refused(tmp_path, monkeypatch, capsys):
    small_protocol(monkeypatch)
    argv = [AGENT, "--quick", "--players", "2", "--out", str(tmp_path / "none"),
            "--refresh", CHANGED, "--no-progress"]  # fmt: skip
    assert cli.main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "holds no finished scorecard" in err[0]


def test_ctrl_c_is_one_line_and_leaves_the_scorecard_as_it_was(
    finished, tmp_path, monkeypatch, capsys
):
    copy, argv = copied(finished, tmp_path)
    before = {p.name: p.read_bytes() for p in copy.iterdir()}

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    small_protocol(monkeypatch)
    monkeypatch.setattr(refresh, "evaluate_variant", interrupted)
    capsys.readouterr()
    assert cli.main([*argv, "--refresh", CHANGED]) == 130
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"interrupted: the scorecard in {copy} is unchanged; run the same command again"]
    assert {p.name: p.read_bytes() for p in copy.iterdir()} == before


def test_an_opponent_the_protocol_added_since_gets_the_rows_of_a_whole_scorecard(
    finished, tmp_path, monkeypatch, capsys
):
    """A bot shipped after the scorecard was played: ``--refresh`` plays it at the index it
    has in a whole scorecard of the new protocol and puts its rows where that one has them."""
    copy, argv = copied(finished, tmp_path)
    small_protocol(monkeypatch)
    monkeypatch.setattr(protocol, "BOTS", {2: ("random",), 4: ()})
    capsys.readouterr()
    assert cli.main([*argv, "--refresh", CHANGED]) == 2  # the new opponent must be named
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "the protocol now also plays random" in err[0], err
    assert cli.main([*argv, "--refresh", "random"]) == 0
    whole = tmp_path / "whole"
    assert cli.main([a if a != copy.as_posix() else whole.as_posix() for a in argv]) == 0
    rows, expected = pd.read_csv(copy / "rows.csv"), pd.read_csv(whole / "rows.csv")
    # its rounds rows after the others' rounds rows, its matches row last
    assert rows["opponent"].tolist() == [*[o for o in ZOO for _ in "ab"], "random", "random",
                                         *ZOO, "random"]  # fmt: skip
    pd.testing.assert_frame_equal(rows, expected)
    data = json.loads((copy / "scorecard.json").read_text())
    assert data["protocol"]["opponents"]["2"] == [*ZOO, "random"]
    assert "--refresh" not in data["command"]


def test_rows_the_protocol_does_not_play_are_one_line(finished, tmp_path, monkeypatch, capsys):
    copy, argv = copied(finished, tmp_path)
    rows = pd.read_csv(copy / "rows.csv")
    rows.loc[rows["opponent"] == ZOO[0], "opponent"] = "bogus"  # a hand-edited rows.csv
    rows.to_csv(copy / "rows.csv", index=False)
    before = {p.name: p.read_bytes() for p in copy.iterdir()}
    small_protocol(monkeypatch)
    capsys.readouterr()
    assert cli.main([*argv, "--refresh", CHANGED]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "an opponent or a measure that the protocol does not play" in err[0]
    assert {p.name: p.read_bytes() for p in copy.iterdir()} == before
