"""Scoring services: claim, compute, record, fail, re-score, sweep. Real scorer, real files."""

from __future__ import annotations

import dataclasses
from datetime import timedelta

import pytest
from django.utils import timezone

import scoring
from competition import scoring as lifecycle
from competition import services
from competition.models import Score, ScoringRun, Submission
from competition.scoring import ScoreValue
from scoring import ScoreRow

pytestmark = pytest.mark.django_db
Status = Submission.Status


@pytest.fixture
def queued(world) -> Submission:
    return services.submission_create(
        team=world.alpha, phase=world.phase, user=world.alice, files=world.uploads()
    )


def score(submission: Submission, task_id: str = "task-1") -> Submission:
    claimed = lifecycle.submission_claim(submission_id=submission.pk, task_id=task_id)
    assert claimed is not None
    results = lifecycle.submission_compute(submission=claimed)
    assert lifecycle.submission_record(submission=claimed, results=results, task_id=task_id)
    return Submission.objects.get(pk=submission.pk)


def test_a_claim_is_taken_once(queued):
    """Whoever updates the row owns the job; a second task gets nothing."""
    first = lifecycle.submission_claim(submission_id=queued.pk, task_id="a")
    assert first is not None and first.status == Status.SCORING and first.attempts == 1
    assert lifecycle.submission_claim(submission_id=queued.pk, task_id="b") is None


def test_a_redelivered_message_retakes_its_own_claim(queued):
    lifecycle.submission_claim(submission_id=queued.pk, task_id="a")
    again = lifecycle.submission_claim(submission_id=queued.pk, task_id="a")
    assert again is not None and again.attempts == 2


def test_a_stale_claim_can_be_taken_over(queued, settings):
    lifecycle.submission_claim(submission_id=queued.pk, task_id="a")
    stale = timezone.now() - timedelta(seconds=settings.SCORING_HARD_TIME_LIMIT + 1)
    Submission.objects.filter(pk=queued.pk).update(claimed_at=stale)
    assert lifecycle.submission_claim(submission_id=queued.pk, task_id="b") is not None


def test_a_job_out_of_attempts_is_failed_instead_of_claimed(queued, settings):
    """A message that kills its worker every time is not retried forever."""
    settings.SCORING_MAX_ATTEMPTS = 2
    lifecycle.submission_claim(submission_id=queued.pk, task_id="a")
    lifecycle.submission_claim(submission_id=queued.pk, task_id="a")
    assert lifecycle.submission_claim(submission_id=queued.pk, task_id="a") is None
    queued.refresh_from_db()
    assert queued.status == Status.FAILED and queued.platform_failure
    assert "2 attempts" in queued.error


def test_scoring_stores_every_metric_of_every_mode_per_sub_corpus(world, queued):
    """Sub-corpus rows for the task mode and both analysis modes, per-document rows for the
    task mode, and numbers equal to the scorer's on the same files."""
    scored = score(queued)
    assert scored.status == Status.SCORED and scored.scored_at is not None
    assert scored.scorer_version == scoring.__version__
    rows = Score.objects.filter(submission=scored, document="")
    modes = set(rows.values_list("mode", flat=True))
    assert modes == {"task", "remove_singletons remove_split_antecedent", "only_split_antecedent"}
    task_metrics = set(
        rows.filter(mode="task", subcorpus__slug="light").values_list("metric", flat=True)
    )
    assert {"muc", "bcub", "ceafe", "ceafm", "blanc", "lea", "conll"} <= task_metrics
    light = rows.get(mode="task", subcorpus__slug="light", metric="muc")
    # MUC by hand: key chains {knight, he}, {dragon, it}, {my lady, she}; the response moves
    # "it" into the knight's chain: recall = (1 + 0 + 1) / 3, precision = (1 + 0 + 1) / 3.
    assert (light.recall, light.precision) == pytest.approx((2 / 3, 2 / 3), abs=1e-12)
    ami = rows.get(mode="task", subcorpus__slug="ami", metric="conll")
    assert ami.f1 == pytest.approx(1.0, abs=1e-12)
    expected = scoring.score_files(
        str(world.key_dir / "light.conllua"),
        str(scored.files.get(subcorpus__slug="light").absolute_path),
        [],
    )
    conll = rows.get(mode="task", subcorpus__slug="light", metric="conll")
    assert conll.f1 == pytest.approx(expected["conll"], abs=1e-9)
    for name in ("bcub", "ceafe", "lea", "blanc"):
        row = rows.get(mode="task", subcorpus__slug="light", metric=name)
        assert row.f1 == pytest.approx(expected["metrics"][name]["f1"], abs=1e-9)
    per_doc = Score.objects.filter(
        submission=scored, mode="task", subcorpus__slug="light", metric="muc"
    ).exclude(document="")
    assert set(per_doc.values_list("document", flat=True)) == {"light_1", "light_2"}
    assert per_doc.get(document="light_2").f1 == pytest.approx(1.0)
    assert per_doc.get(document="light_1").counts  # numerators and denominators kept
    assert not Score.objects.filter(submission=scored, subcorpus__slug="switchboard").exists()
    run = ScoringRun.objects.get(submission=scored)
    assert run.is_current and run.options["task"] == ["--per-doc"]


