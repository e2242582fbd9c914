"""Importing the published results of an edition that ran elsewhere (reference results).

A reference result is a `Submission` with ``is_reference`` and its ``source`` (the paper and
table, or the page, the numbers come from), in a team named as published, with one scoring
run (``scorer_version`` "published") and one score row per sub-corpus holding the published
F1. Nothing is computed and nothing is invented: recall and precision stay empty when the
source prints F1 alone, and no files exist. Boards show such rows marked "published", with
their source, ranked as the official results they are; a published baseline stays unranked
like every baseline.

The file (YAML) names the competition, the source (and, as ``published``, the day it was
published: a board frozen from it is dated so) and tables of rows; every row is checked
(known phase, sub-corpus and metric, numbers in range, the published average when given equal
to the mean of the row at the printed precision, see `average_slack`) before anything is
written, and a re-import of the same source replaces what it imported before, in one
transaction.

A table may name a ``mode`` of the task's procedure (``partial``, ``exact``,
``with-singletons``…; default ``task``, the edition's primary variant) and a ``track`` of the
task (its slug): the rows' numbers are stored in that mode, on the run of the team's result
in that track, so one published result carries every variant its tables print. A table whose
source prints only the macro-average (no per-dataset numbers) says ``averages_only: true``
and gives each row an ``average`` alone: such rows are checked and stored as
`PublishedAverage` rows, which the phase's board page shows as printed, with their source,
beside (never ranked with) its runs: a board's numbers are per dataset, and none may be
invented.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import yaml
from django.db import transaction
from django.utils import timezone

from competition.errors import DefinitionError
from competition.models import (
    Competition,
    Phase,
    PublishedAverage,
    Score,
    ScoringRun,
    Submission,
    Team,
    Track,
)
from competition.services.boards import board_entries_write
from competition.untrusted import yaml_read
from scoring.procedures import procedure as procedure_named
from scoring.vocabulary import METRIC_ORDER, base_metric

PUBLISHED = "published"
"""The scorer version of a reference result's scoring run."""


@dataclass(frozen=True, slots=True)
class ReferenceRow:
    phase: Phase
    metric: str
    team: str
    system: str
    baseline: bool
    scores: dict[int, float]  # sub-corpus id → F1 as a fraction
    mode: str = Score.TASK_MODE
    track: Track | None = None


@dataclass(frozen=True, slots=True)
class AverageRow:
    """A row of an ``averages_only`` table: the macro-average alone, as printed."""

    phase: Phase
    metric: str
    mode: str
    track: Track | None
    team: str
    system: str
    baseline: bool
    average: float  # as a fraction


def reference_published_on(*, path: Path) -> date | None:
    """The day the file's source was published (its ``published: YYYY-MM-DD``), the date of
    the official record built from it (a board frozen from these results is dated so); None
    when the file does not say. Raises `DefinitionError` for a value that is not a date."""
    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise DefinitionError(str(path), f"the file does not read as YAML: {exc}") from None
    value = data.get("published") if isinstance(data, dict) else None
    if value is None:
        return None
    if isinstance(value, datetime):
        value = value.date()
    if not isinstance(value, date):
        try:
            value = date.fromisoformat(str(value))
        except ValueError:
            raise DefinitionError(
                str(path), f"'published' is {value!r}; expected the day as YYYY-MM-DD"
            ) from None
    return value


def reference_published_at(*, path: Path) -> datetime | None:
    """`reference_published_on` as a moment: the start of that day, UTC."""
    day = reference_published_on(path=path)
    return None if day is None else datetime(day.year, day.month, day.day, tzinfo=UTC)


def reference_averages_read(*, path: Path) -> list[AverageRow]:
    """The checked rows of the file's ``averages_only`` tables (raises `DefinitionError`)."""
    return _read(path)[2]


def _table_mode(table: dict, *, at: str, where: str, phase: Phase) -> str:
    mode = str(table.get("mode") or Score.TASK_MODE)
    modes = [Score.TASK_MODE]
    if phase.task.procedure:
        modes = list(procedure_named(phase.task.procedure).modes)
    if mode not in modes:
        raise DefinitionError(
            where,
            f"{at}: mode {mode!r} is not a mode of the procedure "
            f"{phase.task.procedure or '(none)'} (expected one of "
            f"{', '.join(modes)})",
        )
    return mode


