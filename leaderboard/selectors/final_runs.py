"""The runs that count: each team's run under the phase's counts rule, for the organizers'
page, the download of all final submissions and the final-runs export (on a frozen board, those
that counted at the freeze, from its record)."""

from __future__ import annotations

from dataclasses import dataclass

from competition.models import Phase, Score, Submission, SystemCardAnswer
from leaderboard.ranking import select_team_entries
from leaderboard.selectors.material import (
    TASK_MODE,
    active_record,
    active_snapshot,
    board_material,
    material_entries,
    snapshot_data,
)
from leaderboard.selectors.record import FrozenRecord


@dataclass(frozen=True)
class OrganizeScore:
    """A run's primary score as the organize page lists it: the macro-average F1 over the
    phase's available datasets (None while some are missing) and how many it has."""

    average: float | None
    scored: int
    datasets: int


def phase_run_scores(*, phase: Phase, submission_ids) -> dict[int, OrganizeScore]:
    """The current primary scores of these runs of ``phase`` (task mode, whole datasets), for
    the organizers, whatever the board shows to others."""
    available = list(phase.subcorpora.filter(available=True).values_list("pk", flat=True))
    f1s: dict[int, dict[int, float]] = {}
    for sid, subcorpus, f1 in Score.objects.filter(
        submission_id__in=list(submission_ids),
        run__is_current=True,
        mode=TASK_MODE,
        metric=phase.task.primary_metric,
        document="",
        subcorpus_id__in=available,
    ).values_list("submission_id", "subcorpus_id", "f1"):
        f1s.setdefault(sid, {})[subcorpus] = f1
    return {
        sid: OrganizeScore(
            average=(
                sum(cells.values()) / len(available)
                if available and len(cells) == len(available)
                else None
            ),
            scored=len(cells),
            datasets=len(available),
        )
        for sid, cells in f1s.items()
    }


def final_run_ids(data: dict, *, phase: Phase) -> list[int]:
    """The runs of a board's material that count for each team under the phase rule (no
    baselines, none disqualified); in a task with tracks, per track."""
    primary = phase.task.primary_metric
    available = [c["slug"] for c in data["subcorpora"] if c["available"]]
    entries = material_entries(data, mode=TASK_MODE, metric=primary, primary=primary)
    # Each track ranks on its own board: a team's final run is chosen per track.
    track_of = {e["submission_id"]: e.get("track") for e in data["entries"]}
    by_track: dict[str | None, list] = {}
    for entry in entries:
        by_track.setdefault(track_of[entry.submission_id], []).append(entry)
    return [
        e.submission_id
        for runs in by_track.values()
        for e in select_team_entries(
            runs, counts=phase.counts, available=available, missing=phase.missing
        )
        if not e.is_baseline
    ]


def phase_final_submissions(*, phase: Phase) -> list[Submission]:
    """The runs that count for each team under the phase rule (no baselines, none
    disqualified), for the organizers' download of all final submissions: on a frozen
    board, those that counted at the freeze."""
    record = active_record(phase=phase)
    if record is not None:
        ids = list(record.final_runs)
    else:
        data = board_material(phase=phase, modes=[TASK_MODE], metrics=[phase.task.primary_metric])
        ids = final_run_ids(data, phase=phase)
    return list(
        Submission.objects.filter(pk__in=ids)
        .select_related("team", "track")
        .prefetch_related("files__subcorpus")
        .order_by("team__name", "track__order", "id")
    )


@dataclass(frozen=True)
class FinalRun:
    """A run that counts, as the final-runs export lists it: from the frozen record when the
    board is frozen (its team name, scores and card as they stood), else as it is now."""

    submission: Submission
    team: str
    track: str
    run_name: str
    scores: dict
    """{mode: {metric: {sub-corpus slug: [recall, precision, f1]}}}: every measure stored."""
    card: dict[str, str]


@dataclass(frozen=True)
class FinalRuns:
    runs: list[FinalRun]
    questions: list[str]
    """The competition's system-card questions (slugs, in order)."""
    subcorpora: list[str]
    primary_metric: str


def phase_final_runs(*, phase: Phase) -> FinalRuns:
    """The runs that count for each team (`phase_final_submissions`) with what the export
    writes of them; on a frozen board, all of it from the snapshot."""
    frozen = active_snapshot(phase=phase)
    record = FrozenRecord.of(snapshot_data(frozen)) if frozen is not None else None
    if frozen is not None and record is not None:
        data = snapshot_data(frozen)
        questions = [q.slug for q in record.questions]
        answers = record.answers
    else:
        data = board_material(phase=phase)
        questions = [q.slug for q in phase.task.competition.card_questions.all()]
        answers = _all_answers(phase) if questions else {}
    by_id = {e["submission_id"]: e for e in data["entries"]}
    runs = []
    for submission in phase_final_submissions(phase=phase):
        entry = by_id.get(submission.pk, {})
        runs.append(
            FinalRun(
                submission=submission,
                team=entry.get("team", submission.team.name),
                track=entry.get("track") or "",
                run_name=entry.get("run_name", submission.run_name),
                scores=entry.get("scores", {}),
                card=answers.get(submission.pk, {}),
            )
        )
    if record is not None:  # in the order of the names and tracks of the freeze
        tracks = [slug for slug, _ in record.tracks]
        runs.sort(
            key=lambda r: (
                r.team,
                tracks.index(r.track) if r.track in tracks else -1,
                r.submission.pk,
            )
        )
    return FinalRuns(
        runs=runs,
        questions=questions,
        subcorpora=[c["slug"] for c in data["subcorpora"]],
        primary_metric=data.get("primary_metric") or phase.task.primary_metric,
    )


def _all_answers(phase: Phase) -> dict[int, dict[str, str]]:
    answers: dict[int, dict[str, str]] = {}
    for sid, slug, value in SystemCardAnswer.objects.filter(submission__phase=phase).values_list(
        "submission_id", "question__slug", "value"
    ):
        answers.setdefault(sid, {})[slug] = value
    return answers
