"""A board's material: what a board reads of a phase's runs, the same structure live and frozen.

`board_material` reads every scored or failed run of a phase with the scores of the (mode,
metric) pairs asked for: from the runs' `BoardEntry` (decoded once per process,
`_entry_scores`) where they keep them, else from the score rows. A frozen board's material is
its snapshot's (`snapshot_data`, decoded once per process); `snapshot_board_material` is what a
snapshot stores. `material_entries` turns a material into the `Entry` values that
`leaderboard.ranking` ranks.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, tzinfo

from django.db import connections
from django.db.models import DateTimeField, FilteredRelation, Func, Q, QuerySet, TextField
from django.db.models.functions import Cast
from django.utils.dateparse import parse_datetime

from competition.models import Phase, Score, ScoringRun, Submission
from competition.services.boards import board_pairs, pairs_text
from leaderboard.models import BoardSnapshot
from leaderboard.ranking import Entry
from leaderboard.ranking import Score as Cell
from leaderboard.selectors.inputs import RUN_KEYS, RUN_PATHS
from leaderboard.selectors.record import FrozenRecord

TASK_MODE = Score.TASK_MODE
DECODED_KEPT = 10_000
"""Board entries a process keeps decoded (`_entry_scores`; about 2 kB each)."""


class _Timestamp(Func):
    """A datetime column read through psycopg's compiled loader: give the values read the
    time zone `zone` names, and they are the datetimes Django reads.

    Django loads PostgreSQL's ``timestamptz`` with a loader written in Python (for its time
    zone handling) at about 4 µs a value: 4 ms of a board's thousand runs, a tenth of the
    request. The same instant read as a plain ``timestamp`` on the connection's wall clock
    goes through psycopg's compiled loader; given the connection's time zone back (none
    without ``USE_TZ``, as Django's) it is the datetime Django's loader makes. The reader does
    that in its own loop: as a Django converter it would copy every row twice. Only on a UTC
    connection (Django's default), whose wall clock names each instant once; elsewhere, and
    on other databases, the column is read as it is.
    """

    arity = 1
    output_field = DateTimeField()

    def as_sql(self, compiler, connection, **extra_context):
        return compiler.compile(self.source_expressions[0])

    def as_postgresql(self, compiler, connection, **extra_context):
        sql, params = compiler.compile(self.source_expressions[0])
        if not self._on_wall_clock(connection):
            return sql, params
        return f"({sql} AT TIME ZONE %s)", (*params, connection.timezone_name)

    @staticmethod
    def _on_wall_clock(connection) -> bool:
        return connection.vendor == "postgresql" and connection.timezone_name == "UTC"

    @classmethod
    def zone(cls, connection) -> tzinfo | None:
        """The time zone the values read on ``connection`` lack (None: they lack nothing)."""
        return connection.timezone if cls._on_wall_clock(connection) else None


class _KeptCells(dict):
    """The cells (`Score` by sub-corpus slug) of one mode and metric of a kept board entry,
    as `_entry_scores` decoded them: shared by every board that shows them, so that an
    `Entry` takes them as they are. Changing one in place raises TypeError (it would change
    every later board of the process); a copy is a plain dict."""

    __slots__ = ()

    def _shared(self, *args, **kwargs):
        raise TypeError("kept board cells are shared between requests: copy them to change them")

    __setitem__ = __delitem__ = setdefault = update = pop = popitem = clear = _shared
    __ior__ = _shared

    def __reduce__(self):  # a copy (copy, pickle) is the caller's own: a plain dict
        return (dict, (dict(self),))


_decoded: dict[str, dict] = {}


def _entry_scores(text: str, make=Cell._make) -> dict:
    """The scores of a `BoardEntry`, decoded from its JSON text, once per process:
    ``{mode: {metric: _KeptCells}}``.

    Decoding a thousand entries (a dozen floats each) and making their cells was a quarter
    of a board's request, the same on every request: an entry changes only when its run's
    scoring does. Keyed by the text itself, a kept value can never be out of date, so nothing
    needs to forget it; the table is only emptied when full (a phase larger than it decodes
    as before). The value is shared between requests: readers must not change it.
    """
    scores = _decoded.get(text)
    if scores is None:
        if len(_decoded) >= DECODED_KEPT:
            _decoded.clear()
        scores = _decoded[text] = {
            mode: {
                metric: _KeptCells({slug: make(v) for slug, v in cells.items()})
                for metric, cells in metrics.items()
            }
            for mode, metrics in json.loads(text).items()
        }
    return scores


# --- live material ---------------------------------------------------------------------------


def subcorpus_columns(phase: Phase) -> list[dict]:
    """The phase's sub-corpora in board order (`SubCorpus` orders by ``order``, ``id``),
    from the phase's prefetched sub-corpora when the caller has read them (the API has).

    A column is averaged (``available``) when its dataset has a gold key here. A phase none
    of whose datasets has one (an edition that ran elsewhere, such as a CRAC edition whose
    CorefUD keys are not in this repository) takes no runs: its only scores are the published
    results imported into it, printed per dataset, so every column is averaged, as the source
    averaged them."""
    subcorpora = list(phase.subcorpora.all())
    keyless = not any(s.available for s in subcorpora)
    return [
        {
            "slug": s.slug,
            "name": s.name,
            "available": s.available or keyless,
            "language": s.language,
        }
        for s in subcorpora
    ]


def board_material(
    *,
    phase: Phase,
    modes: Sequence[str] | None = None,
    metrics: Sequence[str] | None = None,
    pairs: Iterable[tuple[str, str]] | None = None,
    as_json: bool = True,
) -> dict:
    """Every scored or failed run of the phase with its sub-corpus scores (current scoring run),
    as plain JSON-able data. ``modes``/``metrics`` limit which scores are read to their
    combinations, ``pairs`` to exactly these (mode, metric) pairs (None: all of them).

    Scores of the pairs a board shows by default come from the runs' `BoardEntry` (one row per
    run, read with the runs themselves); the other pairs, and runs whose entry is missing or
    built from an older scoring, are read from the score rows. ``as_json=False`` leaves the
    submission times as datetimes (a live board that is not stored).
    """
    wanted = _wanted_pairs(modes=modes, metrics=metrics, pairs=pairs)
    task = phase.task
    kept = set(board_pairs(primary_metric=task.primary_metric, procedure=task.procedure))
    kept_text = pairs_text(
        board_pairs(primary_metric=task.primary_metric, procedure=task.procedure)
    )
    asked = wanted if wanted is not None else set()  # what the entries can answer
    from_entries = wanted is not None and bool(asked & kept)
    entries, stale = _read_runs(
        phase,
        entry_pairs=tuple(asked & kept) if from_entries else None,
        kept_text=kept_text,
        as_json=as_json,
    )
    for read in _score_reads(
        phase,
        modes=modes,
        metrics=metrics,
        wanted=wanted,
        from_entries=from_entries,
        stale=stale,
        unkept=asked - kept,
    ):
        _read_scores(entries, read)
    return {
        "subcorpora": subcorpus_columns(phase),
        "primary_metric": task.primary_metric,
        "entries": list(entries.values()),
    }


def _wanted_pairs(
    *,
    modes: Sequence[str] | None,
    metrics: Sequence[str] | None,
    pairs: Iterable[tuple[str, str]] | None,
) -> set[tuple[str, str]] | None:
    """The (mode, metric) pairs a material is limited to exactly (None: not limited so, all
    pairs or one side limited)."""
    if pairs is not None:
        return set(pairs)
    if modes is not None and metrics is not None:
        return {(mode, metric) for mode in modes for metric in metrics}
    return None


def _run_rows(phase: Phase, *, with_entries: bool) -> QuerySet:
    """The phase's scored and failed runs in submission order, as tuples of `RUN_PATHS` and,
    ``with_entries``, their `BoardEntry`'s run, pairs and scores (as JSON text, decoded by
    `_entry_scores`)."""
    fields = list(RUN_PATHS)  # one declaration of what a board reads of a run
    annotations = {
        "current": FilteredRelation("runs", condition=Q(runs__is_current=True)),
        "submitted": _Timestamp("created_at"),
    }
    if with_entries:
        annotations["entry_scores"] = Cast("board_entry__scores", TextField())
        fields += ["board_entry__run_id", "board_entry__pairs", "entry_scores"]
    # Tuples, not dicts: a thousand rows a board, unpacked once each.
    return (
        Submission.objects.filter(
            phase=phase, status__in=[Submission.Status.SCORED, Submission.Status.FAILED]
        )
        .annotate(**annotations)
        .order_by("created_at", "id")
        .values_list(*fields)
    )


def _read_runs(
    phase: Phase,
    *,
    entry_pairs: tuple[tuple[str, str], ...] | None,
    kept_text: str,
    as_json: bool,
) -> tuple[dict[int, dict], list[int]]:
    """The material's entries by submission id, with the scores of ``entry_pairs`` taken from
    each scored run's `BoardEntry` (None: no scores from entries), and the scored runs whose
    entry is missing or stale (built from another scoring, or for other pairs than
    ``kept_text`` names)."""
    from_entries = entry_pairs is not None
    submissions = _run_rows(phase, with_entries=from_entries)
    zone = _Timestamp.zone(connections[submissions.db])
    entries = {}
    stale: list[int] = []
    width = len(RUN_KEYS)
    for row in submissions:
        entry = dict(zip(RUN_KEYS, row[:width]))
        sid, run, submitted = entry["submission_id"], entry["run"], entry["submitted_at"]
        scored = entry["status"] == Submission.Status.SCORED and run is not None
        if zone is not None:
            submitted = submitted.replace(tzinfo=zone)
        entry["submitted_at"] = submitted.isoformat() if as_json else submitted
        entry["procedure"] = (entry["procedure"] or "") if scored else ""
        scores: dict = {}
        entry["scores"] = scores
        entries[sid] = entry
        if not scored or entry_pairs is None:
            continue
        entry_run, entry_pairs_text, entry_text = row[width:]
        if entry_run == run and entry_pairs_text == kept_text:
            entry_scores = _entry_scores(entry_text)
            for mode, metric in entry_pairs:
                cells = entry_scores.get(mode, {}).get(metric)
                if cells:
                    scores.setdefault(mode, {})[metric] = cells
        else:
            stale.append(sid)
    return entries, stale


@dataclass(frozen=True)
class _ScoreRead:
    """One read of score rows into a material."""

    rows: QuerySet
    pairs: set[tuple[str, str]] | None
    """Only these (mode, metric) pairs (None: every pair of ``rows``)."""
    only: set[int] | None = None
    """Only these runs (None: every run of the material)."""


def _score_reads(
    phase: Phase,
    *,
    modes: Sequence[str] | None,
    metrics: Sequence[str] | None,
    wanted: set[tuple[str, str]] | None,
    from_entries: bool,
    stale: list[int],
    unkept: set[tuple[str, str]],
) -> list[_ScoreRead]:
    """The reads of score rows a material needs beside its runs' entries: every pair for the
    runs without a usable entry (``stale``), the pairs no entry keeps (``unkept``) for all
    runs; everything asked for when no entry is read (nothing, when the entries hold it all)."""
    if from_entries and not stale and not unkept:
        return []
    base = Score.objects.filter(
        submission__phase=phase,
        submission__status=Submission.Status.SCORED,
        run__is_current=True,
        document="",
    )
    if wanted is None:  # everything, or one side limited: the score rows as they are
        if modes is not None:
            base = base.filter(mode__in=list(modes))
        if metrics is not None:
            base = base.filter(metric__in=list(metrics))
    if not from_entries:
        return [_ScoreRead(base, wanted)]
    reads = []
    if stale:
        rows = base.filter(submission_id__in=stale) if len(stale) <= 200 else base
        reads.append(_ScoreRead(rows, wanted, set(stale)))
    if unkept:
        reads.append(_ScoreRead(base, unkept))
    return reads


def _read_scores(entries: dict[int, dict], read: _ScoreRead) -> None:
    """Add the score rows ``read`` reads to the scores of the material's ``entries``."""
    rows_read, pairs_read, only = read.rows, read.pairs, read.only
    if pairs_read is not None:
        rows_read = rows_read.filter(
            mode__in={mo for mo, _ in pairs_read}, metric__in={me for _, me in pairs_read}
        )
    for sid, mode, metric, slug, r, p, f in rows_read.values_list(
        "submission_id", "mode", "metric", "subcorpus__slug", "recall", "precision", "f1"
    ):
        if sid not in entries or (only is not None and sid not in only):
            continue
        if pairs_read is not None and (mode, metric) not in pairs_read:
            continue
        entries[sid]["scores"].setdefault(mode, {}).setdefault(metric, {})[slug] = [r, p, f]


