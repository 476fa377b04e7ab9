"""The package's layers read bottom-up, each package importing only those below it (its row in
:data:`MAY_IMPORT`): plumbing, core, render, agents, envs, replays, eval, then terminal,
analysis and ppo side by side, experiments, then the programs and the docs site on top. No
package imports another back, no module imports itself back through others, no module
imports another package's private names, and the dynamic imports (the front door's
subcommands, the registry's entry points) are checked like imports."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import uno_rl
from uno_rl.__main__ import COMMANDS

PACKAGE = Path(uno_rl.__file__).parent

#: package -> the packages its modules may import besides itself (the full row, not only the
#: next floor down). Every package of uno_rl has a row.
MAY_IMPORT: dict[str, set[str]] = {
    "plumbing": set(),
    "core": {"plumbing"},
    "render": {"plumbing", "core"},
    "agents": {"plumbing", "core", "render"},
    "envs": {"plumbing", "core", "render", "agents"},
    "replays": {"plumbing", "core", "render", "agents", "envs"},
    "eval": {"plumbing", "core", "render", "agents", "envs", "replays"},
    # terminal shows games and replays; analysis and ppo read evaluations.
    "terminal": {"plumbing", "core", "render", "agents", "envs", "replays"},
    "analysis": {"plumbing", "core", "render", "agents", "envs", "replays", "eval"},
    "ppo": {"plumbing", "core", "render", "agents", "envs", "replays", "eval"},
    "experiments": {"plumbing", "core", "render", "agents", "envs", "replays", "eval",
                    "analysis"},
    "programs": {"plumbing", "core", "render", "agents", "envs", "replays", "eval",
                 "terminal", "analysis", "ppo", "experiments"},
    # the docs site reads the results, the commands' table and the docstrings of every layer.
    "docsite": {"plumbing", "core", "render", "agents", "envs", "replays", "eval",
                "terminal", "analysis", "ppo", "experiments", "programs"},
}  # fmt: skip

#: The front door (``uno_rl.__main__``) may be imported by the entry points of the documented
#: ``python -m`` forms (top-level modules) and by the docs' table of commands.
FRONT_DOOR_USERS = {"uno_rl.docsite.code_tables"}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> set[str]:
    """The uno_rl modules a file imports (anywhere in it, lazy imports included)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            found.add(target)
            for alias in node.names:  # from uno_rl import resources: the module itself
                found.add(f"{target}.{alias.name}")
    modules = {module_name(p) for p in PACKAGE.rglob("*.py")}
    return {m for m in found if m in modules and m != name}


def graph() -> dict[str, set[str]]:
    return {module_name(p): imports(p) for p in sorted(PACKAGE.rglob("*.py"))}


def package_of(module: str) -> str | None:
    """The package a module belongs to (``uno_rl.agents.registry`` -> ``agents``); None for a
    top-level module (the package's face, ``__main__``, the entry points)."""
    parts = module.split(".")
    return (
        parts[1] if len(parts) > 2 or (len(parts) == 2 and (PACKAGE / parts[1]).is_dir()) else None
    )


def packages() -> set[str]:
    """Every folder of uno_rl with Python modules in it (package or not)."""
    return {p.relative_to(PACKAGE).parts[0] for p in PACKAGE.glob("*/**/*.py")}


def test_every_package_has_a_row():
    """A new package is given its place in the order (its row in MAY_IMPORT)."""
    assert packages() == set(MAY_IMPORT)


def test_packages_import_only_the_packages_below_them():
    bad = []
    for module, targets in graph().items():
        own = package_of(module)
        if own is None:
            continue
        for target in targets - {"uno_rl"}:  # the face: __version__
            other = package_of(target)
            if other == own:
                continue
            if other is None:
                if not (target == "uno_rl.__main__" and module in FRONT_DOOR_USERS):
                    bad.append(f"{module} imports the top-level {target}")
            elif other not in MAY_IMPORT[own]:
                bad.append(f"{module} imports {target} ({own} may not import {other})")
    assert not bad, "\n".join(sorted(bad))


def test_rows_keep_the_order():
    """A package's row holds its rows' rows: the floors stack (no row lets a package reach up
    through another)."""
    for package, below in MAY_IMPORT.items():
        for lower in below:
            assert MAY_IMPORT[lower] <= below, f"{package} may import {lower} but not all it may"
            assert package not in MAY_IMPORT[lower], f"{package} and {lower} may import each other"


