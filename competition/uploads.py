"""Receiving response files: size caps, zip safety, matching files to sub-corpora.

Uploads are untrusted data. Nothing here executes or interprets them beyond reading bytes:
every file is streamed into a private working folder with a byte counter, and a zip archive is
checked member by member (no absolute paths, no ``..``, no symlinks, no nested archives, no
encryption, no duplicate or unknown names, capped sizes and compression ratio) before a single
byte of it is written.
"""

from __future__ import annotations

import hashlib
import os
import stat
import zipfile
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO, Protocol

from django.conf import settings

from competition.errors import SubmissionRejected, shown_params

# The file-name rule is shared with the command line (it lives beside the readers).
from scoring.filenames import (  # noqa: F401
    closest_subcorpus,
    dataset_for_documents,
    newdoc_ids,
    subcorpus_for_name,
)

CHUNK = 1024 * 1024
ARCHIVE_SUFFIXES = (".zip", ".gz", ".tgz", ".tar", ".bz2", ".xz", ".7z", ".rar", ".zst")
ARCHIVE_MAGIC = (
    b"PK\x03\x04",
    b"PK\x05\x06",
    b"\x1f\x8b",
    b"BZh",
    b"\xfd7zXZ",
    b"7z\xbc\xaf",
    b"Rar!",
    b"\x28\xb5\x2f\xfd",
)


class Upload(Protocol):
    """What we need of an uploaded file (Django's UploadedFile has it)."""

    name: str

    @property
    def size(self) -> int: ...  # read only: a kept file's size is its file's

    def chunks(self, chunk_size: int | None = None) -> Iterable[bytes]: ...


@dataclass(frozen=True, slots=True)
class UploadLimits:
    max_upload_bytes: int
    max_uncompressed_bytes: int
    max_compression_ratio: int


@dataclass(frozen=True, slots=True)
class ReceivedFile:
    """One response file, written to the working folder, for one sub-corpus."""

    subcorpus_slug: str
    original_name: str
    path: Path
    size: int
    sha256: str


def _is_os_litter(name: str) -> bool:
    """Files an archiver adds by itself: macOS resource forks (``__MACOSX/``, ``._x``) and
    folder settings (``.DS_Store``, ``Thumbs.db``). They are skipped, never matched."""
    path = PurePosixPath(name)
    return (
        "__MACOSX" in path.parts
        or path.name.startswith("._")
        or path.name in (".DS_Store", "Thumbs.db", "desktop.ini")
    )


def _write_stream(
    chunks: Iterable[bytes], target: Path, *, limit: int, name: str
) -> tuple[int, str]:
    """Write chunks to ``target`` with a byte counter; returns (size, sha256)."""
    digest = hashlib.sha256()
    size = 0
    with open(target, "wb") as out:
        for chunk in chunks:
            size += len(chunk)
            if size > limit:
                raise SubmissionRejected(
                    "upload_too_large", name=name, size="larger than allowed", limit=limit
                )
            digest.update(chunk)
            out.write(chunk)
    return size, digest.hexdigest()


def _kept_as_received(upload: Upload, target: Path) -> tuple[int, str] | None:
    """(size, sha256) of an upload already on disk whose digest was taken as it arrived
    (`competition.whole_body`'s handlers), linked to ``target`` instead of read and written
    again; None where it is not (a file in memory, another file system)."""
    digest = getattr(upload, "sha256", None)
    on_disk = getattr(upload, "temporary_file_path", None)
    if not digest or on_disk is None:
        return None
    try:
        os.link(on_disk(), target)
    except OSError:
        return None
    return target.stat().st_size, str(digest)


def _looks_like_archive(head: bytes, name: str) -> bool:
    return name.lower().endswith(ARCHIVE_SUFFIXES) or head.startswith(ARCHIVE_MAGIC)


