"""A definition file (YAML, docs/competition-definition.md) read into a `CompetitionSpec`.

The file is data only (a safe loader: nothing in it is ever executed), at most
``Limits.definition_bytes`` long, and read by `competition.untrusted.yaml_read`: its depth,
its values as written and once its aliases are expanded are bounded before it is built.
Types are checked here, with errors naming the file and the place in it (``tasks[0].phases[1]:
'counts' is 'newest'; expected one of best, latest, chosen``); the rules are the spec's.
Every path the file names goes through `DefinitionFiles`, which keeps it inside the
definition's folder.
"""

from __future__ import annotations

import builtins
from collections.abc import Mapping
from datetime import datetime
from pathlib import PurePosixPath
from typing import Any

import yaml
from django.utils.dateparse import parse_datetime

from competition.definition.files import DefinitionFiles
from competition.definition.spec import (
    PHASE_FIELDS,
    UNSET,
    BaselineSpec,
    CardQuestionSpec,
    Checked,
    CompetitionSpec,
    KeyFile,
    Limits,
    PhaseSpec,
    SpecError,
    StoredKey,
    SubCorpusSpec,
    TaskSpec,
    TrackSpec,
)
from competition.errors import DefinitionError
from competition.timezones import in_zone
from competition.untrusted import yaml_read

YAML_NAMES = {"leaderboard_visibility": "leaderboard"}
"""A phase's fields whose key in a definition is not their model name."""

DATES = ("start", "end", "revealed_at")
UNTYPED = ("show_own_scores_when_hidden", "daily_limit", "total_limit")


class _Reader:
    """Typed access to one mapping of the definition, with errors that say where."""

    def __init__(self, data: Any, where: str, name: str) -> None:
        if not isinstance(data, Mapping):
            raise DefinitionError(name, f"{where} must be a mapping")
        self.data, self.where, self.name = data, where, name

    def fail(self, reason: str) -> DefinitionError:
        return DefinitionError(self.name, f"{self.where}: {reason}")

    def at(self, data: Any, where: str) -> _Reader:
        return _Reader(data, where, self.name)

    def str(self, key: str, default: str | None = None) -> str:
        value = self.data.get(key, default)
        if value is None:
            raise self.fail(f"'{key}' is required")
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise self.fail(f"'{key}' must be text")
        return str(value).strip()

    # (below, `str` and `bool` name these methods: the types are spelled `builtins.`)
    def raw(self, key: builtins.str, default: Any = None) -> Any:
        return self.data.get(key, default)

    def bool(self, key: builtins.str, default: builtins.bool | None) -> builtins.bool | None:
        value = self.data.get(key, default)
        if value is not default and not isinstance(value, bool):
            raise self.fail(f"'{key}' must be true or false, not {value!r}")
        return value

    def datetime(self, key: builtins.str) -> datetime | None:
        value = self.data.get(key)
        if value is None:
            return None
        parsed = value if isinstance(value, datetime) else parse_datetime(str(value))
        if parsed is None or parsed.tzinfo is None:
            raise self.fail(
                f"'{key}' must be an ISO 8601 date and time with a time zone, "
                f"like 2021-04-01T00:00:00Z, not {value!r}"
            )
        return parsed

    def list(self, key: builtins.str, *, required: builtins.bool = False) -> list:
        value = self.data.get(key)
        if value is None:
            if required:
                raise self.fail(f"'{key}' is required")
            return []
        if not isinstance(value, list):
            raise self.fail(f"'{key}' must be a list")
        return value

    def build(self, part: type[Checked], /, **values: Any) -> Any:
        """A spec part held to its rules, their refusals said at this place."""
        try:
            return part.checked(**values)
        except SpecError as exc:
            raise self.fail(exc.message) from None


def definition_read(files: DefinitionFiles, *, slug: str | None = None) -> CompetitionSpec:
    """The spec of the definition ``files.definition``; raises `DefinitionError` naming
    ``files.name`` and the place in the file. ``slug``: the competition the file must
    define (an upload on that competition's page), checked before any file it names is."""
    limits = Limits.current()
    name = files.name
    try:
        size = files.definition.stat().st_size
    except FileNotFoundError:
        raise DefinitionError(name, "file not found") from None
    if size > limits.definition_bytes:
        raise DefinitionError(
            name,
            f"the definition is {size} bytes; the limit is "
            f"{limits.definition_bytes} bytes (name long pages as files)",
        )
    raw = files.definition.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DefinitionError(name, f"not valid YAML: not UTF-8 text ({exc})") from None
    try:
        data = yaml_read(text, name=name)
    except yaml.YAMLError as exc:
        raise DefinitionError(name, f"not valid YAML: {exc}") from None
    top = _Reader(data, "the file", name)
    head = {
        "slug": top.str("slug"),
        "title": top.str("title"),
        "description": _given(top, "description"),
        "website": _given(top, "website"),
    }
    if slug is not None and head["slug"] != slug:
        raise DefinitionError(
            name, f"'slug' is {head['slug']!r}; this page edits {slug!r} (expected slug: {slug})"
        )
    tasks = top.list("tasks", required=True)
    if not tasks:
        raise top.fail("'tasks' must list at least one task")
    pages = _pages(top, files=files, limits=limits)
    return top.build(
        CompetitionSpec,
        **head,
        organizers=tuple(str(user) for user in top.list("organizers")),
        team_approval=top.bool("team_approval", None),
        published=top.bool("published", None),
        pages=pages,
        tasks=tuple(
            _task(top.at(raw_task, f"tasks[{index}]"), files=files, limits=limits)
            for index, raw_task in enumerate(tasks)
        ),
        baselines=tuple(
            _baseline(top.at(raw, f"baselines[{index}]"), files=files)
            for index, raw in enumerate(top.list("baselines"))
        ),
        card_questions=_card_questions(top),
    )


