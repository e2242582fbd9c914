"""The size ratchet (tests/complexity.py): what it counts as long, and when it fails."""

from __future__ import annotations

from pathlib import Path

from tests.complexity import ROOT, Limits, Long, long_functions, survey, verdict


def function(name: str, lines: int, indent: str = "") -> str:
    """Source of a function spanning exactly ``lines`` lines (``def`` included)."""
    body = "".join(f"{indent}    x{i} = {i}\n" for i in range(lines - 2))
    return f"{indent}def {name}():\n{body}{indent}    return 0\n"


def test_a_function_is_long_past_the_limit_not_at_it():
    source = function("at_limit", 60) + function("past_limit", 61)

    found = long_functions(source, "m.py", 60)

    assert found == [Long("m.py:61 past_limit", 61)]


def test_methods_and_nested_functions_are_counted_on_their_own():
    inner = function("inner", 61, indent="        ")
    source = "class C:\n    def outer(self):\n" + inner + "        return inner\n"

    found = {long.where.split()[-1]: long.lines for long in long_functions(source, "m.py", 60)}

    assert found == {"outer": 63, "inner": 61}


def test_a_module_is_long_past_the_limit(tmp_path: Path):
    short, long = (tmp_path / "short.py", tmp_path / "long.py")
    short.write_text("x = 1\n" * 500)
    long.write_text("x = 1\n" * 501)
    limits = Limits(function_lines=60, module_lines=500, max_long_functions=0, max_long_modules=0)

    functions, modules = survey([short, long], limits, root=tmp_path)

    assert (functions, modules) == ([], [Long("long.py", 501)])


def test_the_ratchet_fails_only_over_its_ceiling(capsys):
    found = [Long("a.py:1 f", 70), Long("b.py:1 g", 61)]

    assert verdict("long functions", found, ceiling=2)
    assert verdict("long functions", found, ceiling=3)
    assert "lower it to 2" in capsys.readouterr().out
    assert not verdict("long functions", found, ceiling=1)
    assert "over the ceiling of 1" in capsys.readouterr().out


def test_the_ceilings_are_read_from_pyproject():
    limits = Limits.from_pyproject(ROOT / "pyproject.toml")

    assert limits.function_lines == 60
    assert limits.module_lines == 500
