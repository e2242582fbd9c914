"""CorefUD boards: datasets grouped by language, skipped datasets under the zero rule, tracks
ranked separately, and the track chosen at upload."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser
from django.urls import reverse

from competition import services
from competition.errors import SubmissionRejected
from competition.models import Phase, SubCorpus, Track
from leaderboard.selectors import BoardQueryError, leaderboard_board

ANON = AnonymousUser()
DATASETS = {"cs_pcedt": "Czech", "cs_pdt": "Czech", "en_gum": "English"}


@pytest.fixture
def crac(make):
    task = make.task(kind="corefud")
    phase = make.phase(task, kind="test_predicted", subcorpora=tuple(DATASETS))
    phase.missing = Phase.Missing.ZERO
    phase.save()
    for slug, language in DATASETS.items():
        SubCorpus.objects.filter(phase=phase, slug=slug).update(language=language)
    llm = Track.objects.create(task=task, slug="llm", name="LLM", order=0)
    free = Track.objects.create(task=task, slug="unconstrained", name="Unconstrained", order=1)
    return phase, llm, free


def test_each_track_ranks_its_own_runs_and_baselines_show_on_every_track(make, crac):
    phase, llm, free = crac
    competition = phase.task.competition
    scores = {slug: 0.5 for slug in DATASETS}
    make.run(phase, make.team(competition, "A"), scores, track=llm)
    make.run(phase, make.team(competition, "B"), {k: 0.7 for k in DATASETS}, track=free)
    make.run(phase, make.team(competition, "C"), {k: 0.6 for k in DATASETS}, track=free)
    make.run(
        phase,
        make.team(competition, "Org", organizer=True),
        {k: 0.1 for k in DATASETS},
        is_baseline=True,
    )
    board = leaderboard_board(phase=phase, viewer=ANON)
    assert board.track == "llm" and [t.slug for t in board.tracks] == ["llm", "unconstrained"]
    assert [(r.entry.team, r.rank) for r in board.rows] == [("A", 1), ("Org", None)]
    other = leaderboard_board(phase=phase, viewer=ANON, track="unconstrained")
    assert [(r.entry.team, r.rank) for r in other.rows] == [("B", 1), ("C", 2), ("Org", None)]
    with pytest.raises(BoardQueryError):
        leaderboard_board(phase=phase, viewer=ANON, track="nope")


def test_a_skipped_dataset_is_shown_missing_and_ranks_below_complete_runs(client, make, crac):
    phase, llm, _ = crac
    competition = phase.task.competition
    make.run(phase, make.team(competition, "Complete"), {k: 0.5 for k in DATASETS}, track=llm)
    make.run(
        phase, make.team(competition, "Skipper"), {"cs_pcedt": 0.95, "cs_pdt": 0.95}, track=llm
    )
    board = leaderboard_board(phase=phase, viewer=ANON)
    assert [(r.entry.team, r.rank, r.missing) for r in board.rows] == [
        ("Complete", 1, ()),
        ("Skipper", 2, ("en_gum",)),
    ]
    assert board.rows[1].average.f1 == pytest.approx(0.95 * 2 / 3)
    task = phase.task
    page = client.get(reverse("leaderboard:board", args=[competition.slug, task.slug, phase.slug]))
    html = page.content.decode()
    assert page.status_code == 200
    assert "missing" in html and "counts as 0 in the average" in html
    assert 'class="lb-langs"' in html and ">Czech<" in html and ">English<" in html
    assert [(g, [c.slug for c in cols]) for g, cols in board.language_groups] == [
        ("Czech", ["cs_pcedt", "cs_pdt"]),
        ("English", ["en_gum"]),
    ]


def test_the_upload_names_its_track_and_the_service_checks_it(world):
    """In a task with tracks the track is required, must exist, and is stored on the run."""
    Track.objects.create(task=world.task, slug="llm", name="LLM")
    for track, code in ((None, "track_required"), ("gpu", "unknown_track")):
        with pytest.raises(SubmissionRejected) as refused:
            services.submission_create(
                team=world.alpha,
                phase=world.phase,
                user=world.alice,
                files=world.uploads(),
                track=track,
            )
        assert refused.value.code == code
    assert not world.phase.submissions.exists()
    submission = services.submission_create(
        team=world.alpha, phase=world.phase, user=world.alice, files=world.uploads(), track="llm"
    )
    assert submission.track.slug == "llm"


def test_a_task_without_tracks_refuses_a_track(world):
    with pytest.raises(SubmissionRejected) as refused:
        services.submission_create(
            team=world.alpha,
            phase=world.phase,
            user=world.alice,
            files=world.uploads(),
            track="llm",
        )
    assert refused.value.code == "unknown_track"


def test_the_variant_columns_come_from_the_same_scoring_of_each_run(client, make, crac):
    """A crac-2024 board shows, beside the primary score, each run's macro-averages in the
    procedure's other modes and its MOR and zero scores, from the rows its scoring stored."""
    from leaderboard.selectors.variants import board_variants

    phase, llm, _ = crac
    phase.task.procedure = "crac-2024"
    phase.task.save()
    competition = phase.task.competition
    submission = make.run(phase, make.team(competition, "A"), {k: 0.6 for k in DATASETS}, track=llm)
    run = submission.runs.get()
    for mode, value in (("partial", 0.7), ("exact", 0.5), ("with-singletons", 0.65)):
        for slug in DATASETS:
            run.scores.create(
                submission=submission,
                subcorpus=phase.subcorpora.get(slug=slug),
                mode=mode,
                metric="conll",
                recall=value,
                precision=value,
                f1=value,
            )
    for metric, value in (("mor", 0.8), ("zero", 0.3)):
        for slug in ("cs_pcedt", "cs_pdt"):  # en_gum has no zeros: it counts as 0
            run.scores.create(
                submission=submission,
                subcorpus=phase.subcorpora.get(slug=slug),
                mode="task",
                metric=metric,
                recall=value,
                precision=value,
                f1=value,
            )
    board = leaderboard_board(phase=phase, viewer=ANON)
    variants = board_variants(board=board)
    got = {(c.mode, c.metric): variants.value(submission.pk, c) for c in variants.columns}
    assert got == pytest.approx(
        {
            ("partial", "conll"): 0.7,
            ("exact", "conll"): 0.5,
            ("with-singletons", "conll"): 0.65,
            ("task", "mor"): 0.8 * 2 / 3,
            ("task", "zero"): 0.3 * 2 / 3,
        }
    )
    html = client.get(
        reverse("leaderboard:board", args=[competition.slug, phase.task.slug, phase.slug])
    ).content.decode()
    assert 'id="variants"' in html and "exact match" in html and "70.00" in html
