"""The `codicrac` command line against a live server (real API, upload, scoring)."""

import io
import json
import os
import stat
import zipfile
from pathlib import Path

import pytest

from client.main import CliError, main, match_files
from competition.models import Submission


@pytest.fixture
def config(tmp_path, monkeypatch):
    path = tmp_path / "home" / "codicrac" / "config.json"
    monkeypatch.setenv("CODICRAC_CONFIG", str(path))
    return path


@pytest.fixture
def live_world(live_server, make_world):
    return make_world()


def login(monkeypatch, live_server, user="alice", password="alice-pw-123!"):
    monkeypatch.setattr("sys.stdin", io.StringIO(password + "\n"))
    return main(["login", "--server", live_server.url, "--username", user, "--password-stdin"])


def write_run(world, folder: Path, names=("LIGHT_test.CONLLUA", "ami.conllua")) -> list[str]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for slug, name in zip(("light", "ami"), names):
        (folder / name).write_text(world.response_text(slug), encoding="utf-8")
        paths.append(str(folder / name))
    return paths


def test_login_stores_the_token_owner_readable_only(
    live_world, live_server, config, monkeypatch, capsys
):
    assert login(monkeypatch, live_server) == 0
    data = json.loads(config.read_text())
    assert data["server"] == live_server.url and len(data["token"]) == 40
    assert stat.S_IMODE(os.stat(config).st_mode) == 0o600
    assert "Logged in" in capsys.readouterr().out


def test_login_with_a_wrong_password_fails_in_one_line(
    live_world, live_server, config, monkeypatch, capsys
):
    assert login(monkeypatch, live_server, password="wrong") == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Unable to log in" in err and "Traceback" not in err
    assert not config.exists()