def snapshot_board_material(*, phase: Phase) -> dict:
    """All scores of every mode and metric: what `BoardSnapshot.data` holds. Beside each
    entry's procedure and scorer version, the key file it was scored against (``keys``:
    sub-corpus slug → SHA-256 of the gold key file, from its scoring run), the phase's own
    key digests (``key_digests``: file and normalised content SHA-256 of each dataset's key)
    and the record's other parts (`leaderboard.selectors.record`: tracks, rules, variants,
    system cards, published averages, the runs that count), so that everything a frozen
    board shows is read from it and nothing that can change later."""
    material = board_material(phase=phase)
    slugs = dict(phase.subcorpora.values_list("pk", "slug"))
    runs = [e["run"] for e in material.get("entries", []) if e.get("run")]
    keys = dict(ScoringRun.objects.filter(pk__in=runs).values_list("pk", "keys"))
    for entry in material.get("entries", []):
        entry["keys"] = {
            slugs.get(int(k), str(k)): sha for k, sha in (keys.get(entry.get("run")) or {}).items()
        }
    material["key_digests"] = {
        slug: {"file_sha256": sha or None, "content_sha256": content or None}
        for slug, content, sha in phase.subcorpora.values_list("slug", "content_sha256", "sha256")
    }
    return material


def stored_metrics(phase: Phase) -> dict[str, list[str]]:
    """{mode: metrics} stored by the current scorings of the phase's latest scored runs (all
    runs of a phase are scored with the same options; the latest show a new scorer's set)."""
    runs = (
        ScoringRun.objects.filter(
            submission__phase=phase, is_current=True, submission__status=Submission.Status.SCORED
        )
        .order_by("-created_at", "-id")
        .values("id")[:5]
    )
    pairs = (  # one query: the runs as its subquery
        Score.objects.filter(run_id__in=runs, document="")
        .order_by()
        .values_list("mode", "metric")
        .distinct()
    )
    out: dict[str, set[str]] = defaultdict(set)
    for mode, metric in pairs:
        out[mode].add(metric)
    return {mode: list(metrics) for mode, metrics in out.items()}


