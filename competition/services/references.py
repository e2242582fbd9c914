"""Importing the published results of an edition that ran elsewhere (reference results).

A reference result is a `Submission` with ``is_reference`` and its ``source`` (the paper and
table, or the page, the numbers come from), in a team named as published, with one scoring
run (``scorer_version`` "published") and one score row per sub-corpus holding the published
F1. Nothing is computed and nothing is invented: recall and precision stay empty when the
source prints F1 alone, and no files exist. Boards show such rows marked "published", with
their source, ranked as the official results they are; a published baseline stays unranked
like every baseline.

The file (YAML) names the competition, the source and tables of rows; every row is checked
(known phase, sub-corpus and metric, numbers in range, the published average when given equal
to the mean of the row within the table's rounding) before anything is written, and a
re-import of the same source replaces what it imported before, in one transaction.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from django.db import transaction
from django.utils import timezone

from competition.errors import DefinitionError
from competition.models import Competition, Phase, Score, ScoringRun, Submission, Team
from competition.services.boards import board_entries_write
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


def reference_results_read(*, path: Path) -> tuple[str, list[ReferenceRow]]:
    """The source and the checked rows of a reference-results file; raises `DefinitionError`
    naming the table and row of the first problem."""
    where = str(path)
    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise DefinitionError(where, f"the file does not read as YAML: {exc}") from None
    if not isinstance(data, dict):
        raise DefinitionError(where, "the file must be a mapping")
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
    scale = 100.0 if unit == "percent" else 1.0
    rows: list[ReferenceRow] = []
    for t, table in enumerate(data.get("tables") or []):
        at = f"tables[{t}]"
        task_slug, _, phase_slug = str(table.get("phase", "")).partition("/")
        phase = Phase.objects.filter(task__competition=competition, task__slug=task_slug,
                                     slug=phase_slug).select_related("task").first()
        if phase is None:
            raise DefinitionError(where, f"{at}: no phase {table.get('phase')!r} in "
                                  f"{competition.slug}")
        metric = str(table.get("metric", ""))
        if base_metric(metric) not in METRIC_ORDER:
            raise DefinitionError(where, f"{at}: unknown metric {metric!r} (expected one of "
                                  f"{', '.join(METRIC_ORDER)})")
        subcorpora = {sc.name: sc.pk for sc in phase.subcorpora.all()}
        columns = [str(name) for name in table.get("columns") or []]
        unknown = [name for name in columns if name not in subcorpora]
        if not columns or unknown:
            raise DefinitionError(where, f"{at}: columns {unknown or columns} are not "
                                  f"sub-corpora of {table.get('phase')} (expected names "
                                  f"among {', '.join(subcorpora)})")
        for r, raw in enumerate(table.get("rows") or []):
            rows.append(_row(raw, at=f"{at}.rows[{r}]", where=where, phase=phase,
                             metric=metric, columns=columns, subcorpora=subcorpora,
                             scale=scale))
    if not rows:
        raise DefinitionError(where, "the file lists no result")
    return source, rows


def _row(raw: Any, *, at: str, where: str, phase: Phase, metric: str, columns: list[str],
         subcorpora: dict[str, int], scale: float) -> ReferenceRow:
    if not isinstance(raw, dict) or not str(raw.get("team", "")).strip():
        raise DefinitionError(where, f"{at}: each row needs a team")
    values = raw.get("scores")
    if not isinstance(values, list) or len(values) != len(columns):
        raise DefinitionError(where, f"{at}: 'scores' must list {len(columns)} numbers, one "
                              f"per column ({', '.join(columns)})")
    numbers = []
    for value in values:
        if isinstance(value, bool) or not isinstance(value, (int, float)) \
                or not 0 <= value <= scale or not math.isfinite(value):
            raise DefinitionError(where, f"{at}: {value!r} is not a score between 0 and "
                                  f"{scale:g}")
        numbers.append(float(value))
    average = raw.get("average")
    if average is not None:
        mean = sum(numbers) / len(numbers)
        decimals = len(str(average).partition(".")[2])
        if abs(round(mean, decimals) - float(average)) > 10 ** -decimals / 2 + 1e-9:
            raise DefinitionError(where, f"{at}: the published average {average} is not the "
                                  f"mean of the row ({mean:.4f}): check the transcription")
    return ReferenceRow(phase=phase, metric=metric, team=str(raw["team"]).strip(),
                        system=str(raw.get("system", "")).strip(),
                        baseline=bool(raw.get("baseline", False)),
                        scores={subcorpora[name]: n / scale
                                for name, n in zip(columns, numbers)})


@transaction.atomic
def reference_results_import(*, path: Path) -> list[Submission]:
    """Import a reference-results file (see the module docstring); returns the reference
    submissions it created. What the same source imported before is replaced."""
    source, rows = reference_results_read(path=path)
    return reference_rows_write(source=source, rows=rows)


@transaction.atomic
def reference_rows_write(*, source: str, rows: list[ReferenceRow]) -> list[Submission]:
    """Write checked reference rows from ``source``, replacing what it imported before."""
    phases = {row.phase.pk for row in rows}
    Submission.objects.filter(phase_id__in=phases, is_reference=True, source=source).delete()
    now = timezone.now()
    created = []
    for row in rows:
        competition = row.phase.task.competition
        team, _ = Team.objects.get_or_create(competition=competition, name=row.team)
        moment = row.phase.end or now
        submission = Submission.objects.create(
            team=team, phase=row.phase, run_name=row.system, is_reference=True, source=source,
            is_baseline=row.baseline, status=Submission.Status.SCORED,
            scorer_version=PUBLISHED, created_at=moment, validated_at=moment,
            scored_at=moment)
        run = ScoringRun.objects.create(submission=submission, scorer_version=PUBLISHED,
                                        procedure=row.phase.task.procedure, created_at=now,
                                        is_current=True)
        Score.objects.bulk_create([
            Score(run=run, submission=submission, subcorpus_id=subcorpus_id,
                  mode=Score.TASK_MODE, metric=row.metric, document="", recall=None,
                  precision=None, f1=value)
            for subcorpus_id, value in row.scores.items()])
        created.append(submission)
    board_entries_write(submission_ids=[s.pk for s in created])
    return created
