"""The files a definition may name: only regular files inside its own folder.

A definition names pages, gold keys and baselines' runs by paths relative to itself. They are
resolved here, and only here, inside the folder the definition came with (the YAML's own
folder for ``manage.py load_competition``, the unpacked zip for an upload): an absolute path,
``..``, a NUL character, a symbolic link anywhere on the way, a folder, or anything that is
not a regular file (a device, a pipe, a socket) is refused, as is a file over its limit.
Refusals name the definition's own file name, the key that named the path and the path as
written, never a path of the server: whether a file exists outside the folder cannot be told
from them.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from competition.definition.spec import StoredKey
from competition.errors import DefinitionError


@dataclass(slots=True)
class DefinitionFiles:
    """The folder a definition's paths resolve in. ``name``: how refusals name the
    definition; ``inside``: how they name the folder ("the upload", "the definition's
    folder"); ``digests``: SHA-256 of files already hashed (path relative to ``root`` →
    digest), so that nothing is hashed twice."""

    definition: Path
    root: Path
    name: str
    inside: str = "the definition's folder"
    digests: dict[str, str] = field(default_factory=dict)
    stored: dict[str, StoredKey] = field(default_factory=dict)

    def fail(self, reason: str) -> DefinitionError:
        return DefinitionError(self.name, reason)

    def resolve(
        self, relative: object, *, where: str, what: str = "file", limit: int | None = None
    ) -> Path:
        """The regular file ``relative`` names, checked; raises `DefinitionError`."""
        if not isinstance(relative, str) or not relative.strip():
            raise self.fail(
                f"{where}: expected a file path relative to the definition, not {relative!r}"
            )
        text = relative.strip()
        if "\x00" in text:
            raise self.fail(f"{where}: the path {text!r} contains a NUL character")
        pure = PurePosixPath(text.replace("\\", "/"))
        windows_drive = len(text) > 1 and text[1] == ":"
        base = self.definition.parent
        if (
            pure.is_absolute()
            or windows_drive
            or ".." in pure.parts
            or not base.joinpath(*pure.parts).is_relative_to(self.root)
        ):
            raise self.fail(
                f"{where}: {text!r} points outside {self.inside} (expected a path "
                f"relative to the definition, inside {self.scope})"
            )
        path = base
        parts = [part for part in pure.parts if part not in ("", ".")]
        for index, part in enumerate(parts):
            path = path / part
            try:
                info = os.lstat(path)
            except FileNotFoundError:
                raise self.fail(f"{where}: {what} {text} not found in {self.inside}") from None
            except OSError:
                raise self.fail(f"{where}: {what} {text} cannot be read") from None
            if stat.S_ISLNK(info.st_mode):
                raise self.fail(
                    f"{where}: {text!r} is or passes through a symbolic link "
                    "(expected a regular file)"
                )
            last = index == len(parts) - 1
            if not last and not stat.S_ISDIR(info.st_mode):
                raise self.fail(f"{where}: {what} {text} not found in {self.inside}")
        if not parts:
            raise self.fail(f"{where}: {text!r} is a folder (expected a file)")
        if stat.S_ISDIR(info.st_mode):
            raise self.fail(f"{where}: {text!r} is a folder (expected a file)")
        if not stat.S_ISREG(info.st_mode):
            raise self.fail(
                f"{where}: {text!r} is not a regular file (a device, pipe or "
                "socket; expected a file)"
            )
        if limit is not None and info.st_size > limit:
            raise self.fail(f"{where}: {text} is {info.st_size} bytes; the limit is {limit} bytes")
        return path

    @property
    def scope(self) -> str:
        return "the zip" if self.inside == "the upload" else "its folder"

    def stored_key(self, relative: str) -> StoredKey | None:
        """The competition's current key a definition names as the download does
        (``keys/<task>/<phase>/<file>``), when the upload does not hold that file itself."""
        text = relative.strip().replace("\\", "/")
        key = self.stored.get(PurePosixPath(text).as_posix())
        if key is None or ".." in PurePosixPath(text).parts:
            return None
        if os.path.lexists(self.definition.parent.joinpath(*PurePosixPath(text).parts)):
            return None
        return key

    def relative(self, path: Path) -> str:
        """How a resolved file is known in ``digests``."""
        return path.relative_to(self.root).as_posix()

    def read_text(self, relative: object, *, where: str, what: str = "file", limit: int) -> str:
        """A text file the definition names: UTF-8, no NUL, at most ``limit`` bytes."""
        path = self.resolve(relative, where=where, what=what, limit=limit)
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        try:
            fd = os.open(path, flags)
            with os.fdopen(fd, "rb") as handle:
                data = handle.read(limit + 1)
        except OSError:
            raise self.fail(f"{where}: {what} {relative} cannot be read") from None
        if len(data) > limit:
            raise self.fail(f"{where}: {relative} is larger than the limit of {limit} bytes")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise self.fail(f"{where}: {what} {relative} is not UTF-8 text") from None
        if "\x00" in text:
            raise self.fail(
                f"{where}: {what} {relative} contains a NUL character (expected UTF-8 text)"
            )
        return text
