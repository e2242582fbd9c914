"""Gold keys are read like uploads and checked against their task, by every writer of a
competition (the YAML loader, the definition upload, the editor's form); the rules that had
drifted apart between those writers now hold in each: a key is never a participant's data
file (by content: line endings, trailing blanks, inside a zip), a task that names no scoring
gets its kind's procedure, and a phase has one list of fields."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile

from competition.definition import editor
from competition.definition.spec import PHASE_FIELDS
from competition.definition.upload import (
    competition_definition_upload,
    competition_definition_yaml,
)
from competition.definition.yaml_io import YAML_NAMES
from competition.errors import CompetitionError
from competition.forms_editor import PhaseForm
from competition.models import Competition, Phase, SubCorpus, Task
from competition.services import competition_load
from tests.conftest import KEY_DOCS, conllua

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[3]
COREFUD_KEY = (ROOT / "fixtures" / "corefud" / "key" / "zeros-corefud-test.conllu").read_bytes()
UA_KEY = conllua(KEY_DOCS["light"]).encode()

DEFINITION = """\
slug: keys
title: Keys
organizers: [olga]
tasks:
  - slug: task
    kind: {kind}
    title: Task
    phases:
      - slug: dev
        kind: development
        title: Development
        start: 2026-01-01T00:00:00Z
        subcorpora:
          - name: LIGHT
            key: {key}
