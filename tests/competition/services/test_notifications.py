"""E-mail to the submitter when a run ends: a link, never a score, and only to them."""

from __future__ import annotations

from smtplib import SMTPException

import pytest
from django.core import mail
from django.utils import timezone

from competition import scoring as lifecycle
from competition import services
from competition.models import Score, Submission
from tasks.scoring import score_submission_task

pytestmark = pytest.mark.django_db
Status = Submission.Status


@pytest.fixture
def alice_mail(world):
    world.alice.email = "alice@example.org"
    world.alice.save()
    return world


def submit(world, texts=None) -> Submission:
    return services.submission_create(
        team=world.alpha, phase=world.phase, user=world.alice, files=world.uploads(texts)
    )


def finish(submission: Submission, capture) -> Submission:
    """Run the scoring job and what it queues on commit (the e-mail job)."""
    with capture(execute=True):
        score_submission_task.apply(args=[submission.pk], task_id=f"t-{len(mail.outbox)}")
    submission.refresh_from_db()
    return submission


def shown_numbers(submission: Submission) -> set[str]:
    """Every score of the run as a page or an export could print it."""
    values = Score.objects.filter(submission=submission).values_list("recall", "precision", "f1")
    return {
        form.format(v)
        for row in values
        for v in row
        if 0 < v < 1
        for form in ("{:.2f}", "{:.4f}", "{!r}", "{:.1%}")
    } | {f"{100 * v:.2f}" for row in values for v in row if 0 < v < 1}


def test_a_scored_run_mails_its_submitter_a_link_and_no_scores(
    alice_mail, settings, django_capture_on_commit_callbacks
):
    settings.SITE_URL = "https://codicrac.example.org/"
    run = finish(submit(alice_mail), django_capture_on_commit_callbacks)
    assert run.status == Status.SCORED
    [message] = mail.outbox
    assert message.to == ["alice@example.org"]
    assert message.subject == f"[CODI-CRAC test] run #{run.pk} scored"
    assert f"https://codicrac.example.org/submissions/{run.pk}/" in message.body
    assert "Team Alpha" in message.body and "Its scores are on its page" in message.body
    numbers = shown_numbers(run)
    assert numbers and not any(n in message.body for n in numbers)


def test_a_hidden_board_is_not_hinted_at_beyond_its_being_hidden(
    alice_mail, django_capture_on_commit_callbacks
):
    alice_mail.phase.leaderboard_visibility = "hidden"
    alice_mail.phase.save()
    run = finish(submit(alice_mail), django_capture_on_commit_callbacks)
    [message] = mail.outbox
    assert "leaderboard of this phase is hidden" in message.body
    assert not any(n in message.body for n in shown_numbers(run))


def test_re_scoring_mails_nobody(alice_mail, django_capture_on_commit_callbacks):
    """An organizer re-scoring a phase would otherwise mail every team once per run."""
    run = finish(submit(alice_mail), django_capture_on_commit_callbacks)
    with django_capture_on_commit_callbacks(execute=False):
        services.submission_rescore(submission=run)
    run = finish(run, django_capture_on_commit_callbacks)
    assert run.status == Status.SCORED and run.runs.count() == 2
    with django_capture_on_commit_callbacks(execute=False):
        services.submission_rescore(submission=run)
    with django_capture_on_commit_callbacks(execute=True):
        lifecycle.submission_fail(submission=run, reason="lost", platform_failure=True)
    assert [m.subject.split()[-1] for m in mail.outbox] == ["scored"]


def test_a_failed_run_mails_the_message_the_team_sees(
    alice_mail, texts, django_capture_on_commit_callbacks
):
    run = submit(alice_mail)
    Submission.objects.filter(pk=run.pk).update(validated_at=timezone.now())  # checked
    # the stored file changed on disk after validation: the scorer refuses it
    light = run.files.get(subcorpus__slug="light").absolute_path
    light.write_text(
        light.read_text(encoding="utf-8").replace("# newdoc id = light_2", "# newdoc id = other"),
        encoding="utf-8",
    )
    run = finish(run, django_capture_on_commit_callbacks)
    assert run.status == Status.FAILED and not run.platform_failure
    [message] = mail.outbox
    assert message.subject.endswith("failed")
    assert run.error.strip() in message.body
    assert "It counts against your team's limits." in message.body
    assert str(alice_mail.key_dir) not in message.body


def test_a_run_refused_by_the_check_of_its_files_mails_its_problems(
    alice_mail, django_capture_on_commit_callbacks
):
    run = submit(alice_mail)
    light = run.files.get(subcorpus__slug="light").absolute_path
    light.write_text(
        light.read_text(encoding="utf-8").replace("# newdoc id = light_2", "# newdoc id = other"),
        encoding="utf-8",
    )
    run = finish(run, django_capture_on_commit_callbacks)
    assert run.status == Status.REJECTED
    [message] = mail.outbox
    assert message.subject.endswith("refused")
    assert run.error.strip() in message.body and "LIGHT.CONLLUA" in message.body
    assert "It does not count against your team's limits." in message.body
    assert str(alice_mail.key_dir) not in message.body


def test_a_platform_failure_says_it_does_not_count(alice_mail, django_capture_on_commit_callbacks):
    run = submit(alice_mail)
    with django_capture_on_commit_callbacks(execute=True):
        assert lifecycle.submission_fail(
            submission=run, reason="The worker was lost.", platform_failure=True
        )
    [message] = mail.outbox
    assert "The worker was lost." in message.body
    assert "does not count against your team's limits" in message.body


def test_no_mail_without_an_address_for_baselines_or_when_switched_off(
    world, settings, django_capture_on_commit_callbacks
):
    finish(submit(world), django_capture_on_commit_callbacks)  # alice has no address
    organizers = services.organizer_team_get_or_create(competition=world.competition)
    baseline = services.submission_create(
        team=organizers, phase=world.phase, user=None, files=world.uploads(), is_baseline=True
    )
    finish(baseline, django_capture_on_commit_callbacks)
    world.alice.email = "alice@example.org"
    world.alice.save()
    settings.SUBMISSION_EMAILS = False
    finish(submit(world), django_capture_on_commit_callbacks)
    assert mail.outbox == []
    assert Submission.objects.filter(status=Status.SCORED).count() == 3


def test_a_mail_server_that_is_down_costs_the_mail_not_the_run(
    alice_mail, monkeypatch, django_capture_on_commit_callbacks
):
    def down(*args, **kwargs):
        raise SMTPException("connection refused")

    monkeypatch.setattr("competition.services.notifications.send_mail", down)
    run = finish(submit(alice_mail), django_capture_on_commit_callbacks)
    assert run.status == Status.SCORED and run.scores.exists()
    assert mail.outbox == []
