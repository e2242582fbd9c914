"""Fixtures of the command line's tests: a config file of the test's own, and the world
behind a live server (test files that define their own keep theirs)."""

from __future__ import annotations

import pytest


@pytest.fixture
def config(tmp_path, monkeypatch):
    path = tmp_path / "home" / "codicrac" / "config.json"
    monkeypatch.setenv("CODICRAC_CONFIG", str(path))
    return path


@pytest.fixture
def live_world(live_server, make_world):
    return make_world()
