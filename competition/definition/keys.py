"""Gold keys: read like uploads, checked against their task, never a participant's file.

A key is read by the scorer's own validator exactly as a team's run would be
(`scoring.validate_pair`, the function the upload path calls, with the task's own options),
so a key refuses everything an upload refuses: the wrong format for the task (a CorefUD
``.conllu`` key for a CONLL-UA task, or the reverse), a token line without its IDENTITY cell,
a markable closed but never opened. Its documents are then recorded (name and tokens).

A key must never be a file participants may download. Keys and data files are compared by
content, not bytes: `content_digest` hashes the text with its line endings made ``\\n``,
trailing blanks removed from each line and blank lines removed from its end, and a zip data
file is compared member by member. The one exception is the organizers' explicit choice: a
development phase's own key marked as public (`PhaseDataFile.public_key`, CorefUD dev data is
released with its annotations) may be that phase's data file; a key of any other phase never.

A key is stored once per content under ``PRIVATE_ROOT/keys/<sha256>.conllua``. A key whose
SHA-256 the competition already holds, for a task scored alike, is not read again.
"""

from __future__ import annotations

import hashlib
import shutil
import zipfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

from competition.definition.spec import KeyFile, SpecError, StoredKey
from competition.models import Competition, Phase, PhaseDataFile, SubCorpus, Task
from competition.skeletons import skeleton_keep
from competition.task_scoring import TASK_MODE, scoring_modes, validation_options
from scoring import ScoringError, ScoringInputError, read_documents, validate_pair
from scoring.readers import FORMAT_NAMES, detect_format

CHUNK = 1024 * 1024
MAX_PROBLEMS_SHOWN = 3
ZIP_MEMBERS_LIMIT = 10_000
ZIP_CONTENT_LIMIT = 4 * 1024**3
"""How much of a zip data file's members is read to compare them with the keys."""


class KeyRefused(SpecError):
    """A gold key was refused (``field`` is always "key")."""

    def __init__(
        self, code: str, *, reason: str, field: str | None = "key", where: str = ""
    ) -> None:
        super().__init__(code, field=field, reason=reason, where=where)


# --- digests ------------------------------------------------------------------------------


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


BLANKS = b" \t\r\f\v"
LONG_BLANKS = 64 * 1024 * 1024
"""A run of blanks longer than this inside a line: not text, and never a key's content."""


def _without_bom(chunks: Iterable[bytes]) -> Iterator[bytes]:
    head = b""
    iterator = iter(chunks)
    for chunk in iterator:
        head += chunk
        if len(head) >= 3:
            break
    yield head.removeprefix(b"\xef\xbb\xbf")
    yield from iterator


def content_digest(chunks: Iterable[bytes]) -> str:
    """SHA-256 of a text's content: line endings as ``\\n``, trailing blanks of each line and
    blank lines at the end left out (a byte-order mark too). Streams, in one pass; "" for a
    file that cannot be a key (a run of blanks over `LONG_BLANKS`)."""
    digest = hashlib.sha256()
    blank_lines = 0  # empty lines not written yet (dropped at the end of the text)
    blanks = bytearray()  # blanks after the current line's last written byte
    started = False  # some of the current line was written
    for chunk in _without_bom(chunks):
        parts = chunk.split(b"\n")
        for index, part in enumerate(parts):
            if index:  # a line ended before this part
                if started:
                    digest.update(b"\n")
                else:
                    blank_lines += 1
                blanks.clear()
                started = False
            stripped = part.rstrip(BLANKS)
            if stripped:
                if not started:
                    digest.update(b"\n" * blank_lines)
                    blank_lines = 0
                    started = True
                digest.update(blanks)
                blanks.clear()
                digest.update(stripped)
            blanks += part[len(stripped) :]
            if len(blanks) > LONG_BLANKS:
                return ""
    if started:
        digest.update(b"\n")
    return digest.hexdigest()


def _file_chunks(path: Path) -> Iterator[bytes]:
    with open(path, "rb") as handle:
        while chunk := handle.read(CHUNK):
            yield chunk


def _capped(stream, limit: int) -> Iterator[bytes]:
    """A zip member's bytes, never more than its header says (a lying header is cut)."""
    while limit > 0 and (chunk := stream.read(min(CHUNK, limit))):
        limit -= len(chunk)
        yield chunk


def file_content_digests(path: Path) -> list[str]:
    """The content digests of a file participants may download: the file's own, and each
    member's when it is a zip."""
    digests = [content_digest(_file_chunks(path))]
    try:
        if zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as archive:
                budget = ZIP_CONTENT_LIMIT
                for info in archive.infolist()[:ZIP_MEMBERS_LIMIT]:
                    if info.is_dir() or info.flag_bits & 0x1 or info.file_size > budget:
                        continue
                    budget -= info.file_size
                    with archive.open(info) as member:
                        digests.append(content_digest(_capped(member, info.file_size)))
    except (zipfile.BadZipFile, OSError, RuntimeError, NotImplementedError):
        pass  # not a zip after all: its own digest stands
    return digests


