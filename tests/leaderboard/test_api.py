"""REST API: token, reads, submit with validation problems, status, leaderboard rules.

Runs use the real upload, validation and (in-process) scoring path of the competition app,
with the small CONLL-UA world of tests/conftest.py.
"""

import io
import json
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from competition import services
from competition.models import Submission


@pytest.fixture
def api(django_capture_on_commit_callbacks):
    """An API client whose requests run their on-commit jobs (scoring, in-process)."""

    class Client(APIClient):
        def request(self, **kwargs):
            with django_capture_on_commit_callbacks(execute=True):
                return super().request(**kwargs)

    return Client()


def login(api, user):
    token, _ = Token.objects.get_or_create(user=user)
    api.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return token


def submit(api, world, texts=None, **extra):
    files = world.uploads(texts)
    return api.post(
        f"/api/phases/{world.phase.pk}/submissions/", {**files, **extra}, format="multipart"
    )


def test_token_endpoint_gives_a_token_for_good_credentials_only(api, world):
    good = api.post("/api/token/", {"username": "alice", "password": "alice-pw-123!"})
    assert (
        good.status_code == 200 and good.json()["token"] == Token.objects.get(user=world.alice).key
    )
    bad = api.post("/api/token/", {"username": "alice", "password": "nope"})
    assert bad.status_code == 400 and bad.json()["code"] == "invalid_credentials"


def test_competition_and_phase_reads_never_expose_key_paths(api, world):
    listing = api.get("/api/competitions/").json()
    assert [c["slug"] for c in listing] == ["codi-test"]
    detail = api.get("/api/competitions/codi-test/").json()
    phase = detail["tasks"][0]["phases"][0]
    assert phase["id"] == world.phase.pk and phase["status"] == "open"
    assert [s["slug"] for s in phase["subcorpora"]] == ["light", "ami", "switchboard"]
    body = api.get(f"/api/phases/{world.phase.pk}/").content.decode()
    assert "keys/" not in body and "key_file" not in body and "sha256" not in body


def test_submit_scores_and_shows_on_the_leaderboard(api, world):
    login(api, world.alice)
    response = submit(api, world, run_name="first")
    assert response.status_code == 201, response.content
    sid = response.json()["id"]
    detail = api.get(f"/api/submissions/{sid}/").json()
    assert detail["status"] == "scored", detail
    conll = detail["scores"]["task"]["conll"]
    assert conll["ami"]["f1"] == pytest.approx(1.0)
    assert 0 < conll["light"]["f1"] < 1
    board = api.get(f"/api/phases/{world.phase.pk}/leaderboard/").json()
    (row,) = board["rows"]
    assert row["team"] == "Alpha" and row["rank"] == 1 and row["submission_id"] == sid
    assert row["average"]["f1"] == pytest.approx((conll["light"]["f1"] + 1.0) / 2)
    assert board["board"]["subcorpora"][2] == {
        "slug": "switchboard",
        "name": "SWITCHBOARD",
        "available": False,
    }


def test_submit_a_zip(api, world):
    login(api, world.alice)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for slug in ("light", "ami"):
            archive.writestr(f"{slug.upper()}.CONLLUA", world.response_text(slug))
    upload = SimpleUploadedFile("run.zip", buffer.getvalue(), content_type="application/zip")
    response = api.post(
        f"/api/phases/{world.phase.pk}/submissions/", {"archive": upload}, format="multipart"
    )
    assert response.status_code == 201, response.content


def checked(api, world, capture, files) -> tuple[dict, dict]:
    """Upload ``files`` and run the job queued at commit (the worker's check, here): the
    upload's answer (201, "checking") and the run's detail after the check."""
    with capture(execute=True):
        response = submit(api, world, files)
    assert response.status_code == 201 and response.json()["status"] == "checking"
    run = response.json()["id"]
    return response.json(), api.get(f"/api/submissions/{run}/").json()


def test_invalid_files_give_400_with_problems_and_count_nothing(
    api, world, django_capture_on_commit_callbacks
):
    """Now answered 201 ("checking"): the worker's check refuses the run, whose detail says
    "rejected" with the problems the 400 listed; nothing scored or counted."""
    login(api, world.alice)
    broken = world.response_text("light").replace("light_2", "light_9")
    _, body = checked(
        api,
        world,
        django_capture_on_commit_callbacks,
        {"light": broken, "ami": world.response_text("ami")},
    )
    assert body["status"] == "rejected" and body["is_final"] and body["scores"] is None
    problem = body["problems"][0]
    assert set(problem) == {"file", "subcorpus", "document", "line", "message", "code"}
    assert problem["subcorpus"] in ("light", "LIGHT")
    assert services.submission_quota(team=world.alpha, phase=world.phase).total_used == 0
    assert not Submission.objects.get().runs.exists()
    # The problems never quote the gold key's content.
    assert "knight" not in json.dumps(body)


