"""The rules' layout is the one source of the number of kinds, actions and observation values.

The module-level sizes (``NUM_ACTIONS``, ``OBS_SIZE``, ``NUM_KINDS``, ``STATE_SIZE``) are the
classic layout's; code that sizes anything by them is wrong for an extended deck. The scan
below finds every use of those names in the package's sources; a module may use them only
with an entry in ``ALLOWED`` saying why.
"""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

import uno_rl
from uno_rl.core import engine, load_rules
from uno_rl.core.layout import CLASSIC, EXTENDED
from uno_rl.core.observe import observe
from uno_rl.core.rng import new_seeds

PACKAGE = Path(uno_rl.__file__).parent
CLASSIC_SIZES = {"NUM_ACTIONS", "OBS_SIZE", "NUM_KINDS", "STATE_SIZE"}

#: module (path under uno_rl/) -> why it may use a classic size
ALLOWED = {
    "core/actions.py": "defines the classic action table and NUM_ACTIONS",
    "core/cards.py": "defines the classic card kinds and NUM_KINDS",
    "core/observe_layout.py": "defines the classic observation pieces and OBS_SIZE",
    "core/tables.py": "the classic MATCHES / KIND_ACTIONS built from cards.py, the "
    "independent check tests/core/test_decks.py holds the layout's tables to",
    "core/__init__.py": "exports the classic sizes (public names), documented as such",
    "core/observe.py": "re-exports the classic OBS_SIZE (public name)",
    "core/scalar.py": "classic-only fast path of the OpenSpiel games (measured, see there)",
    "envs/state_vector.py": "defines and exports the classic STATE_SIZE (public name)",
}


def _uses(path: Path) -> list[tuple[int, str]]:
    """(line, name) of every use of a classic size in the module at ``path``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Name) and node.id in CLASSIC_SIZES:
            found.append((node.lineno, node.id))
        elif isinstance(node, ast.Attribute) and node.attr in CLASSIC_SIZES:
            found.append((node.lineno, node.attr))
        elif isinstance(node, ast.ImportFrom):
            found += [(node.lineno, a.name) for a in node.names if a.name in CLASSIC_SIZES]
    return found


def _all_uses() -> dict[str, list[tuple[int, str]]]:
    uses = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        found = _uses(path)
        if found:
            uses[path.relative_to(PACKAGE).as_posix()] = found
    return uses


def test_no_module_sizes_by_a_classic_constant():
    unexplained = {m: lines for m, lines in _all_uses().items() if m not in ALLOWED}
    assert unexplained == {}, (
        "size by rules.layout (num_kinds, num_actions, obs_size), not by the classic "
        f"constants: {unexplained}"
    )


def test_the_allow_list_is_minimal():
    stale = sorted(set(ALLOWED) - set(_all_uses()))
    assert stale == [], f"ALLOWED lists modules that no longer use a classic size: {stale}"
    assert all(reason.strip() for reason in ALLOWED.values())


def test_the_scan_sees_a_use(tmp_path):
    module = tmp_path / "m.py"
    module.write_text(
        "from uno_rl.core.actions import NUM_ACTIONS\n"
        "import uno_rl.core as core\n"
        "x = core.OBS_SIZE + NUM_ACTIONS\n"
    )
    assert [name for _, name in _uses(module)] == ["NUM_ACTIONS", "OBS_SIZE", "NUM_ACTIONS"]


def test_public_classic_sizes_are_the_classic_layouts():
    import uno_rl.core as core

    assert (core.NUM_ACTIONS, core.OBS_SIZE, core.NUM_KINDS) == (77, 583, 54)
    assert (core.NUM_ACTIONS, core.OBS_SIZE, core.NUM_KINDS) == (
        CLASSIC.num_actions,
        CLASSIC.obs_size,
        CLASSIC.num_kinds,
    )
    assert (EXTENDED.num_kinds, EXTENDED.num_actions, EXTENDED.obs_size) == (75, 122, 877)
    assert (CLASSIC.extended, EXTENDED.extended) == (False, True)


@pytest.mark.parametrize("layout", [CLASSIC, EXTENDED], ids=lambda x: x.name)
def test_play_runs_cover_every_play_action_once(layout):
    covered = np.zeros(layout.num_actions, int)
    for actions, kinds, colors in layout.play_runs:
        covered[actions] += 1
        kind_of_action = np.repeat(np.arange(kinds.start, kinds.stop), colors)
        assert np.array_equal(layout.action_card[actions], kind_of_action)
    assert np.array_equal(covered > 0, layout.action_card >= 0)
    assert covered.max() == 1


@pytest.mark.parametrize("deck", ["classic", "extension"])
def test_engine_state_and_observation_sized_by_the_rules_layout(deck):
    rules = load_rules("official", players=3, deck=deck)
    layout = rules.layout
    state = engine.reset(rules, new_seeds(np.random.default_rng(0), 4))
    assert engine.legal_mask(state).shape == (4, layout.num_actions)
    assert state.hands.shape == (4, 3, layout.num_kinds)
    assert observe(state, state.actor).shape == (4, layout.obs_size)
