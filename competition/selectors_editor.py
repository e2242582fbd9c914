"""Read paths of the organizers' editor and the phase page's Data section."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count
from django.utils import timezone

from competition.models import (
    Competition,
    DefinitionJob,
    Phase,
    PhaseDataFile,
    SubCorpus,
    Task,
    Track,
)
from competition.timezones import in_zone
from competition.visibility import data_file_downloadable, user_is_organizer


def competition_for_organizer(*, slug: str, user) -> Competition | None:
    """The competition if ``user`` organizes it (or is staff), else None."""
    competition = Competition.objects.filter(slug=slug).first()
    if competition is None or not user_is_organizer(competition=competition, user=user):
        return None
    return competition


def task_for_organizer(*, slug: str, task: str, user) -> Task | None:
    competition = competition_for_organizer(slug=slug, user=user)
    if competition is None:
        return None
    return Task.objects.filter(competition=competition, slug=task).first()


def phase_for_organizer(*, slug: str, task: str, phase: str, user) -> Phase | None:
    competition = competition_for_organizer(slug=slug, user=user)
    if competition is None:
        return None
    return (
        Phase.objects.select_related("task__competition")
        .filter(task__competition=competition, task__slug=task, slug=phase)
        .first()
    )


def subcorpus_for_organizer(
    *, slug: str, task: str, phase: str, subcorpus: str, user
) -> SubCorpus | None:
    found = phase_for_organizer(slug=slug, task=task, phase=phase, user=user)
    return found.subcorpora.filter(slug=subcorpus).first() if found else None


@dataclass(frozen=True, slots=True)
class DataRow:
    data: PhaseDataFile
    released: bool  # participants may download it now
    release_input: str  # its own release time in the phase's zone, as a form shows it


def phase_data_rows(*, phase: Phase, user, at: datetime | None = None) -> list[DataRow]:
    """The phase's data files ``user`` may see: every file for the organizers (with whether
    it is released); the released ones for everybody else."""
    at = at or timezone.now()
    organizer = user_is_organizer(competition=phase.task.competition, user=user)
    rows = []
    for data in phase.data_files.select_related("phase__task__competition"):
        released = data.released_at <= at
        if organizer or released:
            rows.append(
                DataRow(
                    data=data,
                    released=released,
                    release_input=(
                        in_zone(data.release_at, phase.time_zone).strftime("%Y-%m-%dT%H:%M")
                        if data.release_at
                        else ""
                    ),
                )
            )
    return rows


def data_file_for_download(*, pk: int, file_name: str, user) -> PhaseDataFile | None:
    """The data file if ``user`` may download it now, else None (as if it did not exist)."""
    data = (
        PhaseDataFile.objects.select_related("phase__task__competition")
        .filter(pk=pk, file_name=file_name)
        .first()
    )
    if data is None or not data_file_downloadable(data=data, user=user):
        return None
    return data


def definition_jobs(
    *, competition: Competition, phase: Phase | None = None, limit: int = 5
) -> list[DefinitionJob]:
    """The latest jobs, newest first: the competition's definition uploads (its edit page),
    or the gold keys given on a phase's forms (the phase's edit page)."""
    jobs = competition.definition_jobs.select_related("created_by")
    if phase is None:
        jobs = jobs.filter(kind=DefinitionJob.Kind.DEFINITION)
    else:
        jobs = jobs.filter(kind=DefinitionJob.Kind.KEY, phase=phase)
    return list(jobs[:limit])


def task_tracks(*, task: Task) -> list[Track]:
    """The task's tracks in order, each with ``runs``: how many submissions name it."""
    return list(task.tracks.annotate(runs=Count("submissions")).order_by("order", "id"))
