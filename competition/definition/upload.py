"""A competition's definition as a file, both ways: the organizers download the current one
(YAML, or a zip of the YAML and its gold keys) and upload one (YAML, or such a zip), which is
loaded by the one loader (`competition_load`), with its rules on removal and re-scoring.

Uploads are untrusted: the YAML is parsed with ``yaml.safe_load`` (data only, nothing is ever
executed); a zip is checked member by member before anything is written (size caps, no
absolute paths, no ``..``, no symbolic links or other special files, no encryption, no nested
archives; at most `DEFINITION_MAX_MEMBERS` members, names the file system can hold, no
name both a file and a folder: `competition.untrusted`), and every member is hashed once as
it is written; every path the definition names
(pages, keys, baselines' files) must name a regular file inside the upload
(`competition.definition.files`). A YAML alone may name the keys as the download does
(``keys/<task>/<phase>/<file>``): they are the competition's current keys, neither copied nor
read again. A key the competition already holds (the same SHA-256, for a task that reads it
alike) is not read again either. The download → upload round trip gives the same
competition.
"""

from __future__ import annotations

import hashlib
import io
import logging
import os
import shutil
import stat
import tempfile
import uuid
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path, PurePosixPath

import yaml
from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import OperationalError, transaction
from django.utils import timezone

from competition.definition.bundle_import import bundle_job_apply
from competition.definition.current import competition_spec, key_name
from competition.definition.editor import subcorpus_key_job_apply
from competition.definition.files import DefinitionFiles
from competition.definition.load import CompetitionLoad, definition_files_load
from competition.definition.organizers import Door
from competition.definition.spec import KeyFile, Limits, StoredKey
from competition.definition.yaml_io import definition_data
from competition.errors import CompetitionError, DefinitionError
from competition.models import Competition, DefinitionJob, SubCorpus
from competition.services.audit import audit_definition_load, audit_structure
from competition.services.dispatch import definition_job_enqueue
from competition.untrusted import archive_names_check
from competition.uploads import CHUNK, Upload, _zip_member_problem

logger = logging.getLogger(__name__)

DEFINITION_NAME = "competition.yaml"
ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")


def _limit(name: str, default: int) -> int:
    return int(getattr(settings, name, default))


# --- download ---------------------------------------------------------------------------


def competition_definition(*, competition: Competition) -> tuple[dict, dict[str, Path]]:
    """The competition as a definition (docs/competition-definition.md) and its keys:
    {path in the definition: stored key file}. Keys shared by several sub-corpora are
    named once."""
    spec = competition_spec(competition=competition)
    keys = {
        sub.key.label: sub.key.path
        for task in spec.tasks
        for phase in task.phases or ()
        for sub in phase.subcorpora or ()
        if isinstance(sub.key, KeyFile)
    }
    return definition_data(spec), keys


def competition_definition_yaml(*, competition: Competition) -> str:
    data, _ = competition_definition(competition=competition)
    header = (
        f"# {competition.title}: competition definition "
        "(docs/competition-definition.md).\n"
        "# The keys are in the zip download, at the paths named here.\n"
    )
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


# --- upload ---------------------------------------------------------------------------


def _fail(name: str, reason: str) -> DefinitionError:
    return DefinitionError(name, reason)


def _write(
    chunks: Iterator[bytes], target: Path, *, limit: int, name: str, digest: bool = False
) -> str:
    """Write ``chunks`` to ``target`` with a byte counter; with ``digest``, returns their
    SHA-256 (every member of a zip is hashed here, once, as it is written)."""
    size = 0
    sha = hashlib.sha256() if digest else None
    with open(target, "wb") as out:
        for chunk in chunks:
            size += len(chunk)
            if size > limit:
                raise _fail(name, f"larger than the limit of {limit} bytes")
            if sha is not None:
                sha.update(chunk)
            out.write(chunk)
    return sha.hexdigest() if sha is not None else ""


def _member_problem(info: zipfile.ZipInfo) -> str | None:
    """Why a member of a definition's zip is refused, or None: what a run's zip refuses,
    and any member that is not a regular file (a device, a pipe, a socket)."""
    if problem := _zip_member_problem(info):
        return problem
    if "\x00" in info.filename:
        return f"{info.filename!r} has a NUL character in its name"
    kind = stat.S_IFMT(info.external_attr >> 16)
    if kind and kind not in (stat.S_IFREG, stat.S_IFDIR):
        return f"{info.filename!r} is not a regular file"
    return None


