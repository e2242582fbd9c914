"""A competition's definition as a file, both ways: the organizers download the current one
(YAML, or a zip of the YAML and its gold keys) and upload one (YAML, or such a zip), which is
loaded by the one loader (`competition_load`), with its rules on removal and re-scoring.

Uploads are untrusted: the YAML is parsed with ``yaml.safe_load`` (data only, nothing is ever
executed); a zip is checked member by member before anything is written (size caps, no
absolute paths, no ``..``, no symbolic links, no encryption, no nested archives); every path
the definition names (keys, baselines' files) must stay inside the upload. A YAML alone may
name the keys as the download does (``keys/<task>/<phase>/<file>``): they are the
competition's current keys. The download → upload round trip gives the same competition.
"""

from __future__ import annotations

import io
import os
import shutil
import tempfile
import zipfile
from collections.abc import Iterator, Mapping
from pathlib import Path, PurePosixPath
from typing import Any

import yaml
from django.conf import settings

from competition.errors import DefinitionError
from competition.models import Competition, PhaseDataFile, SubCorpus
from competition.services.definitions import CompetitionLoad, _sha256, competition_load
from competition.services.editor import CHUNK
from competition.timezones import in_zone
from competition.uploads import Upload, _zip_member_problem

DEFINITION_NAME = "competition.yaml"
ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")


def _limit(name: str, default: int) -> int:
    return int(getattr(settings, name, default))


# --- download ---------------------------------------------------------------------------

def _key_name(subcorpus: SubCorpus) -> str:
    file_name = PurePosixPath(subcorpus.file_name).name if subcorpus.file_name else ""
    return (f"keys/{subcorpus.phase.task.slug}/{subcorpus.phase.slug}/"
            f"{file_name or subcorpus.slug + '.conllua'}")


def competition_definition(*, competition: Competition) -> tuple[dict, dict[str, Path]]:
    """The competition as a definition (docs/competition-definition.md) and its keys:
    {path in the definition: stored key file}. Keys shared by several sub-corpora are
    named once."""
    keys: dict[str, Path] = {}
    by_sha: dict[str, str] = {}
    tasks = []
    for task in competition.tasks.order_by("order", "id"):
        entry: dict[str, Any] = {"slug": task.slug, "kind": task.kind, "title": task.title}
        if task.description:
            entry["description"] = task.description
        if task.procedure:
            entry["procedure"] = task.procedure
        else:
            entry["scorer_options"] = list(task.scorer_options)
        entry["primary_metric"] = task.primary_metric
        if tracks := list(task.tracks.order_by("order", "id")):
            entry["tracks"] = [{"slug": t.slug, "name": t.name,
                                **({"description": t.description} if t.description else {})}
                               for t in tracks]
        entry["phases"] = []
        for phase in task.phases.order_by("order", "id"):
            item: dict[str, Any] = {
                "slug": phase.slug, "kind": phase.kind, "title": phase.title,
                "time_zone": phase.time_zone,
                "start": in_zone(phase.start, phase.time_zone).isoformat(),
            }
            if phase.end is not None:
                item["end"] = in_zone(phase.end, phase.time_zone).isoformat()
            item.update({
                "leaderboard": phase.leaderboard_visibility,
                "show_own_scores_when_hidden": phase.show_own_scores_when_hidden,
                "run_details": phase.run_details, "daily_limit": phase.daily_limit,
                "total_limit": phase.total_limit, "counts": phase.counts,
                "missing": phase.missing,
            })
            if phase.revealed_at is not None:
                item["revealed_at"] = in_zone(phase.revealed_at, phase.time_zone).isoformat()
            item["subcorpora"] = []
            for sc in phase.subcorpora.order_by("order", "id").select_related("phase__task"):
                sub: dict[str, Any] = {"name": sc.name}
                if sc.language:
                    sub["language"] = sc.language
                if sc.file_name:
                    sub["file"] = sc.file_name
                if sc.available:
                    if sc.sha256 not in by_sha:
                        by_sha[sc.sha256] = _key_name(sc)
                        keys[by_sha[sc.sha256]] = sc.key_path
                    sub["key"] = by_sha[sc.sha256]
                else:
                    sub["available"] = False
                item["subcorpora"].append(sub)
            entry["phases"].append(item)
        tasks.append(entry)
    data: dict[str, Any] = {"slug": competition.slug, "title": competition.title}
    if competition.description:
        data["description"] = competition.description
    if competition.website:
        data["website"] = competition.website
    data["organizers"] = sorted(competition.organizers.values_list("username", flat=True))
    data["tasks"] = tasks
    return data, keys