def material_metrics(data: dict) -> dict[str, list[str]]:
    out: dict[str, set[str]] = defaultdict(set)
    for entry in data["entries"]:
        for mode, metrics in entry["scores"].items():
            out[mode].update(metrics)
    return {mode: list(metrics) for mode, metrics in out.items()}


def ordered_modes(modes: Iterable[str]) -> list[str]:
    return sorted(set(modes), key=lambda m: (m != TASK_MODE, m))


def _cells(scores: dict, mode: str, metric: str, make=Cell._make) -> dict[str, Cell]:
    cells = scores.get(mode, {}).get(metric, {})
    if type(cells) is _KeptCells:  # made once per process, shared as they are
        return cells
    return {slug: make(v) for slug, v in cells.items()}


def material_entries(data: dict, *, mode: str, metric: str, primary: str) -> list[Entry]:
    """One `Entry` per run of the material. The fields are named: given by position they
    cost 0.4 ms less a thousand runs, and a reordered `Entry` would silently take one
    field's value for another's."""
    out = []
    same = (mode, metric) == (TASK_MODE, primary)
    for e in data["entries"]:
        submitted = e["submitted_at"]
        scores = _cells(e["scores"], mode, metric)
        out.append(
            Entry(
                submission_id=e["submission_id"],
                team=e["team"],
                run_name=e["run_name"],
                submitted_at=(
                    submitted if isinstance(submitted, datetime) else parse_datetime(submitted)
                ),
                status=e["status"],
                is_baseline=e["is_baseline"],
                is_chosen=e["is_chosen"],
                disqualified=e["disqualified"],
                team_id=e["team_id"],
                is_reference=e.get("is_reference", False),
                source=e.get("source", ""),
                description=e.get("description", ""),
                link=e.get("link", ""),
                scores=scores,
                primary=scores if same else _cells(e["scores"], TASK_MODE, primary),
            )
        )
    return out


