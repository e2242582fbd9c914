"""Who scores a run: the claim (one conditional UPDATE; whoever updates the row owns the
job), its release when the job's database connection is lost, and the workers' heartbeats
that tell a live holder from a dead one."""

from __future__ import annotations

import logging
import os
from collections.abc import Collection
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.db.models.functions import Greatest
from django.utils import timezone

from competition.models import Submission, WorkerHeartbeat
from competition.scoring.record import submission_fail
from competition.services.dispatch import scoring_enqueue

logger = logging.getLogger(__name__)
Status = Submission.Status


def attempts_message(attempts: int) -> str:
    return (
        f"Scoring did not finish after {attempts} attempts. This is a problem of the "
        "platform, not of your files; the run does not count against your limits and the "
        "organizers can re-score it."
    )


def submission_claim(
    *, submission_id: int, task_id: str, worker: str = "", resumes: bool = False
) -> Submission | None:
    """Take the job of scoring a submission, or None if it is done, cancelled or held by a
    live process. ``worker`` names the claiming process (``<node>:<pid>``). ``resumes``
    says this is a later try of the task ``task_id`` (Celery sends a retry only once the
    try before it has given up): it takes over that try's claim, spending nothing.

    Only a real attempt counts: a claim of a queued run, or the take-over of a claim whose
    process died (its node stopped its heartbeat, or on the same node its process is gone),
    or that went stale. The same process claiming again (a retry) spends nothing; a copy of
    the message delivered while the holder still works is refused and spends nothing. With
    no ``worker`` (callers that cannot tell), a message re-delivered under its own task id
    may take its claim again, as one more attempt.

    A job claimed ``SCORING_MAX_ATTEMPTS`` times (a message that kills its worker every time)
    is failed instead of being tried again.
    """
    now = timezone.now()
    row = (
        Submission.objects.filter(pk=submission_id)
        .values("status", "claimed_by", "claimed_worker", "claimed_at", "attempts")
        .first()
    )
    if row is None or row["status"] not in (Status.QUEUED, Status.SCORING):
        return None
    spends = _claim_spends(row, task_id=task_id, worker=worker, resumes=resumes, at=now)
    if spends is None:
        return None
    if spends and row["attempts"] >= settings.SCORING_MAX_ATTEMPTS:
        _attempts_exhausted(submission_id=submission_id)
        return None
    if _claim_take(
        row, submission_id=submission_id, task_id=task_id, worker=worker, at=now, spends=spends
    ):
        return Submission.objects.select_related("phase__task").get(pk=submission_id)
    return None  # another process got there first


def _claim_spends(
    row: dict[str, Any], *, task_id: str, worker: str, resumes: bool, at: datetime
) -> bool | None:
    """Whether claiming the run (as read in ``row``) spends an attempt, or None when it may
    not be claimed (a live holder, another task)."""
    if row["status"] != Status.SCORING:
        return True  # a queued run
    stale = at - timedelta(seconds=settings.SCORING_HARD_TIME_LIMIT)
    if worker and row["claimed_worker"] == worker:
        return False  # this very process again (a retry of its own job)
    if resumes and row["claimed_by"] == task_id:
        return False  # the next try of the same job: the previous one has ended
    if row["claimed_at"] is not None and row["claimed_at"] < stale:
        return True
    if worker and row["claimed_worker"]:
        if worker_alive(worker=row["claimed_worker"], asking=worker, at=at):
            return None  # a duplicate delivery: the holder is still at work
        return True
    if row["claimed_by"] != task_id:
        return None  # held by another task
    return True


def _attempts_exhausted(*, submission_id: int) -> None:
    exhausted = Submission.objects.filter(pk=submission_id).first()
    if exhausted is not None:
        submission_fail(
            submission=exhausted,
            reason=attempts_message(exhausted.attempts),
            platform_failure=True,
        )


def _claim_take(
    row: dict[str, Any],
    *,
    submission_id: int,
    task_id: str,
    worker: str,
    at: datetime,
    spends: bool,
) -> bool:
    """The claim's conditional update: only if the run is still as ``row`` read it."""
    return (
        Submission.objects.filter(
            pk=submission_id,
            status=row["status"],
            claimed_by=row["claimed_by"],
            claimed_worker=row["claimed_worker"],
            attempts=row["attempts"],
        ).update(
            status=Status.SCORING,
            claimed_by=task_id,
            claimed_worker=worker,
            claimed_at=at,
            scoring_started_at=at,
            published=True,
            attempts=F("attempts") + (1 if spends else 0),
            updated_at=at,
        )
        == 1
    )


def submission_held(*, submission_id: int, claim: str) -> Submission | None:
    """The run if it is being scored under the claim ``claim``, else None."""
    return (
        Submission.objects.select_related("phase__task")
        .filter(pk=submission_id, status=Status.SCORING, claimed_by=claim)
        .first()
    )


def submission_release(*, submission_id: int, task_id: str, spent: bool = True) -> bool:
    """Give back the claim of a job that could not go on for a reason of the platform's
    (its database connection was lost): the run is queued again at once, as a new job, and
    with ``spent=False`` the attempt it took is given back. Only the holder may."""
    now = timezone.now()
    with transaction.atomic():
        updated = Submission.objects.filter(
            pk=submission_id,
            status=Status.SCORING,
            claimed_by=task_id,
        ).update(
            status=Status.QUEUED,
            queued_at=now,
            claimed_by="",
            claimed_worker="",
            claimed_at=None,
            published=True,
            updated_at=now,
            attempts=Greatest(F("attempts") - (0 if spent else 1), 0),
        )
        if updated:
            scoring_enqueue(submission_id=submission_id)
    if updated:
        logger.warning(
            "submission %s: job %s lost its database connection; queued again",
            submission_id,
            task_id,
        )
    return updated == 1


# --- workers ----------------------------------------------------------------------------


def worker_heartbeat(*, node: str, at: datetime | None = None) -> None:
    """Record that the worker node ``node`` is alive."""
    WorkerHeartbeat.objects.update_or_create(node=node, defaults={"seen_at": at or timezone.now()})


def workers_alive(*, at: datetime | None = None) -> list[str]:
    """The nodes whose heartbeat is fresh."""
    since = (at or timezone.now()) - timedelta(seconds=settings.WORKER_STALE_AFTER)
    return list(
        WorkerHeartbeat.objects.filter(seen_at__gte=since)
        .order_by("node")
        .values_list("node", flat=True)
    )


def worker_alive(
    *,
    worker: str,
    asking: str = "",
    at: datetime | None = None,
    task_id: str = "",
    running: Collection[str] | None = None,
) -> bool:
    """Whether the process ``worker`` (``<node>:<pid>``) may still be at work: on the asking
    process's own node, whether that process exists, or, when the node's ``running`` jobs
    (task ids) are known, whether the job ``task_id`` is among them (a pool process that
    outlived its job, after a lost database connection say, is idle, not at work);
    elsewhere, whether its node's heartbeat is fresh."""
    node, _, pid = worker.rpartition(":")
    own_node = asking.rpartition(":")[0]
    if node and node == own_node and running is not None and task_id:
        return task_id in running
    if node and node == own_node and pid.isdigit():
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True
    return node in workers_alive(at=at)