def competition_definition_yaml(*, competition: Competition) -> str:
    data, _ = competition_definition(competition=competition)
    header = (f"# {competition.title}: competition definition "
              "(docs/competition-definition.md).\n"
              "# The keys are in the zip download, at the paths named here.\n")
    return header + yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)


def competition_definition_zip(*, competition: Competition) -> bytes:
    """A zip of competition.yaml and the gold keys it names (organizers only)."""
    _, keys = competition_definition(competition=competition)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(DEFINITION_NAME, competition_definition_yaml(competition=competition))
        for name, path in keys.items():
            zf.write(path, name)
    return buffer.getvalue()


# --- upload -----------------------------------------------------------------------------

def _fail(name: str, reason: str) -> DefinitionError:
    return DefinitionError(name, reason)


def _write(chunks: Iterator[bytes], target: Path, *, limit: int, name: str) -> int:
    size = 0
    with open(target, "wb") as out:
        for chunk in chunks:
            size += len(chunk)
            if size > limit:
                raise _fail(name, f"larger than the limit of {limit} bytes")
            out.write(chunk)
    return size


def _extract(zip_path: Path, root: Path, *, name: str) -> Path:
    """Check every member, then write them under ``root``; returns the definition's path."""
    total_limit = _limit("DEFINITION_MAX_UNCOMPRESSED_BYTES", 2 * 1024 ** 3)
    ratio = _limit("SUBMISSION_MAX_COMPRESSION_RATIO", 100)
    try:
        with zipfile.ZipFile(zip_path) as zf:
            members = [info for info in zf.infolist() if not info.is_dir()]
            total = 0
            for info in members:
                if problem := _zip_member_problem(info):
                    raise _fail(name, f"refused: {problem}")
                total += info.file_size
                if total > total_limit:
                    raise _fail(name, f"refused: its uncompressed size exceeds {total_limit} "
                                "bytes")
                if info.file_size > max(info.compress_size, 1) * ratio:
                    raise _fail(name, f"refused: {info.filename!r} is compressed more than "
                                f"{ratio}:1")
            definitions = [info.filename for info in members
                           if info.filename.lower().endswith((".yaml", ".yml"))
                           and not PurePosixPath(info.filename).name.startswith("._")
                           and not info.filename.startswith("__MACOSX/")]
            if len(definitions) != 1:
                found = ", ".join(definitions) or "none"
                raise _fail(name, "expected exactly one .yaml file (the definition) in the "
                            f"zip, found {found}")
            for info in members:
                target = root.joinpath(*PurePosixPath(info.filename).parts)
                target.parent.mkdir(parents=True, exist_ok=True)
                with zf.open(info) as member:
                    _write(iter(lambda m=member: m.read(CHUNK), b""), target,
                           limit=min(info.file_size, total_limit), name=name)
            return root.joinpath(*PurePosixPath(definitions[0]).parts)
    except zipfile.BadZipFile as exc:
        raise _fail(name, f"the zip archive cannot be read: {exc}") from None


def _place_current_keys(competition: Competition, root: Path) -> None:
    """The competition's keys at the paths the download names them, so that a YAML alone
    may keep them (hard links where the file system allows, else copies)."""
    _, keys = competition_definition(competition=competition)
    for name, stored in keys.items():
        target = root.joinpath(*PurePosixPath(name).parts)
        if target.exists() or not stored.is_file():
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.link(stored, target)
        except OSError:
            shutil.copyfile(stored, target)