def _table_track(table: dict, *, at: str, where: str, phase: Phase) -> Track | None:
    slug = table.get("track")
    tracks = {t.slug: t for t in phase.task.tracks.all()}
    if slug is None:
        if tracks:
            raise DefinitionError(
                where,
                f"{at}: the task has tracks ({', '.join(tracks)}); "
                "say which one the table ranks with 'track'",
            )
        return None
    if str(slug) not in tracks:
        raise DefinitionError(
            where,
            f"{at}: no track {slug!r} in {phase.task.slug} "
            f"(expected one of {', '.join(tracks) or 'none'})",
        )
    return tracks[str(slug)]


def _average_row(
    raw: Any,
    *,
    at: str,
    where: str,
    phase: Phase,
    metric: str,
    mode: str,
    track: Track | None,
    scale: float,
) -> AverageRow:
    if not isinstance(raw, dict) or not str(raw.get("team", "")).strip():
        raise DefinitionError(where, f"{at}: each row needs a team")
    if raw.get("scores") is not None:
        raise DefinitionError(where, f"{at}: an averages_only table gives 'average' alone")
    value = raw.get("average")
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not math.isfinite(value)
        or not 0 <= value <= scale
    ):
        raise DefinitionError(
            where, f"{at}: the average {value!r} is not a score between 0 and {scale:g}"
        )
    return AverageRow(
        phase=phase,
        metric=metric,
        mode=mode,
        track=track,
        team=str(raw["team"]).strip(),
        system=str(raw.get("system", "")).strip(),
        baseline=bool(raw.get("baseline", False)),
        average=float(value) / scale,
    )


def reference_results_read(*, path: Path) -> tuple[str, list[ReferenceRow]]:
    """The source and the checked rows of a reference-results file; raises `DefinitionError`
    naming the table and row of the first problem."""
    source, rows, _ = _read(path)
    return source, rows


def _read(path: Path) -> tuple[str, list[ReferenceRow], list[AverageRow]]:
    where = str(path)
    try:
        data = yaml_read(Path(path).read_text(encoding="utf-8"), name=where)
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise DefinitionError(where, f"the file does not read as YAML: {exc}") from None
    if not isinstance(data, dict):
        raise DefinitionError(where, "the file must be a mapping")
    competition, source, scale = _head(data, where=where)
    rows: list[ReferenceRow] = []
    averages: list[AverageRow] = []
    for t, table in enumerate(data.get("tables") or []):
        at = f"tables[{t}]"
        if not isinstance(table, dict):
            raise DefinitionError(where, f"{at}: each table must be a mapping")
        if table.get("averages_only"):
            averages.extend(
                _averages(table, at=at, where=where, competition=competition, scale=scale)
            )
        else:
            rows.extend(_rows(table, at=at, where=where, competition=competition, scale=scale))
    if not rows and not averages:
        raise DefinitionError(where, "the file lists no result")
    return source, rows, averages


def _head(data: dict, *, where: str) -> tuple[Competition, str, float]:
    """The file's competition, the source of its numbers and their scale (percent: 100)."""
    competition = Competition.objects.filter(slug=str(data.get("competition", ""))).first()
    if competition is None:
        raise DefinitionError(where, f"no competition {data.get('competition')!r}")
    source = " ".join(str(data.get("source", "")).split())
    if not source:
        raise DefinitionError(where, "'source' must say where the numbers come from")
    if data.get("url"):
        source = f"{source} ({data['url']})"
    unit = data.get("unit", "percent")
    if unit not in ("percent", "fraction"):
        raise DefinitionError(where, f"'unit' is {unit!r}; expected percent or fraction")
    return competition, source, 100.0 if unit == "percent" else 1.0


