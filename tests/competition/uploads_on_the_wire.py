"""Multipart bodies written byte by byte and sent over a real socket, whole or cut short: the
uploads tests' way to send what a client that gave up half-way sends."""

from __future__ import annotations

import hashlib
import json
import socket
from collections.abc import Mapping, Sequence

BOUNDARY = "wire-test-boundary-7d41"


def multipart(
    fields: Sequence[tuple[str, str]] = (),
    files: Sequence[tuple[str, str, bytes]] = (),
    tail_fields: Sequence[tuple[str, str]] = (),
) -> tuple[bytes, list[int]]:
    """The body (fields, then files as (field, filename, bytes), then ``tail_fields``) and
    the offset where each file's part starts."""
    out = bytearray()
    starts = []
    for name, value in fields:
        out += _part(name, None, value.encode())
    for name, filename, data in files:
        starts.append(len(out))
        out += _part(name, filename, data)
    for name, value in tail_fields:
        out += _part(name, None, value.encode())
    out += f"--{BOUNDARY}--\r\n".encode()
    return bytes(out), starts


def _part(name: str, filename: str | None, data: bytes) -> bytes:
    disposition = f'form-data; name="{name}"' + (f'; filename="{filename}"' if filename else "")
    head = f"--{BOUNDARY}\r\nContent-Disposition: {disposition}\r\n"
    if filename:
        head += "Content-Type: text/plain\r\n"
    return head.encode() + b"\r\n" + data + b"\r\n"


def manifest(files: Sequence[tuple[str, str, bytes]]) -> str:
    """The manifest field a client sends for ``files``."""
    return json.dumps(
        {
            "files": [
                {"field": f, "name": n, "size": len(d), "sha256": hashlib.sha256(d).hexdigest()}
                for f, n, d in files
            ]
        }
    )


def send(
    url: str,
    path: str,
    body: bytes,
    *,
    headers: Mapping[str, str] = (),  # type: ignore[assignment]
    cut_at: int | None = None,
    timeout: float = 30.0,
) -> tuple[int, bytes]:
    """POST ``body`` to ``path`` declaring its whole length; with ``cut_at``, send only that
    many bytes, shut the write side and read the answer. Returns (status, response body)."""
    host, port = url.split("//", 1)[1].rstrip("/").split(":")
    head = [
        f"POST {path} HTTP/1.1",
        f"Host: {host}:{port}",
        f"Content-Type: multipart/form-data; boundary={BOUNDARY}",
        f"Content-Length: {len(body)}",
        "Connection: close",
        *(f"{k}: {v}" for k, v in dict(headers).items()),
    ]
    with socket.create_connection((host, int(port)), timeout=timeout) as sock:
        sock.sendall(("\r\n".join(head) + "\r\n\r\n").encode())
        sock.sendall(body if cut_at is None else body[:cut_at])
        sock.shutdown(socket.SHUT_WR)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    status_line, _, rest = answer.partition(b"\r\n")
    head_lines, _, content = rest.partition(b"\r\n\r\n")
    if b"transfer-encoding: chunked" in head_lines.lower():
        content = _dechunked(content)
    return int(status_line.split()[1]), content


def _dechunked(data: bytes) -> bytes:
    out = b""
    while data:
        size_line, _, data = data.partition(b"\r\n")
        size = int(size_line.split(b";")[0], 16)
        if size == 0:
            break
        out, data = out + data[:size], data[size + 2 :]
    return out
