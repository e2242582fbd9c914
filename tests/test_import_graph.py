"""The project's import graph: no circle, every floor imports only the floors below it.

Read from the source with `ast`, so a test run cannot hide an import that happens to be made
elsewhere first. Load-time imports are the statements at a module's top level (inside ``if``
and ``try`` included); run-time imports are those inside functions. Floors, bottom to top
(docs/architecture.md):

1. ``scoring``: the scorer; never imports Django nor the platform.
2. ``competition``: models, the visibility policy, selectors, services, the scoring life
   cycle. Services queue jobs through a port (``competition.services.dispatch``) that the job
   layer fills in at start-up, so they never import it. Inside it, the scoring life cycle
   (``competition.scoring``: claim, compute, parts, record, recovery) stands on the services
   (their queue port, audit, boards, upload wording) and the models; no service imports it
   (the organizers' re-scoring is a service, ``competition.services.rescore``).
3. ``tasks``: the job definitions; they import the scorer and the services they call.
4. ``leaderboard``: reads, ranks and shows scores.
5. ``config``: wires everything; so do management commands (``*.management.commands.*``):
   entry points that ``manage.py`` runs and nothing imports.

Both graphs are checked: a circle closed by an import inside a function is still a circle.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("scoring", "tasks", "competition", "leaderboard", "config", "client")
# the folder holding each package: the scorer is its own distribution, in scorer/
HOME = {"scoring": ROOT / "scorer"}
FLOOR = {"scoring": 1, "client": 1, "competition": 2, "tasks": 3, "leaderboard": 4, "config": 5}
# Floors inside ``competition``, bottom to top: a module of one imports none of a higher one.
INNER_FLOOR = {"competition.services": 1, "competition.scoring": 2}


def modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        home = HOME.get(package, ROOT)
        for path in (home / package).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            parts = path.relative_to(home).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


def resolve(name: str, known: dict[str, Path]) -> str | None:
    """The project module an import of ``name`` loads (its longest known prefix)."""
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in known:
            return candidate
        parts.pop()
    return None


def imports(module: str, path: Path, known: dict[str, Path]) -> tuple[set[str], set[str]]:
    """(load-time, run-time) project modules imported by ``module``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    load: set[str] = set()
    run: set[str] = set()

    def names(node: ast.AST) -> list[str]:
        """Modules a statement loads; ``from package import module`` loads the module (the
        package's ``__init__`` runs before any of its modules, so it is not an edge)."""
        if isinstance(node, ast.Import):
            return [alias.name for alias in node.names]
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = module.split(".")
                if path.name != "__init__.py":
                    package = package[:-1]
                package = package[: len(package) - node.level + 1]
                base = ".".join(package + ([base] if base else []))
            return [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                for alias in node.names
            ]
        return []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            function = in_function or isinstance(
                child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
            )
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                continue
            for name in names(child):
                target = resolve(name, known)
                if target is not None and target != module:
                    (run if function else load).add(target)
            visit(child, function)

    visit(tree, False)
    return load, run


@pytest.fixture(scope="module")
def graph() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    known = modules()
    load: dict[str, set[str]] = defaultdict(set)
    run: dict[str, set[str]] = defaultdict(set)
    for module, path in known.items():
        load[module], run[module] = imports(module, path, known)
    return load, run


@pytest.mark.parametrize("imports_counted", ["load time", "load and run time"])
def test_the_import_graph_has_no_circle(graph, imports_counted):
    load, run = graph
    if imports_counted == "load and run time":
        load = {
            module: load.get(module, set()) | run.get(module, set())
            for module in set(load) | set(run)
        }
    state: dict[str, int] = {}
    stack: list[str] = []

    def walk(module: str) -> None:
        state[module] = 1
        stack.append(module)
        for target in sorted(load.get(module, ())):
            if state.get(target) == 1:
                circle = stack[stack.index(target) :] + [target]
                raise AssertionError("import circle: " + " -> ".join(circle))
            if target not in state:
                walk(target)
        stack.pop()
        state[module] = 2

    for module in sorted(load):
        if module not in state:
            walk(module)


def floor_of(module: str) -> str:
    """The floor a module stands on: its package's, or config's for a management command."""
    return "config" if ".management.commands." in module else module.split(".")[0]


def test_every_floor_imports_only_the_floors_below_it(graph):
    load, run = graph
    wrong = []
    for edges in (load, run):
        for module, targets in edges.items():
            source = floor_of(module)
            for target in targets:
                floor = target.split(".")[0]
                if FLOOR[floor] > FLOOR[source]:
                    wrong.append(f"{module} -> {target}")
    assert not wrong, "imports across floors upwards: " + ", ".join(sorted(wrong))


def inner_floor(module: str) -> int | None:
    for prefix, floor in INNER_FLOOR.items():
        if module == prefix or module.startswith(prefix + "."):
            return floor
    return None


def test_inside_competition_the_services_never_import_the_scoring_life_cycle(graph):
    """``competition.scoring`` may import ``competition.services``; never the reverse."""
    load, run = graph
    wrong = sorted(
        f"{module} -> {target}"
        for edges in (load, run)
        for module, targets in edges.items()
        for target in targets
        if (source := inner_floor(module)) is not None
        and (floor := inner_floor(target)) is not None
        and floor > source
    )
    assert not wrong, "imports across competition's floors upwards: " + ", ".join(wrong)


def test_the_scoring_life_cycle_is_seen_by_the_inner_floors(graph):
    """The rule above is not vacuous: the life cycle does import the services."""
    load, _ = graph
    assert any(
        target.startswith("competition.services")
        for module, targets in load.items()
        if module.startswith("competition.scoring")
        for target in targets
    )


def test_the_platform_imports_the_scorer_at_load_time_only(graph):
    _, run = graph
    late = sorted(
        f"{module} -> {target}"
        for module, targets in run.items()
        for target in targets
        if target.startswith("scoring") and not module.startswith("scoring")
    )
    assert not late, late


def test_the_scorer_never_imports_django():
    for path in (HOME["scoring"] / "scoring").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                assert not any(a.name.split(".")[0] == "django" for a in node.names), path
            if isinstance(node, ast.ImportFrom):
                assert (node.module or "").split(".")[0] != "django", path
