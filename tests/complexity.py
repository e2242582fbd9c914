"""The size ratchet, run by `make lint`: long functions and long modules in production code.

Production code is what the import-graph test walks (tests/test_import_graph.py: the scorer and
the platform's packages, migrations excluded). A function is long when it spans more than
``function-lines`` lines (``def`` to its last line, nested functions counted on their own); a
module is long when it has more than ``module-lines`` lines. Both lists are printed, longest
first, with their totals; the run fails when a total exceeds its ceiling in pyproject.toml
(``[tool.codicrac.size]``). The ceilings are the counts when the ratchet was set: splitting a
function or a module lowers a count, and its ceiling goes down with it, never up.

    python -m tests.complexity
"""

from __future__ import annotations

import ast
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

from tests.test_import_graph import ROOT, modules


@dataclass(frozen=True)
class Long:
    """One function or module over its limit: where it is and how many lines it spans."""

    where: str
    lines: int


@dataclass(frozen=True)
class Limits:
    function_lines: int
    module_lines: int
    max_long_functions: int
    max_long_modules: int

    @classmethod
    def from_pyproject(cls, path: Path) -> Limits:
        table = tomllib.loads(path.read_text(encoding="utf-8"))["tool"]["codicrac"]["size"]
        return cls(
            function_lines=table["function-lines"],
            module_lines=table["module-lines"],
            max_long_functions=table["max-long-functions"],
            max_long_modules=table["max-long-modules"],
        )


def long_functions(source: str, where: str, limit: int) -> list[Long]:
    """The functions and methods in ``source`` spanning more than ``limit`` lines."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            lines = (node.end_lineno or node.lineno) - node.lineno + 1
            if lines > limit:
                found.append(Long(f"{where}:{node.lineno} {node.name}", lines))
    return found


def survey(paths: list[Path], limits: Limits, root: Path = ROOT) -> tuple[list[Long], list[Long]]:
    """(long functions, long modules) in ``paths``, each list longest first, named from ``root``."""
    functions: list[Long] = []
    long_modules: list[Long] = []
    for path in paths:
        source = path.read_text(encoding="utf-8")
        where = path.relative_to(root).as_posix()
        functions += long_functions(source, where, limits.function_lines)
        lines = len(source.splitlines())
        if lines > limits.module_lines:
            long_modules.append(Long(where, lines))
    return (
        sorted(functions, key=lambda long: -long.lines),
        sorted(long_modules, key=lambda long: -long.lines),
    )


def verdict(kind: str, found: list[Long], ceiling: int) -> bool:
    """Print the list and its total against the ceiling; False when the total is over it."""
    print(f"{kind}: {len(found)} (ceiling {ceiling})")
    for long in found:
        print(f"  {long.lines:5d}  {long.where}")
    if len(found) > ceiling:
        print(f"!! {kind}: {len(found)}, over the ceiling of {ceiling}: split what was added")
        return False
    if len(found) < ceiling:
        print(f"   below the ceiling: lower it to {len(found)} in pyproject.toml")
    return True


def main() -> int:
    limits = Limits.from_pyproject(ROOT / "pyproject.toml")
    functions, long_modules = survey(sorted(modules().values()), limits)
    ok = verdict(
        f"functions over {limits.function_lines} lines", functions, limits.max_long_functions
    )
    ok &= verdict(
        f"modules over {limits.module_lines} lines", long_modules, limits.max_long_modules
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
