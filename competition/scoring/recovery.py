"""Runs whose job is gone: what a live worker's heartbeat round takes back (a dead holder,
a run never handed to the broker, a message the broker lost, a last job lost after all its
parts were written), and the beat's sweep of runs stuck past ``SWEEP_STUCK_AFTER``."""

from __future__ import annotations

import functools
import logging
import os
from collections.abc import Callable, Collection
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.db.models.functions import Greatest
from django.utils import timezone

from competition.models import ScoringPart, Submission
from competition.scoring.claims import attempts_message, worker_alive
from competition.services.dispatch import (
    notification_enqueue,
    scoring_enqueue,
    scoring_parts_finish_publish,
    scoring_publish,
    scoring_queue_empty,
)

logger = logging.getLogger(__name__)
Status = Submission.Status


@dataclass(frozen=True, slots=True)
class RecoverReport:
    requeued: tuple[int, ...]  # runs whose worker node died, queued again
    published: tuple[int, ...]  # runs whose message the broker never got, sent now
    resent: tuple[int, ...] = ()  # runs whose message the broker lost, sent again


@dataclass(frozen=True, slots=True)
class _Round:
    """One recovery round: who asks, when, and what it may ask once (the queue's state)."""

    asking: str
    now: datetime
    grace: datetime
    running: Callable[[], Collection[str]] | None
    queue_empty: Callable[[], bool]


def submission_recover(
    *,
    node: str = "",
    at: datetime | None = None,
    running: Callable[[], Collection[str]] | None = None,
) -> RecoverReport:
    """What a live worker (``node``) does every few seconds (no beat needed): queue again
    the runs whose claiming job is gone (its node stopped its heartbeat, or, on this node,
    the job is not among the node's ``running`` task ids (or, unknown, its process no
    longer exists); the attempt was spent when it was claimed), publish
    the runs whose message could not be handed to the broker, and send again the runs whose
    message the broker lost."""
    now = at or timezone.now()
    round_ = _Round(
        asking=f"{node}:{os.getpid()}" if node else "",
        now=now,
        grace=now - timedelta(seconds=settings.WORKER_STALE_AFTER),
        running=running,
        queue_empty=functools.cache(scoring_queue_empty),  # asked once a round, when needed
    )
    requeued, unsent = _take_back(round_)
    published = _publish_waiting(now=now)
    resent = unsent + _resend_lost_messages(now=now, grace=round_.grace)
    if requeued or published or resent:
        logger.warning(
            "recovery: re-queued %s (worker gone), published %s, re-sent %s (lost by the broker)",
            requeued,
            published,
            resent,
        )
    return RecoverReport(requeued=tuple(requeued), published=tuple(published), resent=tuple(resent))


def _take_back(round_: _Round) -> tuple[list[int], list[int]]:
    """Queue again the runs whose job is gone: (those whose worker died, those whose parts
    the broker lost). A run whose parts are all written gets its last job sent again."""
    requeued: list[int] = []
    unsent: list[int] = []
    held = (
        Submission.objects.filter(status=Status.SCORING, claimed_at__lt=round_.grace)
        .exclude(claimed_worker="")
        .values_list("pk", "claimed_worker", "claimed_by", "claimed_at")
    )
    for pk, claimant, task_id, claimed_at in held:
        # what this node runs, read after the claim (a job that claimed and then ended is
        # not counted as running)
        parts = _parts_state(submission_id=pk, claim=task_id, claimed_at=claimed_at, round_=round_)
        if parts == "finished":
            _finish_again(pk, claim=task_id, round_=round_)
            continue
        if parts == "alive" or (
            parts is None
            and worker_alive(
                worker=claimant,
                asking=round_.asking,
                at=round_.now,
                task_id=task_id,
                running=round_.running() if round_.running is not None else None,
            )
        ):
            continue
        # parts the broker lost (restarted without persistence) are not the run's attempt
        given_back = parts == "unsent"
        if _queue_again(pk, claimant=claimant, claim=task_id, at=round_.now, given_back=given_back):
            (unsent if given_back else requeued).append(pk)
    return requeued, unsent


def _finish_again(pk: int, *, claim: str, round_: _Round) -> None:
    """Every part is written and the run still waits: its last job (the chord's callback)
    was lost; send it again (it is safe twice), once per grace time."""
    if Submission.objects.filter(
        pk=pk, status=Status.SCORING, claimed_by=claim, claimed_at__lt=round_.grace
    ).update(claimed_at=round_.now):
        scoring_parts_finish_publish(submission_id=pk, claim=claim)


def _queue_again(pk: int, *, claimant: str, claim: str, at: datetime, given_back: bool) -> bool:
    """Queue a run again if its claim is still the one judged gone."""
    now = at
    with transaction.atomic():
        updated = Submission.objects.filter(
            pk=pk,
            status=Status.SCORING,
            claimed_worker=claimant,
            claimed_by=claim,
        ).update(
            status=Status.QUEUED,
            queued_at=now,
            claimed_by="",
            claimed_worker="",
            claimed_at=None,
            updated_at=now,
            attempts=Greatest(F("attempts") - (1 if given_back else 0), 0),
        )
        if updated:
            scoring_enqueue(submission_id=pk)
    return bool(updated)


def _publish_waiting(*, now: datetime) -> list[int]:
    """Publish the runs whose message could not be handed to the broker, oldest first."""
    published: list[int] = []
    waiting = Submission.objects.filter(status=Status.QUEUED, published=False)
    for pk in waiting.order_by("queued_at", "pk").values_list("pk", flat=True):
        if not scoring_publish(submission_id=pk):
            break  # the broker is still away: the next round tries again
        Submission.objects.filter(pk=pk, status=Status.QUEUED).update(
            published=True, queued_at=now, updated_at=now
        )
        published.append(pk)
    return published


