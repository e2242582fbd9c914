"""The results package built as a job: an organizer asks for it (`package_job_start`), a
worker builds it (`results_package_task`, below; in the embedded configuration,
in-process, at once) telling its progress in the cache, and keeps the zip in the private
folder (`PRIVATE_ROOT/packages/`); the organizer's progress page follows it and links the
download when it is done. One job per organizer and phase: asking again replaces it.
"""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass
from pathlib import Path

from celery import shared_task
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.cache import cache

from competition.models import Phase

logger = logging.getLogger(__name__)

KEPT_SECONDS = 2 * 24 * 3600
"""How long a job's state (and so the link to its zip) is kept."""


@dataclass(frozen=True)
class PackageJob:
    state: str  # "queued", "building", "done" or "failed"
    done: int = 0
    total: int = 0
    token: str = ""
    error: str = ""

    @property
    def finished(self) -> bool:
        return self.state in ("done", "failed")


def _key(phase_id: int, user_id: int) -> str:
    return f"leaderboard:package:{phase_id}:{user_id}"


def _save(phase_id: int, user_id: int, job: PackageJob) -> None:
    cache.set(_key(phase_id, user_id), job.__dict__.copy(), timeout=KEPT_SECONDS)


def package_job(*, phase: Phase, user) -> PackageJob | None:
    """The organizer's latest package job of ``phase`` (None: none asked for)."""
    found = cache.get(_key(phase.pk, user.pk))
    return PackageJob(**found) if found else None


def package_job_file(job: PackageJob) -> Path:
    return Path(settings.PRIVATE_ROOT) / "packages" / f"{job.token}.zip"


def package_job_start(*, phase: Phase, user) -> PackageJob:
    """Ask for the package of ``phase`` as ``user`` sees it; the job is queued (run at once
    in-process without a broker)."""
    job = PackageJob(state="queued", token=secrets.token_hex(16))
    _save(phase.pk, user.pk, job)
    results_package_task.delay(phase.pk, user.pk, job.token)
    return package_job(phase=phase, user=user) or job


def package_job_build(*, phase_id: int, user_id: int, token: str) -> None:
    """Build the package, telling its progress; a failure is told, never raised."""
    from leaderboard.package import phase_results_package

    current = cache.get(_key(phase_id, user_id)) or {}
    if current.get("token") != token:
        return  # replaced by a later request

    def progress(done: int, total: int) -> None:
        _save(phase_id, user_id, PackageJob("building", done, total, token))

    try:
        phase = Phase.objects.select_related("task__competition").get(pk=phase_id)
        user = get_user_model().objects.get(pk=user_id)
        progress(0, 0)
        data = phase_results_package(phase=phase, viewer=user, progress=progress)
        path = package_job_file(PackageJob("done", token=token))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        latest = cache.get(_key(phase_id, user_id)) or {}
        _save(
            phase_id,
            user_id,
            PackageJob("done", latest.get("total", 0), latest.get("total", 0), token),
        )
    except Exception as exc:
        logger.exception("building the results package of phase %s failed", phase_id)
        _save(phase_id, user_id, PackageJob("failed", token=token, error=str(exc)[:300]))


@shared_task(ignore_result=True)
def results_package_task(phase_id: int, user_id: int, token: str) -> None:
    """Build an organizer's results package, as a job (`package_job_build`)."""
    package_job_build(phase_id=phase_id, user_id=user_id, token=token)