def _paths_named(data: Mapping) -> Iterator[tuple[str, Any]]:
    """(where, path) of every file a definition names."""
    for t, task in enumerate(data.get("tasks") or []):
        if not isinstance(task, Mapping):
            continue
        for p, phase in enumerate(task.get("phases") or []):
            if not isinstance(phase, Mapping):
                continue
            for s, sub in enumerate(phase.get("subcorpora") or []):
                if isinstance(sub, Mapping) and "key" in sub:
                    yield f"tasks[{t}].phases[{p}].subcorpora[{s}].key", sub["key"]
    for b, baseline in enumerate(data.get("baselines") or []):
        if isinstance(baseline, Mapping) and isinstance(baseline.get("files"), Mapping):
            for label, path in baseline["files"].items():
                yield f"baselines[{b}].files.{label}", path


def _check_definition(path: Path, root: Path, *, competition: Competition, name: str) -> None:
    """The slug is the competition's; every named file stays inside the upload; no key is
    a data file participants may download."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise _fail(name, f"not valid YAML: {exc}") from None
    if not isinstance(data, Mapping):
        raise _fail(name, "the file must be a mapping (slug:, title:, tasks: ...)")
    if str(data.get("slug", "")).strip() != competition.slug:
        raise _fail(name, f"'slug' is {data.get('slug')!r}; this page edits "
                    f"{competition.slug!r} (expected slug: {competition.slug})")
    data_files = dict(PhaseDataFile.objects.filter(phase__task__competition=competition)
                      .values_list("sha256", "file_name"))
    base = path.parent.resolve()
    for where, relative in _paths_named(data):
        text = str(relative)
        pure = PurePosixPath(text.replace("\\", "/"))
        target = (base / text).resolve()
        if pure.is_absolute() or ".." in pure.parts or not target.is_relative_to(root):
            raise _fail(name, f"{where}: {text!r} points outside the upload (expected a path "
                        "relative to the definition, inside the zip)")
        if where.endswith(".key") and target.is_file():
            if (sha := _sha256(target)) in data_files:
                raise _fail(name, f"{where}: {text} is identical to the data file "
                            f"{data_files[sha]} that participants download; a gold key must "
                            "never be given out")


def competition_definition_upload(*, competition: Competition,
                                  upload: Upload) -> CompetitionLoad:
    """Load an uploaded definition (YAML, or a zip of the YAML and its keys) into
    ``competition`` with the loader. Raises ``DefinitionError`` naming the uploaded file and
    the place in it; nothing changes then."""
    name = PurePosixPath(upload.name.replace("\\", "/")).name
    limit = _limit("DEFINITION_MAX_UPLOAD_BYTES", 1024 ** 3)
    if upload.size is not None and upload.size > limit:
        raise _fail(name, f"larger than the limit of {limit} bytes")
    private = Path(settings.PRIVATE_ROOT)
    (private / "tmp").mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=private / "tmp") as tmp:
        work = Path(tmp).resolve()
        root = work / "definition"
        root.mkdir()
        received = work / "upload"
        _write(iter(upload.chunks(CHUNK)), received, limit=limit, name=name)
        with open(received, "rb") as fh:
            head = fh.read(4)
        if head.startswith(ZIP_MAGIC) or name.lower().endswith(".zip"):
            definition = _extract(received, root, name=name)
        else:
            definition = root / DEFINITION_NAME
            received.replace(definition)
        _place_current_keys(competition, definition.parent)
        _check_definition(definition, root, competition=competition, name=name)
        try:
            return competition_load(path=definition)
        except DefinitionError as exc:
            where = str(exc.params.get("reason", ""))
            where = where.replace(str(definition.parent) + os.sep, "").replace(str(work), "")
            raise _fail(name, where) from None