def _parts_state(
    *, submission_id: int, claim: str, claimed_at: datetime, round_: _Round
) -> str | None:
    """For a run scored in parts (its job handed its datasets to jobs of their own and
    ended): "finished" when every part is written, "lost" when a part's worker is gone
    (its node stopped beating, or on this node its job is not running), "unsent" when parts
    wait that the broker no longer holds (none started or ended for twice the grace time,
    and the queue is empty), "alive" otherwise (parts running or waiting in the queue). None
    for a run scored in one job."""
    parts = list(
        ScoringPart.objects.filter(submission_id=submission_id, claim=claim).values_list(
            "worker", "task_id", "started_at", "finished_at"
        )
    )
    if not parts:
        return None
    if all(finished is not None for *_, finished in parts):
        return "finished"
    ours = round_.running() if round_.running is not None else None
    for worker, part_task, _, finished in parts:
        if (
            finished is None
            and worker
            and not worker_alive(
                worker=worker, asking=round_.asking, at=round_.now, task_id=part_task, running=ours
            )
        ):
            return "lost"
    # Nothing moving for twice the grace time: a part just taken from the queue by a busy
    # machine's worker has not started yet, and must not pass for one the broker lost.
    quiet_since = round_.grace - (round_.now - round_.grace)
    waiting = any(started is None for _, _, started, _ in parts)
    moments = (moment for *_, started, finished in parts for moment in (started, finished))
    latest = max([claimed_at, *(moment for moment in moments if moment is not None)])
    if waiting and latest < quiet_since and round_.queue_empty():
        return "unsent"
    return "alive"


def _resend_lost_messages(*, now: datetime, grace: datetime) -> list[int]:
    """Send again the runs queued for longer than the grace time while the broker's queue
    is empty: their message was lost (a broker restarted without persistence). A copy sent
    for a run whose message was only held by a busy worker is harmless: the claim refuses
    the second copy, and it spends no attempt. A run is sent again at most once per grace
    time."""
    waiting = list(
        Submission.objects.filter(status=Status.QUEUED, published=True, queued_at__lt=grace)
        .order_by("queued_at", "pk")
        .values_list("pk", "queued_at")
    )
    if not waiting or not scoring_queue_empty():
        return []
    resent: list[int] = []
    for pk, queued_at in waiting:
        if not Submission.objects.filter(pk=pk, status=Status.QUEUED, queued_at=queued_at).update(
            queued_at=now, updated_at=now
        ):
            continue  # claimed, or sent again by another worker, meanwhile
        if not scoring_publish(submission_id=pk):
            Submission.objects.filter(pk=pk, status=Status.QUEUED).update(published=False)
            break
        resent.append(pk)
    return resent


# --- sweep ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SweepReport:
    requeued: tuple[int, ...]
    failed: tuple[int, ...]


def submission_sweep(*, now: datetime | None = None) -> SweepReport:
    """Re-queue submissions left in ``queued`` or ``scoring`` past ``SWEEP_STUCK_AFTER``
    seconds; fail (as the platform's fault, with a message) those that used all their attempts.
    """
    now = now or timezone.now()
    limit = now - timedelta(seconds=settings.SWEEP_STUCK_AFTER)
    stuck = Submission.objects.filter(
        Q(status=Status.QUEUED, queued_at__lt=limit)
        | Q(status=Status.SCORING, claimed_at__lt=limit)
    ).values_list("pk", "status", "attempts", "claimed_by")
    requeued: list[int] = []
    failed: list[int] = []
    for pk, status, attempts, claim in stuck:
        if (
            status == Status.SCORING
            and ScoringPart.objects.filter(
                Q(started_at__gte=limit) | Q(finished_at__gte=limit), submission_id=pk, claim=claim
            ).exists()
        ):
            continue  # scored in parts, and they move: a long run, not a stuck one
        # An attempt whose message was lost before any worker claimed it counts too.
        attempts_used = attempts + (1 if status == Status.QUEUED else 0)
        condition = Q(pk=pk, status=status, attempts=attempts)
        if attempts_used >= settings.SCORING_MAX_ATTEMPTS:
            if _sweep_fail(condition, attempts_used=attempts_used, now=now):
                failed.append(pk)
                notification_enqueue(submission_id=pk)
        elif _sweep_requeue(condition, pk=pk, attempts_used=attempts_used, now=now):
            requeued.append(pk)
    if requeued or failed:
        logger.warning("sweep: re-queued %s, failed %s", requeued, failed)
    return SweepReport(requeued=tuple(requeued), failed=tuple(failed))


def _sweep_fail(condition: Q, *, attempts_used: int, now: datetime) -> bool:
    return bool(
        Submission.objects.filter(condition).update(
            status=Status.FAILED,
            failed_at=now,
            error=attempts_message(attempts_used),
            platform_failure=True,
            attempts=attempts_used,
            updated_at=now,
        )
    )


def _sweep_requeue(condition: Q, *, pk: int, attempts_used: int, now: datetime) -> bool:
    with transaction.atomic():
        updated = Submission.objects.filter(condition).update(
            status=Status.QUEUED,
            queued_at=now,
            claimed_by="",
            claimed_at=None,
            attempts=attempts_used,
            updated_at=now,
        )
        if updated:
            scoring_enqueue(submission_id=pk)
    return bool(updated)