def test_submit_needs_a_team_and_authentication(api, world):
    assert submit(api, world).status_code in (401, 403)
    login(api, world.mallory)
    response = submit(api, world)
    assert response.status_code == 403 and response.json()["code"] == "no_team"


def test_daily_limit_is_429_with_its_code(api, make_world):
    world = make_world(daily_limit=1)
    login(api, world.alice)
    assert submit(api, world).status_code == 201
    response = submit(api, world)
    assert response.status_code == 429 and response.json()["code"] == "daily_limit"


def test_other_teams_submissions_are_404_unless_the_web_shows_them(api, world):
    from competition.models import Phase

    Phase.objects.filter(pk=world.phase.pk).update(run_details=Phase.RunDetails.TEAM)
    login(api, world.alice)
    sid = submit(api, world).json()["id"]
    login(api, world.bob)
    assert api.get(f"/api/submissions/{sid}/").status_code == 404
    assert api.get(f"/api/phases/{world.phase.pk}/submissions/").json() == []
    # Run details public (the analysis page on the web): the same, never files or messages.
    Phase.objects.filter(pk=world.phase.pk).update(run_details=Phase.RunDetails.PUBLIC)
    body = api.get(f"/api/submissions/{sid}/").json()
    assert body["team"] == "Alpha" and "files" not in body and "error" not in body


def test_hidden_phase_hides_scores_in_status_and_leaderboard(api, make_world):
    world = make_world(visibility="hidden")
    login(api, world.alice)
    sid = submit(api, world).json()["id"]
    detail = api.get(f"/api/submissions/{sid}/").json()
    assert detail["status"] == "scored" and detail["scores"] is None
    board = api.get(f"/api/phases/{world.phase.pk}/leaderboard/").json()
    assert board["rows"] == [] and board["board"]["hidden"] is True
    api.credentials()
    assert api.get(f"/api/phases/{world.phase.pk}/leaderboard/?runs=all").json()["rows"] == []


def test_leaderboard_query_errors_are_400(api, world):
    response = api.get(f"/api/phases/{world.phase.pk}/leaderboard/?metric=nope")
    assert response.status_code == 400 and response.json()["code"] == "invalid_query"
    assert api.get("/api/phases/99999/leaderboard/").status_code == 404


def test_schema_and_docs(api, world):
    schema = api.get("/api/schema/")
    assert schema.status_code == 200
    text = schema.content.decode()
    assert "/api/phases/{phase_id}/submissions/" in text and "/api/token/" in text
    assert api.get("/api/docs/").status_code == 200


def test_per_document_scores_through_the_api_obey_visibility(api, make_world):
    world = make_world(visibility="hidden", show_own=True)
    login(api, world.alice)
    sid = submit(api, world).json()["id"]
    body = api.get(f"/api/submissions/{sid}/documents/?metric=muc").json()
    assert body["metric"] == "muc"
    assert {(d["subcorpus"], d["document"]) for d in body["documents"]} == {
        ("light", "light_1"),
        ("light", "light_2"),
        ("ami", "ami_1"),
    }
    login(api, world.bob)
    assert api.get(f"/api/submissions/{sid}/documents/").status_code == 404
    api.credentials()
    assert api.get(f"/api/submissions/{sid}/documents/").status_code == 404


def test_a_request_without_a_token_gets_401_with_its_code(api, world):
    """As docs/api.md says: 401 (with the scheme to use), and the JSON shape of every error."""
    response = api.get(f"/api/phases/{world.phase.pk}/submissions/")
    assert response.status_code == 401
    assert response["WWW-Authenticate"].startswith("Token")
    assert response.json()["code"] == "not_authenticated" and response.json()["detail"]
    api.credentials(HTTP_AUTHORIZATION="Token not-a-token")
    bad = api.get(f"/api/phases/{world.phase.pk}/submissions/")
    assert bad.status_code == 401 and bad.json()["code"] == "authentication_failed"


def test_an_invalid_request_names_its_fields_in_words(api, world):
    login(api, world.alice)
    response = submit(api, world, run_name="x" * 200)
    body = response.json()
    assert response.status_code == 400 and body["code"] == "invalid_request"
    assert body["detail"].startswith("run_name: ") and "ErrorDetail" not in body["detail"]
    assert list(body["fields"]) == ["run_name"]


def test_a_duplicate_document_problem_names_the_document(
    api, world, django_capture_on_commit_callbacks
):
    login(api, world.alice)
    text = world.response_text("light")
    twice = text + text[text.index("# newdoc") :]
    _, body = checked(
        api,
        world,
        django_capture_on_commit_callbacks,
        {"light": twice, "ami": world.response_text("ami")},
    )
    problems = body["problems"]
    duplicate = [p for p in problems if p["code"] == "duplicate_document"]
    assert body["status"] == "rejected" and duplicate
    assert all(p["document"] for p in duplicate), duplicate