"""


def missing_identity_cell() -> bytes:
    """A CONLL-UA key whose one-token markable line lost its IDENTITY cell (the scorer's
    plain reader drops the markable silently; the upload validator refuses the line)."""
    lines = UA_KEY.decode().splitlines()
    index = next(i for i, line in enumerate(lines) if line.startswith("6\the\t"))
    lines[index] = "\t".join(lines[index].split("\t")[:10])
    return ("\n".join(lines) + "\n").encode()


@pytest.fixture
def olga(db):
    return get_user_model().objects.create_user("olga", password="pw-olga-123")


def via_yaml(tmp_path: Path, kind: str, name: str, data: bytes) -> None:
    folder = tmp_path / "yaml"
    folder.mkdir(exist_ok=True)
    (folder / name).write_bytes(data)
    (folder / "keys.yaml").write_text(DEFINITION.format(kind=kind, key=name), encoding="utf-8")
    competition_load(path=folder / "keys.yaml", with_baselines=False)


def via_upload(tmp_path: Path, kind: str, name: str, data: bytes) -> None:
    competition = Competition.objects.filter(slug="keys").first() or editor.competition_create(
        slug="keys", title="Keys", owner="olga"
    )
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        zf.writestr("keys.yaml", DEFINITION.format(kind=kind, key=f"keys/{name}"))
        zf.writestr(f"keys/{name}", data)
    competition_definition_upload(
        competition=competition, upload=SimpleUploadedFile("keys.zip", buffer.getvalue())
    )


def via_editor(tmp_path: Path, kind: str, name: str, data: bytes) -> None:
    competition = Competition.objects.filter(slug="keys").first() or editor.competition_create(
        slug="keys", title="Keys", owner="olga"
    )
    task = (
        Task.objects.filter(competition=competition, slug="task").first()
        or editor.task_save(competition=competition, slug="task", kind=kind, title="Task")[0]
    )
    phase = Phase.objects.filter(task=task, slug="dev").first() or editor.phase_save(
        task=task,
        slug="dev",
        kind="development",
        title="Development",
        start=datetime(2026, 1, 1, tzinfo=UTC),
    )
    subcorpus = SubCorpus.objects.filter(phase=phase, slug="light").first()
    editor.subcorpus_save(
        phase=phase, subcorpus=subcorpus, name="LIGHT", key=SimpleUploadedFile(name, data)
    )


WRITERS: dict[str, Callable[[Path, str, str, bytes], None]] = {
    "yaml": via_yaml,
    "upload": via_upload,
    "editor": via_editor,
}


KEY_CASES = [
    (
        "corefud-key-for-ua-task",
        "identity",
        "light.conllu",
        COREFUD_KEY,
        "light.conllu is compact CONLL-U (CorefUD), but the task task reads exploded CONLL-UA "
        "(expected a gold key in exploded CONLL-UA)",
    ),
    (
        "ua-key-for-corefud-task",
        "corefud",
        "light.conllua",
        UA_KEY,
        "light.conllua is exploded CONLL-UA, but the task task reads compact CONLL-U (CorefUD) "
        "(expected a gold key in compact CONLL-U (CorefUD))",
    ),
    (
        "missing-identity-cell",
        "identity",
        "light.conllua",
        missing_identity_cell(),
        "light.conllua:13: document 'light_1': the token line has 10 columns; the IDENTITY "
        "column is missing",
    ),
    (
        "bridging-key-without-bridging",
        "bridging",
        "light.conllu",
        COREFUD_KEY,
        "is compact CONLL-U (CorefUD), but the task task reads exploded CONLL-UA",
    ),
]


@pytest.mark.parametrize("writer", list(WRITERS))
@pytest.mark.parametrize(
    ("case", "kind", "name", "data", "expected"), KEY_CASES, ids=[case[0] for case in KEY_CASES]
)
def test_a_key_the_task_cannot_read_is_refused_by_every_writer(
    tmp_path, olga, settings, writer, case, kind, name, data, expected
):
    with pytest.raises(CompetitionError) as refused:
        WRITERS[writer](tmp_path, kind, name, data)
    assert expected in refused.value.message
    assert str(tmp_path) not in refused.value.message.removeprefix(str(tmp_path / "yaml"))
    assert not SubCorpus.objects.exclude(key_file="").exists()
    keys = settings.PRIVATE_ROOT / "keys"
    assert not keys.exists() or not any(keys.iterdir())


@pytest.mark.parametrize("writer", list(WRITERS))
@pytest.mark.parametrize(
    ("kind", "name", "data"),
    [("identity", "light.conllua", UA_KEY), ("corefud", "zeros.conllu", COREFUD_KEY)],
)
def test_a_key_in_the_tasks_format_is_stored_with_its_documents(
    tmp_path, olga, writer, kind, name, data
):
    WRITERS[writer](tmp_path, kind, name, data)
    subcorpus = SubCorpus.objects.get(slug="light")
    assert subcorpus.key_path.read_bytes() == data
    assert subcorpus.documents and len(subcorpus.sha256) == 64
    assert len(subcorpus.content_sha256) == 64


# --- a key is never a participant's data file, by content ---------------------------------


def crlf_with_blanks(data: bytes) -> bytes:
    return b"".join(line + b"  \r\n" for line in data.split(b"\n")) + b"\r\n\r\n"


def zipped(data: bytes) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        zf.writestr("README.txt", "development data")
        zf.writestr("light_dev.conllua", data)
    return buffer.getvalue()


OTHER_KEY = conllua(KEY_DOCS["ami"]).encode()


@pytest.mark.parametrize("writer", list(WRITERS))
@pytest.mark.parametrize(
    ("shape", "file_name"),
    [(crlf_with_blanks, "light_dev.conllua"), (zipped, "light_dev.zip")],
    ids=["line-endings-and-blanks", "inside-a-zip"],
)
def test_a_key_with_a_data_files_content_is_refused_by_every_writer(
    tmp_path, olga, writer, shape, file_name
):
    WRITERS[writer](tmp_path, "identity", "ami.conllua", OTHER_KEY)
    phase = Phase.objects.get(slug="dev")
    editor.phase_data_attach(phase=phase, upload=SimpleUploadedFile(file_name, shape(UA_KEY)))
    with pytest.raises(CompetitionError) as refused:
        WRITERS[writer](tmp_path, "identity", "light.conllua", UA_KEY)
    assert f"is identical to the data file {file_name} of phase task/dev" in refused.value.message
    assert SubCorpus.objects.get(slug="light").documents[0]["name"] == "ami_1"


@pytest.mark.parametrize(
    "shape", [crlf_with_blanks, zipped], ids=["line-endings-and-blanks", "inside-a-zip"]
)
def test_a_data_file_with_a_keys_content_is_refused(tmp_path, olga, shape):
    via_editor(tmp_path, "identity", "light.conllua", UA_KEY)
    phase = Phase.objects.get(slug="dev")
    with pytest.raises(editor.EditorError) as refused:
        editor.phase_data_attach(phase=phase, upload=SimpleUploadedFile("dev.bin", shape(UA_KEY)))
    assert refused.value.message == (
        "dev.bin is identical to the gold key of task/dev/LIGHT; "
        "keys are never given to participants (only a development phase's own key, "
        "marked as its public key)."
    )
    assert not phase.data_files.exists()


# --- a task that names no scoring: its kind's procedure, by every writer ------------------


@pytest.mark.parametrize("writer", list(WRITERS))
def test_a_corefud_task_naming_no_scoring_gets_the_kinds_procedure(tmp_path, olga, writer):
    WRITERS[writer](tmp_path, "corefud", "zeros.conllu", COREFUD_KEY)
    task = Task.objects.get(slug="task")
    assert (task.procedure, task.primary_metric) == ("crac-2025", "conll")


def test_the_editor_keeps_the_kinds_procedure_when_a_task_is_saved_again(olga):
    """The editor used to apply the kind's procedure only when it created a task; saving the
    task again with blank scoring dropped it. The rule is now the loader's too."""
    competition = editor.competition_create(slug="keys", title="Keys", owner="olga")
    task, _ = editor.task_save(competition=competition, slug="task", kind="identity", title="Task")
    saved, _ = editor.task_save(
        competition=competition, task=task, slug="task", kind="corefud", title="Task"
    )
    assert (saved.procedure, saved.scorer_options) == ("crac-2025", [])
    again, _ = editor.task_save(
        competition=competition, task=saved, slug="task", kind="bridging", title="Task"
    )
    assert (again.procedure, again.scorer_options, again.primary_metric) == (
        "",
        ["keep_bridging"],
        "bridging_entity",
    )


