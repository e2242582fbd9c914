"""The hostile-input corpus (tests/data/hostile/corpus.py) against every door that reads it.

Each case goes through each door that takes its kind: YAML through the definition upload
(alone and as a zip's competition.yaml), ``load_competition``, the bundle import (browser
and command, as the bundle's competition.yaml) and ``import_reference_results``; zips through
the definition upload, the bundle import and a team's run upload; CSV tables through the
results import (browser and command). Every one must end in a refusal the client can read
(a 4xx page naming the uploaded file, or the command's error naming it), never a server
error, with no file left behind and nothing created. The time bound (`RUNAWAY`) is a guard
against a runaway reader, generous for a shared machine, not a speed claim.
"""

from __future__ import annotations

import importlib.util
import io
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse

from competition.models import AuditEntry, Competition, SubCorpus, Submission

pytestmark = pytest.mark.django_db

RUNAWAY = 10.0  # seconds: a guard against a reader that runs away, not a speed claim

_spec = importlib.util.spec_from_file_location(
    "hostile_corpus", Path(__file__).resolve().parents[2] / "data" / "hostile" / "corpus.py"
)
corpus = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(corpus)

YAML = corpus.yaml_cases()
ZIPS = corpus.zip_cases()
CSVS = corpus.csv_cases()


def _files(settings) -> set[Path]:
    return {
        path
        for root in (Path(settings.MEDIA_ROOT), Path(settings.PRIVATE_ROOT))
        if root.exists()
        for path in root.rglob("*")
        if path.is_file()
    }


def _state() -> tuple:
    """What a refused upload must leave as it was."""
    return (
        Competition.objects.count(),
        list(Competition.objects.values_list("slug", "title", "description")),
        SubCorpus.objects.count(),
        Submission.objects.count(),
        list(Competition.objects.get(slug="codi-test").organizers.values_list("pk", flat=True)),
        AuditEntry.objects.exclude(action=AuditEntry.Action.ORGANIZER_ADDED).count(),
    )


@pytest.fixture
def doors(world, client, settings, tmp_path):
    """The world's competition, owned by ``olga``; ``staff`` imports bundles."""
    User = get_user_model()
    olga = User.objects.create_user("olga", password="pw-olga-123")
    User.objects.create_user("staff", password="pw-staff-123", is_staff=True)
    world.competition.owner = olga
    world.competition.save(update_fields=["owner"])
    world.competition.organizers.add(olga)
    return Doors(world=world, client=client, settings=settings, tmp=tmp_path)


class Doors:
    def __init__(self, *, world, client, settings, tmp: Path) -> None:
        self.world, self.client, self.settings, self.tmp = world, client, settings, tmp

    # --- the browser ------------------------------------------------------------------------

    def definition_upload(self, name: str, data: bytes):
        self.client.login(username="olga", password="pw-olga-123")
        return self.client.post(
            reverse("competition:edit", args=["codi-test"]),
            {"action": "upload", "definition": SimpleUploadedFile(name, data)},
        )

    def bundle_browser(self, name: str, data: bytes):
        self.client.login(username="staff", password="pw-staff-123")
        return self.client.post(
            reverse("competition:bundle_import"),
            {"bundle": SimpleUploadedFile(name, data), "owner": "olga", "slug": "hostile"},
        )

    def results_browser(self, name: str, data: bytes):
        self.client.login(username="olga", password="pw-olga-123")
        return self.client.post(
            reverse("competition:bundle_results", args=["codi-test"]),
            {
                "phase": str(self.world.phase.pk),
                "results": SimpleUploadedFile(name, data),
                "source": "the old server",
                "unit": "auto",
            },
        )

    def submission_upload(self, name: str, data: bytes):
        self.client.login(username="alice", password="alice-pw-123!")
        return self.client.post(
            reverse("competition:submit", args=["codi-test", "identity", "dev"]),
            {"archive": SimpleUploadedFile(name, data), "run_name": "hostile"},
        )

    # --- the command line -------------------------------------------------------------------

    def _file(self, name: str, data: bytes) -> Path:
        path = self.tmp / "given" / name
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(data)
        return path

    def load_command(self, name: str, data: bytes):
        call_command("load_competition", str(self._file(name, data)), stdout=io.StringIO())

    def bundle_command(self, name: str, data: bytes):
        path = self._file(name, data)
        call_command("import_bundle", str(path), "--owner", "olga", stdout=io.StringIO())

    def results_command(self, name: str, data: bytes):
        path = self._file(name, data)
        call_command(
            "import_bundle_results",
            "codi-test",
            "identity/dev",
            str(path),
            "--source",
            "the old server",
            stdout=io.StringIO(),
        )

    def references_command(self, name: str, data: bytes):
        call_command("import_reference_results", str(self._file(name, data)), stdout=io.StringIO())