def receive_files(
    *,
    files: Mapping[str, Upload],
    subcorpora: Mapping[str, str],
    workdir: Path,
    limits: UploadLimits,
) -> dict[str, ReceivedFile]:
    """Write one uploaded file per sub-corpus (keyed by slug) into ``workdir``."""
    unknown = sorted(key for key in files if key not in subcorpora)
    if unknown:
        raise SubmissionRejected(
            "unknown_files",
            names=", ".join(unknown),
            expected=", ".join(subcorpora.values()),
            hint="",
        )
    received: dict[str, ReceivedFile] = {}
    for slug, upload in files.items():
        if upload.size is not None and upload.size > limits.max_upload_bytes:
            raise SubmissionRejected(
                "upload_too_large",
                name=upload.name,
                size=upload.size,
                limit=limits.max_upload_bytes,
            )
        target = workdir / f"{slug}.conllua"
        size, sha = _kept_as_received(upload, target) or _write_stream(
            upload.chunks(), target, limit=limits.max_upload_bytes, name=upload.name
        )
        if size > limits.max_upload_bytes:
            raise SubmissionRejected(
                "upload_too_large", name=upload.name, size=size, limit=limits.max_upload_bytes
            )
        with open(target, "rb") as fh:
            head = fh.read(8)
        if _looks_like_archive(head, upload.name):
            raise SubmissionRejected(
                "unsafe_zip",
                reason=f"{upload.name} is an archive; upload "
                "CONLL-UA text files, or one zip of them",
            )
        received[slug] = ReceivedFile(slug, upload.name, target, size, sha)
    return received


def _zip_member_problem(info: zipfile.ZipInfo) -> str | None:
    """Why a zip member is unsafe, or None."""
    name = info.filename
    if name.startswith(("/", "\\")) or (len(name) > 1 and name[1] == ":"):
        return f"{name!r} has an absolute path"
    if "\\" in name:
        return f"{name!r} uses backslashes in its path"
    if any(part == ".." for part in PurePosixPath(name).parts):
        return f"{name!r} points outside the archive (..)"
    mode = info.external_attr >> 16
    if stat.S_ISLNK(mode):
        return f"{name!r} is a symbolic link"
    if info.flag_bits & 0x1:
        return f"{name!r} is encrypted"
    if name.lower().endswith(ARCHIVE_SUFFIXES):
        return f"{name!r} is a nested archive"
    return None


def receive_zip(
    *,
    archive: Upload,
    subcorpora: Mapping[str, str],
    workdir: Path,
    limits: UploadLimits,
    file_names: Mapping[str, str] | None = None,
    documents: Mapping[str, Collection[str]] | None = None,
) -> dict[str, ReceivedFile]:
    """Check a zip archive of response files, then write its members into ``workdir``.
    A member whose name names no sub-corpus is matched by the documents it holds, where
    ``documents`` (slug → document names) is given."""
    if archive.size is not None and archive.size > limits.max_upload_bytes:
        raise SubmissionRejected(
            "upload_too_large", name=archive.name, size=archive.size, limit=limits.max_upload_bytes
        )
    zip_path = workdir / "upload.zip"
    _write_stream(archive.chunks(), zip_path, limit=limits.max_upload_bytes, name=archive.name)
    try:
        with zipfile.ZipFile(zip_path) as zf:
            return _extract_checked(
                zf,
                subcorpora=subcorpora,
                workdir=workdir,
                limits=limits,
                file_names=file_names,
                documents=documents,
            )
    except zipfile.BadZipFile as exc:
        raise SubmissionRejected("bad_zip", reason=str(exc)) from None
    finally:
        zip_path.unlink(missing_ok=True)


def _extract_checked(
    zf: zipfile.ZipFile,
    *,
    subcorpora: Mapping[str, str],
    workdir: Path,
    limits: UploadLimits,
    file_names: Mapping[str, str] | None = None,
    documents: Mapping[str, Collection[str]] | None = None,
) -> dict[str, ReceivedFile]:
    members = _members(zf)
    total = 0
    for info in members:
        total += info.file_size
        _member_check(info, total=total, limits=limits)
    by_slug, unknown, duplicates = _by_subcorpus(members, subcorpora, file_names)
    if unknown and documents:
        unknown = _match_by_documents(zf, unknown, by_slug, documents, limits)
    if unknown:
        raise unknown_files_error(sorted(unknown), subcorpora, file_names)
    if duplicates:
        raise SubmissionRejected(
            "duplicate_files",
            subcorpora="; ".join(
                f"{display} ({', '.join(names)})" for display, names in sorted(duplicates.items())
            ),
        )
    return {
        slug: _member_extract(
            zf, info, slug=slug, target=workdir / f"{slug}.conllua", limits=limits
        )
        for slug, info in by_slug.items()
    }


def _members(zf: zipfile.ZipFile) -> list[zipfile.ZipInfo]:
    """The archive's files (folders and operating-system litter left out); refused when it
    holds more members than a run ever has, or no file."""
    most = int(getattr(settings, "SUBMISSION_MAX_MEMBERS", 1000))
    if len(zf.infolist()) > most:  # a run is a file per sub-corpus: never thousands
        raise SubmissionRejected(
            "unsafe_zip", reason=f"it holds {len(zf.infolist())} members; the limit is {most}"
        )
    members = [
        info for info in zf.infolist() if not info.is_dir() and not _is_os_litter(info.filename)
    ]
    if not members:
        raise SubmissionRejected("no_files")
    return members