def test_submit_wait_status_and_leaderboard(
    live_world, live_server, config, monkeypatch, capsys, tmp_path
):
    login(monkeypatch, live_server)
    files = write_run(live_world, tmp_path / "run")
    code = main(
        [
            "submit",
            "--phase",
            str(live_world.phase.pk),
            "--run-name",
            "cli-run",
            "--wait",
            "--timeout",
            "60",
            *files,
        ]
    )
    out = capsys.readouterr().out
    assert code == 0, out
    assert "scored" in out and "conll" in out
    sid = int(out.split("#")[1].split()[0])

    assert main(["status", str(sid), "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["status"] == "scored" and status["run_name"] == "cli-run"

    assert main(["leaderboard", str(live_world.phase.pk)]) == 0
    table = capsys.readouterr().out
    assert "Alpha" in table and "SWITCHBOARD" in table
    assert main(["leaderboard", str(live_world.phase.pk), "--json"]) == 0
    board = json.loads(capsys.readouterr().out)
    assert board["rows"][0]["submission_id"] == sid and board["rows"][0]["rank"] == 1


def test_submit_a_zip(live_world, live_server, config, monkeypatch, capsys, tmp_path):
    login(monkeypatch, live_server)
    archive = tmp_path / "run.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for slug in ("light", "ami"):
            zf.writestr(f"{slug.upper()}.CONLLUA", live_world.response_text(slug))
    assert main(["submit", "--phase", str(live_world.phase.pk), str(archive)]) == 0
    assert "Submitted #" in capsys.readouterr().out


def test_invalid_files_print_one_line_per_problem_and_exit_1(
    live_world, live_server, config, monkeypatch, capsys, tmp_path
):
    """A run whose files do not fit is refused by the worker's check: `submit --wait` and
    `status` print the refusal, one line per problem, and exit 1."""
    login(monkeypatch, live_server)
    files = write_run(live_world, tmp_path / "run")
    Path(files[0]).write_text(live_world.response_text("light").replace("light_2", "light_x"))
    code = main(["submit", "--phase", str(live_world.phase.pk), "--wait", *files])
    out, err = capsys.readouterr()
    assert code == 1
    assert ": rejected" in out and "do not match the gold keys" in out
    lines = [line for line in out.splitlines() if line.strip().startswith("LIGHT_test.CONLLUA")]
    assert lines and all(line.rstrip().endswith(")") for line in lines)  # (its code)
    assert "Traceback" not in out + err
    run = Submission.objects.get()
    assert main(["status", str(run.pk)]) == 1
    shown = out[out.index("Submission #") :]
    assert capsys.readouterr().out == shown  # what --wait printed after "Submitted"


def test_a_file_in_the_other_format_is_refused_at_once(
    live_world, live_server, config, monkeypatch, capsys, tmp_path
):
    login(monkeypatch, live_server)
    files = write_run(live_world, tmp_path / "run")
    Path(files[0]).write_text(
        "# global.Entity = eid-etype-head-other\n# newdoc id = light_1\n# sent_id = 1\n"
        "1\tthe\t_\t_\t_\t_\t0\troot\t_\tEntity=(1--1-)\n"
    )
    code = main(["submit", "--phase", str(live_world.phase.pk), *files])
    err = capsys.readouterr().err
    assert code == 1
    assert "invalid_files" in err and "LIGHT_test.CONLLUA" in err
    assert "CorefUD CoNLL-U file" in err and "Traceback" not in err
    assert not Submission.objects.exists()


def test_usage_errors_exit_2(live_world, live_server, config, monkeypatch, capsys, tmp_path):
    assert main(["status", "1"]) == 2  # not logged in
    assert "not logged in" in capsys.readouterr().err
    login(monkeypatch, live_server)
    assert main(["submit", "--phase", str(live_world.phase.pk), "missing.conllua"]) == 2
    # A name that says no dataset goes up in a zip for the server to match by documents;
    # these datasets' documents are not on record, so it is refused there, by name.
    files = write_run(live_world, tmp_path / "run", names=("other.conllua", "ami.conllua"))
    assert main(["submit", "--phase", str(live_world.phase.pk), *files]) == 1
    err = capsys.readouterr().err
    assert "do not name a sub-corpus of the phase: other.conllua" in err
    assert "[unknown_files]" in err
    assert main(["frobnicate"]) == 2


def test_unreachable_server_is_one_line_exit_1(config, capsys):
    code = main(["leaderboard", "1", "--server", "http://127.0.0.1:9"])
    err = capsys.readouterr().err
    assert code == 1 and "cannot reach" in err and err.count("\n") == 1


def test_file_names_map_to_subcorpora():
    subcorpora = [
        {"slug": "light", "name": "LIGHT", "available": True},
        {"slug": "ami", "name": "AMI", "available": True},
        {"slug": "swbd", "name": "SWITCHBOARD", "available": False},
    ]
    mapping = match_files([Path("x/light_test.CONLLUA"), Path("AMI.conllua")], subcorpora)
    assert mapping == {"light": Path("x/light_test.CONLLUA"), "ami": Path("AMI.conllua")}
    with pytest.raises(CliError, match="no file for: AMI"):
        match_files([Path("LIGHT.conllua")], subcorpora)
    with pytest.raises(CliError, match="two files for LIGHT"):
        match_files([Path("LIGHT.conllua"), Path("light-2.conllua"), Path("ami.c")], subcorpora)


def test_status_of_a_failed_run_prints_its_error_and_exits_1(
    live_world, live_server, config, monkeypatch, capsys
):
    from competition.models import Submission

    failed = Submission.objects.create(
        team=live_world.alpha,
        phase=live_world.phase,
        status="failed",
        error="the scorer ran out of time",
    )
    login(monkeypatch, live_server)
    capsys.readouterr()
    assert main(["status", str(failed.pk), "--wait", "--timeout", "5"]) == 1
    out = capsys.readouterr().out
    assert "failed" in out and "the scorer ran out of time" in out
    # Bob is in another team: the same id is "not found" for him.
    login(monkeypatch, live_server, "bob", "bob-pw-123!")
    assert main(["status", str(failed.pk)]) == 1
    assert "not found" in capsys.readouterr().err


def test_status_prints_the_warnings_of_an_accepted_run(
    live_world, live_server, config, monkeypatch, capsys
):
    from competition.models import Submission

    warned = Submission.objects.create(
        team=live_world.alpha,
        phase=live_world.phase,
        status="queued",
        upload_warnings=[
            {
                "file": "run.conllu",
                "subcorpus": "LIGHT",
                "line": 12,
                "message": "MISC attribute 'Entitty' looks like a misspelt 'Entity'",
            }
        ],
    )
    login(monkeypatch, live_server)
    capsys.readouterr()
    assert main(["status", str(warned.pk)]) == 0
    out = capsys.readouterr().out
    assert "warning: run.conllu:12 (LIGHT): MISC attribute 'Entitty'" in out


def test_the_client_never_imports_django():
    """Participants install the client anywhere: it needs requests, nothing of the server."""
    import subprocess
    import sys

    code = "import sys, client.main; sys.exit('django' in sys.modules)"
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    assert (
        subprocess.run(
            [sys.executable, "-c", code], env=env, cwd=Path(__file__).resolve().parents[2]
        ).returncode
        == 0
    )


def test_scores_print_full_metric_names_so_bridging_relations_stay_apart():
    from client.main import format_scores

    cell = {"recall": 0.5, "precision": 0.5, "f1": 0.5}
    text = format_scores(
        {
            "task": {
                "bridging_entity:comparative": {"light": cell, "avg": cell},
                "bridging_entity:comparison": {"light": cell, "avg": cell},
                "bridging_mention:set-membership": {"light": cell, "avg": cell},
            }
        }
    )
    names = [line.split()[0] for line in text.splitlines()[1:]]
    assert names == [
        "bridging_entity:comparative",
        "bridging_entity:comparison",
        "bridging_mention:set-membership",
    ]


def test_all_runs_board_names_every_run(
    live_world, live_server, config, monkeypatch, capsys, tmp_path
):
    from competition import services

    for name in ("first-run", "a-rather-long-second-run-name"):
        services.submission_create(
            team=live_world.alpha,
            phase=live_world.phase,
            user=live_world.alice,
            files=live_world.uploads(),
            run_name=name,
        )
    assert (
        main(["leaderboard", str(live_world.phase.pk), "--server", live_server.url, "--all-runs"])
        == 0
    )
    table = capsys.readouterr().out
    assert "Alpha [first-run]" in table
    assert "Alpha [a-rather-long-second-run-name]" in table  # never cut
    assert main(["leaderboard", str(live_world.phase.pk), "--server", live_server.url]) == 0
    assert "[first-run]" not in capsys.readouterr().out  # one line per team: no run names


def test_status_of_another_teams_public_run_shows_what_the_web_shows(
    live_world, live_server, config, monkeypatch, capsys
):
    from competition import services
    from competition.models import Phase

    theirs = services.submission_create(
        team=live_world.beta,
        phase=live_world.phase,
        user=live_world.bob,
        files=live_world.uploads(),
        run_name="beta-run",
    )
    login(monkeypatch, live_server)
    capsys.readouterr()
    assert main(["status", str(theirs.pk), "--json"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert body["team"] == "Beta" and body["run_name"] == "beta-run"
    assert body["scores"]["task"]["conll"]["avg"]["f1"] > 0
    assert "files" not in body and "error" not in body
    # A phase that keeps run details private: 404, as on the web.
    Phase.objects.filter(pk=live_world.phase.pk).update(run_details=Phase.RunDetails.TEAM)
    assert main(["status", str(theirs.pk)]) == 1