# --- one list of a phase's fields ---------------------------------------------------------


def test_a_phase_has_one_list_of_fields_in_every_writer(tmp_path, olga):
    assert set(PhaseForm.base_fields) - {"slug"} == set(PHASE_FIELDS)
    folder = tmp_path / "yaml"
    folder.mkdir()
    (folder / "light.conllua").write_bytes(UA_KEY)
    text = DEFINITION.format(kind="identity", key="light.conllua").replace(
        "start: 2026-01-01T00:00:00Z\n",
        "start: 2026-01-01T00:00:00-12:00\n        end: 2026-02-01T23:59:59-12:00\n"
        "        leaderboard: hidden\n        revealed_at: 2026-03-01T00:00:00Z\n"
        "        show_own_scores_when_hidden: true\n        run_details: team\n"
        "        daily_limit: 2\n        total_limit: 7\n        counts: chosen\n"
        "        missing: zero\n",
    )
    (folder / "keys.yaml").write_text(text, encoding="utf-8")
    competition_load(path=folder / "keys.yaml")
    loaded = Phase.objects.get(slug="dev")
    assert loaded.time_zone == "AoE"  # the default: dates written at UTC−12
    values = {name: getattr(loaded, name) for name in PHASE_FIELDS}
    made = editor.phase_save(task=loaded.task, slug="copy", **values)
    assert {name: getattr(made, name) for name in PHASE_FIELDS} == values
    posted = {
        name: value.strftime("%Y-%m-%dT%H:%M:%S") if isinstance(value, datetime) else value
        for name, value in PhaseForm.initial_for(loaded).items()
        if value is not None and value is not False
    }
    form = PhaseForm({**posted, "slug": "form"})
    assert form.is_valid(), form.errors
    assert form.phase_fields() == values
    # The download writes the same fields, under the names the loader reads.
    downloaded = yaml.safe_load(competition_definition_yaml(competition=loaded.task.competition))
    written = downloaded["tasks"][0]["phases"][0]
    assert set(written) == {"slug", "subcorpora"} | {
        YAML_NAMES.get(name, name) for name in PHASE_FIELDS
    }


@pytest.mark.parametrize(
    ("kind", "path"),
    [
        ("identity", ROOT / "fixtures" / "data" / "codi-crac21" / "light_test.CONLLUA"),
        ("corefud", ROOT / "fixtures" / "corefud" / "key" / "en_gum-corefud-test.conllu"),
        ("corefud", ROOT / "fixtures" / "corefud" / "key" / "zeros-corefud-test.conllu"),
    ],
)
def test_the_documents_the_validator_records_are_the_readers(olga, kind, path):
    """A key's documents are taken from the validator's own reading of it: the same names
    and token counts as the scorer's reader gives."""
    from competition.definition.keys import key_documents, key_problems

    competition = editor.competition_create(slug="keys", title="Keys", owner="olga")
    task, _ = editor.task_save(competition=competition, slug="task", kind=kind, title="Task")
    read: list[tuple[str, int]] = []
    assert key_problems(path, task=task, label=path.name, documents=read) == []
    assert read and [{"name": name, "tokens": tokens} for name, tokens in read] == list(
        key_documents(path, task=task, label=path.name)
    )