def _member_check(info: zipfile.ZipInfo, *, total: int, limits: UploadLimits) -> None:
    """One member's name and sizes, by its header (``total``: the sizes up to it)."""
    if problem := _zip_member_problem(info):
        raise SubmissionRejected("unsafe_zip", reason=problem)
    if total > limits.max_uncompressed_bytes:
        raise SubmissionRejected(
            "unsafe_zip",
            reason="its uncompressed size exceeds "
            + shown_params({"size": limits.max_uncompressed_bytes})["size"],
        )
    if info.file_size > max(info.compress_size, 1) * limits.max_compression_ratio:
        raise SubmissionRejected(
            "unsafe_zip",
            reason=f"{info.filename!r} is compressed more than {limits.max_compression_ratio}:1",
        )


def _by_subcorpus(
    members: list[zipfile.ZipInfo],
    subcorpora: Mapping[str, str],
    file_names: Mapping[str, str] | None,
) -> tuple[dict[str, zipfile.ZipInfo], list[str], dict[str, list[str]]]:
    """(the member of each sub-corpus by slug, names matching none, sub-corpora matched
    twice with their members' names)."""
    by_slug: dict[str, zipfile.ZipInfo] = {}
    unknown: list[str] = []
    duplicates: dict[str, list[str]] = {}
    for info in members:
        slug = subcorpus_for_name(info.filename, subcorpora, file_names)
        if slug is None:
            unknown.append(info.filename)
        elif slug in by_slug:
            duplicates.setdefault(subcorpora[slug], [by_slug[slug].filename]).append(info.filename)
        else:
            by_slug[slug] = info
    return by_slug, unknown, duplicates


def _member_extract(
    zf: zipfile.ZipFile, info: zipfile.ZipInfo, *, slug: str, target: Path, limits: UploadLimits
) -> ReceivedFile:
    with zf.open(info) as member:
        head = member.peek(8)[:8] if hasattr(member, "peek") else b""
        if _looks_like_archive(head, info.filename):
            raise SubmissionRejected("unsafe_zip", reason=f"{info.filename!r} is a nested archive")
        # Never trust the header's sizes: count what actually comes out.
        limit = min(info.file_size, limits.max_uncompressed_bytes)
        size, sha = _write_stream(_read_chunks(member), target, limit=limit, name=info.filename)
    return ReceivedFile(slug, PurePosixPath(info.filename).name, target, size, sha)


def _match_by_documents(
    zf: zipfile.ZipFile,
    unknown: list[str],
    by_slug: dict[str, zipfile.ZipInfo],
    documents: Mapping[str, Collection[str]],
    limits: UploadLimits,
) -> list[str]:
    """Give each member whose name says nothing the sub-corpus whose documents it holds
    (``# newdoc id``), when no other member took it; returns the members still unknown."""
    left = []
    for name in unknown:
        info = zf.getinfo(name)
        with zf.open(info) as member:
            ids = newdoc_ids(
                _read_chunks(member, limit=min(info.file_size, limits.max_uncompressed_bytes))
            )
        slug = dataset_for_documents(ids, {s: d for s, d in documents.items() if s not in by_slug})
        if slug is None:
            left.append(name)
        else:
            by_slug[slug] = info
    return left


def unknown_files_error(
    names: list[str], subcorpora: Mapping[str, str], file_names: Mapping[str, str] | None = None
) -> SubmissionRejected:
    """The refusal of files that name no sub-corpus, with the closest name where one is
    evident (``LIHGT.CONLLUA``: did you mean LIGHT?)."""
    expected = [(file_names or {}).get(slug) or display for slug, display in subcorpora.items()]
    hints = []
    for name in names:
        if (close := closest_subcorpus(name, subcorpora)) is not None:
            hints.append(
                f"{PurePosixPath(name).name} looks like {close}: "
                f"name it {close}{PurePosixPath(name).suffix or ''}"
            )
    return SubmissionRejected(
        "unknown_files",
        names=", ".join(names),
        expected=", ".join(expected),
        hint=("; ".join(hints) + ".") if hints else "",
    )


def _read_chunks(stream: IO[bytes], limit: int | None = None) -> Iterable[bytes]:
    """The stream's bytes in chunks; with ``limit``, never more than that many."""
    read = 0
    while chunk := stream.read(CHUNK if limit is None else min(CHUNK, limit - read)):
        read += len(chunk)
        yield chunk
        if limit is not None and read >= limit:
            return
