"""Health endpoints (mounted at /health/), for load balancers, monitors and deploy scripts.

- ``/health/``: the web process answers and its database is reachable.
- ``/health/broker/``: the Celery broker (Redis) is reachable; ``"eager"`` in the embedded
  configuration, where jobs run in-process and there is no broker.
- ``/health/workers/``: at least one ``celery worker`` answers a control ping within
  ``PING_TIMEOUT`` seconds; ``"eager"`` in the embedded configuration.

Every answer is a small JSON object with ``"status": "ok"`` (HTTP 200) or ``"error"`` (HTTP
503). Answers name what failed but never a host, a URL or a credential: they are public.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.db import DatabaseError, connection
from django.http import HttpRequest, JsonResponse
from django.urls import path
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from competition.scoring import workers_alive

logger = logging.getLogger(__name__)

BROKER_TIMEOUT = 2.0  # seconds to open a broker connection
PING_TIMEOUT = 1.0  # seconds to wait for workers' ping replies


def _answer(body: dict[str, object], ok: bool) -> JsonResponse:
    return JsonResponse({"status": "ok" if ok else "error", **body}, status=200 if ok else 503)


def _eager() -> bool:
    return bool(getattr(settings, "CELERY_TASK_ALWAYS_EAGER", False))


@never_cache
@require_safe
def health_web(request: HttpRequest) -> JsonResponse:
    """The database answers a trivial query."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except DatabaseError as exc:
        logger.warning("health: database unreachable: %s", exc)
        return _answer({"database": "unreachable"}, ok=False)
    return _answer({"database": "ok"}, ok=True)


@never_cache
@require_safe
def health_broker(request: HttpRequest) -> JsonResponse:
    """A broker connection opens within BROKER_TIMEOUT seconds."""
    if _eager():
        return _answer({"broker": "eager"}, ok=True)
    from config.celery import app

    try:
        with app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, interval_start=0, timeout=BROKER_TIMEOUT)
    except Exception as exc:  # kombu raises transport-specific errors
        logger.warning("health: broker unreachable: %s", exc)
        return _answer({"broker": "unreachable"}, ok=False)
    return _answer({"broker": "ok"}, ok=True)


@never_cache
@require_safe
def health_workers(request: HttpRequest) -> JsonResponse:
    """At least one worker answers a control ping (its heartbeat) within PING_TIMEOUT."""
    if _eager():
        return _answer({"workers": "eager", "count": 0}, ok=True)
    from config.celery import app

    try:
        with app.connection_for_write() as conn:
            # Fail fast when the broker is down: ping() alone retries for seconds.
            conn.ensure_connection(max_retries=1, interval_start=0, timeout=BROKER_TIMEOUT)
            replies = app.control.ping(timeout=PING_TIMEOUT, connection=conn) or []
    except Exception as exc:  # the broker itself is down
        logger.warning("health: worker ping failed: %s", exc)
        return _answer({"workers": "unknown", "broker": "unreachable", "count": 0}, ok=False)
    count = sum(len(reply) for reply in replies)  # worker names carry host names: count only
    try:
        beating: int | None = len(workers_alive())
    except DatabaseError:  # the database's own health endpoint says so
        beating = None
    state = "ok" if count else "none answered: runs are waiting for a scoring worker"
    return _answer({"workers": state, "count": count, "heartbeats": beating}, ok=bool(count))


app_name = "health"
urlpatterns = [
    path("", health_web, name="web"),
    path("broker/", health_broker, name="broker"),
    path("workers/", health_workers, name="workers"),
]
