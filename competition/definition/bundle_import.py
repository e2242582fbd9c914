"""Importing a CodaLab or Codabench bundle into a draft competition (writes).

`bundle_import` opens the bundle safely, reads it, builds the competition's spec and writes
it through `competition.definition.apply` (the one writer of a competition), then attaches
the participant data; a refusal anywhere leaves nothing created (apply writes in its own
transaction; a participant data file refused after it deletes the competition again).
`bundle_import_start` does it now for a bundle up to the size a definition upload is loaded
in the request (``DEFINITION_JOB_BYTES``), and otherwise keeps the bundle and queues a job
(`DefinitionJob` of kind ``bundle``, run by `bundle_job_apply`) whose page shows how far it
is: a large bundle never holds a web worker.
The competition is created as a new one (a draft: applying never publishes), with the
importing user as its organizer. `bundle_results_import` brings a phase's published results
(CodaLab's results CSV, Codabench's leaderboard export) as reference results.
"""

from __future__ import annotations

import shutil
import tempfile
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.core.files import File
from django.db import transaction

from competition.bundles.archive import BundleLimits, BundleRefused, unpack
from competition.bundles.build import bundle_spec
from competition.bundles.description import COMPETITION, Report, phase_subject
from competition.bundles.names import short_slug
from competition.bundles.parse import bundle_read
from competition.bundles.results import ResultsRead, ResultsUnmapped, results_read
from competition.definition import apply
from competition.definition.editor import EditorError, phase_data_attach
from competition.definition.organizers import Door
from competition.definition.spec import Limits, SpecError
from competition.errors import CompetitionError, DefinitionError
from competition.models import Competition, DefinitionJob, Phase, Submission
from competition.services.dispatch import definition_job_enqueue
from competition.services.references import reference_rows_write
from competition.services.teams import organizer_team_get_or_create


@dataclass(frozen=True, slots=True)
class BundleImport:
    competition: Competition
    dialect: str
    report: Report

    @property
    def platform(self) -> str:
        return {"codalab": "CodaLab", "codabench": "Codabench"}[self.dialect]


def _owner_and_slug_check(*, name: str, owner: str, slug: str) -> None:
    if not get_user_model().objects.filter(username=owner).exists():
        raise DefinitionError(name, f"no user {owner!r} (the owner must exist)")
    if slug and Competition.objects.filter(slug=slug).exists():
        raise DefinitionError(name, f"a competition {slug!r} exists already: choose another slug")


def bundle_import(
    *,
    path: Path,
    owner: str,
    slug: str = "",
    name: str = "",
    progress: Callable[[str], None] | None = None,
    actor: AbstractBaseUser | None = None,
) -> BundleImport:
    """Import the bundle at ``path`` (``name``: how refusals call it, default its file
    name) as a new draft competition organized by ``owner``; ``slug`` default: a short one
    from its title; ``progress`` is told each step; ``actor``: who imports it (staff; None:
    an operator). Raises `DefinitionError` (a refused bundle) or `SpecError` (a rule
    broken)."""
    name = name or Path(path).name
    say = progress or (lambda text: None)
    _owner_and_slug_check(name=name, owner=owner, slug=slug)
    tmp = Path(settings.PRIVATE_ROOT) / "tmp"
    tmp.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="bundle-", dir=tmp))
    try:
        root = work / "bundle"
        root.mkdir()
        say(f"Unpacking {name}")
        names = unpack(Path(path), root, name=name)
        say("Reading the bundle's YAML and pages")
        bundle = bundle_read(root, names, bundle=name)
        slug = _slug_choose(slug, bundle=bundle, name=name)
        say("Opening the data items and recognising the scoring programs")
        spec, data = bundle_spec(
            bundle,
            root=root / bundle.base if bundle.base else root,
            work=work / "items",
            name=name,
            slug=slug,
            owner=owner,
        )
        attached: list[Path] = []
        try:
            competition = _write(
                spec=spec,
                data=data,
                name=name,
                report=bundle.report,
                attached=attached,
                progress=progress,
                door=Door.of(actor, f"the bundle import of {name}"),
            )
        except BaseException:
            for stored in attached:  # the rows are rolled back: their files go too
                stored.unlink(missing_ok=True)
            raise
    except SpecError as exc:
        raise DefinitionError(name, exc.message) from None
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return BundleImport(competition=competition, dialect=bundle.dialect, report=bundle.report)


def _slug_choose(slug: str, *, bundle, name: str) -> str:
    """The slug asked for, else a short one from the bundle's title (proposed in the report);
    refused when there is none or it is taken."""
    if not slug:
        slug = short_slug(bundle.title)
        bundle.report.add(
            "proposed",
            COMPETITION,
            f"the slug {slug!r}, made short from the title (the import's slug field, or "
            "--slug, chooses another)",
        )
    if not slug:
        raise DefinitionError(name, "the title gives no slug: choose one")
    if Competition.objects.filter(slug=slug).exists():
        raise DefinitionError(name, f"a competition {slug!r} exists already: choose another slug")
    return slug