def test_the_top_level_holds_the_face_the_front_door_and_entry_points():
    """``uno_rl/`` holds the package's face, ``__main__`` and entry points of a few lines for
    the documented ``python -m uno_rl.X`` forms, each handing over to the front door."""
    modules = graph()
    for path in PACKAGE.glob("*.py"):
        name = module_name(path)
        if path.stem in ("__init__", "__main__"):
            continue
        lines = [line for line in path.read_text().splitlines() if line.strip()]
        assert len(lines) <= 8, f"{name}: an entry point has a few lines, it has {len(lines)}"
        assert modules[name] == {"uno_rl.__main__"}, f"{name} imports {modules[name]}"
        assert path.stem in COMMANDS, f"{name} is no subcommand's entry point"


def test_the_front_door_runs_only_programs():
    """``uno_rl SUBCOMMAND`` imports its program by name: every name is a module of
    :mod:`uno_rl.programs` that defines the function."""
    modules = graph()
    for name, (module, function, _) in COMMANDS.items():
        assert package_of(module) == "programs", f"{name}: {module} is not a program"
        assert module in modules, f"{name}: no module {module}"
        path = PACKAGE.parent / (module.replace(".", "/") + ".py")
        defined = {
            n.name for n in ast.parse(path.read_text()).body if isinstance(n, ast.FunctionDef)
        }
        assert function in defined, f"{name}: {module} has no {function}"


def dynamic_imports(path: Path) -> list[str]:
    """Calls that import a module by a string (``importlib.import_module``, ``__import__``)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if called in ("import_module", "__import__"):
                found.append(f"{module_name(path)}:{node.lineno}")
    return found


#: The modules that import a module by a string: the front door (its subcommands) and the
#: agents a spec names by class (``MODULE:Class``: a researcher's module, never uno_rl's own
#: layers, which the registry reaches through its entry points).
IMPORTS_BY_STRING = ["uno_rl.__main__", "uno_rl.agents.own_agents"]


def test_the_only_imports_by_string_are_the_front_doors_and_own_agents():
    found = [line for path in sorted(PACKAGE.rglob("*.py")) for line in dynamic_imports(path)]
    assert sorted({line.partition(":")[0] for line in found}) == IMPORTS_BY_STRING, found
    assert len([line for line in found if "own_agents" in line]) == 1, found


def test_entry_point_strategies_come_from_above_the_agents():
    """The registry learns of strategies through entry points (``uno_rl.agents``): uno_rl's
    own come from the agents (those that build agents through the registry) or a package
    allowed to import them, never from below, and the registry imports none of them."""
    project = tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text())
    points = project["project"]["entry-points"]["uno_rl.agents"]
    modules = graph()
    assert points, "no strategy entry points"
    for name, target in points.items():
        module, _, attribute = target.partition(":")
        assert module in modules, f"{name}: no module {module}"
        home = package_of(module)
        assert home == "agents" or "agents" in MAY_IMPORT[home], f"{name}: {module} is below"
        assert module not in modules["uno_rl.agents.registry"]
        tree = ast.parse((PACKAGE.parent / (module.replace(".", "/") + ".py")).read_text())
        assert attribute in {n.name for n in tree.body if isinstance(n, ast.ClassDef)}


def test_no_import_circle():
    modules = graph()
    # A package's __init__ importing its own modules is how a package is built, not a circle.
    edges = {
        m: {t for t in ts if not (modules.get(t) is not None and m.startswith(t + "."))}
        for m, ts in modules.items()
    }
    state: dict[str, int] = {}
    stack: list[str] = []
    circles: list[list[str]] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for target in sorted(edges.get(node, ())):
            if state.get(target) == 1:
                circles.append([*stack[stack.index(target) :], target])
            elif target not in state:
                visit(target)
        stack.pop()
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node)
    assert not circles, "\n".join(" -> ".join(c) for c in circles)


def home(module: str) -> str:
    """The package a module belongs to (``uno_rl.agents.registry`` -> ``uno_rl.agents``); a
    top-level module is its own."""
    parts = module.split(".")
    return ".".join(parts[:2])


def private_imports(path: Path) -> list[str]:
    """``from M import _name`` in a file where ``M`` is a uno_rl module of another package."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level:
            base = package.split(".")[: len(package.split(".")) - node.level + 1]
            target = ".".join([*base, node.module] if node.module else base)
        else:
            target = node.module or ""
        if not target.startswith("uno_rl") or home(target) == home(name):
            continue
        found += [
            f"{name} imports {target}.{alias.name}"
            for alias in node.names
            if alias.name.startswith("_") and not alias.name.startswith("__")
        ]
    return found


