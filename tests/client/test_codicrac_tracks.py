"""`codicrac` in a task with tracks, with the official CorefUD file names (a live server)."""

import io
import json
from pathlib import Path

import pytest

from client.main import CliError, main, match_files


@pytest.fixture
def config(tmp_path, monkeypatch):
    path = tmp_path / "home" / "codicrac" / "config.json"
    monkeypatch.setenv("CODICRAC_CONFIG", str(path))
    return path


@pytest.fixture
def tracked(live_server, make_world):
    """The test world with two tracks (LLM, Unconstrained) and official file names."""
    from competition.models import SubCorpus, Track

    world = make_world()
    Track.objects.create(task=world.task, slug="llm", name="LLM", order=0)
    Track.objects.create(task=world.task, slug="unconstrained", name="Unconstrained", order=1)
    SubCorpus.objects.filter(phase=world.phase, slug="light").update(
        file_name="en_light-corefud-test.conllu"
    )
    return world


def login(monkeypatch, live_server, user="alice", password="alice-pw-123!"):
    monkeypatch.setattr("sys.stdin", io.StringIO(password + "\n"))
    return main(["login", "--server", live_server.url, "--username", user, "--password-stdin"])


def official_run(world, folder: Path) -> list[str]:
    folder.mkdir(parents=True, exist_ok=True)
    light = folder / "en_light-corefud-test.conllu"
    ami = folder / "ami-corefud-test.conllu"
    light.write_text(world.response_text("light"), encoding="utf-8")
    ami.write_text(world.response_text("ami"), encoding="utf-8")
    return [str(light), str(ami)]


def test_official_names_map_like_the_web():
    subcorpora = [
        {
            "slug": "cs-pcedt",
            "name": "cs_pcedt",
            "available": True,
            "file_name": "cs_pcedt-corefud-test.conllu",
        },
        {"slug": "en-gum", "name": "en_gum", "available": True, "file_name": ""},
    ]
    files = [Path("out/cs_pcedt-corefud-test.conllu"), Path("en_gum-corefud-test.conllu")]
    assert match_files(files, subcorpora) == {"cs-pcedt": files[0], "en-gum": files[1]}
    with pytest.raises(CliError, match="looks like en_gum"):
        match_files([files[0], Path("en_gun.conllu")], subcorpora)


def test_submit_per_track_status_and_board(
    tracked, live_server, config, monkeypatch, capsys, tmp_path
):
    login(monkeypatch, live_server)
    capsys.readouterr()
    files = official_run(tracked, tmp_path / "run")
    phase = str(tracked.phase.pk)

    # No track: told which to choose before anything is uploaded.
    assert main(["submit", "--phase", phase, *files]) == 2
    err = capsys.readouterr().err
    assert "--track" in err and "llm (LLM)" in err and "unconstrained (Unconstrained)" in err
    assert main(["submit", "--phase", phase, "--track", "gpt", *files]) == 2
    assert "no track 'gpt'" in capsys.readouterr().err

    # The track's name in any case is as good as its slug.
    assert (
        main(["submit", "--phase", phase, "--track", "LLM", "--wait", "--timeout", "60", *files])
        == 0
    )
    out = capsys.readouterr().out
    assert "to the LLM track" in out and "scored" in out
    llm_id = int(out.split("#")[1].split()[0])
    assert (
        main(
            [
                "submit",
                "--phase",
                phase,
                "--track",
                "unconstrained",
                "--wait",
                "--timeout",
                "60",
                *files,
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    free_id = int(out.split("#")[1].split()[0])

    assert main(["status", str(llm_id)]) == 0
    assert ", LLM track: scored" in capsys.readouterr().out
    assert main(["status", str(free_id), "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["track"] == "unconstrained" and status["track_name"] == "Unconstrained"
    assert {f["name"] for f in status["files"]} == {
        "en_light-corefud-test.conllu",
        "ami-corefud-test.conllu",
    }

    # One board per track, named; each ranks only its own runs.
    assert main(["leaderboard", phase, "--track", "llm", "--json"]) == 0
    board = json.loads(capsys.readouterr().out)
    assert board["board"]["track"] == "llm" and board["board"]["track_name"] == "LLM"
    assert [r["submission_id"] for r in board["rows"]] == [llm_id]
    assert main(["leaderboard", phase, "--track", "Unconstrained"]) == 0
    table = capsys.readouterr().out
    assert "/ Unconstrained track —" in table.splitlines()[0]
    assert "Other tracks: LLM (--track llm)" in table
    assert main(["leaderboard", phase, "--track", "LLM"]) == 0
    assert "/ LLM track —" in capsys.readouterr().out