# --- frozen boards ---------------------------------------------------------------------------


def active_snapshot(*, phase: Phase) -> BoardSnapshot | None:
    """The phase's shown frozen board, without its stored scores and document (large: read
    them with `snapshot_data`, or the fields themselves, where needed), nor the document's
    ETag: SQLite keeps a row's columns in order, and reaching the ETag, stored after the
    large values, walks their overflow pages on every read (tens of ms for a 1,000-run
    board)."""
    return (
        BoardSnapshot.objects.filter(phase=phase, active=True)
        .defer("data", "document", "document_gzip", "document_etag")
        .order_by("-created_at", "-id")
        .first()
    )


SNAPSHOTS_KEPT = 2
"""Frozen boards a process keeps decoded (`snapshot_data`)."""
_snapshots: dict[tuple, dict] = {}


def snapshot_data(snapshot: BoardSnapshot) -> dict:
    """The stored material of a frozen board, read and decoded once per process: a snapshot
    is never changed once written, so a kept one is never out of date. Decoding a thousand
    runs' scores in every mode (tens of MB) on each request made a frozen board many times
    dearer than the live one, which reads only the pairs it shows. Shared between requests:
    readers must not change it."""
    # the id with the moment and phase: an id reused (a database restored) is another key
    key = (snapshot.pk, snapshot.phase_id, snapshot.created_at.isoformat())
    data = _snapshots.get(key)
    if data is None:
        if "data" in snapshot.__dict__:  # read with the snapshot already
            data = snapshot.data
        else:
            data = BoardSnapshot.objects.values_list("data", flat=True).get(pk=snapshot.pk)
        if len(_snapshots) >= SNAPSHOTS_KEPT:
            _snapshots.pop(next(iter(_snapshots)))
        _snapshots[key] = data
    return data


def active_record(*, phase: Phase) -> FrozenRecord | None:
    """The record of the phase's shown frozen board (None: not frozen, or frozen before the
    record was stored)."""
    frozen = active_snapshot(phase=phase)
    return FrozenRecord.of(snapshot_data(frozen)) if frozen is not None else None
