"""`make demo PORT=8101` serves on 8101 and every link it gives names 8101: the printed links
(demo_setup --url), the e-mails (SITE_URL: tests/competition/services/test_notifications.py
checks that their links are built from it) and the server itself; the README says so."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_make_demo_port_reaches_the_links_the_mails_and_the_server():
    # -n prints the recipe without running it; the venv prerequisite is left out with -o.
    plan = subprocess.run(
        ["make", "-n", "-o", "venv", "-o", ".venv/.installed", "demo", "PORT=8101"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert re.search(r"demo_setup --url http://[\w.]+:8101/", plan), plan
    assert re.search(r"SITE_URL=http://[\w.]+:8101 .*runserver [\w.]+:8101", plan), plan
    assert "8000" not in plan


def test_the_readme_tells_how_to_choose_the_port():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "make demo PORT=8101" in readme
