"""The frozen board's public document: the official record of a phase as JSON, built from
its `BoardSnapshot` alone and encoded once, at the freeze (`frozen_board_bytes`); the
stored bytes are what every GET of it sends (`leaderboard.views_record`).

The snapshot's row keeps the bytes, their gzip form and their ETag (the record); each form is
also written once to a file under the private storage root (`document_file`:
``PRIVATE_ROOT/frozen/<phase>/<snapshot>-<etag>.json`` and ``.json.gz``, never rewritten). A
GET finds the file by its name, without reading the snapshot's row
(`stored_document_file`), and sends it as it lies on disk, so serving costs the server the
same CPU however large the board (the row is read only to write a file that is not there,
e.g. on a new machine).

It is the same for every viewer who may see the phase's board: the runs the public board
shows (no disqualified or failed run), each number with the procedure, scorer version and
the digest of the gold key it was computed with, each run's system-card answers to the
questions boards show (as they stood at the freeze), the tracks, ranking rules, variant
columns and published averages of the record.

Two digests of a gold key are named apart: ``key_file_sha256`` is the SHA-256 of the key
file's bytes (what a run was scored against, recorded with its scoring), ``content_sha256``
the SHA-256 of its content with line endings and trailing blanks normalised (what data
files given to participants are compared with). ``key_digests`` gives both for each dataset
as the phase had them at the freeze; each score gives the ``key_file_sha256`` of its run's
scoring. Snapshots taken before the digests were recorded say ``null`` there rather than
reading today's keys.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import tempfile
from pathlib import Path

from django.conf import settings

from leaderboard.models import BoardSnapshot
from leaderboard.selectors.record import FrozenRecord

DOCUMENT_VERSION = 2
"""The document's shape (2: named key digests, cards, the record's parts)."""

_ENTRY_FIELDS = (
    "submission_id",
    "team",
    "run_name",
    "submitted_at",
    "is_baseline",
    "is_reference",
    "source",
    "track",
    "procedure",
    "scorer_version",
)


def _numbers(entry: dict) -> list[dict]:
    keys = entry.get("keys")
    numbers = []
    for mode, metrics in sorted((entry.get("scores") or {}).items()):
        for metric, cells in sorted(metrics.items()):
            for slug, values in sorted(cells.items()):
                numbers.append(
                    {
                        "mode": mode,
                        "metric": metric,
                        "subcorpus": slug,
                        "recall": values[0],
                        "precision": values[1],
                        "f1": values[2],
                        "procedure": entry.get("procedure") or None,
                        "scorer_version": entry.get("scorer_version") or None,
                        "key_file_sha256": None if keys is None else keys.get(slug),
                    }
                )
    return numbers


def frozen_board_document(snapshot: BoardSnapshot) -> dict:
    """The public content of one frozen board (see the module docstring)."""
    phase = snapshot.phase
    data = snapshot.data or {}
    record = FrozenRecord.of(data)
    on_board = {q.slug for q in record.board_questions} if record else set()
    entries = []
    for entry in data.get("entries", []):
        if entry.get("disqualified") or entry.get("status") != "scored":
            continue
        card = None
        if record is not None:
            given = record.answers.get(entry["submission_id"], {})
            card = {slug: value for slug, value in sorted(given.items()) if slug in on_board}
        entries.append(
            {
                **{name: entry.get(name) for name in _ENTRY_FIELDS},
                "card": card,
                "scores": _numbers(entry),
            }
        )
    return {
        "document_version": DOCUMENT_VERSION,
        "snapshot": snapshot.pk,
        "competition": phase.task.competition.slug,
        "task": phase.task.slug,
        "phase": phase.slug,
        "frozen_at": snapshot.created_at.isoformat(),
        "note": snapshot.note,
        "primary_metric": data.get("primary_metric"),
        "procedure": record.procedure if record else None,
        "scorer_version": record.scorer if record else None,
        "rules": {"counts": record.counts, "missing": record.missing} if record else None,
        "tracks": [{"slug": s, "name": n} for s, n in record.tracks] if record else None,
        "variants": (
            [{"mode": m, "metric": me, "label": label} for m, me, label in record.variants]
            if record
            else None
        ),
        "card_questions": (
            [{"slug": q.slug, "text": q.text, "kind": q.kind} for q in record.board_questions]
            if record
            else None
        ),
        "published_averages": list(record.published) if record else None,
        "subcorpora": data.get("subcorpora", []),
        "key_digests": data.get("key_digests"),
        "entries": entries,
    }


def frozen_board_bytes(snapshot: BoardSnapshot) -> bytes:
    """The document encoded as it is served: sorted keys, UTF-8."""
    return json.dumps(
        frozen_board_document(snapshot), sort_keys=True, ensure_ascii=False, indent=1
    ).encode()


def document_etag(body: bytes) -> str:
    return '"' + hashlib.sha256(body).hexdigest()[:32] + '"'


def document_gzip(body: bytes) -> bytes:
    """The stored compressed form (``mtime=0``: the same bytes for the same document)."""
    return gzip.compress(body, compresslevel=6, mtime=0)


def _folder(phase_id: int) -> Path:
    return Path(settings.PRIVATE_ROOT) / "frozen" / str(phase_id)


def _suffix(zipped: bool) -> str:
    return ".json.gz" if zipped else ".json"


def document_file(snapshot: BoardSnapshot, *, zipped: bool, body: bytes | None = None) -> Path:
    """The file of the snapshot's stored document (its gzip form with ``zipped``), written
    when it is not there yet, from ``body`` (the form's bytes, given at the freeze) or else
    from the snapshot's row; the one writer of these files. Named by the phase, the snapshot
    and its ETag (``frozen/<phase>/<snapshot>-<etag>.json``), it is never rewritten: a file
    of that name holds those bytes."""
    digest = snapshot.document_etag.strip('"')
    folder = _folder(snapshot.phase_id)
    path = folder / f"{snapshot.pk}-{digest}{_suffix(zipped)}"
    if path.is_file():
        return path
    if body is None:
        column = "document_gzip" if zipped else "document"
        body = bytes(BoardSnapshot.objects.values_list(column, flat=True).get(pk=snapshot.pk))
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=folder, prefix=".writing-", delete=False) as out:
        out.write(body)
    try:
        os.link(out.name, path)  # all of it or nothing under the name, and never replaced
    except FileExistsError:
        pass  # written meanwhile by another process: the same bytes
    finally:
        os.unlink(out.name)
    return path


def stored_document_file(
    *, phase_id: int, snapshot_id: int, zipped: bool
) -> tuple[Path, str] | None:
    """The file of a snapshot of this phase and its ETag, found by its name alone: the
    snapshot's row is not read (SQLite walks past its large values, page by page, to reach
    its small columns: tens of milliseconds at a hundred megabytes). None when there is not
    exactly one such file, or the snapshot is gone; then the caller reads the row."""
    suffix = _suffix(zipped)
    found = list(_folder(phase_id).glob(f"{snapshot_id}-*{suffix}"))
    if len(found) != 1 or not BoardSnapshot.objects.filter(pk=snapshot_id).exists():
        return None
    digest = found[0].name.removeprefix(f"{snapshot_id}-").removesuffix(suffix)
    return found[0], f'"{digest}"'
