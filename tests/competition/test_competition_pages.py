"""The pages of the submission path, in the embedded configuration (SQLite, in-process
scoring): sign up, form a team, upload, watch the status, read the scores."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import timezone

from competition import services
from competition.models import Membership, Submission, Team

pytestmark = pytest.mark.django_db


def phase_url(world, name: str) -> str:
    return reverse(
        f"competition:{name}",
        kwargs={"slug": world.competition.slug, "task": world.task.slug, "phase": world.phase.slug},
    )


def upload_form(world, texts: dict[str, str] | None = None, **extra) -> dict:
    files = world.uploads(texts)
    return {**{f"file_{slug}": f for slug, f in files.items()}, "run_name": "primary", **extra}


def test_the_whole_path_from_sign_up_to_scores(client, world, django_capture_on_commit_callbacks):
    """A new user signs up, creates a team, uploads one file per sub-corpus, is sent to the
    submission page, and sees per-sub-corpus scores once the in-process job has run."""
    response = client.post(
        reverse("signup"),
        {
            "username": "carol",
            "email": "",
            "password1": "carol-pass-word-1",
            "password2": "carol-pass-word-1",
        },
    )
    assert response.status_code == 302
    team_url = reverse("competition:team", kwargs={"slug": world.competition.slug})
    response = client.post(team_url, {"action": "create", "create-name": "Gamma"})
    assert response.status_code == 302
    gamma = Team.objects.get(name="Gamma")
    assert client.get(team_url).content.decode().count(gamma.invite_code) == 1

    page = client.get(phase_url(world, "submit")).content.decode()
    assert "Submissions left: <strong>5</strong>" in page
    assert 'name="file_light"' in page and 'name="file_ami"' in page
    assert 'name="file_switchboard"' not in page

    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(phase_url(world, "submit"), upload_form(world))
    submission = Submission.objects.get(team=gamma)
    assert response.status_code == 302
    assert response["Location"] == reverse("competition:submission", args=[submission.pk])
    assert submission.status == Submission.Status.SCORED

    status = client.get(reverse("competition:submission_status", args=[submission.pk])).json()
    assert status["status"] == "scored" and status["final"] is True
    assert "f1" not in str(status)

    page = client.get(response["Location"]).content.decode()
    assert 'data-status="scored"' in page
    light_conll = submission.scores.get(
        mode="task", metric="conll", document="", subcorpus__slug="light"
    )
    assert f'data-subcorpus="light" data-value="{light_conll.f1}"' in page
    assert "only_split_antecedent" in page  # analysis modes are shown too
    assert f"/submissions/{submission.pk}/analysis/" in page
    assert client.get(f"/submissions/{submission.pk}/analysis/").status_code == 200
    listing = client.get(phase_url(world, "submissions")).content.decode()
    assert reverse("competition:submission", args=[submission.pk]) in listing


def test_a_pending_submission_page_polls_its_status(client, world):
    """A new run's page says "checking" (the worker reads its files before scoring them)
    and polls its status."""
    client.force_login(world.alice)
    response = client.post(phase_url(world, "submit"), upload_form(world))  # no on_commit
    submission = Submission.objects.get()
    assert response.status_code == 302 and response["Location"].endswith(f"/{submission.pk}/")
    assert submission.status == Submission.Status.QUEUED
    page = client.get(reverse("competition:submission", args=[submission.pk])).content.decode()
    assert f'data-poll="{reverse("competition:submission_status", args=[submission.pk])}"' in page
    assert 'data-status="checking"' in page and ">Checking</span>" in page
    status = client.get(reverse("competition:submission_status", args=[submission.pk])).json()
    assert (status["status"], status["final"]) == ("checking", False)


def test_an_invalid_upload_shows_file_document_and_line(
    client, world, django_capture_on_commit_callbacks
):
    """Files that do not fit their keys: the upload goes to the run's page, and once the
    worker's check refused it, that page lists file, sub-corpus, document, line and what is
    wrong; nothing was scored or counted."""
    client.force_login(world.alice)
    broken = world.response_text("light").replace(
        "(EntityID=1|MarkableID=markable_4|Min=8)", "(EntityID=1|MarkableID=markable_4|Min=8"
    )
    assert broken != world.response_text("light")
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            phase_url(world, "submit"),
            upload_form(world, {"light": broken, "ami": world.response_text("ami")}),
        )
    assert response.status_code == 302
    submission = Submission.objects.get()
    assert submission.status == Submission.Status.REJECTED
    page = client.get(response["Location"]).content.decode()
    assert 'data-code="invalid_files"' in page and 'data-status="rejected"' in page
    assert (
        '<td class="problem-file">LIGHT.CONLLUA</td><td data-label="sub-corpus">LIGHT</td>'
        '<td data-label="document">light_1</td><td data-label="line">15</td>'
    ) in page
    assert "Nothing was scored, and the run does not count against your limits" in page
    assert services.submission_quota(team=world.alpha, phase=world.phase).total_used == 0
    assert not submission.runs.exists()


def test_a_limit_shows_a_clear_message(client, make_world):
    world = make_world(daily_limit=0)
    client.force_login(world.alice)
    response = client.post(phase_url(world, "submit"), upload_form(world))
    assert response.status_code == 400
    assert 'data-code="daily_limit"' in response.content.decode()


def test_a_user_without_a_team_is_sent_to_the_team_page(client, world):
    client.force_login(world.mallory)
    page = client.get(phase_url(world, "submit")).content.decode()
    assert reverse("competition:team", kwargs={"slug": world.competition.slug}) in page
    response = client.post(phase_url(world, "submit"), upload_form(world))
    assert not Submission.objects.exists() and response.status_code == 200


def test_pages_need_a_login(client, world):
    response = client.get(phase_url(world, "submit"))
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))


def test_other_teams_cannot_see_a_submission(client, world):
    client.force_login(world.alice)
    client.post(phase_url(world, "submit"), upload_form(world))
    submission = Submission.objects.get()
    client.force_login(world.bob)
    for name in ["submission", "submission_status"]:
        assert client.get(reverse(f"competition:{name}", args=[submission.pk])).status_code == 404
    assert (
        client.post(reverse("competition:submission_cancel", args=[submission.pk])).status_code
        == 404
    )
    assert Submission.objects.get().status == Submission.Status.QUEUED


@pytest.mark.parametrize("show_own, visible", [(False, False), (True, True)])
def test_hidden_phases_hide_scores_from_the_team_unless_the_phase_allows(
    client, make_world, django_capture_on_commit_callbacks, show_own, visible
):
    world = make_world(visibility="hidden", show_own=show_own)
    client.force_login(world.alice)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(phase_url(world, "submit"), upload_form(world))
    submission = Submission.objects.get()
    assert submission.status == Submission.Status.SCORED
    page = client.get(reverse("competition:submission", args=[submission.pk])).content.decode()
    assert ('data-value="' in page) is visible
    assert ("scores are shown after the organizers reveal it" in page) is not visible


def test_organizers_see_hidden_scores_and_reveal_shows_them_to_teams(
    client, make_world, django_capture_on_commit_callbacks
):
    from competition import services

    world = make_world(visibility="hidden")
    client.force_login(world.alice)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(phase_url(world, "submit"), upload_form(world))
    submission = Submission.objects.get()
    url = reverse("competition:submission", args=[submission.pk])
    organizer = get_user_model().objects.create_user("org")
    world.competition.organizers.add(organizer)
    client.force_login(organizer)
    assert 'data-value="' in client.get(url).content.decode()
    services.phase_reveal(phase=world.phase)
    client.force_login(world.alice)
    assert 'data-value="' in client.get(url).content.decode()
    services.phase_hide(phase=world.phase)
    assert 'data-value="' not in client.get(url).content.decode()


def test_a_team_cancels_a_queued_run_and_gets_its_quota_back(client, make_world):
    world = make_world(daily_limit=1)
    client.force_login(world.alice)
    client.post(phase_url(world, "submit"), upload_form(world))
    submission = Submission.objects.get()
    client.post(reverse("competition:submission_cancel", args=[submission.pk]))
    assert Submission.objects.get().status == Submission.Status.CANCELLED
    assert (
        "Submissions left: <strong>1</strong>"
        in client.get(phase_url(world, "submit")).content.decode()
    )


def test_a_team_chooses_its_run_in_a_chosen_phase(
    client, make_world, django_capture_on_commit_callbacks
):
    world = make_world(counts="chosen")
    client.force_login(world.alice)
    for _ in range(2):
        with django_capture_on_commit_callbacks(execute=True):
            client.post(phase_url(world, "submit"), upload_form(world))
    first, second = Submission.objects.order_by("pk")
    client.post(reverse("competition:submission_choose", args=[first.pk]))
    client.post(reverse("competition:submission_choose", args=[second.pk]))
    assert list(Submission.objects.order_by("pk").values_list("is_chosen", flat=True)) == [
        False,
        True,
    ]


def test_joining_a_team_by_invite_code_from_the_team_page(client, world):
    client.force_login(world.mallory)
    url = reverse("competition:team", kwargs={"slug": world.competition.slug})
    client.post(url, {"action": "join", "join-invite_code": "wrong"})
    assert not Membership.objects.filter(user=world.mallory).exists()
    client.post(url, {"action": "join", "join-invite_code": world.beta.invite_code})
    assert Membership.objects.get(user=world.mallory).team == world.beta


def test_the_competition_page_lists_phases_with_status(client, world):
    world.phase.end = timezone.now() - timedelta(minutes=1)
    world.phase.save()
    page = client.get(
        reverse("competition:competition", kwargs={"slug": world.competition.slug})
    ).content.decode()
    assert "Development" in page and 'class="badge closed"' in page
    assert f"/competitions/{world.competition.slug}/{world.task.slug}/dev/leaderboard/" in page
    assert client.get(reverse("competition:home")).status_code == 200


def test_uploads_are_not_served(client, world, django_capture_on_commit_callbacks):
    client.force_login(world.alice)
    client.post(phase_url(world, "submit"), upload_form(world))
    stored = Submission.objects.get().files.first().path
    assert client.get("/media/" + stored).status_code == 404
    assert client.get("/" + stored).status_code == 404


def test_a_zip_upload_from_the_form(client, world, django_capture_on_commit_callbacks):
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for slug in ("light", "ami"):
            zf.writestr(f"{slug.upper()}.CONLLUA", world.response_text(slug))
    client.force_login(world.alice)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            phase_url(world, "submit"),
            {"archive": SimpleUploadedFile("run.zip", buffer.getvalue())},
        )
    assert response.status_code == 302
    assert Submission.objects.get().status == Submission.Status.SCORED


def test_an_oversized_upload_is_refused_before_it_is_read(client, world, settings):
    settings.SUBMISSION_MAX_UPLOAD_BYTES = 1000
    client.force_login(world.alice)
    big = SimpleUploadedFile("LIGHT.CONLLUA", b"x" * 3 * 1024 * 1024)
    response = client.post(phase_url(world, "submit"), {"file_light": big})
    assert response.status_code == 413
    assert 'data-code="upload_too_large"' in response.content.decode()
    assert not Submission.objects.exists()


@pytest.mark.parametrize(
    "next_url, expected",
    [
        ("/competitions/codi-test/", "/competitions/codi-test/"),
        ("https://evil.example/", "/"),
    ],
)
def test_sign_up_returns_to_local_pages_only(client, db, next_url, expected):
    response = client.post(
        reverse("signup") + f"?next={next_url}",
        {
            "username": "dora",
            "email": "",
            "password1": "dora-pass-word-1",
            "password2": "dora-pass-word-1",
        },
    )
    assert response.status_code == 302 and response["Location"] == expected
