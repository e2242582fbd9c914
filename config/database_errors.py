"""A database that went away for a moment (a failover, a restart, a reaped connection)
answers 503 Service Unavailable with ``Retry-After``, not 500: the request may simply be
sent again. The broken connection is closed so the next request opens a new one."""

from __future__ import annotations

import logging

from django.db import InterfaceError, OperationalError, connections
from django.http import HttpRequest, HttpResponse, JsonResponse

logger = logging.getLogger(__name__)

RETRY_AFTER_SECONDS = 5
MESSAGE = (
    "The database could not be reached for a moment. Nothing was lost: please try "
    "again in a few seconds."
)


class DatabaseUnavailableMiddleware:
    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception):
        if not isinstance(exception, (OperationalError, InterfaceError)):
            return None
        logger.warning(
            "database unavailable during %s %s: %s", request.method, request.path, exception
        )
        for connection in connections.all(initialized_only=True):
            if connection.connection is None or not connection.is_usable():
                connection.close()
        wants_json = (
            request.path.startswith("/api/")
            or request.path.endswith(".json")
            or "application/json" in request.headers.get("Accept", "")
        )
        if wants_json:
            response: HttpResponse = JsonResponse({"detail": MESSAGE}, status=503)
        else:
            response = HttpResponse(
                f"<!doctype html><title>Try again in a moment</title><h1>Try again in a "
                f"moment</h1><p>{MESSAGE}</p>",
                status=503,
                content_type="text/html",
            )
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
        return response
