"""A multi-dataset run scored across the workers: one part per dataset, under the run's
claim. Each part is taken by its own job, written once (``StagedPart``), given back when its
job loses the database, and collected by the run's last job into the run's outcome."""

from __future__ import annotations

import base64
import json
import zlib
from dataclasses import dataclass
from typing import Any

from django.utils import timezone

from competition.models import ScoringPart, Submission, SubmissionFile
from competition.scoring.compute import log_header, results_assemble
from competition.scoring.outcome import Kind, Outcome
from competition.scoring.results import PartResults, ScoreValue, ScoringResults, scored_files
from competition.services.problems import Problem
from competition.services.validation import RunRefused, problems_data
from scoring import ScoreRow, ScoringInputError

Status = Submission.Status

PART_CRASHED = "a part of the run crashed (see the worker's log)"


@dataclass(frozen=True, slots=True)
class StagedPart:
    """A part's outcome as it is staged in ``ScoringPart.outcome`` until the run's last job
    records the run: the one reader and writer of that form. Scored: the gold key's SHA-256,
    warnings, upload warnings and log lines as they are, and the score rows packed
    (``ROWS_FORMAT``: their JSON, zlib-compressed, base64): the database stores one string
    instead of parsing, compressing and later printing some 500 rows of JSON a dataset,
    which it did only for the last job to read them back. Otherwise the kind and what the
    team reads."""

    subcorpus_id: int
    outcome: Outcome[PartResults]

    def encode(self) -> dict[str, Any]:
        outcome = self.outcome
        if outcome.results is not None:
            results = outcome.results
            return {
                "kind": Kind.SCORED.value,
                "key": results.key,
                "warnings": list(results.warnings),
                "log": list(results.log),
                "upload_warnings": list(results.upload_warnings),
                ROWS_FORMAT: _rows_pack(results.scores),
            }
        refusal = outcome.refusal
        return {
            "kind": outcome.kind.value,
            "detail": outcome.detail,
            "log": outcome.log,
            "refusal": None
            if refusal is None
            else {
                "file": refusal.path,
                "line": refusal.line,
                "message": refusal.message,
                "code": refusal.code,
                "document": refusal.document,
                # the check of the file: its problems, for the run's list
                **(
                    {"problems": problems_data(refusal.problems)}
                    if isinstance(refusal, RunRefused)
                    else {}
                ),
            },
        }

    @classmethod
    def decode(cls, subcorpus_id: int, data: dict[str, Any]) -> StagedPart:
        if "kind" not in data:
            data = _earlier_form(data)
        kind = Kind(data["kind"])
        if kind is Kind.SCORED:
            rows = data["scores"] if "scores" in data else _rows_unpack(data[ROWS_FORMAT])
            results = PartResults(
                subcorpus_id=subcorpus_id,
                key=data["key"],
                warnings=tuple(data["warnings"]),
                log=tuple(data["log"]),
                upload_warnings=tuple(data.get("upload_warnings", ())),  # none staged before
                scores=tuple(ScoreValue(subcorpus_id, ScoreRow(*row)) for row in rows),
            )
            return cls(subcorpus_id, Outcome(kind, results=results))
        refused = data.get("refusal")
        refusal: ScoringInputError | None = (
            None
            if refused is None
            else RunRefused([Problem(**problem) for problem in refused["problems"]])
            if "problems" in refused
            else ScoringInputError(
                refused["file"],
                refused["line"],
                refused["message"],
                code=refused["code"],
                document=refused["document"],
            )
        )
        crash = RuntimeError(PART_CRASHED) if kind is Kind.CRASH else None
        outcome: Outcome[PartResults] = Outcome(
            kind, refusal=refusal, detail=data["detail"], log=data["log"], crash=crash
        )
        return cls(subcorpus_id, outcome)


ROWS_FORMAT = "rows.json.zlib.b64"
"""The key of a scored part's packed rows, naming how they are packed."""


def _rows_pack(scores: tuple[ScoreValue, ...]) -> str:
    """The rows (mode, metric, document, recall, precision, f1, counts), in order."""
    rows = [
        [
            v.row.mode,
            v.row.metric,
            v.row.document,
            v.row.recall,
            v.row.precision,
            v.row.f1,
            v.row.counts,
        ]
        for v in scores
    ]
    text = json.dumps(rows, separators=(",", ":"))
    return base64.b64encode(zlib.compress(text.encode())).decode("ascii")


def _rows_unpack(packed: str) -> list[list[Any]]:
    return json.loads(zlib.decompress(base64.b64decode(packed)))


_EARLIER_KINDS = {
    "input": Kind.REFUSED,
    "scorer": Kind.SCORER,
    "time": Kind.TIME,
    "memory": Kind.MEMORY,
    "crash": Kind.CRASH,
}


