"""Readers of untrusted structure, bounded by depth, count and size before they build anything.

Every door that reads a structure someone uploaded goes through one of these: a YAML
document (a competition definition, a bundle's ``competition.yaml``, a reference-results
file), the member names of a zip (a definition's zip, a bundle and the zips inside it) and a
CSV table (a phase's published results). Each refusal is a `DefinitionError` (or the
caller's subclass) naming the upload and the place in it, never a traceback:

- **YAML**: its event stream is scanned first, with a depth counter and a value counter, as
  written (`YAML_MAX_DEPTH`, `YAML_MAX_NODES`) and with every alias expanded (each anchor's
  size and depth are kept as the scan closes it; `YAML_MAX_VALUES`); an alias inside the
  value it names, and a scalar holding a NUL character (written ``"\\0"``), are refused with
  their line. Only then is the document built (a safe loader: data only), so that neither a
  deep nesting (which would overflow the loader's recursion) nor a few kilobytes of aliases
  (a billion laughs) make the request build more than the limits.
- **Zip member names**: how many (`DEFINITION_MAX_MEMBERS`, a bundle's own
  `BUNDLE_MAX_MEMBERS`), how long one part of a name and a whole name may be in bytes
  (`ARCHIVE_MAX_NAME_BYTES`, `ARCHIVE_MAX_PATH_BYTES`: the file system's own limits, said
  before it refuses), and no name that is both a file and a folder (``data`` and
  ``data/x``) nor one named twice.
- **CSV**: no NUL character (the database refuses one), no cell longer than
  `RESULTS_MAX_CELL_CHARS`, and the reader's own errors said with their line.

The limits are Django settings of these names; their defaults are here and in
docs/competition-definition.md.
"""

from __future__ import annotations

import csv
import io
import zipfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

import yaml
from django.conf import settings

from competition.errors import DefinitionError

# The C parser when PyYAML was built with libyaml (ten times faster; the same events and
# the same constructor), else the Python one.
LOADER: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

SETTINGS = {
    "yaml_depth": "YAML_MAX_DEPTH",
    "yaml_nodes": "YAML_MAX_NODES",
    "yaml_values": "YAML_MAX_VALUES",
    "archive_members": "DEFINITION_MAX_MEMBERS",
    "name_bytes": "ARCHIVE_MAX_NAME_BYTES",
    "path_bytes": "ARCHIVE_MAX_PATH_BYTES",
    "csv_cell_chars": "RESULTS_MAX_CELL_CHARS",
}


@dataclass(frozen=True, slots=True)
class InputLimits:
    """How deep, how many and how long an untrusted structure may be (settings of the
    names in `SETTINGS` override each)."""

    yaml_depth: int = 32  # nested mappings and lists, as written
    yaml_nodes: int = 50_000  # scalars, mappings, lists and aliases, as written
    yaml_values: int = 100_000  # values once every alias is expanded
    archive_members: int = 5_000  # members of a definition's zip
    name_bytes: int = 255  # one part of a member's name (a file or folder name)
    path_bytes: int = 1_024  # a member's whole name
    csv_cell_chars: int = 10_000  # one cell of a results CSV

    @classmethod
    def current(cls) -> InputLimits:
        default = cls()
        return cls(
            **{
                field: int(getattr(settings, name, getattr(default, field)))
                for field, name in SETTINGS.items()
            }
        )


def _shown(text: str, width: int = 60) -> str:
    """A name as a message shows it: a very long one shortened in the middle."""
    return text if len(text) <= width else f"{text[: width - 12]}…{text[-10:]}"


# --- YAML -----------------------------------------------------------------------------------

_OPEN = (yaml.MappingStartEvent, yaml.SequenceStartEvent)
_CLOSE = (yaml.MappingEndEvent, yaml.SequenceEndEvent)
_NODES = (yaml.ScalarEvent, yaml.AliasEvent, *_OPEN)