def _card_questions(top: _Reader) -> tuple[CardQuestionSpec, ...] | None:
    """``system_card``: the questions a team answers per run; absent: kept as they are."""
    if "system_card" not in top.data:
        return None
    questions = []
    for index, raw in enumerate(top.list("system_card")):
        reader = top.at(raw, f"system_card[{index}]")
        choices = reader.raw("choices", [])
        if not isinstance(choices, list):
            raise reader.fail("'choices' must be a list")
        when = reader.raw("when", {})
        if not isinstance(when, Mapping):
            raise reader.fail("'when' must map a question to its answer, e.g. {llm: yes}")
        questions.append(
            reader.build(
                CardQuestionSpec,
                slug=reader.str("slug"),
                text=reader.str("text"),
                kind=reader.str("kind", "text"),
                choices=tuple(str(c) for c in choices),
                required=bool(reader.bool("required", False)),
                on_board=bool(reader.bool("on_board", False)),
                when=tuple((str(slug), _answer_word(answer)) for slug, answer in when.items()),
            )
        )
    return tuple(questions)


def _answer_word(answer: object) -> str:
    """YAML reads ``yes`` and ``no`` as booleans: they stand for the answers yes and no."""
    if isinstance(answer, bool):
        return "yes" if answer else "no"
    return str(answer)


def _pages(top: _Reader, *, files: DefinitionFiles, limits: Limits) -> dict[str, str]:
    """``pages``: Markdown text or ``{file: path}`` per page kind."""
    raw = top.data.get("pages")
    if raw is None:
        return {}
    pages = top.at(raw, "pages")
    bodies: dict[str, str] = {}
    for kind, value in pages.data.items():
        if isinstance(value, Mapping):
            relative = pages.at(value, f"pages.{kind}").str("file")
            bodies[str(kind)] = files.read_text(
                relative, where=f"pages.{kind}", what="file", limit=limits.page_bytes
            )
        elif isinstance(value, str):
            bodies[str(kind)] = value
        else:
            raise pages.fail(
                f"{kind}: expected Markdown text or {{file: path}}, not {type(value).__name__}"
            )
    return bodies


def _task(reader: _Reader, *, files: DefinitionFiles, limits: Limits) -> TaskSpec:
    options = reader.raw("scorer_options", UNSET)  # UNSET: left out, the stored ones kept
    if (
        options is not None
        and options is not UNSET
        and (not isinstance(options, list) or not all(isinstance(word, str) for word in options))
    ):
        raise reader.fail("'scorer_options' must be a list of scorer option words")
    tracks = tuple(
        reader.at(raw, f"{reader.where}.tracks[{index}]").build(
            TrackSpec,
            slug=_str(reader, raw, "slug", index, "tracks"),
            name=_str(reader, raw, "name", index, "tracks"),
            description=_given(reader.at(raw, f"{reader.where}.tracks[{index}]"), "description"),
        )
        for index, raw in enumerate(reader.list("tracks"))
    )
    phases = reader.list("phases", required=True)
    return reader.build(
        TaskSpec,
        slug=reader.str("slug"),
        kind=reader.str("kind"),
        title=reader.str("title"),
        description=_given(reader, "description"),
        procedure=_given(reader, "procedure"),
        scorer_options=tuple(options) if isinstance(options, list) else options,
        primary_metric=_given(reader, "primary_metric"),
        tracks=tracks if "tracks" in reader.data else None,
        phases=tuple(
            _phase(reader.at(raw, f"{reader.where}.phases[{index}]"), files=files, limits=limits)
            for index, raw in enumerate(phases)
        ),
    )


def _given(reader: _Reader, key: str) -> Any:
    """An optional text the file gives, or UNSET when it leaves the key out: what the
    database holds is then kept (a new part takes the empty default)."""
    return reader.str(key, "") if key in reader.data else UNSET


def _str(
    reader: _Reader, raw: Any, key: str, index: int, level: str, default: str | None = None
) -> str:
    return reader.at(raw, f"{reader.where}.{level}[{index}]").str(key, default)


