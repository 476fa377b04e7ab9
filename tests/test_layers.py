"""The package's layers read bottom-up: core, then render (what envs and terminal both draw),
then agents, then envs (which seat agents by name as opponents), then replays and eval, then
terminal, analysis and ppo (side by side), then docsite and the programs; no sub-package imports
another back (the package graph has no circle), and no uno_rl module imports itself back
through others."""

from __future__ import annotations

import ast
from pathlib import Path

import uno_rl

PACKAGE = Path(uno_rl.__file__).parent

#: Modules every layer may use: they import nothing of uno_rl's layers. ``uno_rl.render.safe``
#: (``printable``) lives in the render package but is a leaf importing nothing of uno_rl: it is
#: here because the base modules ``uno_rl.cli`` and ``uno_rl.resources`` import it.
BASE = {
    "uno_rl",
    "uno_rl.cli",
    "uno_rl.durable",
    "uno_rl.processes",
    "uno_rl.render.safe",
    "uno_rl.resources",
    "uno_rl.tomlfile",
}

#: Every layer (sub-package), for the rows that may import nothing but the core.
_ABOVE_CORE = {
    "render",
    "agents",
    "envs",
    "replays",
    "eval",
    "terminal",
    "analysis",
    "ppo",
    "docsite",
}

#: layer -> layers (sub-packages) it must not import.
FORBIDDEN = {
    "core": _ABOVE_CORE,
    "render": _ABOVE_CORE - {"render"},
    "agents": _ABOVE_CORE - {"render", "agents"},
    "envs": {"replays", "eval", "terminal", "analysis", "ppo", "docsite"},
    "replays": {"eval", "terminal", "analysis", "ppo", "docsite"},
    "eval": {"terminal", "analysis", "ppo", "docsite"},
    # terminal shows games and replays: below it core, render, agents, replays.
    "terminal": {"eval", "analysis", "ppo", "docsite"},
    "analysis": {"terminal", "ppo", "docsite"},
    "ppo": {"terminal", "analysis", "docsite"},
}

#: (module, target) imports allowed across a forbidden line. None: make_agent("ppo") reaches
#: the PPO agent by a string (importlib), which is not an import statement.
ALLOWED: set[tuple[str, str]] = set()


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


def layer(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and parts[1] in FORBIDDEN) else None


def test_layers_import_nothing_above_them():
    bad = []
    for module, targets in graph().items():
        own = layer(module)
        for target in targets:
            if target in BASE or (module, target) in ALLOWED:
                continue
            other = layer(target)
            if own in FORBIDDEN and (other in FORBIDDEN[own] or other is None):
                bad.append(f"{module} imports {target}")
    assert not bad, "\n".join(sorted(bad))


def test_base_modules_import_no_layer():
    modules = graph()
    for name in BASE - {"uno_rl"}:
        assert modules[name] <= BASE, f"{name} imports {modules[name] - BASE}"


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


def package_graph() -> dict[str, set[str]]:
    """Sub-package -> the other sub-packages its modules import directly. The base modules
    and the top-level programs belong to no sub-package (the programs import them all)."""
    edges: dict[str, set[str]] = {}
    for module, targets in graph().items():
        own = module.split(".")[1] if module.count(".") >= 2 else None
        if own is None or module in BASE:
            continue
        edges.setdefault(own, set())
        for target in targets:
            other = target.split(".")[1] if target.count(".") >= 2 else None
            if other is not None and other != own and target not in BASE:
                edges[own].add(other)
    return edges


def test_no_package_imports_another_back():
    """Sub-packages stack: no two of them import each other, however indirectly."""
    edges = package_graph()
    reached = {package: set(targets) for package, targets in edges.items()}
    changed = True
    while changed:  # transitive closure; a dozen packages
        changed = False
        for targets in reached.values():
            more = set().union(*(reached.get(t, set()) for t in targets)) - targets
            if more:
                targets |= more
                changed = True
    circles = sorted(package for package, targets in reached.items() if package in targets)
    assert not circles, f"packages importing themselves back: {circles} ({edges})"


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


def test_every_layer_has_a_row():
    """A new sub-package is given its place in the order (its row in FORBIDDEN). docsite sits
    on top with the programs, whose modules it reads (so no row)."""
    assert set(package_graph()) - {"docsite"} <= set(FORBIDDEN)


def test_the_checker_sees_an_import(tmp_path):
    """The parser resolves relative imports (so an empty graph cannot pass by accident)."""
    modules = graph()
    assert "uno_rl.replays.model" in modules["uno_rl.replays.simulate"]
    assert "uno_rl.agents.bluff" in modules["uno_rl.agents.challenge"]
    assert "uno_rl.core.rules" in modules["uno_rl.agents.registry"]
    assert "uno_rl.render.text" in modules["uno_rl.terminal.style"]
    assert "render" in package_graph()["envs"]
