"""Loading a competition from its YAML definition (docs/competition-definition.md).

Loading is idempotent: objects are matched by slug and updated, never duplicated, and a
baseline already submitted under the same name is not submitted again. Gold keys are copied
into ``PRIVATE_ROOT/keys/`` under their SHA-256 (the same key used by several phases is stored
once) and read with the scorer's own reader to record their documents and token counts.

The file is the record of the competition's structure. Tasks, phases and sub-corpora it no
longer lists are deleted when nothing was submitted to them; when something was, the load is
refused and nothing changes, since deleting them would delete teams' submissions and scores.
A phase whose gold keys or scorer options the load changed has its scored submissions
re-scored (unless the caller says not to), so that its board never shows scores computed
against a key the competition no longer uses.
"""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import yaml
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.files import File
from django.db import transaction
from django.utils.dateparse import parse_datetime
from django.utils.text import slugify
from scoring import ScoringError, read_documents
from scoring.procedures import PROCEDURES

from competition.errors import DefinitionError, SubmissionRejected
from competition.models import (
    Competition,
    CompetitionPage,
    Phase,
    SubCorpus,
    Submission,
    Task,
    Track,
)
from competition.services.pages import page_save, team_approval_require
from competition.services.boards import board_entries_refresh
from competition.services.scoring import phase_rescore
from competition.services.submissions import submission_create
from competition.services.teams import organizer_team_get_or_create
from competition.task_scoring import (
    DEFAULT_OPTIONS,
    DEFAULT_PRIMARY_METRIC,
    DEFAULT_PROCEDURE,
    task_scoring_check,
)
from competition.timezones import AOE, AOE_OFFSET, UTC, zone_get
from competition.uploads import subcorpus_for_name



class _Reader:
    """Typed access to one mapping of the definition, with errors that say where."""

    def __init__(self, data: Any, where: str, source: Path) -> None:
        if not isinstance(data, Mapping):
            raise DefinitionError(str(source), f"{where} must be a mapping")
        self.data, self.where, self.source = data, where, source

    def fail(self, reason: str) -> DefinitionError:
        return DefinitionError(str(self.source), f"{self.where}: {reason}")

    def str(self, key: str, default: str | None = None) -> str:
        value = self.data.get(key, default)
        if value is None:
            raise self.fail(f"'{key}' is required")
        if not isinstance(value, (str, int, float)):
            raise self.fail(f"'{key}' must be text")
        return str(value).strip()

    def choice(self, key: str, choices: list[str], default: str | None = None) -> str:
        value = self.str(key, default)
        if value not in choices:
            raise self.fail(f"'{key}' is {value!r}; expected one of {', '.join(choices)}")
        return value

    def int(self, key: str, default: int) -> int:
        value = self.data.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise self.fail(f"'{key}' must be a whole number >= 0, not {value!r}")
        return value

    def bool(self, key: str, default: bool) -> bool:
        value = self.data.get(key, default)
        if not isinstance(value, bool):
            raise self.fail(f"'{key}' must be true or false, not {value!r}")
        return value

    def datetime(self, key: str, *, required: bool) -> datetime | None:
        value = self.data.get(key)
        if value is None:
            if required:
                raise self.fail(f"'{key}' is required")
            return None
        parsed = value if isinstance(value, datetime) else parse_datetime(str(value))
        if parsed is None or parsed.tzinfo is None:
            raise self.fail(f"'{key}' must be an ISO 8601 date and time with a time zone, "
                            f"like 2021-04-01T00:00:00Z, not {value!r}")
        return parsed

    def list(self, key: str, *, required: bool = False) -> list:
        value = self.data.get(key)
        if value is None:
            if required:
                raise self.fail(f"'{key}' is required")
            return []
        if not isinstance(value, list):
            raise self.fail(f"'{key}' must be a list")
        return value


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(1024 * 1024):
            digest.update(chunk)
    return digest.hexdigest()