def _earlier_form(data: dict[str, Any]) -> dict[str, Any]:
    """A part staged by an earlier version of the platform (a worker stopped during an
    upgrade): its rows as plain lists, or ``{"error": {"kind": …}}``, in the current form."""
    if "error" not in data:
        return {**data, "kind": Kind.SCORED.value}
    error = data["error"]
    kind = _EARLIER_KINDS.get(error.get("kind"), Kind.CRASH)
    refusal = None
    if kind is Kind.REFUSED:
        refusal = {name: error[name] for name in ("file", "line", "message", "code", "document")}
    detail = error.get("message", "") if kind is Kind.SCORER else ""
    return {"kind": kind.value, "detail": detail, "log": error.get("log", ""), "refusal": refusal}


def scoring_parts_create(*, submission: Submission, claim: str) -> list[int]:
    """The parts of a run's claim, one per scored dataset, largest file first (the longest
    jobs start first, so the run ends sooner): their sub-corpus ids. Created once; a second
    call (a redelivered job) returns the same parts."""
    files = list(
        scored_files(submission)
        .order_by("-size", "subcorpus__order")
        .values_list("subcorpus_id", flat=True)
    )
    ScoringPart.objects.bulk_create(
        [ScoringPart(submission_id=submission.pk, subcorpus_id=pk, claim=claim) for pk in files],
        ignore_conflicts=True,
    )
    return files


def scoring_part_start(
    *, submission_id: int, subcorpus_id: int, claim: str, task_id: str, worker: str
) -> tuple[Submission, SubmissionFile] | None:
    """Take one part of a run: its run and file, or None when the run's claim is no longer
    ``claim`` (queued again, cancelled, done) or the part is written already. Two
    statements: the part taken only while the run is held under ``claim``, then its file
    with its run."""
    started = ScoringPart.objects.filter(
        submission_id=submission_id,
        subcorpus_id=subcorpus_id,
        claim=claim,
        finished_at__isnull=True,
        submission__status=Status.SCORING,
        submission__claimed_by=claim,
    ).update(task_id=task_id, worker=worker, started_at=timezone.now())
    if not started:
        return None
    submitted = (
        SubmissionFile.objects.filter(
            submission_id=submission_id, subcorpus_id=subcorpus_id, subcorpus__available=True
        )
        .select_related("subcorpus", "submission__phase__task")
        .first()
    )
    if submitted is None:
        return None
    return submitted.submission, submitted


def scoring_part_store(
    *, submission_id: int, subcorpus_id: int, claim: str, outcome: Outcome[PartResults]
) -> bool:
    """Write a part's outcome, once: its results, or why it could not be scored."""
    staged = StagedPart(subcorpus_id, outcome).encode()
    return (
        ScoringPart.objects.filter(
            submission_id=submission_id,
            subcorpus_id=subcorpus_id,
            claim=claim,
            finished_at__isnull=True,
        ).update(outcome=staged, finished_at=timezone.now())
        == 1
    )


def scoring_part_release(
    *, submission_id: int, subcorpus_id: int, claim: str, task_id: str
) -> bool:
    """Give back a part whose job lost its database connection (the platform's hiccup): no
    process holds it now, and the job's retry (the same task id, the run's claim) takes it
    again. It spends nothing: the run keeps its one attempt however many of its parts lost
    their connection, and the recovery round no longer judges the part by a process that
    let it go (on its own node, a retry waiting for its countdown, or taken by another
    node, would pass for a dead worker's part and cost the run an attempt). Should the
    retry never come, the part waits like one the broker lost ("unsent": the run is queued
    again, its attempt given back). Only the part's own job may, while it is not written."""
    return (
        ScoringPart.objects.filter(
            submission_id=submission_id,
            subcorpus_id=subcorpus_id,
            claim=claim,
            task_id=task_id,
            finished_at__isnull=True,
        ).update(worker="", started_at=None)
        == 1
    )


def scoring_parts_collect(*, submission: Submission, claim: str) -> Outcome[ScoringResults] | None:
    """What the parts of a claim came to: the run's results, or the refusal listing every
    refused part's problems (the check of its file), or the outcome of the first part (in
    the datasets' order) that could not be scored; None while parts are missing."""
    parts = list(
        ScoringPart.objects.filter(submission=submission, claim=claim)
        .order_by("subcorpus__order", "subcorpus_id")
        .values_list("subcorpus_id", "finished_at", "outcome", "started_at")
    )
    if not parts or any(finished is None for _, finished, _, _ in parts):
        return None
    staged = [StagedPart.decode(subcorpus_id, outcome) for subcorpus_id, _, outcome, _ in parts]
    if problems := [
        problem
        for part in staged
        if isinstance(part.outcome.refusal, RunRefused)
        for problem in part.outcome.refusal.problems
    ]:  # the check refused some files: the run's refusal lists them all
        return Outcome(Kind.REFUSED, refusal=RunRefused(problems))
    for part in staged:
        if part.outcome.results is None:
            stopped = part.outcome
            return Outcome(
                stopped.kind,
                refusal=stopped.refusal,
                detail=stopped.detail,
                log=stopped.log,
                crash=stopped.crash,
            )
    started = min(begun for *_, begun in parts if begun is not None)
    results = results_assemble(
        submission=submission,
        parts=[part.outcome.results for part in staged if part.outcome.results is not None],
        header=log_header(submission.phase.task),
        seconds=(timezone.now() - started).total_seconds(),
    )
    return Outcome(Kind.SCORED, results=results)
