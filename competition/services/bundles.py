"""Importing a CodaLab or Codabench bundle into a draft competition (writes).

`bundle_import` opens the bundle safely, reads it, builds the competition's spec and writes
it through `competition.definition.apply` (the one writer of a competition), then attaches
the participant data, all in one transaction: a refusal anywhere leaves nothing created.
The competition is created as a new one (a draft: applying never publishes), with the
importing user as its organizer. `bundle_results_import` brings a phase's published results
(CodaLab's results CSV, Codabench's leaderboard export) as reference results.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.core.files import File
from django.db import transaction
from django.utils.text import slugify

from competition.bundles.archive import BundleRefused, unpack
from competition.bundles.build import bundle_spec
from competition.bundles.parse import Report, bundle_read
from competition.bundles.results import ResultsRead, results_read
from competition.definition import apply
from competition.definition.organizers import Door
from competition.definition.spec import SpecError
from competition.errors import CompetitionError, DefinitionError
from competition.models import Competition, Phase, Submission
from competition.services.editor import EditorError, phase_data_attach
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


def bundle_import(
    *,
    path: Path,
    owner: str,
    slug: str = "",
    name: str = "",
    actor: AbstractBaseUser | None = None,
) -> BundleImport:
    """Import the bundle at ``path`` (``name``: how refusals call it, default its file
    name) as a new draft competition organized by ``owner``; ``slug`` default: from its
    title; ``actor``: who imports it (staff; None: an operator). Raises `DefinitionError`
    (a refused bundle) or `SpecError` (a rule broken)."""
    name = name or Path(path).name
    if not get_user_model().objects.filter(username=owner).exists():
        raise DefinitionError(name, f"no user {owner!r} (the owner must exist)")
    tmp = Path(settings.PRIVATE_ROOT) / "tmp"
    tmp.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="bundle-", dir=tmp))
    try:
        root = work / "bundle"
        root.mkdir()
        names = unpack(Path(path), root, name=name)
        bundle = bundle_read(root, names, bundle=name)
        slug = slug or slugify(bundle.title)[:100]
        if not slug:
            raise DefinitionError(name, "the title gives no slug: choose one")
        if Competition.objects.filter(slug=slug).exists():
            raise DefinitionError(
                name, f"a competition {slug!r} exists already: choose another slug"
            )
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


def _write(
    *, spec, data, name: str, report: Report, attached: list[Path], door: Door
) -> Competition:
    """The one transaction: the competition through apply, then its participant data."""
    with transaction.atomic():
        load = apply.competition_apply(
            spec=spec, new=True, rescore=False, with_baselines=False, door=door
        )
        competition = load.competition
        organizer_team_get_or_create(competition=competition)
        for item in data:
            phase = Phase.objects.get(
                task__competition=competition, task__slug=item.task, slug=item.phase
            )
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
            report.imported.append(
                f"phase {phase.title}: {item.role} {item.name} → participant data"
            )
    return competition


def bundle_results_import(
    *, phase: Phase, path: Path, source: str, unit: str = "auto", name: str = ""
) -> tuple[list[Submission], ResultsRead]:
    """Import a phase's results table (CodaLab's per-phase results CSV or Codabench's
    leaderboard export) as published reference results from ``source``; re-importing the
    same source replaces them. Returns the created results and what was read."""
    if not " ".join(source.split()):
        raise DefinitionError(name or Path(path).name, "say where the results come from (source)")
    read = results_read(path=Path(path), phase=phase, unit=unit, name=name or Path(path).name)
    created = reference_rows_write(source=" ".join(source.split()), rows=read.rows)
    return created, read


__all__ = [
    "BundleImport",
    "BundleRefused",
    "CompetitionError",
    "bundle_import",
    "bundle_results_import",
]
