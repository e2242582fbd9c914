"""A request body is read whole or not at all.

Django's multipart parser stops quietly where the body stops: it reads the socket through a
stream capped at ``Content-Length`` (`django.core.handlers.wsgi.LimitedStream`), which returns
``b""`` as soon as the client's side ends, and the parser's loop (`MultiPartParser._parse`)
then ends too. A file whose part was cut is dropped (its handlers are told
``upload_interrupted``), every part before it is kept, and neither the closing boundary nor
the byte count is checked: a run of the first dataset of 22 was stored, counted and ranked
while its client reported the server unreachable.

`WholeBodyMiddleware` wraps each request's body stream in `WholeBody`, which counts what it
reads and raises `UploadIncomplete` (a ``MultiPartParserError``, so no parser swallows it) the
moment the body ends short of ``Content-Length`` or a multipart body of the declared length
ends without its closing boundary. Whatever the view was doing stops there, before anything
is stored, and the middleware answers 400 ``upload_incomplete``. The upload handlers below
also keep each file's SHA-256 as it arrives, for the upload's manifest
(`competition.upload_manifest`).
"""

from __future__ import annotations

import hashlib
import logging
from typing import IO

from django.core.files.uploadhandler import MemoryFileUploadHandler, TemporaryFileUploadHandler
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.http.multipartparser import MultiPartParserError
from django.utils.html import escape

from competition.errors import MESSAGES

logger = logging.getLogger(__name__)

TAIL = 1024  # bytes kept from the end of what was read, to find the closing boundary


class UploadIncomplete(MultiPartParserError):
    """The request body ended before its declared length, or without its closing
    boundary: nothing of it may be used."""


class WholeBody:
    """A request body stream that refuses to end early (see the module's text)."""

    def __init__(self, stream: IO[bytes], *, length: int, boundary: bytes | None) -> None:
        self._stream = stream
        self.length = length
        self.closing = b"--" + boundary + b"--" if boundary else None
        self.read_bytes = 0
        self.cut: str | None = None  # why the body is refused, once it is
        self._tail = b""

    def read(self, size: int | None = -1, /) -> bytes:
        data = self._pull(self._stream.read, size)
        if size is None or size < 0 or len(data) < size:
            self._check_end()
        return data

    def readline(self, size: int | None = -1, /) -> bytes:
        line = self._pull(self._stream.readline, size, whole=False)
        if not line.endswith(b"\n") and (size is None or size < 0 or len(line) < size):
            self._check_end()
        return line

    def close(self) -> None:
        self._stream.close()

    def __getattr__(self, name: str):  # the rest of a stream's interface, as it is
        return getattr(self._stream, name)

    def _pull(self, read, size: int | None, whole: bool = True) -> bytes:
        """One read of the stream; a short one is repeated (a socket may answer in parts)
        until ``size`` bytes, the declared length or the end of the client's data."""
        try:
            data = read(size)
            while whole and size is not None and 0 <= len(data) < size and self._left(data):
                more = read(size - len(data))
                if not more:
                    break
                data += more
        except OSError as exc:  # the connection broke while the body was read
            self._refuse(f"the connection broke after {self.read_bytes:,} bytes ({exc})")
        self.read_bytes += len(data)
        self._tail = (self._tail + data[-TAIL:])[-TAIL:]
        return data

    def _left(self, data: bytes) -> bool:
        return self.read_bytes + len(data) < self.length

    def _check_end(self) -> None:
        if self.read_bytes < self.length:
            self._refuse(f"{self.read_bytes:,} of {self.length:,} bytes arrived")
        if self.closing is not None and self.closing not in self._tail:
            self._refuse("the multipart body does not end with its closing boundary")

    def _refuse(self, why: str) -> None:
        self.cut = why
        raise UploadIncomplete(why)


def _boundary(content_type: str) -> bytes | None:
    if not content_type.lower().startswith("multipart/"):
        return None
    for part in content_type.split(";")[1:]:
        name, _, value = part.strip().partition("=")
        if name.lower() == "boundary" and value:
            return value.strip().strip('"').encode("latin-1")
    return None


def _wants_json(request: HttpRequest) -> bool:
    return request.path.startswith("/api/") or "application/json" in request.headers.get(
        "Accept", ""
    )


class WholeBodyMiddleware:
    """Wrap every request body in `WholeBody`; a body refused as cut is answered 400
    ``upload_incomplete``, whatever the view said (it stopped where the body did)."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        guard = self._guard(request)
        response = self.get_response(request)
        if guard is None or guard.cut is None:
            return response
        logger.warning(
            "%s %s: upload refused as incomplete: %s", request.method, request.path, guard.cut
        )
        return refusal(request)

    @staticmethod
    def _guard(request: HttpRequest) -> WholeBody | None:
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            return None
        stream = getattr(request, "_stream", None)
        if length <= 0 or stream is None:
            return None
        guard = WholeBody(
            stream, length=length, boundary=_boundary(request.META.get("CONTENT_TYPE", ""))
        )
        request._stream = guard
        return guard


def refusal(request: HttpRequest) -> HttpResponse:
    """The answer to a cut upload: JSON for the API, a page for the browser."""
    message = MESSAGES["upload_incomplete"]
    if _wants_json(request):
        return JsonResponse({"code": "upload_incomplete", "detail": message}, status=400)
    return HttpResponse(
        "<!doctype html><title>Upload incomplete</title><h1>The upload was incomplete</h1>"
        f"<p>{escape(message)}</p><p>Go back and send the files again.</p>",
        status=400,
        content_type="text/html",
    )


class _Digesting:
    """An upload handler that keeps each file's SHA-256 (``file.sha256``) as it arrives."""

    def new_file(self, *args, **kwargs) -> None:
        self._digest = hashlib.sha256()  # first: the memory handler may raise to take the file
        super().new_file(*args, **kwargs)  # type: ignore[misc]

    def receive_data_chunk(self, raw_data: bytes, start: int):
        passed = super().receive_data_chunk(raw_data, start)  # type: ignore[misc]
        if passed is None:  # this handler kept the chunk
            self._digest.update(raw_data)
        return passed

    def file_complete(self, file_size: int):
        done = super().file_complete(file_size)  # type: ignore[misc]
        if done is not None:
            done.sha256 = self._digest.hexdigest()
        return done


class DigestingMemoryHandler(_Digesting, MemoryFileUploadHandler):
    """Small files in memory, with their SHA-256."""


class DigestingTemporaryHandler(_Digesting, TemporaryFileUploadHandler):
    """Larger files in a temporary file, with their SHA-256."""