class _KeyStore:
    """Copies gold keys into PRIVATE_ROOT once per content and reads their documents once."""

    def __init__(self, source: Path) -> None:
        self.source = source
        self.seen: dict[Path, tuple[str, str, list[dict]]] = {}

    def put(self, relative: str, where: str) -> tuple[str, str, list[dict]]:
        path = (self.source.parent / relative).resolve()
        if path in self.seen:
            return self.seen[path]
        if not path.is_file():
            raise DefinitionError(str(self.source), f"{where}: key file {relative} not found "
                                  f"(looked for {path})")
        sha = _sha256(path)
        stored = Path("keys") / f"{sha}.conllua"
        target = Path(settings.PRIVATE_ROOT) / stored
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            partial = target.with_suffix(".part")
            shutil.copyfile(path, partial)
            partial.replace(target)
        documents = _documents_of(path, where=where, source=self.source)
        self.seen[path] = (stored.as_posix(), sha, documents)
        return self.seen[path]


def _documents_of(path: Path, *, where: str, source: Path) -> list[dict]:
    try:
        documents = read_documents(str(path))
    except ScoringError as exc:
        raise DefinitionError(str(source), f"{where}: the key file does not read: {exc}") from None
    return [{"name": doc.name, "tokens": len(doc.tokens)} for doc in documents]


@dataclass(frozen=True, slots=True)
class CompetitionLoad:
    """What a load did: the competition, what it deleted, what it queued."""

    competition: Competition
    removed: tuple[str, ...] = ()         # "task", "task/phase", "task/phase/sub-corpus"
    changed_phases: tuple[Phase, ...] = ()  # gold keys or scorer options changed
    rescored: tuple[Submission, ...] = ()
    baselines: tuple[Submission, ...] = ()
    # The definition's ``published`` (default true). Loading never publishes nor unpublishes;
    # false keeps a draft a draft even when the operator asks to publish (load_competition
    # --publish).
    publishable: bool = True


@dataclass(slots=True)
class _Seen:
    """The objects a load wrote, and the phases whose scoring it changed."""

    tasks: set[int] = field(default_factory=set)
    phases: set[int] = field(default_factory=set)
    subcorpora: set[int] = field(default_factory=set)
    changed_phases: dict[int, Phase] = field(default_factory=dict)