def _as_zip(member: str) -> Callable[[bytes], bytes]:
    return lambda data: corpus._zip([(member, data)])


BROWSER = {"definition_upload", "bundle_browser", "results_browser", "submission_upload"}

# (door, how a case becomes its upload, the suffix of the upload's name)
YAML_DOORS = [
    ("definition_upload", None, "yaml"),
    ("definition_upload", _as_zip("competition.yaml"), "zip"),
    ("load_command", None, "yaml"),
    ("bundle_browser", _as_zip("competition.yaml"), "zip"),
    ("bundle_command", _as_zip("competition.yaml"), "zip"),
    ("references_command", None, "yaml"),
]
ZIP_DOORS = [
    ("definition_upload", None, "zip"),
    ("bundle_browser", None, "zip"),
    ("bundle_command", None, "zip"),
    ("submission_upload", None, "zip"),
]
CSV_DOORS = [("results_browser", None, "csv"), ("results_command", None, "csv")]

CASES = [
    pytest.param(door, wrap, suffix, case, data, id=f"{door}-{suffix}-{case}")
    for cases, doors_of_kind in ((YAML, YAML_DOORS), (ZIPS, ZIP_DOORS), (CSVS, CSV_DOORS))
    for door, wrap, suffix in doors_of_kind
    for case, data in cases.items()
]


def _names_it(page: str, name: str, door: str) -> bool:
    """The refusal on the page names the upload (a run's page: says it was rejected, and
    why); an empty file is Django's own refusal of the field."""
    if "The submitted file is empty." in page:
        return True
    if door == "submission_upload":
        return "Your run was not accepted" in page
    return name in page


@pytest.mark.parametrize(("door", "wrap", "suffix", "case", "data"), CASES)
def test_every_door_refuses_every_hostile_case(doors, door, wrap, suffix, case, data):
    _refused(doors, door, wrap, suffix, case, data)


@pytest.mark.services
@pytest.mark.parametrize(
    ("door", "wrap", "suffix", "case", "data"),
    [case for case in CASES if "nul" in case.id or "huge" in case.id],
)
def test_on_postgresql_too(doors, services_ready, door, wrap, suffix, case, data):
    """PostgreSQL refuses a NUL in text where SQLite stores it: the cases that reached it as
    a server error, on the real database."""
    _refused(doors, door, wrap, suffix, case, data)


def _refused(doors, door, wrap, suffix, case, data) -> None:
    name = f"hostile-{case}.{suffix}"
    upload = wrap(data) if wrap else data
    before, files = _state(), _files(doors.settings)
    started = time.monotonic()
    if door in BROWSER:
        response = getattr(doors, door)(name, upload)
        elapsed = time.monotonic() - started
        assert 400 <= response.status_code < 500, response.status_code
        assert len(response.content) < 200_000  # the refusal is short, not the upload again
        page = response.content.decode().replace("&#x27;", "'")
        assert _names_it(page, name, door), page[-3000:]
    else:
        with pytest.raises(CommandError) as refused:
            getattr(doors, door)(name, upload)
        elapsed = time.monotonic() - started
        assert name in str(refused.value), str(refused.value)
    assert elapsed < RUNAWAY, f"{elapsed:.1f} s"
    assert _state() == before
    assert _files(doors.settings) <= files | set()  # nothing left behind
    tmp = Path(doors.settings.PRIVATE_ROOT) / "tmp"
    assert not tmp.exists() or not any(tmp.iterdir())


def test_the_corpus_holds_the_issues_cases():
    """The cases the issue names, so that a corpus trimmed later cannot drop them."""
    assert {"deep-lists", "deep-mappings", "billion-laughs", "nul-escaped"} <= set(YAML)
    assert {"file-then-folder", "long-name", "many-members"} <= set(ZIPS)
    assert {"nul-in-cell", "huge-cell"} <= set(CSVS)
    assert len(YAML["deep-lists"]) > 200_000
