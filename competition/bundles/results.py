"""A phase's published results from CodaLab or Codabench, as reference rows.

CodaLab's per-phase results CSV holds one block per leaderboard: a header row
``submission_pk, User, <column labels>`` (sometimes a second header row naming column groups),
then one row per entry, ``id, username, "value (rank)", ...``. Codabench's leaderboard export
is one table ``#, Username, <column titles>`` with plain values. Each column is mapped to the
metric catalogue and the phase's datasets (`column_metric`) and says so (`ColumnMapping`):
the columns holding the task's primary metric on one dataset are imported (that is what the
boards rank; a phase with one dataset takes a metric column without a dataset name);
averages, ranks and durations are the board's own, and other metrics of a dataset are not
ranked here: both are listed, and do not stop the import. A column the import cannot place
(no dataset of the phase, no metric it knows, a dataset named twice) stops it with the
mapping (`ResultsUnmapped`) unless the organizer applies it anyway, which imports the columns
that map. Every cell is checked before anything is written.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings

from competition.bundles.build import column_metric
from competition.bundles.names import NAMES_A_DATASET
from competition.errors import DefinitionError
from competition.models import Phase
from competition.services.references import ReferenceRow
from competition.untrusted import csv_rows
from scoring.vocabulary import metric_label

MAX_BYTES = 10 * 1024 * 1024
CELL = re.compile(r"^\s*(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)\s*(?:\(\s*\d+\s*\))?\s*$")
HEADERS = {
    ("submission_pk", "user"),
    ("#", "username"),
    ("rank", "username"),
    ("id", "user"),
    ("#", "user"),
}


BOARD_OWN = re.compile(
    r"(^|[^a-z])(avg|average|mean|macro|rank|ranking|mrr|duration|date|time|submitted|"
    r"entries|team|method|system|description|id)($|[^a-z])",
    re.I,
)
"""Words of the columns a board computes or shows itself."""


@dataclass(slots=True)
class ColumnMapping:
    """What one column of the results became: imported as ``metric`` on ``dataset``, or
    not, with ``reason``; ``blocking``: the import does not know what the column is."""

    label: str
    dataset: str = ""
    metric: str = ""
    imported: bool = False
    reason: str = ""
    blocking: bool = False

    @property
    def metric_name(self) -> str:
        return metric_label(self.metric) if self.metric else ""

    def __str__(self) -> str:
        if self.imported:
            return f"{self.label} → {metric_label(self.metric)} on {self.dataset}"
        return f"{self.label}: {self.reason}"


@dataclass(slots=True)
class ResultsRead:
    rows: list[ReferenceRow] = field(default_factory=list)
    columns: list[ColumnMapping] = field(default_factory=list)

    @property
    def imported_columns(self) -> list[str]:
        return [str(c) for c in self.columns if c.imported]

    @property
    def not_imported(self) -> list[str]:
        return [f"column {c}" for c in self.columns if not c.imported]

    @property
    def blocking(self) -> list[ColumnMapping]:
        return [c for c in self.columns if c.blocking]


class ResultsUnmapped(DefinitionError):
    """Some columns could not be placed; ``read`` holds the mapping of every column."""

    def __init__(self, name: str, read: ResultsRead) -> None:
        unplaced = "; ".join(str(c) for c in read.blocking)
        super().__init__(
            name,
            f"{len(read.blocking)} column{'s' if len(read.blocking) != 1 else ''} could not be "
            f"placed ({unplaced}); apply anyway to import the columns that map",
        )
        self.read = read


def results_read(
    *, path: Path, phase: Phase, unit: str = "auto", name: str, apply_anyway: bool = False
) -> ResultsRead:
    """The checked reference rows of a results file for ``phase`` and the mapping of its
    columns; raises `DefinitionError` naming the line at fault, or `ResultsUnmapped` when a
    column cannot be placed (unless ``apply_anyway``)."""
    text = _results_text(path, name=name)
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
            columns = _columns(header, subcorpora, metric=metric, read=read)
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
        seen = "; ".join(str(c) for c in read.columns) or "no header row of CodaLab or Codabench"
        raise DefinitionError(
            name,
            f"no result row for a column the phase can show ({metric_label(metric)} on "
            f"{', '.join(subcorpora) or 'no dataset'}); the columns read: {seen}",
        )
    if read.blocking and not apply_anyway:
        raise ResultsUnmapped(name, read)
    read.rows = _reference_rows(raw_rows, unit=unit, phase=phase, metric=metric, name=name)
    return read


def _reference_rows(
    raw_rows: list[tuple[int, str, str, dict[int, float]]],
    *,
    unit: str,
    phase: Phase,
    metric: str,
    name: str,
) -> list[ReferenceRow]:
    """The rows read, as fractions (``unit`` auto: percent when a value is over 1), each
    checked to be a score."""
    rows: list[ReferenceRow] = []
    values = [v for *_, scores in raw_rows for v in scores.values()]
    scale = {"percent": 100.0, "fraction": 1.0}.get(unit) or (100.0 if max(values) > 1 else 1.0)
    for line, user, ident, scores in raw_rows:
        for score in scores.values():
            if not 0 <= score <= scale:
                raise DefinitionError(
                    name, f"line {line}: {score:g} is not a score between 0 and {scale:g}"
                )
        rows.append(
            ReferenceRow(
                phase=phase,
                metric=metric,
                team=user[:100],
                system=f"submission {ident}",
                baseline=False,
                scores={k: v / scale for k, v in scores.items()},
            )
        )
    return rows


def _results_text(path: Path, *, name: str) -> str:
    """The results file's text, refused past ``RESULTS_MAX_BYTES`` or when not UTF-8."""
    limit = int(getattr(settings, "RESULTS_MAX_BYTES", MAX_BYTES))
    if path.stat().st_size > limit:
        raise DefinitionError(name, f"larger than the limit of {limit} bytes")
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DefinitionError(name, f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    return text


def _columns(
    header: list[str], subcorpora: dict[str, int], *, metric: str, read: ResultsRead
) -> dict[int, int]:
    """Map each column of a header (after the entry's id and user); {cell index: dataset
    id} of the imported ones. The mapping of every column goes to ``read``."""
    columns: dict[int, int] = {}
    names = list(subcorpora)
    for index, label in enumerate(header[2:], start=2):
        mapping = _column(
            label, names, metric=metric, taken={c.dataset for c in read.columns if c.imported}
        )
        if mapping.imported:
            columns[index] = subcorpora[mapping.dataset]
        read.columns.append(mapping)
    return columns


def _column(label: str, names: list[str], *, metric: str, taken: set[str]) -> ColumnMapping:
    found, dataset = column_metric(label, label, names)
    if (
        dataset is None
        and found == metric
        and len(names) == 1
        and not BOARD_OWN.search(label)
        and not NAMES_A_DATASET.search(label)
    ):
        dataset = names[0]
    mapping = ColumnMapping(label, dataset=dataset or "", metric=found or "")
    if dataset is not None and found in (metric, None):
        if dataset in taken:
            mapping.reason, mapping.blocking = f"a second column for {dataset}", True
        else:
            mapping.imported, mapping.metric = True, metric
    elif dataset is not None:
        mapping.reason = (
            f"{metric_label(found or '')} on {dataset}: the board ranks {metric_label(metric)} only"
        )
    elif BOARD_OWN.search(label):
        mapping.reason = "the board computes its own averages and ranks"
    elif found is not None:
        mapping.reason = f"{metric_label(found)} on no dataset of the phase ({', '.join(names)})"
        mapping.blocking = True
    else:
        mapping.reason = (
            f"names neither a dataset of the phase ({', '.join(names) or 'none'}) "
            "nor a metric the scorer computes"
        )
        mapping.blocking = True
    return mapping
