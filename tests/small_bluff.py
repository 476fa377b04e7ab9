"""The shipped bluff studies with a smaller ``[quick]`` table, for tests that need a quick run's
folder fast: the run still goes through ``--quick`` and is named ``NAME-quick``.

The shipped ``[quick]`` tables span every player count; these keep every rule variant, the 2-
and 4-player cells and the agents the tests read, at fewer rounds.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: The bluff study's miniature: 3 bluffers x 3 challengers in every rule variant at 2 and 4
#: players, 300 rounds a match-up, 2,000 in the headline cells (enough +4s to calibrate).
SMALL_BLUFF_QUICK = """
[quick]
rounds = 300
grid = { players = [2, 4] }
agents = { focal = ["color-first:bluff=0.0", "color-first:bluff=0.5", "color-first:bluff=1.0"], opponents = ["color-first:challenge=never", "color-first:challenge=always", "color-first:challenge=bayes"] }
focus = [{ players = [2, 4], switches = { caught_bluffer = "draws-4", draw_four_legal = "no-current-color" }, rounds = 2000 }]
"""  # noqa: E501

#: The situations study's miniature: every rule variant at 2 and 4 players, one conditional
#: policy a side against one member of the field, 140 rounds, 6 matches, 600 behaviour rounds.
SMALL_BLUFF_WHEN_QUICK = """
[quick]
grid = { players = [2, 4] }
part = [
    { rounds = 140, agents = { focal = ["color-first", "color-first:bluff=1.0,bluff_next_max=2", "color-first:challenge=always,challenge_their_min=5"], opponents = ["color-first:bluff=0.5"] } },
    { matches = 6, focus = [], agents = { focal = ["color-first", "color-first:bluff=1.0,bluff_lead_max=-100"], opponents = ["color-first:bluff=0.5"] } },
]
behaviour = [{ players = 2, agents = ["ppo-official-2p-v1"], opponent = "color-first:bluff=0.5,challenge=bayes", rounds = 600 }]
"""  # noqa: E501


def write_small_quick_config(name: str, folder: Path) -> Path:
    """Write ``folder/NAME.toml``: the shipped ``experiments/NAME.toml`` (``bluff`` or
    ``bluff-when``) with its ``[quick]`` table replaced by the miniature above; returns it."""
    shipped = (ROOT / "experiments" / f"{name}.toml").read_text()
    head = shipped[: shipped.index("\n[quick]")]  # [quick] is the shipped files' last table
    # the comment block above [quick] describes the shipped one: drop it too
    lines = head.rstrip("\n").splitlines()
    while lines and lines[-1].startswith("#"):
        lines.pop()
    small = {"bluff": SMALL_BLUFF_QUICK, "bluff-when": SMALL_BLUFF_WHEN_QUICK}[name]
    path = folder / f"{name}.toml"
    path.write_text("\n".join(lines) + "\n" + small)
    return path
