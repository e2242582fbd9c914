"""Playwright fixtures: the system Chromium (never a downloaded browser), started with the flags
that keep it off the network, and permission for Django's ORM to run beside Playwright's
event loop (the tests are single-threaded)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]


def pytest_collection_modifyitems(config, items):
    if CHROMIUM.exists() or not any("browser" in item.keywords for item in items):
        return
    raise pytest.UsageError(
        f"{CHROMIUM} is missing: install the distribution's Chromium "
        "(apt-get install chromium) to run the browser tests"
    )


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    return {**browser_type_launch_args, "executable_path": str(CHROMIUM), "args": CHROMIUM_ARGS}


@pytest.fixture(scope="session")
def artifacts_dir() -> Path:
    """test-artifacts/ at the repository root (git-ignored): screenshots for people to see."""
    path = Path(__file__).resolve().parents[2] / "test-artifacts"
    path.mkdir(exist_ok=True)
    return path