def _extract(zip_path: Path, root: Path, *, name: str) -> tuple[Path, dict[str, str]]:
    """Check every member, then write them under ``root``; returns the definition's path
    and the SHA-256 of every member written (relative path → digest)."""
    total_limit = _limit("DEFINITION_MAX_UNCOMPRESSED_BYTES", 2 * 1024**3)
    ratio = _limit("SUBMISSION_MAX_COMPRESSION_RATIO", 100)
    digests: dict[str, str] = {}
    try:
        with zipfile.ZipFile(zip_path) as zf:
            archive_names_check(zf.infolist(), name=name)
            members = [info for info in zf.infolist() if not info.is_dir()]
            total = 0
            for info in members:
                if problem := _member_problem(info):
                    raise _fail(name, f"refused: {problem}")
                total += info.file_size
                if total > total_limit:
                    raise _fail(name, f"refused: its uncompressed size exceeds {total_limit} bytes")
                if info.file_size > max(info.compress_size, 1) * ratio:
                    raise _fail(
                        name, f"refused: {info.filename!r} is compressed more than {ratio}:1"
                    )
            definitions = [
                info.filename
                for info in members
                if info.filename.lower().endswith((".yaml", ".yml"))
                and not PurePosixPath(info.filename).name.startswith("._")
                and not info.filename.startswith("__MACOSX/")
            ]
            if len(definitions) != 1:
                found = ", ".join(definitions) or "none"
                raise _fail(
                    name,
                    f"expected exactly one .yaml file (the definition) in the zip, found {found}",
                )
            for info in members:
                parts = PurePosixPath(info.filename).parts
                target = root.joinpath(*parts)
                target.parent.mkdir(parents=True, exist_ok=True)
                with zf.open(info) as member:
                    digests[PurePosixPath(*parts).as_posix()] = _write(
                        iter(partial(member.read, CHUNK), b""),
                        target,
                        limit=min(info.file_size, total_limit),
                        name=name,
                        digest=True,
                    )
            return root.joinpath(*PurePosixPath(definitions[0]).parts), digests
    except zipfile.BadZipFile as exc:
        raise _fail(name, f"the zip archive cannot be read: {exc}") from None


def _current_keys(competition: Competition) -> dict[str, StoredKey]:
    """The competition's keys by the paths the download names them, so that a YAML alone may
    keep them without sending them again (and without their being read again)."""
    current: dict[str, StoredKey] = {}
    for subcorpus in (
        SubCorpus.objects.filter(phase__task__competition=competition, available=True)
        .exclude(key_file="")
        .select_related("phase__task")
    ):
        if not subcorpus.key_path.is_file():
            continue
        current.setdefault(
            key_name(subcorpus),
            StoredKey(
                key_file=subcorpus.key_file,
                sha256=subcorpus.sha256,
                documents=tuple(subcorpus.documents),
                content_sha256=subcorpus.content_sha256,
            ),
        )
    return current


def competition_definition_upload(
    *,
    competition: Competition,
    upload: Upload,
    progress: Callable[[str], None] | None = None,
    actor: AbstractBaseUser | None = None,
) -> CompetitionLoad:
    """Load an uploaded definition (YAML, or a zip of the YAML and its keys) into
    ``competition``, as ``actor`` (an upload is never an operator's: without an actor it may
    add no organizer). Raises ``DefinitionError`` naming the uploaded file and the place in
    it; nothing changes then."""
    name = PurePosixPath(upload.name.replace("\\", "/")).name
    limit = _limit("DEFINITION_MAX_UPLOAD_BYTES", 1024**3)
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
        digests: dict[str, str] = {}
        if head.startswith(ZIP_MAGIC) or name.lower().endswith(".zip"):
            definition, digests = _extract(received, root, name=name)
        else:
            definition = root / DEFINITION_NAME
            received.replace(definition)
        files = DefinitionFiles(
            definition=definition,
            root=root,
            name=name,
            inside="the upload",
            digests=digests,
            stored=_current_keys(competition),
        )
        try:
            return definition_files_load(
                files=files,
                slug=competition.slug,
                progress=progress,
                door=Door(name=f"the uploaded {name}", actor=actor),
            )
        except DefinitionError as exc:
            # Never a path of the server: the refusal names the upload and its members.
            reason = str(exc.params.get("reason", ""))
            reason = reason.replace(str(definition.parent) + os.sep, "").replace(str(work), "")
            raise _fail(name, reason) from None


# --- large uploads: a job -----------------------------------------------------------------


def definition_job_bytes() -> int:
    """Uploads larger than this are loaded by a job (DEFINITION_JOB_BYTES)."""
    return Limits.current().job_bytes