def yaml_read(
    text: str,
    *,
    name: str,
    error: type[DefinitionError] = DefinitionError,
    limits: InputLimits | None = None,
) -> Any:
    """The data of the YAML document ``text`` (``name``: how refusals call it), built only
    once its depth, its node count and its NUL-free scalars are checked. Raises ``error``
    for a limit, `yaml.YAMLError` for text that is not YAML."""
    limits = limits or InputLimits.current()
    _yaml_scan(text, name=name, error=error, limits=limits)
    try:
        data = yaml.load(text, Loader=LOADER)  # noqa: S506 (a safe loader: data only)
    except RecursionError:  # cannot happen after the scan; never a traceback if it does
        raise error(name, f"nested more than {limits.yaml_depth} levels deep") from None
    return data


class _Place:
    """Where the scan is in the document, said as the readers say it (``tasks[0].title``),
    and how large each open mapping or list is with its aliases expanded."""

    def __init__(self) -> None:
        # [is a mapping, children seen, last key, anchor, values expanded, depth below]
        self.frames: list[list[Any]] = []
        self.anchors: dict[str, tuple[int, int]] = {}  # anchor → (values, depth) expanded

    def child(self, event: yaml.Event) -> None:
        if self.frames:
            frame = self.frames[-1]
            frame[1] += 1
            if frame[0] and frame[1] % 2 == 1:  # a mapping's key
                key = event.value if isinstance(event, yaml.ScalarEvent) else ""
                frame[2] = _shown(key) if key.isprintable() and key else "?"

    def open(self, event: yaml.Event) -> None:
        mapping = isinstance(event, yaml.MappingStartEvent)
        self.frames.append([mapping, 0, "", event.anchor, 1, 0])

    def close(self) -> None:
        _, _, _, anchor, values, below = self.frames.pop()
        if anchor is not None:
            self.anchors[anchor] = (values, below + 1)
        self.add(values, below + 1)

    def add(self, values: int, depth: int) -> None:
        """A child of the open frame holds ``values`` and nests ``depth`` deep."""
        if self.frames:
            self.frames[-1][4] += values
            self.frames[-1][5] = max(self.frames[-1][5], depth)

    def open_anchor(self, name: str) -> bool:
        return any(frame[3] == name for frame in self.frames)

    def __str__(self) -> str:
        parts = [f".{f[2]}" if f[0] else f"[{f[1] - 1}]" for f in self.frames]
        return "".join(parts).lstrip(".")


def _yaml_scan(text: str, *, name: str, error: type[DefinitionError], limits: InputLimits) -> None:
    """Scan the events: nesting, values as written and expanded, NUL, before any building."""
    nodes = expanded = 0
    place = _Place()
    for event in yaml.parse(text, Loader=LOADER):
        if isinstance(event, _CLOSE):
            place.close()
            continue
        if not isinstance(event, _NODES):
            continue
        place.child(event)
        line = event.start_mark.line + 1
        where = f"line {line}, {place}" if place.frames else f"line {line}"
        nodes += 1
        if nodes > limits.yaml_nodes:
            raise error(name, f"{where}: the file holds more than {limits.yaml_nodes} values")
        values, depth = _alias_size(event, place, where=where, name=name, error=error)
        expanded += values
        if expanded > limits.yaml_values:
            raise error(
                name,
                f"{where}: the file holds more than {limits.yaml_values} values once its "
                "aliases (*name) are expanded",
            )
        if len(place.frames) + depth > limits.yaml_depth:
            raise error(
                name,
                f"line {line}: nested more than {limits.yaml_depth} levels deep once its "
                "aliases (*name) are expanded",
            )
        _node_take(event, place, (values, depth), where=where, name=name, error=error)
        if len(place.frames) > limits.yaml_depth:
            raise error(
                name,
                f"line {line}: nested more than {limits.yaml_depth} levels deep "
                "(mappings and lists)",
            )


def _alias_size(
    event, place: _Place, *, where: str, name: str, error: type[DefinitionError]
) -> tuple[int, int]:
    """(values, depth) a node stands for: an alias its anchor's, refused inside itself."""
    if not isinstance(event, yaml.AliasEvent):
        return 1, 0
    if place.open_anchor(event.anchor):
        raise error(name, f"{where}: the alias *{_shown(event.anchor)} is inside itself")
    return place.anchors.get(event.anchor, (1, 0))


