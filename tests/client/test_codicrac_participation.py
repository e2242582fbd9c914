"""The `codicrac` command line refuses, in one line with a stable code, a run of a team
that waits for the organizers' approval or of a user who has not accepted the terms."""

from __future__ import annotations

import io

import pytest

from client.main import main
from competition.services import pages


@pytest.fixture
def config(tmp_path, monkeypatch):
    path = tmp_path / "home" / "codicrac" / "config.json"
    monkeypatch.setenv("CODICRAC_CONFIG", str(path))
    return path


def _submit(world, live_server, monkeypatch, tmp_path) -> int:
    monkeypatch.setattr("sys.stdin", io.StringIO("alice-pw-123!\n"))
    assert (
        main(["login", "--server", live_server.url, "--username", "alice", "--password-stdin"]) == 0
    )
    files = []
    for slug in ("light", "ami"):
        path = tmp_path / f"{slug}.CONLLUA"
        path.write_text(world.response_text(slug), encoding="utf-8")
        files.append(str(path))
    return main(["submit", "--phase", str(world.phase.pk), *files])


def test_an_unapproved_team_is_refused_with_its_code(
    live_server, make_world, config, monkeypatch, capsys, tmp_path
):
    world = make_world()
    pages.team_approval_require(competition=world.competition, required=True)
    assert _submit(world, live_server, monkeypatch, tmp_path) == 1
    err = capsys.readouterr().err
    assert "[team_pending]" in err and "approval" in err and "Traceback" not in err
    assert err.count("\n") == 1


def test_terms_not_accepted_is_refused_with_where_to_accept(
    live_server, make_world, config, monkeypatch, capsys, tmp_path
):
    world = make_world()
    pages.page_save(competition=world.competition, kind="terms", body="Be fair.")
    assert _submit(world, live_server, monkeypatch, tmp_path) == 1
    err = capsys.readouterr().err
    assert "[terms_not_accepted]" in err and "/pages/terms/" in err