def _key_content(subcorpus: SubCorpus) -> str:
    """The content digest of a stored key (computed once, then kept on the row)."""
    if not subcorpus.content_sha256 and subcorpus.key_file and subcorpus.key_path.is_file():
        subcorpus.content_sha256 = content_digest(_file_chunks(subcorpus.key_path))
        SubCorpus.objects.filter(pk=subcorpus.pk).update(content_sha256=subcorpus.content_sha256)
    return subcorpus.content_sha256


def _data_contents(data: PhaseDataFile) -> list[str]:
    if not data.content_digests and data.absolute_path.is_file():
        data.content_digests = file_content_digests(data.absolute_path)
        PhaseDataFile.objects.filter(pk=data.pk).update(content_digests=data.content_digests)
    return list(data.content_digests)


# --- the rule both ways -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class KeyPlace:
    """The phase a key is stored for, by slugs (a definition's phase may not exist yet)."""

    task: str
    phase: str
    kind: str

    @classmethod
    def of(cls, phase: Phase) -> KeyPlace:
        return cls(task=phase.task.slug, phase=phase.slug, kind=phase.kind)


def public_key_allowed(*, data: PhaseDataFile, place: KeyPlace | None) -> bool:
    """Whether ``data`` may hold the content of a key stored at ``place``: only a file the
    organizers marked as the public key, of a development phase, for a key of that phase."""
    return (
        data.public_key
        and place is not None
        and place.kind == Phase.Kind.DEVELOPMENT
        and data.phase.kind == Phase.Kind.DEVELOPMENT
        and (data.phase.task.slug, data.phase.slug) == (place.task, place.phase)
    )


def key_data_clash(
    *, competition: Competition, content: str, place: KeyPlace | None = None
) -> PhaseDataFile | None:
    """A data file of the competition whose content (or a member's) is the key's, other than
    the public key of the key's own development phase."""
    for data in PhaseDataFile.objects.filter(phase__task__competition=competition).select_related(
        "phase__task"
    ):
        if content in _data_contents(data) and not public_key_allowed(data=data, place=place):
            return data
    return None


def data_key_clash(
    *, competition: Competition, digests: list[str], public_for: Phase | None = None
) -> SubCorpus | None:
    """A gold key of the competition whose content is the data file's (or a member's);
    ``public_for``: the development phase whose own keys the file may hold (its public key)."""
    wanted = set(digests)
    for subcorpus in (
        SubCorpus.objects.filter(phase__task__competition=competition)
        .exclude(sha256="")
        .select_related("phase__task")
    ):
        if _key_content(subcorpus) not in wanted:
            continue
        public = (
            public_for is not None
            and public_for.kind == Phase.Kind.DEVELOPMENT
            and subcorpus.phase_id == public_for.pk
        )
        if not public:
            return subcorpus
    return None


def _refuse_data_copy(
    *, competition: Competition, content: str, label: str, place: KeyPlace | None
) -> None:
    if competition.pk is None:  # a competition not created yet has no data files
        return
    if (data := key_data_clash(competition=competition, content=content, place=place)) is not None:
        raise KeyRefused(
            "key_is_data",
            reason=(
                f"{label} is identical to the data file {data.file_name} of phase "
                f"{data.phase.task.slug}/{data.phase.slug}, which participants may download; a "
                "gold key must never be given out."
            ),
        )


# --- reading and storing ------------------------------------------------------------------


def expected_format(task: Task) -> str:
    """The format a task's keys and runs are read in (a `scoring.readers` name)."""
    fmt = validation_options(task).format
    return "ua" if fmt == "auto" else fmt


def _scored_alike(task: Task) -> tuple:
    return (expected_format(task), repr(validation_options(task)))