def _table_head(
    table: dict, *, at: str, where: str, competition: Competition
) -> tuple[Phase, str, str, Track | None]:
    """A table's phase, metric, mode and track."""
    task_slug, _, phase_slug = str(table.get("phase", "")).partition("/")
    phase = (
        Phase.objects.filter(task__competition=competition, task__slug=task_slug, slug=phase_slug)
        .select_related("task")
        .first()
    )
    if phase is None:
        raise DefinitionError(where, f"{at}: no phase {table.get('phase')!r} in {competition.slug}")
    metric = str(table.get("metric", ""))
    if base_metric(metric) not in METRIC_ORDER:
        raise DefinitionError(
            where,
            f"{at}: unknown metric {metric!r} (expected one of {', '.join(METRIC_ORDER)})",
        )
    mode = _table_mode(table, at=at, where=where, phase=phase)
    track = _table_track(table, at=at, where=where, phase=phase)
    return phase, metric, mode, track


def _averages(
    table: dict, *, at: str, where: str, competition: Competition, scale: float
) -> list[AverageRow]:
    """An ``averages_only`` table: each row a system's average, no column."""
    phase, metric, mode, track = _table_head(table, at=at, where=where, competition=competition)
    if table.get("columns"):
        raise DefinitionError(where, f"{at}: an averages_only table has no columns")
    return [
        _average_row(
            raw,
            at=f"{at}.rows[{r}]",
            where=where,
            phase=phase,
            metric=metric,
            mode=mode,
            track=track,
            scale=scale,
        )
        for r, raw in enumerate(table.get("rows") or [])
    ]


def _rows(
    table: dict, *, at: str, where: str, competition: Competition, scale: float
) -> list[ReferenceRow]:
    """A table of systems by the phase's sub-corpora (its ``columns``)."""
    phase, metric, mode, track = _table_head(table, at=at, where=where, competition=competition)
    subcorpora = {sc.name: sc.pk for sc in phase.subcorpora.all()}
    columns = [str(name) for name in table.get("columns") or []]
    unknown = [name for name in columns if name not in subcorpora]
    if not columns or unknown:
        raise DefinitionError(
            where,
            f"{at}: columns {unknown or columns} are not "
            f"sub-corpora of {table.get('phase')} (expected names "
            f"among {', '.join(subcorpora)})",
        )
    return [
        _row(
            raw,
            at=f"{at}.rows[{r}]",
            where=where,
            phase=phase,
            metric=metric,
            columns=columns,
            subcorpora=subcorpora,
            scale=scale,
            mode=mode,
            track=track,
        )
        for r, raw in enumerate(table.get("rows") or [])
    ]


def _row(
    raw: Any,
    *,
    at: str,
    where: str,
    phase: Phase,
    metric: str,
    columns: list[str],
    subcorpora: dict[str, int],
    scale: float,
    mode: str = Score.TASK_MODE,
    track: Track | None = None,
) -> ReferenceRow:
    if not isinstance(raw, dict) or not str(raw.get("team", "")).strip():
        raise DefinitionError(where, f"{at}: each row needs a team")
    values = raw.get("scores")
    if not isinstance(values, list) or len(values) != len(columns):
        raise DefinitionError(
            where,
            f"{at}: 'scores' must list {len(columns)} numbers, one "
            f"per column ({', '.join(columns)})",
        )
    numbers = []
    for value in values:
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or not 0 <= value <= scale
            or not math.isfinite(value)
        ):
            raise DefinitionError(where, f"{at}: {value!r} is not a score between 0 and {scale:g}")
        numbers.append(float(value))
    average = raw.get("average")
    if average is not None:
        mean = sum(numbers) / len(numbers)
        slack = average_slack(average=average, scores=values)
        if abs(mean - float(average)) > slack + 1e-9:
            raise DefinitionError(
                where,
                f"{at}: the published average {average} is not the "
                f"mean of the row ({mean:.4f}, allowed difference {slack:g} at the printed "
                "precision): check the transcription",
            )
    return ReferenceRow(
        phase=phase,
        metric=metric,
        team=str(raw["team"]).strip(),
        system=str(raw.get("system", "")).strip(),
        baseline=bool(raw.get("baseline", False)),
        scores={subcorpora[name]: n / scale for name, n in zip(columns, numbers)},
        mode=mode,
        track=track,
    )