def _write(
    *,
    spec,
    data,
    name: str,
    report: Report,
    attached: list[Path],
    door: Door,
    progress: Callable[[str], None] | None = None,
) -> Competition:
    """The competition through apply (which reads and stores the keys first, telling
    ``progress``, then writes the structure in its own transaction: nothing holds the
    database while the keys are read), then its participant data in one transaction; a
    refusal there deletes the competition again, so a refused import leaves nothing."""
    load = apply.competition_apply(
        spec=spec, new=True, rescore=False, with_baselines=False, progress=progress, door=door
    )
    competition = load.competition
    try:
        with transaction.atomic():
            organizer_team_get_or_create(competition=competition)
            for item in data:
                _attach(item, competition=competition, name=name, report=report, attached=attached)
    except BaseException:
        Competition.objects.filter(pk=competition.pk).delete()
        raise
    return competition


def _attach(item, *, competition: Competition, name: str, report: Report, attached: list[Path]):
    phase = Phase.objects.get(task__competition=competition, task__slug=item.task, slug=item.phase)
    try:
        with open(item.path, "rb") as handle:
            stored = phase_data_attach(
                phase=phase,
                upload=File(handle, name=item.name),
                description=item.role.replace("_", " "),
            )
        attached.append(stored.absolute_path)
    except EditorError as exc:
        raise DefinitionError(f"{name}: {item.name}", exc.message) from None
    report.add(
        "imported",
        phase_subject(phase.title),
        f"{item.role.replace('_', ' ')} {item.name}: participant data",
    )


def bundle_import_start(
    *, upload, owner: str, slug: str = "", user=None
) -> BundleImport | DefinitionJob:
    """Import an uploaded bundle now, or, when it is larger than a definition upload loaded
    in the request (``DEFINITION_JOB_BYTES``), keep it and queue a job that imports it
    (returned; its page shows how far it is). Refusals that need no reading (the size, the
    owner, a slug taken) come at once."""
    name = PurePosixPath(str(upload.name).replace("\\", "/")).name
    limit = BundleLimits.current().bytes
    if upload.size is not None and upload.size > limit:
        raise DefinitionError(name, f"larger than the limit of {limit} bytes")
    _owner_and_slug_check(name=name, owner=owner, slug=slug)
    large = upload.size is None or upload.size > Limits.current().job_bytes
    folder = Path("jobs" if large else "tmp") / f"bundle-{uuid.uuid4().hex}"
    target = Path(settings.PRIVATE_ROOT) / folder
    target.mkdir(parents=True)
    try:
        with open(target / "upload", "wb") as handle:
            for chunk in upload.chunks():
                handle.write(chunk)
        if not large:
            return bundle_import(
                path=target / "upload", owner=owner, slug=slug, name=name, actor=user
            )
        with transaction.atomic():
            job = DefinitionJob.objects.create(
                competition=None,
                kind=DefinitionJob.Kind.BUNDLE,
                params={"owner": owner, "slug": slug},
                file_name=name,
                path=(folder / "upload").as_posix(),
                size=(target / "upload").stat().st_size,
                created_by=user,
            )
            definition_job_enqueue(job_id=job.pk)
        return job
    except BaseException:
        shutil.rmtree(target, ignore_errors=True)
        raise
    finally:
        if not large:
            shutil.rmtree(target, ignore_errors=True)


def bundle_job_apply(*, job: DefinitionJob, path: Path, progress: Callable[[str], None]) -> str:
    """A queued bundle import (`competition.definition.upload.definition_job_run`
    keeps the job's status): the new competition and the import's report are kept on the
    job for its page."""
    result = bundle_import(
        path=path,
        owner=str(job.params.get("owner", "")),
        slug=str(job.params.get("slug", "")),
        name=job.file_name,
        progress=progress,
        actor=job.created_by,
    )
    DefinitionJob.objects.filter(pk=job.pk).update(
        competition=result.competition,
        params={**job.params, "dialect": result.dialect, "report": result.report.as_dict()},
    )
    return f"The {result.platform} bundle is now the draft competition {result.competition.slug}."


def bundle_job_report(job: DefinitionJob) -> Report | None:
    """The report a finished bundle job kept, or None."""
    data = job.params.get("report")
    return Report.from_dict(data) if isinstance(data, dict) else None


def bundle_results_import(
    *,
    phase: Phase,
    path: Path,
    source: str,
    unit: str = "auto",
    name: str = "",
    apply_anyway: bool = False,
) -> tuple[list[Submission], ResultsRead]:
    """Import a phase's results table (CodaLab's per-phase results CSV or Codabench's
    leaderboard export) as published reference results from ``source``; re-importing the
    same source replaces them. Returns the created results and what was read. A column that
    cannot be placed stops the import (`ResultsUnmapped`, with every column's mapping)
    unless ``apply_anyway``: then the columns that map are imported."""
    if not " ".join(source.split()):
        raise DefinitionError(name or Path(path).name, "say where the results come from (source)")
    read = results_read(
        path=Path(path),
        phase=phase,
        unit=unit,
        name=name or Path(path).name,
        apply_anyway=apply_anyway,
    )
    created = reference_rows_write(source=" ".join(source.split()), rows=read.rows)
    return created, read


__all__ = [
    "BundleImport",
    "BundleRefused",
    "CompetitionError",
    "ResultsUnmapped",
    "bundle_import",
    "bundle_results_import",
]
