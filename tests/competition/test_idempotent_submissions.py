"""Submissions are idempotent: an upload sent again with the key of the run its sender meant
(a retry after a lost answer, a form sent twice) returns that first run and stores nothing."""

from __future__ import annotations

from django.urls import reverse
from rest_framework.test import APIClient

from competition import services
from competition.models import Submission
from competition.services import submissions as submission_service


def _api(world) -> APIClient:
    api = APIClient()
    api.force_authenticate(world.alice)
    return api


def _submit(api, world, key: str | None, **extra):
    headers = {"HTTP_IDEMPOTENCY_KEY": key} if key is not None else {}
    return api.post(
        f"/api/phases/{world.phase.pk}/submissions/",
        {**world.uploads(), **extra},
        format="multipart",
        **headers,
    )


def test_the_same_key_twice_is_one_run(world, django_capture_on_commit_callbacks):
    api = _api(world)
    with django_capture_on_commit_callbacks(execute=True):
        first = _submit(api, world, "run-7f3a")
    assert first.status_code == 201, first.content
    again = _submit(api, world, "run-7f3a")
    assert again.status_code == 200 and again["Idempotent-Replayed"] == "true"
    assert again.json()["id"] == first.json()["id"]
    assert Submission.objects.count() == 1
    assert services.submission_quota(team=world.alpha, phase=world.phase).daily_used == 1
    other = _submit(api, world, "run-8b21")  # a new key is a new run
    assert other.status_code == 201 and Submission.objects.count() == 2
    assert _submit(api, world, None).status_code == 201  # and so is an upload without one


def test_a_retry_after_the_last_run_of_the_day_gets_that_run_not_a_refusal(make_world):
    world = make_world(daily_limit=1)
    api = _api(world)
    first = _submit(api, world, "last-one")
    assert first.status_code == 201
    assert _submit(api, world, "another").status_code == 429
    again = _submit(api, world, "last-one")
    assert again.status_code == 200 and again.json()["id"] == first.json()["id"]


def test_two_sends_that_both_pass_the_first_look_still_make_one_run(world, monkeypatch):
    """The key is looked up again under the team's lock, where concurrent uploads of a team
    take turns: the one that comes second returns the first's run."""
    looked = []
    lookup = submission_service._run_for_key

    def first_look_misses(**kwargs):
        looked.append(kwargs["key"])
        return None if len(looked) == 1 else lookup(**kwargs)

    first = services.submission_create(
        team=world.alpha,
        phase=world.phase,
        user=world.alice,
        files=world.uploads(),
        idempotency_key="twice",
    )
    monkeypatch.setattr(submission_service, "_run_for_key", first_look_misses)
    second = services.submission_create(
        team=world.alpha,
        phase=world.phase,
        user=world.alice,
        files=world.uploads(),
        idempotency_key="twice",
    )
    assert second.pk == first.pk and second.replayed and looked == ["twice", "twice"]
    assert Submission.objects.count() == 1


def test_keys_are_per_team_and_checked(world):
    assert _submit(_api(world), world, "shared").status_code == 201
    bob = APIClient()
    bob.force_authenticate(world.bob)
    response = _submit(bob, world, "shared")  # another team's key is its own
    assert response.status_code == 201 and Submission.objects.count() == 2
    bad = _submit(_api(world), world, "no spaces allowed")
    assert bad.status_code == 400 and bad.json()["code"] == "bad_idempotency_key"


def test_the_upload_page_sent_twice_is_one_run(world, client):
    client.force_login(world.alice)
    url = reverse(
        "competition:submit",
        kwargs={"slug": world.competition.slug, "task": world.task.slug, "phase": world.phase.slug},
    )
    page = client.get(url)
    key = page.context["idempotency_key"]
    assert f'name="idempotency_key" value="{key}"' in page.content.decode()

    def post():
        files = {f"file_{slug}": upload for slug, upload in world.uploads().items()}
        return client.post(url, {**files, "idempotency_key": key}, follow=True)

    first, again = post(), post()
    assert Submission.objects.count() == 1
    run = Submission.objects.get()
    assert first.redirect_chain[-1][0] == again.redirect_chain[-1][0] == f"/submissions/{run.pk}/"
    assert "had arrived already" in again.content.decode()
    assert client.get(url).context["idempotency_key"] != key  # a new page, a new run
