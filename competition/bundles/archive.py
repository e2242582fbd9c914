"""Opening a bundle: a zip from elsewhere, checked before anything is written.

Every member is checked first (no absolute name, no ``..``, no backslash, no link, nothing
that is not a regular file or folder, not encrypted; names the file system can hold, none both
a file and a folder: `competition.untrusted`), then the totals (member count,
uncompressed size, compression ratio per member); only then are the members written, under a
folder of ours, each streamed with its declared size as its limit. A data item of the bundle
(a zip inside the zip) is opened the same way, one level down; a zip found at the deepest
level allowed (`MAX_DEPTH`) is refused. A refusal names the bundle and the member at fault.
"""

from __future__ import annotations

import stat
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from django.conf import settings

from competition.errors import DefinitionError
from competition.untrusted import archive_names_check

CHUNK = 1024 * 1024
MAX_DEPTH = 2
"""The bundle is depth 1, a data item inside it depth 2; nothing deeper is opened."""


@dataclass(frozen=True, slots=True)
class BundleLimits:
    bytes: int = 2 * 1024**3  # BUNDLE_MAX_BYTES: the zip as uploaded
    uncompressed: int = 4 * 1024**3  # BUNDLE_MAX_UNCOMPRESSED_BYTES: all members
    members: int = 5_000  # BUNDLE_MAX_MEMBERS
    ratio: int = 100  # SUBMISSION_MAX_COMPRESSION_RATIO

    @classmethod
    def current(cls) -> BundleLimits:
        default = cls()
        return cls(
            bytes=int(getattr(settings, "BUNDLE_MAX_BYTES", default.bytes)),
            uncompressed=int(
                getattr(settings, "BUNDLE_MAX_UNCOMPRESSED_BYTES", default.uncompressed)
            ),
            members=int(getattr(settings, "BUNDLE_MAX_MEMBERS", default.members)),
            ratio=int(getattr(settings, "SUBMISSION_MAX_COMPRESSION_RATIO", default.ratio)),
        )


class BundleRefused(DefinitionError):
    """The bundle (or a member of it) is refused; the message names which and why."""


def is_zip_name(name: str) -> bool:
    return name.lower().endswith(".zip")


def member_problem(info: zipfile.ZipInfo) -> str | None:
    """Why a member may not be written, or None."""
    name = info.filename
    if "\x00" in name:
        return "its name contains a NUL character"
    if name.startswith(("/", "\\")) or (len(name) > 1 and name[1] == ":"):
        return "its name is an absolute path"
    if "\\" in name:
        return "its name uses backslashes"
    if any(part == ".." for part in PurePosixPath(name).parts):
        return "its name points outside the bundle (..)"
    kind = stat.S_IFMT(info.external_attr >> 16)
    if kind == stat.S_IFLNK:
        return "it is a symbolic link"
    if kind and kind not in (stat.S_IFREG, stat.S_IFDIR):
        return "it is not a regular file"
    if info.flag_bits & 0x1:
        return "it is encrypted"
    return None


def _litter(name: str) -> bool:
    pure = PurePosixPath(name)
    return (
        name.startswith("__MACOSX/")
        or pure.name.startswith("._")
        or pure.name in (".DS_Store", "Thumbs.db")
    )


def unpack(
    zip_path: Path,
    root: Path,
    *,
    name: str,
    depth: int = 1,
    limits: BundleLimits | None = None,
    skipped: list[str] | None = None,
) -> list[str]:
    """Check and write the members of ``zip_path`` under ``root``; returns the relative
    names written. ``name`` is how refusals call the archive ("bundle.zip",
    "bundle.zip: reference.zip"). A zip at the deepest level is refused, or, given
    ``skipped``, left unwritten and named there. Raises `BundleRefused`."""
    limits = limits or BundleLimits.current()
    if depth > MAX_DEPTH:
        raise BundleRefused(
            name, f"refused: a zip nested more than {MAX_DEPTH - 1} level deep inside the bundle"
        )
    if zip_path.stat().st_size > limits.bytes:
        raise BundleRefused(name, f"refused: larger than the limit of {limits.bytes} bytes")
    try:
        with zipfile.ZipFile(zip_path) as zf:
            infos = zf.infolist()
            archive_names_check(infos, name=name, error=BundleRefused, members=limits.members)
            members = _members_checked(
                infos, name=name, depth=depth, limits=limits, skipped=skipped
            )
            return [_member_write(zf, info, root, name=name) for info in members]
    except FileExistsError as exc:
        raise BundleRefused(
            name, f"refused: a member is named twice ({Path(exc.filename).name})"
        ) from None
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, EOFError) as exc:
        raise BundleRefused(name, f"the zip cannot be read: {exc}") from None


def _members_checked(
    infos: list[zipfile.ZipInfo],
    *,
    name: str,
    depth: int,
    limits: BundleLimits,
    skipped: list[str] | None,
) -> list[zipfile.ZipInfo]:
    """The members to write, each checked by its header (and the running total); folders
    and litter left out, a zip at the deepest level skipped or refused."""
    total = 0
    members = []
    for info in infos:
        if problem := member_problem(info):
            raise BundleRefused(name, f"refused: member {info.filename!r}: {problem}")
        if info.is_dir() or _litter(info.filename):
            continue
        total += info.file_size
        if total > limits.uncompressed:
            raise BundleRefused(
                name,
                f"refused: its members hold more than {limits.uncompressed} bytes uncompressed",
            )
        if info.file_size > max(info.compress_size, 1) * limits.ratio:
            raise BundleRefused(
                name,
                f"refused: member {info.filename!r} is compressed more than {limits.ratio}:1",
            )
        if depth == MAX_DEPTH and is_zip_name(info.filename):
            if skipped is None:
                raise BundleRefused(
                    name,
                    f"refused: member {info.filename!r} is a zip "
                    f"inside a zip inside the bundle (nested too deep)",
                )
            skipped.append(info.filename)
            continue
        members.append(info)
    return members


def _member_write(zf: zipfile.ZipFile, info: zipfile.ZipInfo, root: Path, *, name: str) -> str:
    """One member written under ``root``, streamed with its declared size as its limit;
    its relative name."""
    parts = [p for p in PurePosixPath(info.filename).parts if p not in ("", ".")]
    target = root.joinpath(*parts)
    if not target.resolve().is_relative_to(root.resolve()):
        raise BundleRefused(name, f"refused: member {info.filename!r} points outside the bundle")
    target.parent.mkdir(parents=True, exist_ok=True)
    size = 0
    with zf.open(info) as source, open(target, "xb") as out:
        while chunk := source.read(CHUNK):
            size += len(chunk)
            if size > info.file_size:
                raise BundleRefused(
                    name, f"refused: member {info.filename!r} holds more than its declared size"
                )
            out.write(chunk)
    return "/".join(parts)
