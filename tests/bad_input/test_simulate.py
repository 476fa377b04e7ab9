"""``python -m uno_rl.simulate`` given bad input: one ``error:`` line naming the problem, exit
status 2, no traceback, and nothing played (validation comes before any work)."""

import pytest

from bad_input.harness import assert_clean_error
from uno_rl.programs import simulate

HUGE = "1" * 30  # a 30-digit number
GIANT = "9" * 5000  # past Python's int-from-string digit limit

CASES = [
    # --rounds
    (["--rounds", "0"], "--rounds"),
    (["--rounds", "-5"], "--rounds"),
    (["--rounds", "nan"], "--rounds"),
    (["--rounds", "inf"], "--rounds"),
    (["--rounds", "1.5"], "--rounds"),
    (["--rounds", "many"], "--rounds"),
    (["--rounds", HUGE], "--rounds"),
    (["--rounds", str(10**12 + 1)], "--rounds"),
    (["--rounds"], "expected one argument"),
    # --games
    (["--games", "0"], "--games"),
    (["--games", "-1"], "--games"),
    (["--games", "nan"], "--games"),
    (["--games", "1e3"], "--games"),
    (["--games", str(10**7)], "--games"),
    (["--games", HUGE], "--games"),
    # --players
    (["--players", "1"], "--players"),
    (["--players", "0"], "--players"),
    (["--players", "11"], "--players"),
    (["--players", "two"], "--players"),
    (["--players", "inf"], "--players"),
    (["--players", HUGE], "--players"),
    # --seed
    (["--seed", "-1"], "--seed"),
    (["--seed", "nan"], "--seed"),
    (["--seed", "0.5"], "--seed"),
    (["--seed", str(2**63)], "--seed"),
    (["--seed", HUGE], "--seed"),
    # --preset
    (["--preset", "bogus"], "unknown preset 'bogus'"),
    (["--preset", ""], "unknown preset"),
    (["--preset", "/no/such/file.toml"], "preset file /no/such/file.toml does not exist"),
    # --set: malformed, unknown key, bad value, contradictions
    (["--set", "bogus=1"], "unknown rules key 'bogus'"),
    (["--set", "stackng=any"], "did you mean 'stacking'"),
    (["--set", "stacking"], "KEY=VALUE"),
    (["--set", "=3"], "KEY=VALUE"),
    (["--set", "stacking=sideways"], "stacking"),
    (["--set", "match=yes"], "'match' must be true or false"),
    (["--set", "hand_size=0"], "hand_size"),
    (["--set", "hand_size=2.5"], "hand_size"),
    (["--set", "uno_forget_prob=NaN"], "uno_forget_prob"),
    (["--set", "uno_forget_prob=Infinity"], "uno_forget_prob"),
    (["--set", "uno_catch_prob=-0.5"], "uno_catch_prob"),
    (["--set", "max_turns=1e400"], "max_turns"),
    (["--set", f"max_turns={HUGE}"], "max_turns"),
    (["--set", f"max_turns={GIANT}"], "--set"),
    (["--set", "players=3"], "--players"),
    (["--set", "dealer=rotate"], "dealer"),
    (["--players", "10", "--set", "hand_size=10"], "hand_size"),
    (["--set", "scoring=rounds", "--set", "match_target=500"], "match_target"),
    (["--set", "draw_until_playable=true", "--set", "drawn_card=auto-play"], "drawn_card"),
    # --policy and unknown or misused switches
    (["--policy", "greedy"], "--policy"),
    (["--policy", ""], "--policy"),
    (["--bogus"], "unrecognized arguments: --bogus"),
    (["--no-progress=1"], "--no-progress"),
    (["extra"], "unrecognized arguments: extra"),
]


@pytest.fixture(autouse=True)
def no_work(monkeypatch):
    """Fail the test if a bad input gets as far as dealing a game."""

    def boom(*args, **kwargs):
        raise AssertionError("simulation started before the input was validated")

    monkeypatch.setattr(simulate.engine, "reset", boom)


@pytest.mark.parametrize(("argv", "expected"), CASES, ids=[" ".join(c[0]) for c in CASES])
def test_bad_input_is_one_clean_line(argv, expected, capsys):
    assert_clean_error(simulate.main, [*argv, "--no-progress"], expected, capsys)


def test_bad_preset_file(tmp_path, capsys):
    broken = tmp_path / "broken.toml"
    broken.write_text("[rules\nstacking = 'any'\n", encoding="utf-8")
    assert_clean_error(simulate.main, ["--preset", str(broken)], "not valid TOML", capsys)
    unknown = tmp_path / "unknown.toml"
    unknown.write_text("[rules]\nstackign = 'any'\n", encoding="utf-8")
    assert_clean_error(simulate.main, ["--preset", str(unknown)], "stackign", capsys)


def test_library_call_refuses_bad_counts():
    for kwargs, name in [
        ({"rounds": 0}, "rounds"),
        ({"games": 10**7}, "games"),
        ({"seed": -1}, "seed"),
        ({"players": 1}, "players"),
        ({"policy": "greedy"}, "policy"),
    ]:
        with pytest.raises(ValueError, match=name):
            simulate.simulate(progress=False, **kwargs)