def test_recording_twice_writes_once(queued):
    """A duplicated job that computed too is refused at record time: one run, one set of rows."""
    claimed = lifecycle.submission_claim(submission_id=queued.pk, task_id="a")
    results = lifecycle.submission_compute(submission=claimed)
    assert lifecycle.submission_record(submission=claimed, results=results, task_id="a")
    rows = Score.objects.filter(submission=queued).count()
    assert not lifecycle.submission_record(submission=claimed, results=results, task_id="a")
    assert ScoringRun.objects.filter(submission=queued).count() == 1
    assert Score.objects.filter(submission=queued).count() == rows


def stored_as_given(queued) -> None:
    """A run's score rows read back as the scorer gave them: per-document rows, a missing
    recall, counts of both shapes, and a document name with a tab, a backslash, a line
    break and a non-ASCII letter (the rows go to PostgreSQL in a COPY, whose text format
    escapes those)."""
    claimed = lifecycle.submission_claim(submission_id=queued.pk, task_id="a")
    results = lifecycle.submission_compute(submission=claimed)
    where = results.scores[0].subcorpus_id
    odd = (
        ScoreValue(where, ScoreRow("task", "muc", "d\tö\\c\n1", None, 0.5, 0.25, {"tp": 1})),
        ScoreValue(where, ScoreRow("task", "lea", "d2", 1e-17, 1.0, 2e-17, [{"a": 1}, {"b": 2}])),
    )
    results = dataclasses.replace(results, scores=results.scores + odd)
    assert lifecycle.submission_record(submission=claimed, results=results, task_id="a")
    fields = ("subcorpus_id", "mode", "metric", "document", "recall", "precision", "f1", "counts")
    stored = sorted(
        Score.objects.filter(submission=queued).values_list(*fields), key=lambda row: row[:4]
    )
    given = sorted(
        (
            (v.subcorpus_id, v.row.mode, v.row.metric, v.row.document or "")
            + (v.row.recall, v.row.precision, v.row.f1, v.row.counts)
            for v in results.scores
        ),
        key=lambda row: row[:4],
    )
    assert len(given) > 50 and any(row[3] for row in given)  # per-document rows too
    assert stored == given
    assert set(Score.objects.filter(submission=queued).values_list("run_id", flat=True)) == {
        ScoringRun.objects.get(submission=queued, is_current=True).pk
    }


def test_score_rows_are_stored_as_the_scorer_gave_them(queued):
    stored_as_given(queued)


@pytest.mark.services
def test_score_rows_are_stored_as_the_scorer_gave_them_in_postgresql(services_ready, queued):
    stored_as_given(queued)


def test_a_task_that_lost_its_claim_records_nothing(queued):
    claimed = lifecycle.submission_claim(submission_id=queued.pk, task_id="a")
    results = lifecycle.submission_compute(submission=claimed)
    Submission.objects.filter(pk=queued.pk).update(claimed_by="b")
    assert not lifecycle.submission_record(submission=claimed, results=results, task_id="a")
    assert not Score.objects.filter(submission=queued).exists()


def test_a_run_records_the_keys_it_was_scored_against(world, queued):
    from competition.models import SubCorpus

    SubCorpus.objects.filter(slug="light").update(sha256="a" * 64)
    SubCorpus.objects.filter(slug="ami").update(sha256="b" * 64)
    run = ScoringRun.objects.get(submission=score(queued))
    ids = dict(SubCorpus.objects.values_list("slug", "pk"))
    assert run.keys == {str(ids["light"]): "a" * 64, str(ids["ami"]): "b" * 64}


@pytest.mark.parametrize("change", ["key", "options"])
def test_a_key_or_options_corrected_while_scoring_makes_the_job_score_again(
    world, queued, texts, change, django_capture_on_commit_callbacks
):
    """An organizer corrects a gold key (or the task's options) while a job computes: the
    job records nothing and the submission is scored again, on the corrected input, without
    spending an attempt."""
    from competition.models import SubCorpus

    claimed = lifecycle.submission_claim(submission_id=queued.pk, task_id="a")
    stale = lifecycle.submission_compute(submission=claimed)
    if change == "key":  # the correction makes alice's one wrong link right
        (world.key_dir / "light-2.conllua").write_text(texts.response("light"), encoding="utf-8")
        SubCorpus.objects.filter(slug="light").update(
            key_file="keys/light-2.conllua", sha256="c" * 64
        )
    else:
        world.task.scorer_options = ["remove_singletons"]
        world.task.save()
    with django_capture_on_commit_callbacks() as callbacks:
        assert not lifecycle.submission_record(submission=claimed, results=stale, task_id="a")
    assert len(callbacks) == 1  # queued again
    again = Submission.objects.get(pk=queued.pk)
    assert (again.status, again.attempts, again.claimed_by) == (Status.QUEUED, 0, "")
    assert not ScoringRun.objects.filter(submission=queued).exists()
    scored = score(again, task_id="b")
    run = ScoringRun.objects.get(submission=scored)
    light = Score.objects.get(
        run=run, subcorpus__slug="light", mode="task", metric="muc", document=""
    )
    if change == "key":
        assert run.keys[str(light.subcorpus_id)] == "c" * 64
        assert light.f1 == pytest.approx(1.0, abs=1e-12)
    else:
        assert run.options["task"] == ["remove_singletons", "--per-doc"]
        assert light.f1 == pytest.approx(2 / 3, abs=1e-12)