def key_problems(
    path: Path,
    *,
    task: Task,
    label: str,
    documents: list[tuple[str, int]] | None = None,
    skeleton: dict | None = None,
) -> list[str]:
    """What is wrong with a gold key for ``task`` (empty: nothing): its format first, then
    everything the upload validator finds in it, read as a run of the task would be (the
    key scored against itself). ``documents``, a list, receives the key's documents as the
    validator reads them: (name, tokens); ``skeleton``, a dict, the key's skeleton
    (`scoring.api.key_skeleton`) from the same reading."""
    expected = expected_format(task)
    found = detect_format(str(path))
    if found is not None and found != expected:
        return [
            f"{label} is {FORMAT_NAMES[found]}, but the task {task.slug} reads "
            f"{FORMAT_NAMES[expected]} (expected a gold key in {FORMAT_NAMES[expected]})"
        ]
    options = validation_options(task)
    try:
        errors = validate_pair(
            str(path),
            str(path),
            options=options,
            max_problems=MAX_PROBLEMS_SHOWN,
            key_documents=documents,
            skeleton=skeleton,
        )
    except ScoringInputError as exc:
        errors = [exc]
    problems = []
    for error in errors:
        line = getattr(error, "line", None)
        where = label if line is None else f"{label}:{line}"
        message = str(getattr(error, "message", error))
        message = message.replace(str(path), label)
        problems.append(f"{where}: {message}")
    return list(dict.fromkeys(problems))


def key_documents(path: Path, *, task: Task, label: str) -> tuple[dict, ...]:
    """The documents of a gold key read on their own, in the task's format: name and token
    count (what `key_problems` records as it checks a key, by another reading)."""
    try:
        documents = read_documents(str(path), expected_format(task))
    except ScoringInputError as exc:
        where = label if exc.line is None else f"{label}:{exc.line}"
        raise KeyRefused("key_unreadable", reason=f"{where}: {exc.message}") from None
    except ScoringError as exc:
        raise KeyRefused("key_unreadable", reason=f"{label}: {exc}") from None
    if not documents:
        raise KeyRefused(
            "key_unreadable",
            reason=f"{label}: no document was found (expected a "
            f"gold key in {FORMAT_NAMES[expected_format(task)]})",
        )
    return tuple({"name": doc.name, "tokens": len(doc.tokens)} for doc in documents)


def known_keys(*, competition: Competition) -> dict[tuple, StoredKey]:
    """The competition's stored keys by (SHA-256, how their task reads them): a key met
    again for a task that reads it alike is not read again."""
    known: dict[tuple, StoredKey] = {}
    for subcorpus in (
        SubCorpus.objects.filter(phase__task__competition=competition)
        .exclude(sha256="")
        .exclude(key_file="")
        .select_related("phase__task")
    ):
        if not subcorpus.key_path.is_file() or not subcorpus.documents:
            continue
        known[(subcorpus.sha256, _scored_alike(subcorpus.phase.task))] = StoredKey(
            key_file=subcorpus.key_file,
            sha256=subcorpus.sha256,
            documents=tuple(subcorpus.documents),
            content_sha256=subcorpus.content_sha256,
        )
    return known


def key_store(
    *,
    key: KeyFile,
    task: Task,
    known: dict[tuple, StoredKey] | None = None,
    place: KeyPlace | None = None,
) -> StoredKey:
    """Read, check and store a gold key for ``task`` (of the phase at ``place``, which
    decides whether a data file marked as the phase's public key may equal it); raises
    `KeyRefused` saying what is wrong with it (file, line, what was expected)."""
    competition = task.competition
    sha = key.sha256 or file_sha256(key.path)
    alike = _scored_alike(task)
    if known is not None and (sha, alike) in known:
        stored = known[(sha, alike)]
        content = stored.content_sha256 or content_digest(_file_chunks(key.path))
        _refuse_data_copy(competition=competition, content=content, label=key.label, place=place)
        return StoredKey(
            key_file=stored.key_file, sha256=sha, documents=stored.documents, content_sha256=content
        )
    content = content_digest(_file_chunks(key.path))
    _refuse_data_copy(competition=competition, content=content, label=key.label, place=place)
    read: list[tuple[str, int]] = []
    skeleton: dict = {}
    if problems := key_problems(
        key.path, task=task, label=key.label, documents=read, skeleton=skeleton
    ):
        raise KeyRefused("key_unreadable", reason="; ".join(problems))
    if not read:
        raise KeyRefused(
            "key_unreadable",
            reason=f"{key.label}: no document was found "
            f"(expected a gold key in {FORMAT_NAMES[expected_format(task)]})",
        )
    documents = tuple({"name": name, "tokens": tokens} for name, tokens in read)
    stored_as = Path("keys") / f"{sha}.conllua"
    target = Path(settings.PRIVATE_ROOT) / stored_as
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(f"{target.name}.{id(key)}.part")
        shutil.copyfile(key.path, partial)
        partial.replace(target)
    # what uploads are checked against, from the reading that checked the key
    skeleton_keep(
        sha256=sha,
        words=scoring_modes(task)[TASK_MODE],
        key_file=stored_as.as_posix(),
        skeleton=skeleton,
    )
    result = StoredKey(
        key_file=stored_as.as_posix(), sha256=sha, documents=documents, content_sha256=content
    )
    if known is not None:
        known[(sha, alike)] = result
    return result
