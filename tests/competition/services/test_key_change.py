"""A key change never charges a team: runs whose files no longer fit a gold key replaced
after their upload are set aside for the organizers with one message, never failed and
never counted against the team's limits (issue 25, item 4)."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from competition import services
from competition.definition import editor
from competition.models import Submission
from tests.conftest import KEY_DOCS, Doc, conllua

pytestmark = pytest.mark.django_db
Status = Submission.Status

# LIGHT's key with its first document renamed: no run uploaded before fits it
RENAMED = [
    Doc("light_9", KEY_DOCS["light"][0].sentences, KEY_DOCS["light"][0].mentions),
    KEY_DOCS["light"][1],
]


def light_key(docs) -> SimpleUploadedFile:
    return SimpleUploadedFile("LIGHT.CONLLUA", conllua(docs).encode())


def upload(world, commit):
    with commit(execute=True):
        return services.submission_create(
            team=world.alpha, phase=world.phase, user=world.alice, files=world.uploads()
        )


def test_runs_that_no_longer_fit_a_replaced_key_are_set_aside_not_counted(
    world, django_capture_on_commit_callbacks, client
):
    world.phase.total_limit = 2
    world.phase.save()
    scored = upload(world, django_capture_on_commit_callbacks)
    assert Submission.objects.get(pk=scored.pk).status == Status.SCORED
    with django_capture_on_commit_callbacks():  # queued, not scored yet, when the key changes
        waiting = services.submission_create(
            team=world.alpha, phase=world.phase, user=world.alice, files=world.uploads()
        )
    assert services.submission_quota(team=world.alpha, phase=world.phase).total_used == 2
    light = world.phase.subcorpora.get(slug="light")
    with django_capture_on_commit_callbacks(execute=True):
        saved = editor.subcorpus_save(
            phase=world.phase, subcorpus=light, name="LIGHT", key=light_key(RENAMED)
        )
    assert [s.pk for s in saved.rescored] == [scored.pk]
    from tasks.scoring import score_submission_task

    assert score_submission_task.apply(args=[waiting.pk]).result == "set aside"
    for pk in (scored.pk, waiting.pk):
        run = Submission.objects.get(pk=pk)
        assert run.status == Status.SET_ASIDE and not run.platform_failure
        assert run.error.startswith(
            "The organizers replaced the gold key of LIGHT after this "
            "run was uploaded, and the run's files do not fit the new "
            "key ("
        )
        assert "set aside for the organizers" in run.error
        assert "does not count against your team's limits" in run.error
        assert run.is_final and run.error.count("\n") == 0
    # neither counts: the team may upload again at once
    assert services.submission_quota(team=world.alpha, phase=world.phase).total_used == 0
    assert not services.submission_precheck(team=world.alpha, phase=world.phase, user=world.alice)

    # the team's pages say so in neutral words
    client.force_login(world.alice)
    page = client.get(reverse("competition:submission", args=[scored.pk])).content.decode()
    assert 'data-status="set_aside"' in page and 'id="submission-set-aside"' in page
    assert "replaced the gold key of LIGHT" in page and 'class="error-box"' not in page
    status = client.get(reverse("competition:submission_status", args=[scored.pk])).json()
    assert status["status"] == "set_aside" and status["final"] and "LIGHT" in status["error"]
    # the organizers see it on their page, with the message and a Re-score button
    organizer = world.competition.organizers.create(username="olga")
    client.force_login(organizer)
    organize = client.get(
        reverse(
            "leaderboard:organize_phase",
            kwargs={"competition": world.competition.slug, "task": world.task.slug, "phase": "dev"},
        )
    )
    text = organize.content.decode()
    assert f'data-set-aside="{scored.pk}"' in text and f'data-set-aside="{waiting.pk}"' in text
    assert "do not fit the new key" in text

    # the organizers put the old key back and re-score: the runs are scored again
    with django_capture_on_commit_callbacks(execute=True):
        saved = editor.subcorpus_save(
            phase=world.phase, subcorpus=light, name="LIGHT", key=light_key(KEY_DOCS["light"])
        )
    assert sorted(s.pk for s in saved.rescored) == sorted([scored.pk, waiting.pk])
    assert set(
        Submission.objects.filter(pk__in=[scored.pk, waiting.pk]).values_list("status", flat=True)
    ) == {Status.SCORED}


def test_a_run_that_fits_the_new_key_is_scored_and_one_that_never_fitted_fails(
    world, django_capture_on_commit_callbacks, tmp_path
):
    """Only a key change sets a run aside: a run still fitting the new key is scored, and a
    run that no longer reads with the same key (its stored file changed) fails as before."""
    from pathlib import Path

    from django.conf import settings

    scored = upload(world, django_capture_on_commit_callbacks)
    light = world.phase.subcorpora.get(slug="light")
    with django_capture_on_commit_callbacks(execute=True):
        editor.subcorpus_save(
            phase=world.phase, subcorpus=light, name="LIGHT", key=light_key(KEY_DOCS["light"])
        )  # the same documents
    assert Submission.objects.get(pk=scored.pk).status == Status.SCORED
    broken = upload(world, django_capture_on_commit_callbacks)
    stored = broken.files.get(subcorpus__slug="light")
    Path(settings.MEDIA_ROOT, stored.path).write_text("not a CONLL-UA file\n")
    with django_capture_on_commit_callbacks(execute=True):
        services.submission_rescore(submission=broken)
    broken.refresh_from_db()
    assert broken.status == Status.FAILED and not broken.platform_failure
