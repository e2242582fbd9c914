"""The scorer is its own distribution (scorer/pyproject.toml, universal-anaphora-scorer): it
declares every package it imports beyond the standard library, imports nothing of the
platform, and the platform depends on it."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from pathlib import Path

import scoring
from scoring.cli import main

ROOT = Path(__file__).resolve().parents[2]
SCORER = ROOT / "scorer"


def project(path: Path) -> dict:
    return tomllib.loads(path.read_text(encoding="utf-8"))["project"]


def requirement_name(requirement: str) -> str:
    return re.match(r"[A-Za-z0-9._-]+", requirement).group().lower().replace("_", "-")


def imported_top_levels() -> set[str]:
    found = set()
    for path in (SCORER / "scoring").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and not node.level:
                found.add((node.module or "").split(".")[0])
    return found


def test_the_installed_scorer_is_the_one_in_scorer():
    assert Path(scoring.__file__).resolve().parent == SCORER / "scoring"


def test_the_scorer_declares_what_it_imports_and_nothing_of_the_platform():
    declared = {requirement_name(r) for r in project(SCORER / "pyproject.toml")["dependencies"]}
    third_party = imported_top_levels() - set(sys.stdlib_module_names) - {"scoring"}
    assert third_party == {"numpy", "scipy"}
    assert declared == third_party


def test_the_command_is_the_scorers_own():
    scorer = project(SCORER / "pyproject.toml")
    assert scorer["name"] == "universal-anaphora-scorer"
    assert scorer["scripts"] == {"ua-score": "scoring.cli:main"}
    assert main.__module__ == "scoring.cli"


def test_the_platform_depends_on_the_scorer_in_its_folder():
    platform = project(ROOT / "pyproject.toml")
    assert "universal-anaphora-scorer @ {root:uri}/scorer" in platform["dependencies"]
    assert "ua-score" not in platform.get("scripts", {})


def test_both_state_the_supported_pythons():
    for path in (ROOT / "pyproject.toml", SCORER / "pyproject.toml"):
        meta = project(path)
        assert meta["requires-python"] == ">=3.11"
        versions = {
            c.rsplit(" :: ", 1)[1]
            for c in meta["classifiers"]
            if c.startswith("Programming Language :: Python :: 3.")
        }
        assert versions == {"3.11", "3.12", "3.13"}, path
