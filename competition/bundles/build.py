"""A read bundle as a competition spec: tasks from its scoring programs and reference data,
phases, sub-corpora with their gold keys, pages; and the participant data to attach.

Reference data becomes gold keys (`KeyFile`: read and checked by the definition package like
every key); input data, public data and starting kits become the phase's participant data,
never public files. Leaderboard columns are mapped to the metric catalogue
(`column_metric`); the first ranked column that names a metric the task's scoring computes
becomes its primary metric.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from django.utils.text import slugify

from competition.bundles.archive import is_zip_name, unpack
from competition.bundles.description import Bundle, BundlePhase, Column, Report, phase_subject
from competition.bundles.names import NAMES_A_DATASET, dataset_name, plural
from competition.bundles.programs import SCORER_NAMES, ProgramMatch, command_of, recognise
from competition.definition.spec import (
    CompetitionSpec,
    KeyFile,
    PhaseSpec,
    SpecError,
    SubCorpusSpec,
    TaskSpec,
)
from competition.models import Phase, Task
from competition.task_scoring import KIND_PROCEDURE
from scoring.readers import detect_format
from scoring.vocabulary import METRIC_ORDER, metric_label

KEY_SUFFIXES = (".conllu", ".conllua", ".conll", ".ua")
METRIC_WORDS = {
    **{name: name for name in METRIC_ORDER},
    **{metric_label(name).lower(): name for name in METRIC_ORDER},
    "b3": "bcub",
    "bcubed": "bcub",
    "b-cubed": "bcub",
    "b cubed": "bcub",
    "ceaf-e": "ceafe",
    "ceaf_e": "ceafe",
    "ceaf-m": "ceafm",
    "ceaf_m": "ceafm",
    "conll f1": "conll",
    "conll_f1": "conll",
    "conll-f1": "conll",
    "avg f1": "conll",
    "conll avg": "conll",
    "mention": "mention",
    "mentions": "mention",
    "zeros": "zero",
    "zero": "zero",
}
KIND_SLUGS = {
    Task.Kind.COREFUD: "coreference",
    Task.Kind.IDENTITY: "identity",
    Task.Kind.BRIDGING: "bridging",
    Task.Kind.DISCOURSE_DEIXIS: "discourse-deixis",
}


@dataclass(frozen=True, slots=True)
class DataFile:
    """A participant data file to attach once the phase exists."""

    task: str
    phase: str
    path: Path
    name: str
    role: str


def column_metric(key: str, label: str, subcorpora: list[str]) -> tuple[str | None, str | None]:
    """The metric and the sub-corpus a leaderboard column names (either may be None)."""
    texts = [key.lower().strip(), label.lower().strip()]
    metric = None
    for text in texts:
        if text in METRIC_WORDS:
            metric = METRIC_WORDS[text]
            break
        for word in sorted(METRIC_WORDS, key=len, reverse=True):
            if re.search(rf"(^|[^a-z0-9]){re.escape(word)}($|[^a-z0-9])", text):
                metric = METRIC_WORDS[word]
                break
        if metric:
            break
    subcorpus = None
    for name in sorted(subcorpora, key=len, reverse=True):
        lowered = name.lower()
        if any(lowered in text or slugify(lowered) in slugify(text) for text in texts):
            subcorpus = name
            break
    return metric, subcorpus


def _phase_kind(label: str) -> str:
    text = label.lower()
    if "post" in text:
        return Phase.Kind.POST_TASK
    if "test" in text or "eval" in text:
        return Phase.Kind.TEST_GOLD if "gold" in text else Phase.Kind.TEST_PREDICTED
    return Phase.Kind.DEVELOPMENT


def _key_files(folder: Path) -> list[Path]:
    return sorted(
        p
        for p in folder.rglob("*")
        if p.is_file() and not p.is_symlink() and p.suffix.lower() in KEY_SUFFIXES
    )


@dataclass(slots=True)
class _Scoring:
    kind: str
    procedure: str = ""
    words: tuple[str, ...] | None = None


class _Builder:
    def __init__(self, bundle: Bundle, root: Path, work: Path, name: str) -> None:
        self.bundle, self.root, self.work, self.name = bundle, root, work, name
        self.report: Report = bundle.report
        self.opened: dict[str, Path] = {}
        self.reported: set[str] = set()

    def open_item(self, member: str) -> Path:
        """A data item: a zip of the bundle unpacked one level down, a folder of the bundle
        (as Codabench lays its items out), or a plain file."""
        if member in self.opened:
            return self.opened[member]
        source = self.root / member
        if source.is_dir() or not is_zip_name(member):
            self.opened[member] = source
            return source
        target = self.work / f"item-{len(self.opened)}"
        target.mkdir(parents=True)
        skipped: list[str] = []
        unpack(source, target, name=f"{self.name}: {member}", depth=2, skipped=skipped)
        for inner in skipped:  # never opened: a zip in a data item is nested too deep
            self.report.add(
                "not_imported", f"Data item {member}", f"{inner}: a zip inside it, not opened"
            )
        self.opened[member] = target
        return target

    def program(self, member: str) -> ProgramMatch:
        folder = self.open_item(member)
        if folder.is_file():
            return recognise(files=[folder.name], command="")
        files = [p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()]
        metadata = next(
            (
                p
                for p in sorted(folder.rglob("*"))
                if p.name in ("metadata", "metadata.yaml") and p.is_file()
            ),
            None,
        )
        command = ""
        if metadata is not None and metadata.stat().st_size <= 64 * 1024:
            command = command_of(metadata.read_text(encoding="utf-8", errors="replace"))
        return recognise(files=files, command=command)

    def data_file(self, member: str) -> tuple[Path, str]:
        """A participant data item as one file: a folder is zipped (as Codabench does)."""
        source = self.root / member
        if not source.is_dir():
            return source, PurePosixPath(member).name
        name = f"{PurePosixPath(member).name}.zip"
        target = self.work / "folders" / str(len(self.opened)) / PurePosixPath(member).name
        if not target.with_suffix(".zip").exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.make_archive(str(target), "zip", source)
        self.opened.setdefault(f"folder:{member}", target)
        return target.with_suffix(".zip"), name

    def keys(self, phase: BundlePhase) -> list[tuple[Path, str]]:
        found: list[tuple[Path, str]] = []
        for member in phase.references:
            item = self.open_item(member)
            paths = [item] if item.is_file() else _key_files(item)
            if not paths:
                self.report.add(
                    "not_imported",
                    phase_subject(phase.label),
                    f"reference data {member} holds no key file ({', '.join(KEY_SUFFIXES)})",
                )
            for path in paths:
                inner = path.name if item.is_file() else path.relative_to(item).as_posix()
                found.append((path, f"{member}: {inner}" if not item.is_file() else member))
        return found

    def scoring(self, phase: BundlePhase, keys: list[tuple[Path, str]]) -> _Scoring:
        key_kind = _key_kind(keys)
        subject = phase_subject(phase.label)
        match = self._phase_program(phase, subject)
        if match is None or match.scorer is None:
            kind = key_kind or Task.Kind.IDENTITY
            if match is not None:
                self.report.add(
                    "not_imported",
                    subject,
                    f"scoring program not recognised: choose a procedure (the default of "
                    f"{kind}, {KIND_PROCEDURE[kind]}, is set until you do)",
                )
            return _Scoring(kind)
        kind = match.kind
        if match.scorer == "conll":  # MUC, B³, CEAFe, exact match: on either format
            kind = key_kind or Task.Kind.IDENTITY
        elif key_kind == Task.Kind.COREFUD and kind != Task.Kind.COREFUD:
            self.report.add(
                "proposed",
                subject,
                f"the program is {SCORER_NAMES[match.scorer]}'s but the keys are CoNLL-U: "
                "scored as a CorefUD task",
            )
            return _Scoring(Task.Kind.COREFUD)
        if key_kind == Task.Kind.IDENTITY and kind == Task.Kind.COREFUD:
            self.report.add(
                "proposed",
                subject,
                "a CorefUD scorer with CONLL-UA keys: scored as identity anaphora",
            )
            return _Scoring(Task.Kind.IDENTITY)
        words = match.words
        if words is not None and kind != Task.Kind.COREFUD:
            words = tuple(w for w in words if w not in ("-f", "corefud"))
        return _Scoring(kind, match.procedure, words)

    def _phase_program(self, phase: BundlePhase, subject: str) -> ProgramMatch | None:
        """The scoring program a phase is scored by (its first; the report says where its
        tasks' programs differ or where it has none)."""
        match = None
        for member in phase.programs:
            found = self.program(member)
            self._program_report(member, found)
            if match is None:
                match = found
            elif (found.scorer, found.kind, found.procedure, found.words) != (
                match.scorer,
                match.kind,
                match.procedure,
                match.words,
            ):
                self.report.add(
                    "proposed",
                    subject,
                    f"its tasks' scoring programs differ; {phase.programs[0]} is used",
                )
        if not phase.programs:
            self.report.add(
                "not_imported", subject, "no scoring program in the bundle: choose a procedure"
            )
        return match

    def _program_report(self, member: str, found: ProgramMatch) -> None:
        """What a scoring program was read as, once per program however many phases use it;
        each of its options without an exact equivalent is proposed."""
        if member in self.reported:
            return
        self.reported.add(member)
        subject = f"Scoring program {member}"
        self.report.add("imported", subject, found.reason)
        for line in found.proposed:
            self.report.add("proposed", subject, line)
        for word in found.ignored:
            self.report.add("not_imported", subject, f"option {word!r} is not understood")


Group = list[tuple[BundlePhase, list[tuple[Path, str]]]]
"""The phases one task holds (those scored alike), each with its key files."""


def bundle_spec(
    bundle: Bundle, *, root: Path, work: Path, name: str, slug: str, owner: str
) -> tuple[CompetitionSpec, list[DataFile]]:
    """The spec of the competition a read bundle describes, and its participant data."""
    builder = _Builder(bundle, root, work, name)
    groups: dict[tuple, Group] = {}
    for phase in bundle.phases:
        keys = builder.keys(phase)
        scoring = builder.scoring(phase, keys)
        groups.setdefault((scoring.kind, scoring.procedure, scoring.words), []).append(
            (phase, keys)
        )
    tasks: list[TaskSpec] = []
    data: list[DataFile] = []
    used_slugs: set[str] = set()
    for (kind, procedure, words), members in groups.items():
        task_slug = KIND_SLUGS[kind]
        while task_slug in used_slugs:
            task_slug += "-2"
        used_slugs.add(task_slug)
        phases = _task_phases(builder, members, task_slug=task_slug, data=data)
        names = [sub.name for phase in phases for sub in phase.subcorpora or ()]
        primary = _primary(
            bundle.columns,
            list(dict.fromkeys(names)),
            kind=kind,
            procedure=procedure,
            words=words,
            report=bundle.report,
        )
        title = f"{bundle.title} ({kind.replace('_', ' ')})" if len(groups) > 1 else bundle.title
        tasks.append(
            TaskSpec.checked(
                slug=task_slug,
                kind=kind,
                title=title[:300],
                procedure=procedure,
                scorer_options=words,
                primary_metric=primary,
                phases=tuple(phases),
            )
        )
    spec = CompetitionSpec.checked(
        slug=slug,
        title=bundle.title[:300],
        description=bundle.description,
        organizers=(owner,),
        team_approval=bundle.team_approval,
        pages=dict(bundle.pages),
        tasks=tuple(tasks),
    )
    return spec, data


def _task_phases(
    builder: _Builder, members: Group, *, task_slug: str, data: list[DataFile]
) -> list[PhaseSpec]:
    """The phases of one task, each slug once; their participant data added to ``data``."""
    phases: list[PhaseSpec] = []
    for phase, keys in members:
        phase_slug = slugify(phase.label)[:90] or f"phase-{phase.number}"
        while phase_slug in {p.slug for p in phases}:
            phase_slug += "-2"
        phases.append(
            _phase_spec(phase, keys, slug=phase_slug, task=task_slug, report=builder.report)
        )
        for role, member in phase.data:
            path, file_name = builder.data_file(member)
            data.append(DataFile(task_slug, phase_slug, path, file_name, role))
    return phases


def _subcorpora(keys: list[tuple[Path, str]]) -> list[SubCorpusSpec]:
    """One dataset per key file, named after it without its split (`dataset_name`), so that
    a task's phases name the same data alike; two files of one phase that would share a name
    keep their file names."""
    named = [(path, label, *dataset_name(path.stem)) for path, label in keys]
    counts: dict[str, int] = {}
    for _, _, sub_name, _ in named:
        counts[sub_name] = counts.get(sub_name, 0) + 1
    return [
        SubCorpusSpec.checked(
            name=sub_name if counts[sub_name] == 1 else path.stem[:100],
            language=language,
            file_name=path.name,
            key=KeyFile(path=path, label=label),
        )
        for path, label, sub_name, language in named
    ]


def _phase_spec(
    phase: BundlePhase, keys: list[tuple[Path, str]], *, slug: str, task: str, report: Report
) -> PhaseSpec:
    assert phase.start is not None  # the bundle's reader refuses a phase without one
    try:
        subcorpora = _subcorpora(keys)
        spec = PhaseSpec.checked(
            slug=slug,
            kind=_phase_kind(phase.label),
            title=phase.label[:300],
            start=phase.start,
            end=phase.end,
            daily_limit=phase.daily_limit,
            total_limit=phase.total_limit,
            leaderboard_visibility=(
                Phase.Visibility.HIDDEN if phase.hidden else Phase.Visibility.PUBLIC
            ),
            subcorpora=tuple(subcorpora),
        )
    except SpecError as exc:
        raise exc.at(f"phase {phase.label} ({phase.where})") from None
    end = f"{phase.end:%Y-%m-%d %H:%M:%S} UTC" if phase.end else "never"
    datasets = ", ".join(
        sub.name + (f" ({sub.language})" if sub.language else "") for sub in subcorpora
    )
    report.add(
        "imported",
        phase_subject(phase.label),
        f"{task}/{slug}, {Phase.Kind(spec.kind).label.lower()}; "
        f"from {phase.start:%Y-%m-%d %H:%M:%S} UTC to {end}; "
        f"{plural(len(subcorpora), 'gold key')}{': ' + datasets if datasets else ''}; "
        f"{phase.daily_limit} a day, {phase.total_limit} in all"
        f"{'; scores hidden' if phase.hidden else ''}",
        phase.where,
    )
    for path, note in phase.date_notes:
        report.add("imported", phase_subject(phase.label), note, path)
    return spec


def _primary(
    columns: list[Column],
    subcorpora: list[str],
    *,
    kind: str,
    procedure: str,
    words: tuple[str, ...] | None,
    report: Report,
) -> str:
    """The task's primary metric from the leaderboard columns; "" keeps the default."""
    chosen = ""
    for column in columns:
        subject = f"Leaderboard column {column.label} ({column.key})"
        if column.computed:
            report.add(
                "not_imported",
                subject,
                f"computed ({column.computed}); boards compute their own average and rank",
                column.where,
            )
            continue
        metric, subcorpus = column_metric(column.key, column.label, subcorpora)
        if metric is None:
            report.add("not_imported", subject, "names no metric the scorer computes", column.where)
            continue
        if not chosen and column.sort.lower().startswith("desc"):
            try:
                TaskSpec.checked(
                    slug="check",
                    kind=kind,
                    title="check",
                    procedure=procedure,
                    scorer_options=words,
                    primary_metric=metric,
                )
            except SpecError:
                report.add(
                    "not_imported",
                    subject,
                    f"{metric} is not computed by the task's scoring",
                    column.where,
                )
                continue
            chosen = metric
        named = NAMES_A_DATASET.search(column.label) if subcorpus is None else None
        report.add(
            "imported",
            subject,
            f"{metric_label(metric)}"
            + (f" on {subcorpus}" if subcorpus else "")
            + (f" (it names {named.group(0).strip()}, which no phase holds)" if named else ""),
            column.where,
        )
    return chosen


def _key_kind(keys: list[tuple[Path, str]]) -> str:
    """The task kind the gold keys' format says (CorefUD for CoNLL-U keys only), or ""."""
    formats = {
        detect_format(str(path)) or ("corefud" if path.suffix.lower() == ".conllu" else "ua")
        for path, _ in keys
    }
    return Task.Kind.COREFUD if formats == {"corefud"} else Task.Kind.IDENTITY if formats else ""