def test_rescoring_adds_a_current_run_and_keeps_history(queued, django_capture_on_commit_callbacks):
    scored = score(queued)
    first_run = ScoringRun.objects.get(submission=scored)
    with django_capture_on_commit_callbacks() as callbacks:
        again = services.submission_rescore(submission=scored)
    assert len(callbacks) == 1
    assert again.status == Status.QUEUED and again.attempts == 0
    rescored = score(again, task_id="task-2")
    runs = list(ScoringRun.objects.filter(submission=rescored).order_by("created_at", "id"))
    assert [run.pk for run in runs][0] == first_run.pk and len(runs) == 2
    assert [run.is_current for run in runs] == [False, True]
    current = Score.objects.filter(submission=rescored, run__is_current=True).count()
    assert current == Score.objects.filter(run=first_run).count()


def test_rescoring_refuses_a_pending_submission(queued):
    from competition.errors import CompetitionError

    with pytest.raises(CompetitionError) as caught:
        services.submission_rescore(submission=queued)
    assert caught.value.code == "invalid_status"


def test_phase_rescore_queues_scored_and_platform_failed_runs(world, queued):
    score(queued)
    failed = services.submission_create(
        team=world.alpha, phase=world.phase, user=world.alice, files=world.uploads()
    )
    lifecycle.submission_fail(submission=failed, reason="lost", platform_failure=True)
    pending = services.submission_create(
        team=world.alpha, phase=world.phase, user=world.alice, files=world.uploads()
    )
    requeued = services.phase_rescore(phase=world.phase)
    assert {s.pk for s in requeued} == {queued.pk, failed.pk}
    pending.refresh_from_db()
    assert pending.status == Status.QUEUED


def test_fail_only_touches_pending_submissions_and_the_claim_holder(queued):
    lifecycle.submission_claim(submission_id=queued.pk, task_id="a")
    assert not lifecycle.submission_fail(
        submission=queued, reason="x", platform_failure=True, task_id="b"
    )
    assert lifecycle.submission_fail(
        submission=queued, reason="x", platform_failure=True, task_id="a"
    )
    assert not lifecycle.submission_fail(submission=queued, reason="y", platform_failure=True)
    queued.refresh_from_db()
    assert queued.status == Status.FAILED and queued.error == "x"


def test_the_sweep_requeues_stuck_jobs(queued, settings, django_capture_on_commit_callbacks):
    """A message lost before any worker claimed it, or a worker that died mid-job, leaves a
    submission in queued/scoring: the sweep queues it again."""
    old = timezone.now() - timedelta(seconds=settings.SWEEP_STUCK_AFTER + 5)
    Submission.objects.filter(pk=queued.pk).update(queued_at=old)
    with django_capture_on_commit_callbacks() as callbacks:
        report = lifecycle.submission_sweep()
    assert report.requeued == (queued.pk,) and len(callbacks) == 1
    queued.refresh_from_db()
    assert queued.status == Status.QUEUED and queued.attempts == 1
    assert lifecycle.submission_sweep().requeued == ()  # fresh again: left alone


def test_the_sweep_fails_a_job_out_of_attempts_with_a_message(queued, settings):
    settings.SCORING_MAX_ATTEMPTS = 2
    old = timezone.now() - timedelta(seconds=settings.SWEEP_STUCK_AFTER + 5)
    lifecycle.submission_claim(submission_id=queued.pk, task_id="a")
    lifecycle.submission_claim(submission_id=queued.pk, task_id="a")
    Submission.objects.filter(pk=queued.pk).update(claimed_at=old)
    report = lifecycle.submission_sweep()
    assert report.failed == (queued.pk,)
    queued.refresh_from_db()
    assert queued.status == Status.FAILED and queued.platform_failure
    assert "does not count against your limits" in queued.error


def test_the_sweep_leaves_final_submissions_alone(queued, settings):
    scored = score(queued)
    Submission.objects.filter(pk=scored.pk).update(
        queued_at=timezone.now() - timedelta(days=1), claimed_at=timezone.now() - timedelta(days=1)
    )
    assert lifecycle.submission_sweep() == lifecycle.SweepReport(requeued=(), failed=())