def _phase(reader: _Reader, *, files: DefinitionFiles, limits: Limits) -> PhaseSpec:
    """A phase: its fields (`PHASE_FIELDS`, named in the file as `YAML_NAMES` says); a
    field the file leaves out takes the spec's default (``revealed_at``: kept as it is)."""
    values: dict[str, Any] = {}
    for name in PHASE_FIELDS:
        key = YAML_NAMES.get(name, name)
        if key not in reader.data:
            if name in ("kind", "title", "start"):
                raise reader.fail(f"'{key}' is required")
            continue
        if name in DATES:
            values[name] = reader.datetime(key)
        elif name in UNTYPED:
            values[name] = reader.raw(key)  # a number or true/false: the spec checks it
        else:
            values[name] = reader.str(key)
    return reader.build(
        PhaseSpec,
        slug=reader.str("slug"),
        **values,
        subcorpora=tuple(
            _subcorpus(
                reader.at(raw, f"{reader.where}.subcorpora[{index}]"), files=files, limits=limits
            )
            for index, raw in enumerate(reader.list("subcorpora", required=True))
        ),
    )


def _subcorpus(reader: _Reader, *, files: DefinitionFiles, limits: Limits) -> SubCorpusSpec:
    available = reader.bool("available", True)
    key: KeyFile | StoredKey | None = None
    if available:
        relative = reader.str("key")
        key = files.stored_key(relative)
        if key is None:
            path = files.resolve(
                relative, where=f"{reader.where}.key", what="key file", limit=limits.key_bytes
            )
            key = KeyFile(
                path=path,
                label=PurePosixPath(relative).name or relative,
                sha256=files.digests.get(files.relative(path), ""),
            )
    return reader.build(
        SubCorpusSpec,
        name=reader.str("name"),
        available=available,
        language=_given(reader, "language"),
        file_name=_given(reader, "file"),
        key=key,
    )


def _baseline(reader: _Reader, *, files: DefinitionFiles) -> BaselineSpec:
    raw = reader.raw("files")
    if not isinstance(raw, Mapping) or not raw:
        raise reader.fail("'files' must map sub-corpus names to response files")
    paths = tuple(
        (str(label), files.resolve(relative, where=f"{reader.where}.files.{label}"))
        for label, relative in raw.items()
    )
    return BaselineSpec(
        name=reader.str("name"),
        phase=reader.str("phase"),
        description=reader.str("description", ""),
        files=paths,
    )


# --- a spec written as a definition -------------------------------------------------------


def _phase_data(phase: PhaseSpec) -> dict[str, Any]:
    item: dict[str, Any] = {"slug": phase.slug}
    for name in PHASE_FIELDS:
        value = getattr(phase, name)
        if value is UNSET:
            continue
        if name in DATES:
            if value is None:
                continue
            value = in_zone(value, phase.time_zone).isoformat()
        item[YAML_NAMES.get(name, name)] = value
    item["subcorpora"] = []
    for sub in phase.subcorpora or ():
        entry: dict[str, Any] = {"name": sub.name}
        if sub.language:
            entry["language"] = sub.language
        if sub.file_name:
            entry["file"] = sub.file_name
        if sub.available and isinstance(sub.key, KeyFile):
            entry["key"] = sub.key.label
        elif not sub.available:
            entry["available"] = False
        item["subcorpora"].append(entry)
    return item


def definition_data(spec: CompetitionSpec) -> dict[str, Any]:
    """A spec as the data of a definition file (docs/competition-definition.md): what
    `definition_read` reads back into the same spec. Keys are named by their labels."""
    tasks = []
    for task in spec.tasks:
        entry: dict[str, Any] = {"slug": task.slug, "kind": task.kind, "title": task.title}
        if task.description:
            entry["description"] = task.description
        if task.procedure:
            entry["procedure"] = task.procedure
        else:
            entry["scorer_options"] = list(task.scorer_options or ())
        entry["primary_metric"] = task.primary_metric
        if task.tracks:
            entry["tracks"] = [
                {
                    "slug": t.slug,
                    "name": t.name,
                    **({"description": t.description} if t.description else {}),
                }
                for t in task.tracks
            ]
        entry["phases"] = [_phase_data(phase) for phase in task.phases or ()]
        tasks.append(entry)
    data: dict[str, Any] = {"slug": spec.slug, "title": spec.title}
    if spec.description:
        data["description"] = spec.description
    if spec.website:
        data["website"] = spec.website
    data["organizers"] = list(spec.organizers)
    if spec.published is not None:
        data["published"] = spec.published
    data["tasks"] = tasks
    if spec.card_questions:
        data["system_card"] = [
            {
                "slug": q.slug,
                "text": q.text,
                "kind": q.kind,
                **({"choices": list(q.choices)} if q.choices else {}),
                "required": q.required,
                "on_board": q.on_board,
                **({"when": dict(q.when)} if q.when else {}),
            }
            for q in spec.card_questions
        ]
    return data
