"""The body of an upload, streamed: a multipart form written part by part as it is sent.

Its fields come first, with ``manifest_follows``; then the files, read in blocks from disk; and
last the ``manifest`` (each file's field, name, size and SHA-256), which a body cut anywhere
cannot hold whole, so the server can tell a cut upload from a whole one (it counts the bytes
too). The body knows its length (``Content-Length``) and can be sent again from its start, for
a retry; ``progress`` is called with the bytes handed to the socket so far.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import IO, Any

BLOCK = 256 * 1024


@dataclass(frozen=True)
class FilePart:
    field: str
    name: str
    handle: IO[bytes]
    content_type: str = "application/octet-stream"
    known_sha256: str = ""  # the file's digest where the sender has it already

    def size(self) -> int:
        self.handle.seek(0, os.SEEK_END)
        return self.handle.tell()

    def blocks(self) -> Iterator[bytes]:
        self.handle.seek(0)
        while block := self.handle.read(BLOCK):
            yield block

    def sha256(self) -> str:
        if self.known_sha256:
            return self.known_sha256
        digest = hashlib.sha256()
        for block in self.blocks():
            digest.update(block)
        return digest.hexdigest()


class UploadBody:
    """A multipart/form-data body of ``fields`` and ``files``, with the manifest last."""

    def __init__(
        self,
        fields: Sequence[tuple[str, str]],
        files: Sequence[FilePart],
        progress: Callable[[int], None] | None = None,
    ) -> None:
        if not files:
            raise ValueError("an upload sends at least one file")
        self.boundary = "codicrac-" + secrets.token_hex(16)
        self.files = list(files)
        self.progress = progress
        entries: list[dict[str, Any]] = [
            {"field": f.field, "name": f.name, "size": f.size(), "sha256": f.sha256()}
            for f in self.files
        ]
        self._head = b"".join(
            self._field(name, value) for name, value in [*fields, ("manifest_follows", "1")]
        )
        self._file_heads = [self._file_head(f) for f in self.files]
        self._tail = (
            b"\r\n"
            + self._field("manifest", json.dumps({"files": entries}))
            + f"--{self.boundary}--\r\n".encode()
        )
        self._length = (
            len(self._head)
            + sum(len(head) for head in self._file_heads)
            + sum(entry["size"] for entry in entries)
            + 2 * (len(self.files) - 1)  # the line break closing each file's part but the last
            + len(self._tail)
        )

    @property
    def content_type(self) -> str:
        return f"multipart/form-data; boundary={self.boundary}"

    def __len__(self) -> int:
        return self._length

    def __iter__(self) -> Iterator[bytes]:
        sent = 0
        for index, (head, part) in enumerate(zip(self._file_heads, self.files)):
            for block in self._chunks(index, head, part):
                sent += len(block)
                yield block
                if self.progress is not None:
                    self.progress(sent)
        sent += len(self._tail)
        yield self._tail
        if self.progress is not None:
            self.progress(sent)

    def _chunks(self, index: int, head: bytes, part: FilePart) -> Iterator[bytes]:
        yield (self._head if index == 0 else b"\r\n") + head
        yield from part.blocks()

    def _field(self, name: str, value: str) -> bytes:
        return (
            f'--{self.boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n'.encode()
            + value.encode()
            + b"\r\n"
        )

    def _file_head(self, part: FilePart) -> bytes:
        name = part.name.replace('"', "%22").replace("\r", "").replace("\n", "")
        return (
            f"--{self.boundary}\r\nContent-Disposition: form-data; "
            f'name="{part.field}"; filename="{name}"\r\n'
            f"Content-Type: {part.content_type}\r\n\r\n"
        ).encode()
