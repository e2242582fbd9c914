"""A phase's published results from CodaLab or Codabench, as reference rows.

CodaLab's per-phase results CSV holds one block per leaderboard: a header row
``submission_pk, User, <column labels>`` (sometimes a second header row naming column groups),
then one row per entry, ``id, username, "value (rank)", ...``. Codabench's leaderboard export
is one table ``#, Username, <column titles>`` with plain values. Columns are mapped to the
metric catalogue and the phase's sub-corpora (`column_metric`); only columns holding the
task's primary metric on one sub-corpus are imported (that is what the boards rank; a phase
with one sub-corpus takes a metric column without a sub-corpus name). Every other column is
listed as not imported. Every cell is checked before anything is written.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings

from competition.bundles.build import column_metric
from competition.errors import DefinitionError
from competition.models import Phase
from competition.services.references import ReferenceRow
from competition.untrusted import csv_rows

MAX_BYTES = 10 * 1024 * 1024
CELL = re.compile(r"^\s*(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)\s*(?:\(\s*\d+\s*\))?\s*$")
HEADERS = {
    ("submission_pk", "user"),
    ("#", "username"),
    ("rank", "username"),
    ("id", "user"),
    ("#", "user"),
}


@dataclass(slots=True)
class ResultsRead:
    rows: list[ReferenceRow] = field(default_factory=list)
    imported_columns: list[str] = field(default_factory=list)
    not_imported: list[str] = field(default_factory=list)


def results_read(*, path: Path, phase: Phase, unit: str = "auto", name: str) -> ResultsRead:
    """The checked reference rows of a results file for ``phase``; raises
    `DefinitionError` naming the line at fault."""
    limit = int(getattr(settings, "RESULTS_MAX_BYTES", MAX_BYTES))
    if path.stat().st_size > limit:
        raise DefinitionError(name, f"larger than the limit of {limit} bytes")
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DefinitionError(name, f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    if unit not in ("auto", "percent", "fraction"):
        raise DefinitionError(name, f"unit {unit!r}: expected auto, percent or fraction")
    subcorpora = {sc.name: sc.pk for sc in phase.subcorpora.filter(available=True)}
    metric = phase.task.primary_metric
    read = ResultsRead()
    header: list[str] | None = None
    columns: dict[int, int] = {}  # cell index → sub-corpus id
    raw_rows: list[tuple[int, str, str, dict[int, float]]] = []
    for line, cells in csv_rows(text, name=name):
        cells = [cell.strip() for cell in cells]
        if not any(cells):
            header = None
            continue
        if len(cells) >= 2 and (cells[0].lower(), cells[1].lower()) in HEADERS:
            header = cells
            columns = _columns(
                header, subcorpora, metric=metric, read=read, single=len(subcorpora) == 1
            )
            continue
        if header is None:
            continue  # a leaderboard's title line
        if not cells[0] or not re.match(r"^\d+$", cells[0]):
            continue  # a column-group header row
        user = cells[1] if len(cells) > 1 else ""
        if not user:
            raise DefinitionError(name, f"line {line}: the row names no user")
        scores: dict[int, float] = {}
        for index, subcorpus_id in columns.items():
            value = cells[index] if index < len(cells) else ""
            if value in ("", "-", "N/A", "nan"):
                continue
            match = CELL.match(value)
            if not match or not math.isfinite(float(match.group(1))):
                raise DefinitionError(
                    name,
                    f"line {line}, column {header[index]!r}: "
                    f"{value!r} is not a number (expected 'value (rank)' "
                    "or a number)",
                )
            scores[subcorpus_id] = float(match.group(1))
        if scores:
            raw_rows.append((line, user, cells[0], scores))
    if not raw_rows:
        raise DefinitionError(
            name,
            "no result row for a column the phase can show "
            f"({metric} on {', '.join(subcorpora) or 'no sub-corpus'})",
        )
    values = [v for *_, scores in raw_rows for v in scores.values()]
    scale = {"percent": 100.0, "fraction": 1.0}.get(unit) or (100.0 if max(values) > 1 else 1.0)
    for line, user, ident, scores in raw_rows:
        for score in scores.values():
            if not 0 <= score <= scale:
                raise DefinitionError(
                    name, f"line {line}: {score:g} is not a score between 0 and {scale:g}"
                )
        read.rows.append(
            ReferenceRow(
                phase=phase,
                metric=metric,
                team=user[:100],
                system=f"submission {ident}",
                baseline=False,
                scores={k: v / scale for k, v in scores.items()},
            )
        )
    return read


def _columns(
    header: list[str], subcorpora: dict[str, int], *, metric: str, read: ResultsRead, single: bool
) -> dict[int, int]:
    columns: dict[int, int] = {}
    for index, label in enumerate(header[2:], start=2):
        found, subcorpus = column_metric(label, label, list(subcorpora))
        if subcorpus is None and single and found == metric:
            subcorpus = next(iter(subcorpora))
        if (
            subcorpus is not None
            and found in (metric, None)
            and index not in columns
            and subcorpora[subcorpus] not in columns.values()
        ):
            columns[index] = subcorpora[subcorpus]
            read.imported_columns.append(f"{label} → {subcorpus}")
        else:
            read.not_imported.append(f"column {label!r}: not the primary metric of one sub-corpus")
    return columns