def definition_upload_start(
    *, competition: Competition, upload: Upload, user=None
) -> CompetitionLoad | DefinitionJob:
    """Load an uploaded definition now, or, when it is large, keep it and queue a job that
    loads it (returned; the edit page shows its progress)."""
    name = PurePosixPath(upload.name.replace("\\", "/")).name
    limit = _limit("DEFINITION_MAX_UPLOAD_BYTES", 1024**3)
    if upload.size is None or upload.size <= definition_job_bytes():
        return competition_definition_upload(competition=competition, upload=upload, actor=user)
    if upload.size > limit:
        raise _fail(name, f"larger than the limit of {limit} bytes")
    folder = Path("jobs") / uuid.uuid4().hex
    target = Path(settings.PRIVATE_ROOT) / folder
    target.mkdir(parents=True)
    try:
        _write(iter(upload.chunks(CHUNK)), target / "upload", limit=limit, name=name)
    except BaseException:
        shutil.rmtree(target, ignore_errors=True)
        raise
    with transaction.atomic():
        job = DefinitionJob.objects.create(
            competition=competition,
            file_name=name,
            path=(folder / "upload").as_posix(),
            size=upload.size,
            created_by=user,
        )
        definition_job_enqueue(job_id=job.pk)
    return job


@dataclass(slots=True)
class _StoredUpload:
    """A kept upload, as `competition_definition_upload` reads one."""

    name: str
    path: Path

    @property
    def size(self) -> int:
        return self.path.stat().st_size

    def chunks(self, chunk_size: int | None = None) -> Iterator[bytes]:
        with open(self.path, "rb") as handle:
            while chunk := handle.read(chunk_size or CHUNK):
                yield chunk


def _definition_job_load(*, job: DefinitionJob, path: Path, progress: Callable[[str], None]) -> str:
    """A queued definition upload: loaded as its uploader, audited; the job's message."""
    source = f"the uploaded {job.file_name}"
    with audit_structure(competition=job.competition, actor=job.created_by, source=source):
        load = competition_definition_upload(
            competition=job.competition,
            upload=_StoredUpload(job.file_name, path),
            progress=progress,
            actor=job.created_by,
        )
    audit_definition_load(load=load, actor=job.created_by, source=source)
    return (
        "The definition was loaded."
        + (f" Removed: {', '.join(load.removed)}." if load.removed else "")
        + (
            f" {len(load.rescored)} scored submissions are being re-scored."
            if load.rescored
            else ""
        )
    )


def definition_job_run(*, job_id: int) -> str:
    """Do a queued job (load its definition, or store its gold key), keeping its row's
    progress current; returns its final status. A job already taken (a message delivered
    twice) is left alone."""
    taken = DefinitionJob.objects.filter(pk=job_id, status=DefinitionJob.Status.QUEUED).update(
        status=DefinitionJob.Status.RUNNING, progress="Unpacking the upload"
    )
    job = DefinitionJob.objects.select_related("competition").get(pk=job_id)
    if not taken:
        return job.status

    def progress(text: str) -> None:
        # Best effort: how far the job is, for the edit page. A line that cannot be written
        # now (SQLite locks the table while the page reads it) is skipped, never fatal.
        try:
            with transaction.atomic():
                DefinitionJob.objects.filter(pk=job_id).update(progress=text[:300])
        except OperationalError:
            logger.info("definition job %s: progress %r not written (database busy)", job_id, text)

    stored = Path(settings.PRIVATE_ROOT) / job.path
    try:
        if job.kind == DefinitionJob.Kind.KEY:
            message = subcorpus_key_job_apply(job=job, path=stored, progress=progress)
        elif job.kind == DefinitionJob.Kind.BUNDLE:
            message = bundle_job_apply(job=job, path=stored, progress=progress)
        else:
            message = _definition_job_load(job=job, path=stored, progress=progress)
        status = DefinitionJob.Status.DONE
    except CompetitionError as exc:
        status, message = DefinitionJob.Status.FAILED, exc.message
    except Exception:
        logger.exception("definition job %s failed", job_id)
        status, message = (
            DefinitionJob.Status.FAILED,
            (
                f"{job.file_name}: the platform could not load it (an internal error, logged "
                "for the site's administrators)."
            ),
        )
    finally:
        shutil.rmtree(stored.parent, ignore_errors=True)
    DefinitionJob.objects.filter(pk=job_id).update(
        status=status, message=message, progress="", finished_at=timezone.now()
    )
    return status