def printed_decimals(value: float | int) -> int:
    """The decimals of a number as written in the file (``70.18`` → 2, ``67.0`` → 1)."""
    return len(repr(value).partition(".")[2]) if isinstance(value, float) else 0


def average_slack(*, average: float | int, scores: Sequence[float | int]) -> float:
    """How far the mean of printed per-dataset numbers may lie from a printed average that
    agrees with them at the printed precision: half a unit of the average's last printed
    digit (its rounding) plus half a unit of the scores' last printed digit (the mean of
    rounded numbers is off by at most that much). Scores printed with one decimal and an
    average with two (a team's 70.18 over figures such as 80.4) agree when they are 0.055
    apart or less; a wrong figure moves the mean by its error over the number of datasets."""
    score_decimals = max((printed_decimals(s) for s in scores), default=0)
    return 10 ** -printed_decimals(average) / 2 + 10**-score_decimals / 2


def reference_results_import(*, path: Path) -> list[Submission]:
    """Import a reference-results file (see the module docstring); returns the reference
    submissions it created. What the same source imported before is replaced."""
    source, rows, averages = _read(path)
    reference_published_on(path=path)  # a bad date is refused before anything is written
    return reference_rows_write(source=source, rows=rows, averages=averages)


@transaction.atomic
def reference_rows_write(
    *, source: str, rows: list[ReferenceRow], averages: Sequence[AverageRow] = ()
) -> list[Submission]:
    """Write checked reference rows (and published macro-averages) from ``source``,
    replacing what it imported before."""
    phases = {row.phase.pk for row in rows}
    Submission.objects.filter(phase_id__in=phases, is_reference=True, source=source).delete()
    _averages_write(source, averages)
    now = timezone.now()
    # one published result per phase, track, team and system: its tables' variants (modes)
    # are score rows of the same run
    runs: dict[tuple, ScoringRun] = {}
    for row in rows:
        key = (row.phase.pk, row.track.pk if row.track else None, row.team, row.system)
        if key not in runs:
            runs[key] = _published_run(row, source=source, now=now)
        _scores_write(runs[key], row)
    created = [run.submission for run in runs.values()]
    board_entries_write(submission_ids=[s.pk for s in created])
    return created


def _averages_write(source: str, averages: Sequence[AverageRow]) -> None:
    PublishedAverage.objects.filter(
        phase_id__in={a.phase.pk for a in averages}, source=source
    ).delete()
    PublishedAverage.objects.bulk_create(
        [
            PublishedAverage(
                phase=a.phase,
                track=a.track,
                mode=a.mode,
                metric=a.metric,
                team=a.team,
                system=a.system,
                is_baseline=a.baseline,
                average=a.average,
                source=source[:500],
                order=i,
            )
            for i, a in enumerate(averages)
        ]
    )


def _published_run(row: ReferenceRow, *, source: str, now: datetime) -> ScoringRun:
    """The run of a published result: a scored reference submission of the team it names,
    dated at the phase's end."""
    competition = row.phase.task.competition
    team, _ = Team.objects.get_or_create(competition=competition, name=row.team)
    moment = row.phase.end or now
    submission = Submission.objects.create(
        team=team,
        phase=row.phase,
        run_name=row.system,
        is_reference=True,
        source=source,
        is_baseline=row.baseline,
        track=row.track,
        status=Submission.Status.SCORED,
        scorer_version=PUBLISHED,
        created_at=moment,
        validated_at=moment,
        scored_at=moment,
    )
    return ScoringRun.objects.create(
        submission=submission,
        scorer_version=PUBLISHED,
        procedure=row.phase.task.procedure,
        created_at=now,
        is_current=True,
    )


def _scores_write(run: ScoringRun, row: ReferenceRow) -> None:
    Score.objects.bulk_create(
        [
            Score(
                run=run,
                submission_id=run.submission_id,
                subcorpus_id=subcorpus_id,
                mode=row.mode,
                metric=row.metric,
                document="",
                recall=None,
                precision=None,
                f1=value,
            )
            for subcorpus_id, value in row.scores.items()
        ]
    )