def competition_load(*, path: str | Path, with_baselines: bool = True,
                     rescore: bool = True) -> CompetitionLoad:
    """Create or update the competition a YAML definition describes.

    Raises ``DefinitionError`` naming the file and the place in it that is wrong, or the
    objects the file no longer lists that hold submissions; nothing is written then.
    """
    source = Path(path).resolve()
    try:
        data = yaml.safe_load(source.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DefinitionError(str(source), "file not found") from None
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise DefinitionError(str(source), f"not valid YAML: {exc}") from None
    top = _Reader(data, "the file", source)
    publishable = top.bool("published", True)
    keys = _KeyStore(source)
    seen = _Seen()
    with transaction.atomic():
        competition = _load_structure(top, keys=keys, seen=seen)
        removed = _remove_unlisted(competition, seen=seen, source=source)
        # A task's primary metric or procedure may have changed, or sub-corpora with their
        # score rows gone: what the boards keep is rebuilt for the competition's phases.
        board_entries_refresh(phases=Phase.objects.filter(task__competition=competition))
    changed = tuple(seen.changed_phases.values())
    rescored: list[Submission] = []
    if rescore:
        for phase in changed:
            rescored.extend(phase_rescore(phase=phase))
    baselines = _load_baselines(top, competition=competition) if with_baselines else []
    return CompetitionLoad(competition=competition, removed=removed, changed_phases=changed,
                           rescored=tuple(rescored), baselines=tuple(baselines),
                           publishable=publishable)


def _load_structure(top: _Reader, *, keys: _KeyStore, seen: _Seen) -> Competition:
    slug = top.str("slug")
    if slugify(slug) != slug:
        raise top.fail(f"'slug' must be a URL slug (letters, digits, -, _), not {slug!r}")
    competition, _ = Competition.objects.update_or_create(
        slug=slug,
        defaults={"title": top.str("title"), "description": top.str("description", ""),
                  "website": top.str("website", "")},
    )
    usernames = [str(name) for name in top.list("organizers")]
    User = get_user_model()
    users = list(User.objects.filter(username__in=usernames))
    if missing := sorted(set(usernames) - {user.username for user in users}):
        raise top.fail(f"organizers {', '.join(missing)} do not exist (create the users first)")
    competition.organizers.add(*users)
    if competition.owner_id is None and usernames:  # its first listed organizer owns it
        competition.owner = next(u for u in users if u.username == usernames[0])
        competition.save(update_fields=["owner"])
    _load_pages(top, competition=competition)
    tasks = top.list("tasks", required=True)
    if not tasks:
        raise top.fail("'tasks' must list at least one task")
    for task_order, raw_task in enumerate(tasks):
        _load_task(_Reader(raw_task, f"tasks[{task_order}]", top.source),
                   competition=competition, order=task_order, keys=keys, seen=seen)
    return competition


def _load_task(reader: _Reader, *, competition: Competition, order: int, keys: _KeyStore,
               seen: _Seen) -> None:
    slug = reader.str("slug")
    if slug in Task.RESERVED_SLUGS:
        raise reader.fail(f"the task slug {slug!r} is a word of the site's addresses "
                          f"(not one of {', '.join(sorted(Task.RESERVED_SLUGS))})")
    kind = reader.choice("kind", list(Task.Kind.values))
    options = reader.data.get("scorer_options", DEFAULT_OPTIONS[kind])
    if not isinstance(options, list) or not all(isinstance(o, str) for o in options):
        raise reader.fail("'scorer_options' must be a list of scorer option words")
    given_options = "scorer_options" in reader.data
    default_procedure = "" if given_options else DEFAULT_PROCEDURE.get(kind, "")
    procedure = reader.str("procedure", default_procedure)
    if procedure and given_options:
        raise reader.fail("give either 'procedure' or 'scorer_options', not both")
    default_primary = (PROCEDURES[procedure].primary_metric if procedure in PROCEDURES
                       else DEFAULT_PRIMARY_METRIC[kind])
    primary_metric = reader.str("primary_metric", default_primary)
    if (problem := task_scoring_check(words=options, primary_metric=primary_metric,
                                      procedure=procedure)):
        raise reader.fail(problem)
    before = Task.objects.filter(competition=competition, slug=slug).first()
    task, _ = Task.objects.update_or_create(
        competition=competition, slug=slug,
        defaults={"kind": kind, "title": reader.str("title"),
                  "description": reader.str("description", ""),
                  "scorer_options": list(options), "procedure": procedure,
                  "primary_metric": primary_metric,
                  "order": order},
    )
    if task.pk in seen.tasks:  # the whole load is rolled back
        raise reader.fail(f"task slug {slug!r} is used twice")
    seen.tasks.add(task.pk)
    options_changed = before is not None and (
        before.kind, before.scorer_options, before.procedure) != (kind, list(options), procedure)
    _load_tracks(reader, task=task)
    for phase_order, raw_phase in enumerate(reader.list("phases", required=True)):
        phase = _load_phase(
            _Reader(raw_phase, f"{reader.where}.phases[{phase_order}]", reader.source),
            task=task, order=phase_order, keys=keys, seen=seen)
        if options_changed:
            seen.changed_phases[phase.pk] = phase


def _load_tracks(reader: _Reader, *, task: Task) -> None:
    """The task's tracks: each ranks separately; a team picks one at upload. A track that
    holds submissions cannot be removed (the database refuses; the load is rolled back)."""
    slugs: list[str] = []
    for track_order, raw in enumerate(reader.list("tracks", required=False)):
        track = _Reader(raw, f"{reader.where}.tracks[{track_order}]", reader.source)
        slug = track.str("slug")
        if slug in slugs:
            raise track.fail(f"track slug {slug!r} is used twice in the task")
        slugs.append(slug)
        Track.objects.update_or_create(
            task=task, slug=slug,
            defaults={"name": track.str("name"),
                      "description": track.str("description", ""), "order": track_order})
    unlisted = Track.objects.filter(task=task).exclude(slug__in=slugs)
    if held := [t.name for t in unlisted if t.submissions.exists()]:
        raise reader.fail(f"the file no longer lists the tracks {', '.join(held)}, which hold "
                          "submissions; put them back in the file")
    unlisted.delete()


def _load_phase(reader: _Reader, *, task: Task, order: int, keys: _KeyStore,
                seen: _Seen) -> Phase:
    start = reader.datetime("start", required=True)
    end = reader.datetime("end", required=False)
    if end is not None and end < start:
        raise reader.fail("'end' is before 'start'")
    slug = reader.str("slug")
    # Dates written at UTC−12 announce AoE deadlines unless the file names the zone.
    time_zone = reader.str("time_zone", AOE if start.utcoffset() == AOE_OFFSET else UTC)
    try:
        zone_get(time_zone)
    except ValueError as exc:
        raise reader.fail(str(exc)) from None
    # Given: when the hidden board is shown; absent: left as the organizers' page set it.
    revealed = ({"revealed_at": reader.datetime("revealed_at", required=False)}
                if "revealed_at" in reader.data else {})
    phase, _ = Phase.objects.update_or_create(
        task=task, slug=slug,
        defaults={**revealed,
            "kind": reader.choice("kind", list(Phase.Kind.values)),
            "title": reader.str("title"),
            "start": start, "end": end,
            "leaderboard_visibility": reader.choice("leaderboard", list(Phase.Visibility.values),
                                                    Phase.Visibility.PUBLIC),
            "show_own_scores_when_hidden": reader.bool("show_own_scores_when_hidden", False),
            "run_details": reader.choice("run_details", list(Phase.RunDetails.values),
                                         Phase.RunDetails.PUBLIC),
            "daily_limit": reader.int("daily_limit", 5),
            "total_limit": reader.int("total_limit", 100),
            "counts": reader.choice("counts", list(Phase.Counts.values), Phase.Counts.BEST),
            "missing": reader.choice("missing", list(Phase.Missing.values),
                                     Phase.Missing.UNRANKED),
            "time_zone": time_zone,
            "order": order,
        },
    )
    if phase.pk in seen.phases:  # the whole load is rolled back
        raise reader.fail(f"phase slug {slug!r} is used twice in the task")
    names: set[str] = set()
    for sc_order, raw in enumerate(reader.list("subcorpora", required=True)):
        sub = _Reader(raw, f"{reader.where}.subcorpora[{sc_order}]", reader.source)
        name = sub.str("name")
        slug = slugify(name)
        if not slug or slug in names:
            raise sub.fail(f"sub-corpus name {name!r} is empty or used twice in the phase")
        names.add(slug)
        available = sub.bool("available", True)
        key_file, sha, documents = "", "", []
        if available:
            key_file, sha, documents = keys.put(sub.str("key"), sub.where)
        before = SubCorpus.objects.filter(phase=phase, slug=slug).first()
        subcorpus, _ = SubCorpus.objects.update_or_create(
            phase=phase, slug=slug,
            defaults={"name": name, "available": available, "key_file": key_file,
                      "sha256": sha, "documents": documents, "order": sc_order,
                      "language": sub.str("language", ""),
                      "file_name": sub.str("file", "")},
        )
        seen.subcorpora.add(subcorpus.pk)
        if before is not None and (before.available, before.sha256) != (available, sha):
            seen.changed_phases[phase.pk] = phase
    seen.phases.add(phase.pk)
    return phase


def _remove_unlisted(competition: Competition, *, seen: _Seen, source: Path) -> tuple[str, ...]:
    """Delete the tasks, phases and sub-corpora the file no longer lists; refuse (raise)
    when any of them holds submissions."""
    tasks = Task.objects.filter(competition=competition).exclude(pk__in=seen.tasks)
    phases = (Phase.objects.filter(task__competition=competition).exclude(pk__in=seen.phases)
              .select_related("task"))
    subcorpora = (SubCorpus.objects.filter(phase__task__competition=competition)
                  .exclude(pk__in=seen.subcorpora).select_related("phase__task"))
    held: list[str] = []
    for phase in phases:
        if count := Submission.objects.filter(phase=phase).count():
            held.append(f"phase {phase.task.slug}/{phase.slug} ({count} submissions)")
    for subcorpus in subcorpora:
        if subcorpus.phase_id in seen.phases and (
                count := subcorpus.files.values("submission").distinct().count()):
            held.append(f"sub-corpus {subcorpus.phase.task.slug}/{subcorpus.phase.slug}/"
                        f"{subcorpus.name} ({count} submissions)")
    if held:
        raise DefinitionError(str(source), (
            f"the file no longer lists {', '.join(held)}; removing them would delete those "
            "submissions and their scores. Put them back in the file, or delete them in the "
            "admin first if they are meant to go."))
    removed = ([task.slug for task in tasks]
               + [f"{p.task.slug}/{p.slug}" for p in phases if p.task_id in seen.tasks]
               + [f"{sc.phase.task.slug}/{sc.phase.slug}/{sc.name}" for sc in subcorpora
                  if sc.phase_id in seen.phases])
    subcorpora.delete()
    phases.delete()
    tasks.delete()
    return tuple(removed)


def _load_baselines(top: _Reader, *, competition: Competition) -> list[Submission]:
    created: list[Submission] = []
    raw_baselines = top.list("baselines")
    if not raw_baselines:
        return created
    team = organizer_team_get_or_create(competition=competition)
    for index, raw in enumerate(raw_baselines):
        reader = _Reader(raw, f"baselines[{index}]", top.source)
        name = reader.str("name")
        task_slug, _, phase_slug = reader.str("phase").partition("/")
        phase = Phase.objects.filter(task__competition=competition, task__slug=task_slug,
                                     slug=phase_slug).select_related("task").first()
        if phase is None:
            raise reader.fail(f"phase {reader.str('phase')!r} is not defined (task/phase)")
        done = Submission.objects.filter(team=team, phase=phase, run_name=name,
                                         is_baseline=True).exclude(
            status__in=[Submission.Status.FAILED, Submission.Status.CANCELLED])
        if done.exists():
            continue
        files = reader.data.get("files")
        if not isinstance(files, Mapping) or not files:
            raise reader.fail("'files' must map sub-corpus names to response files")
        available = {sc.slug: sc.name for sc in phase.subcorpora.filter(available=True)}
        handles = []
        try:
            uploads = {}
            for label, relative in files.items():
                slug = subcorpus_for_name(str(label), available)
                if slug is None:
                    raise reader.fail(f"{label!r} is not an available sub-corpus of the phase")
                file_path = (top.source.parent / str(relative)).resolve()
                if not file_path.is_file():
                    raise reader.fail(f"file {relative} not found")
                handle = open(file_path, "rb")
                handles.append(handle)
                uploads[slug] = File(handle, name=file_path.name)
            created.append(submission_create(
                team=team, phase=phase, user=None, files=uploads, run_name=name,
                description=reader.str("description", ""), is_baseline=True))
        except SubmissionRejected as exc:
            details = "; ".join(str(problem) for problem in exc.problems[:5])
            raise reader.fail(f"baseline {name!r} was refused: {exc.message} {details}") from None
        finally:
            for handle in handles:
                handle.close()
    return created


def _load_pages(top: _Reader, *, competition: Competition) -> None:
    """``pages``: Markdown text or ``{file: path}`` (relative to the definition) per page kind;
    pages the file does not list keep the text they have. ``team_approval``: the organizers
    approve teams before they submit."""
    if "team_approval" in top.data:
        team_approval_require(competition=competition,
                              required=top.bool("team_approval", False))
    raw = top.data.get("pages")
    if raw is None:
        return
    pages = _Reader(raw, "pages", top.source)
    kinds = [kind for kind, _ in CompetitionPage.Kind.choices]
    for kind, value in pages.data.items():
        if kind not in kinds:
            raise pages.fail(f"unknown page {kind!r}; expected one of {', '.join(kinds)}")
        if isinstance(value, Mapping):
            relative = _Reader(value, f"pages.{kind}", top.source).str("file")
            path = (top.source.parent / relative).resolve()
            try:
                body = path.read_text(encoding="utf-8")
            except FileNotFoundError:
                raise pages.fail(f"{kind}: file {relative} not found (looked for {path})"
                                 ) from None
            except UnicodeDecodeError:
                raise pages.fail(f"{kind}: file {relative} is not UTF-8 text") from None
        elif isinstance(value, str):
            body = value
        else:
            raise pages.fail(f"{kind}: expected Markdown text or {{file: path}}, "
                             f"not {type(value).__name__}")
        page_save(competition=competition, kind=kind, body=body)