def test_nothing_imports_another_package_private_names():
    found = [line for path in sorted(PACKAGE.rglob("*.py")) for line in private_imports(path)]
    assert found == []


def test_the_checker_sees_an_import(tmp_path):
    """The parser resolves relative imports (so an empty graph cannot pass by accident)."""
    modules = graph()
    assert "uno_rl.replays.model" in modules["uno_rl.replays.rerun"]
    assert "uno_rl.agents.bluff" in modules["uno_rl.agents.challenge"]
    assert "uno_rl.core.rules" in modules["uno_rl.agents.registry"]
    assert "uno_rl.render.text" in modules["uno_rl.terminal.style"]
    assert "uno_rl.render.text" in modules["uno_rl.envs.game"] or any(
        t.startswith("uno_rl.render")
        for m, ts in modules.items()
        if m.startswith("uno_rl.envs")
        for t in ts
    )


#: The most lines a module may have: past it, a module holds more than one concern.
MAX_LINES = 500

#: Module names two packages share on purpose: the entry points of the ``python -m`` forms
#: hand over to the program of the same name, and two packages each have a config of their
#: own (an experiment's grid, a training run's settings) with its checks.
SHARED_NAMES = {
    "config.py": {"uno_rl/experiments", "uno_rl/ppo"},
    "config_checks.py": {"uno_rl/experiments", "uno_rl/ppo"},
}


def test_no_module_is_over_the_line_limit():
    long = {
        str(path.relative_to(PACKAGE.parent)): n
        for path in PACKAGE.rglob("*.py")
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert long == {}, f"modules over {MAX_LINES} lines: {long}"


def test_no_two_modules_share_a_name():
    """A reader never meets two modules of one name with different roles (three play.py):
    besides ``__init__``, only an entry point and its program, and :data:`SHARED_NAMES`."""
    homes: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        if path.name != "__init__.py":
            homes.setdefault(path.name, set()).add(str(path.parent.relative_to(PACKAGE.parent)))
    entry_points = {p.name for p in PACKAGE.glob("*.py")} - {"__init__.py", "__main__.py"}
    shared = {
        name: folders
        for name, folders in homes.items()
        if len(folders) > 1
        and not (name in entry_points and folders == {"uno_rl", "uno_rl/programs"})
        and SHARED_NAMES.get(name) != folders
    }
    assert shared == {}, shared


def test_no_module_is_named_by_age():
    """Modules are named by role: the later editions' cards live with the others of their kind."""
    aged = [
        str(path.relative_to(PACKAGE.parent))
        for path in PACKAGE.rglob("*.py")
        if any(word in path.stem.split("_") for word in ("new", "old", "legacy", "v2"))
    ]
    assert aged == []


def test_every_package_folder_is_a_regular_package():
    """No namespace packages: tools that read the tree (the docs' API pages) see every folder."""
    folders = {path.parent for path in PACKAGE.rglob("*.py")}
    assert sorted(str(f) for f in folders if not (f / "__init__.py").exists()) == []


MODULE_ROLE = re.compile(r":mod:`~?([\w.]+)`")


def module_references(path: Path) -> list[str]:
    """The ``:mod:`` references of a file's docstrings and comments that name no module of
    uno_rl (relative ones resolved from the file's package, as Sphinx does)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    modules = {module_name(p) for p in PACKAGE.rglob("*.py")}
    dangling = []
    for ref in MODULE_ROLE.findall(path.read_text(encoding="utf-8")):
        if ref.startswith("."):
            dots = len(ref) - len(ref.lstrip("."))
            base = package.split(".")[: len(package.split(".")) - (dots - 1)]
            target = ".".join(base + ([ref.lstrip(".")] if ref.lstrip(".") else []))
        else:
            target = ref
        if target.split(".")[0] == "uno_rl" and target not in modules:
            dangling.append(f"{module_name(path)}: {ref}")
    return dangling


def test_docstrings_name_modules_that_exist():
    """A renamed module leaves no docstring pointing at its old name."""
    found = [ref for path in sorted(PACKAGE.rglob("*.py")) for ref in module_references(path)]
    assert found == []
