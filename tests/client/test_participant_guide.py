"""Every `codicrac` command the participant guide shows is one the command line takes:
each is parsed by the real parser (no server is asked)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from client.main import build_parser

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "participants.md"


def _commands() -> list[str]:
    text = GUIDE.read_text(encoding="utf-8").replace("\\\n", " ")
    blocks = re.findall(r"```sh\n(.*?)```", text, flags=re.S)
    lines = [line.split(" #")[0].strip() for block in blocks for line in block.splitlines()]
    return [line for line in lines if line.startswith("codicrac ")]


def test_the_guide_shows_the_corefud_walk_through_with_commands_the_cli_takes():
    commands = _commands()
    used = {shlex.split(c)[1] for c in commands}
    assert {"login", "validate", "card-template", "submit", "status", "leaderboard"} <= used
    assert any("--track" in c and "--card" in c for c in commands if " submit " in f" {c} ")
    parser = build_parser()
    for command in commands:
        words = shlex.split(command.split(" > ")[0])[1:]
        args = parser.parse_args(words)  # exits (fails the test) on a word it does not take
        assert callable(args.func), command


def test_the_guide_speaks_of_both_families():
    text = GUIDE.read_text(encoding="utf-8")
    assert "## 1. Two families of tasks" in text
    assert "## 3. A CorefUD task, worked through" in text and "## 4. A CONLL-UA task" in text
    assert "offline" not in text