def _node_take(
    event,
    place: _Place,
    size: tuple[int, int],
    *,
    where: str,
    name: str,
    error: type[DefinitionError],
) -> None:
    """Enter a mapping or list, or count an alias or a scalar into the open one (a scalar
    with a NUL refused)."""
    if isinstance(event, _OPEN):
        place.open(event)
    elif isinstance(event, yaml.AliasEvent):
        place.add(*size)
    else:
        if event.anchor is not None:
            place.anchors[event.anchor] = (1, 0)
        place.add(1, 0)
        if "\x00" in event.value:
            raise error(name, f"{where}: a NUL character (expected text)")


# --- zip member names -----------------------------------------------------------------------


def archive_names_check(
    infos: Sequence[zipfile.ZipInfo],
    *,
    name: str,
    error: type[DefinitionError] = DefinitionError,
    members: int | None = None,
    limits: InputLimits | None = None,
) -> None:
    """Refuse a zip whose members are too many (``members``, default
    `DEFINITION_MAX_MEMBERS`), whose names are too long for the file system, or whose names
    clash (a file and a folder of one name, a name twice), before any member is written.
    Names are taken as the writers take them: parts, without empty and ``.`` parts."""
    limits = limits or InputLimits.current()
    most = limits.archive_members if members is None else members
    if len(infos) > most:
        raise error(name, f"refused: {len(infos)} members; the limit is {most}")
    files: dict[str, str] = {}
    folders: dict[str, str] = {}
    for info in infos:
        _name_length_check(info.filename, name=name, error=error, limits=limits)
        parts = [part for part in PurePosixPath(info.filename).parts if part not in ("", ".")]
        if not parts:
            continue
        for end in range(1, len(parts)):
            folders.setdefault("/".join(parts[:end]), info.filename)
        path = "/".join(parts)
        if info.is_dir():
            folders.setdefault(path, info.filename)
        elif path in files:
            raise error(name, f"refused: member {_shown(path)!r} is named twice")
        else:
            files[path] = info.filename
    if clash := sorted(set(files) & set(folders)):
        raise error(
            name,
            f"refused: member {_shown(files[clash[0]])!r} is a file, and "
            f"{_shown(folders[clash[0]])!r} makes it a folder",
        )


def _name_length_check(
    member: str, *, name: str, error: type[DefinitionError], limits: InputLimits
) -> None:
    size = len(member.encode("utf-8", "surrogateescape"))
    if size > limits.path_bytes:
        raise error(
            name,
            f"refused: member {_shown(member)!r}: its name is {size} bytes long; "
            f"the limit is {limits.path_bytes}",
        )
    for part in member.split("/"):
        if (size := len(part.encode("utf-8", "surrogateescape"))) > limits.name_bytes:
            raise error(
                name,
                f"refused: member {_shown(member)!r}: the part {_shown(part)!r} of its name is "
                f"{size} bytes long; the limit is {limits.name_bytes}",
            )


# --- CSV ------------------------------------------------------------------------------------


def csv_rows(
    text: str, *, name: str, limits: InputLimits | None = None
) -> Iterator[tuple[int, list[str]]]:
    """The rows of the CSV ``text`` with their numbers (from 1); refuses a NUL character, a
    cell longer than `RESULTS_MAX_CELL_CHARS` and what the CSV reader cannot read, naming
    the line."""
    limits = limits or InputLimits.current()
    if (at := text.find("\x00")) >= 0:
        line = text.count("\n", 0, at) + 1
        raise DefinitionError(name, f"line {line}: a NUL character (expected CSV text)")
    reader = csv.reader(io.StringIO(text))
    number = 0
    try:
        for number, cells in enumerate(reader, start=1):
            for column, cell in enumerate(cells, start=1):
                if len(cell) > limits.csv_cell_chars:
                    raise _cell_too_long(name, reader.line_num, column, limits.csv_cell_chars)
            yield number, cells
    except csv.Error as exc:
        if "field larger than field limit" in str(exc):
            most = min(limits.csv_cell_chars, csv.field_size_limit())
            raise _cell_too_long(name, reader.line_num, None, most) from None
        raise DefinitionError(name, f"line {reader.line_num}: not CSV ({exc})") from None


def _cell_too_long(name: str, line: int, column: int | None, most: int) -> DefinitionError:
    where = f"line {line}, column {column}" if column else f"line {line}"
    return DefinitionError(name, f"{where}: a cell longer than {most} characters (the limit)")
