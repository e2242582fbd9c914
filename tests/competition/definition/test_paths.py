"""Nothing outside the definition: every path a definition names (a page, a gold key, a
baseline's run) is a regular file inside the YAML's own folder (``manage.py
load_competition``) or inside the upload (the editor page), and every refusal names the
definition and the key that named the path, never a path of the server."""

from __future__ import annotations

import io
import os
import stat
import zipfile
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse

from competition.definition import editor
from competition.errors import DefinitionError
from competition.models import Competition, CompetitionPage
from competition.services import competition_load
from tests.conftest import KEY_DOCS, conllua

pytestmark = pytest.mark.django_db

DEFINITION = """\
slug: paths
title: Paths
organizers: [olga]
pages:
  overview: {{file: {page}}}
tasks:
  - slug: identity
    kind: identity
    title: Identity
    phases:
      - slug: dev
        kind: development
        title: Development
        start: 2026-01-01T00:00:00Z
        subcorpora:
          - name: LIGHT
            key: {key}
"""

OUTSIDE = "SECRET_KEY=do-not-serve\n"


def make_folder(tmp_path: Path) -> Path:
    """A definition's folder with a page and a key, and a secret next to (not in) it."""
    folder = tmp_path / "definition"
    (folder / "pages").mkdir(parents=True)
    (folder / "keys").mkdir()
    (folder / "pages" / "overview.md").write_text("Welcome.", encoding="utf-8")
    (folder / "keys" / "light.conllua").write_text(conllua(KEY_DOCS["light"]), encoding="utf-8")
    (tmp_path / "secret.env").write_text(OUTSIDE, encoding="utf-8")
    return folder


def the_definition(*, page: str = "pages/overview.md", key: str = "keys/light.conllua") -> str:
    return DEFINITION.format(page=page, key=key)


# (case, page or key, what the folder gets, what the refusal says)
CASES = [
    ("absolute", "page", "/etc/passwd", None, "points outside"),
    ("proc", "page", "/proc/self/environ", None, "points outside"),
    ("dotdot", "page", "../secret.env", None, "points outside"),
    ("dotdot-inside", "key", "keys/../../secret.env", None, "points outside"),
    ("absolute-key", "key", "/etc/passwd", None, "points outside"),
    ("symlink", "page", "pages/link.md", "symlink", "symbolic link"),
    ("symlinked-folder", "key", "linked/light.conllua", "symlinked-folder", "symbolic link"),
    ("fifo", "page", "pages/fifo.md", "fifo", "not a regular file"),
    ("directory", "page", "pages", None, "is a folder"),
    ("nul", "page", '"pages/over\\0view.md"', None, "NUL character"),
    ("missing", "key", "keys/nothing.conllua", None, "not found"),
    ("huge", "page", "pages/huge.md", "huge", "the limit is"),
    ("not-utf8", "page", "pages/latin1.md", "latin1", "not UTF-8 text"),
    ("nul-inside", "page", "pages/binary.md", "binary", "NUL character"),
]


def prepare(folder: Path, extra: str | None) -> None:
    outside = folder.parent / "secret.env"
    if extra == "symlink":
        os.symlink(outside, folder / "pages" / "link.md")
    elif extra == "symlinked-folder":
        os.symlink(folder / "keys", folder / "linked")
    elif extra == "fifo":
        os.mkfifo(folder / "pages" / "fifo.md")
    elif extra == "huge":
        (folder / "pages" / "huge.md").write_text("x" * (600 * 1024), encoding="utf-8")
    elif extra == "latin1":
        (folder / "pages" / "latin1.md").write_bytes("Café".encode("latin-1"))
    elif extra == "binary":
        (folder / "pages" / "binary.md").write_bytes(b"text\x00more")


def definition_with(which: str, value: str) -> str:
    return the_definition(page=value) if which == "page" else the_definition(key=value)


@pytest.fixture
def olga(db):
    return get_user_model().objects.create_user("olga", password="pw-olga-123")


@pytest.mark.parametrize(
    ("case", "which", "value", "extra", "expected"), CASES, ids=[case[0] for case in CASES]
)
def test_load_competition_refuses_paths_outside_its_folder(
    tmp_path, olga, case, which, value, extra, expected
):
    folder = make_folder(tmp_path)
    prepare(folder, extra)
    definition = folder / "competition.yaml"
    definition.write_text(definition_with(which, value), encoding="utf-8")
    with pytest.raises(DefinitionError) as refused:
        competition_load(path=definition)
    message = refused.value.message
    assert expected in message
    assert message.startswith(f"{definition}: ")  # the definition's own name …
    where = "pages.overview" if which == "page" else "tasks[0].phases[0].subcorpora[0].key"
    assert where in message  # … and the key that named the path
    assert str(folder.parent) not in message.removeprefix(str(definition))  # no server path
    assert OUTSIDE.strip() not in message
    assert not Competition.objects.exists()
    # The command says the same, as an error, not a traceback.
    with pytest.raises(CommandError, match=expected):
        call_command("load_competition", str(definition))


def test_the_same_folder_loads_when_every_path_is_inside(tmp_path, olga):
    folder = make_folder(tmp_path)
    definition = folder / "competition.yaml"
    definition.write_text(the_definition(), encoding="utf-8")
    competition_load(path=definition)
    page = CompetitionPage.objects.get(competition__slug="paths", kind="overview")
    assert page.body == "Welcome."


def test_a_20_mb_description_is_refused(tmp_path, olga):
    folder = make_folder(tmp_path)
    definition = folder / "competition.yaml"
    text = the_definition().replace(
        "title: Paths\n", "title: Paths\ndescription: " + "x" * (20 * 1024 * 1024) + "\n"
    )
    definition.write_text(text, encoding="utf-8")
    with pytest.raises(DefinitionError, match="the limit is 1048576 bytes"):
        competition_load(path=definition)
    assert not Competition.objects.exists()


def test_a_description_over_its_own_limit_is_refused(tmp_path, olga):
    folder = make_folder(tmp_path)
    definition = folder / "competition.yaml"
    text = the_definition().replace(
        "title: Paths\n", "title: Paths\ndescription: " + "x" * 30_000 + "\n"
    )
    definition.write_text(text, encoding="utf-8")
    with pytest.raises(DefinitionError) as refused:
        competition_load(path=definition)
    assert "'description' is 30000 characters long; the limit is 20000" in refused.value.message
    assert not Competition.objects.exists()


# --- the same through the browser upload -------------------------------------------------


def zip_of(members: dict[str, bytes], *, special: dict[str, int] | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
        for name, mode in (special or {}).items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (mode | 0o644) << 16
            zf.writestr(info, b"")
    return buffer.getvalue()


UPLOAD_CASES = [
    ("absolute", "page", "/etc/passwd", {}, "points outside the upload"),
    ("proc", "page", "/proc/self/environ", {}, "points outside the upload"),
    ("dotdot", "page", "../../../etc/passwd", {}, "points outside the upload"),
    ("absolute-key", "key", "/etc/passwd", {}, "points outside the upload"),
    ("symlink", "page", "pages/link.md", {"pages/link.md": stat.S_IFLNK}, "symbolic link"),
    ("device", "page", "pages/dev.md", {"pages/dev.md": stat.S_IFCHR}, "not a regular file"),
    ("fifo", "key", "keys/fifo", {"keys/fifo": stat.S_IFIFO}, "not a regular file"),
    ("directory", "page", "pages", {}, "is a folder"),
    ("nul", "page", '"pages/over\\0view.md"', {}, "NUL character"),
    ("missing", "key", "keys/nothing.conllua", {}, "not found in the upload"),
]


@pytest.mark.parametrize(
    ("case", "which", "value", "special", "expected"),
    UPLOAD_CASES,
    ids=[case[0] for case in UPLOAD_CASES],
)
def test_the_upload_refuses_paths_outside_the_zip(
    client, settings, olga, case, which, value, special, expected
):
    editor.competition_create(slug="paths", title="Paths", owner="olga")
    client.login(username="olga", password="pw-olga-123")
    archive = zip_of(
        {
            "competition.yaml": definition_with(which, value).encode(),
            "pages/overview.md": b"Welcome.",
            "keys/light.conllua": conllua(KEY_DOCS["light"]).encode(),
        },
        special=special,
    )
    response = client.post(
        reverse("competition:edit", args=["paths"]),
        {"action": "upload", "definition": SimpleUploadedFile("paths.zip", archive)},
    )
    assert response.status_code == 400  # refused: the client's error, shown on the page
    page = response.content.decode()
    assert expected in page.replace("&#x27;", "'")
    assert "paths.zip: " in page
    assert str(settings.PRIVATE_ROOT) not in page and "/tmp" not in page
    assert "root:" not in page  # nothing of /etc/passwd
    assert not Competition.objects.get(slug="paths").tasks.exists()
    assert not CompetitionPage.objects.exists()


def test_the_upload_refuses_a_20_mb_description(client, olga):
    editor.competition_create(slug="paths", title="Paths", owner="olga")
    client.login(username="olga", password="pw-olga-123")
    text = the_definition().replace(
        "title: Paths\n", "title: Paths\ndescription: " + "x" * (20 * 1024 * 1024) + "\n"
    )
    response = client.post(
        reverse("competition:edit", args=["paths"]),
        {"action": "upload", "definition": SimpleUploadedFile("paths.yaml", text.encode())},
    )
    assert response.status_code == 400
    assert "paths.yaml: the definition is" in response.content.decode()
    assert Competition.objects.get(slug="paths").description == ""


def test_the_upload_loads_when_every_path_is_inside(client, olga):
    editor.competition_create(slug="paths", title="Paths", owner="olga")
    client.login(username="olga", password="pw-olga-123")
    archive = zip_of(
        {
            "competition.yaml": the_definition().encode(),
            "pages/overview.md": b"Welcome.",
            "keys/light.conllua": conllua(KEY_DOCS["light"]).encode(),
        }
    )
    response = client.post(
        reverse("competition:edit", args=["paths"]),
        {"action": "upload", "definition": SimpleUploadedFile("paths.zip", archive)},
    )
    assert response.status_code == 302
    assert CompetitionPage.objects.get(kind="overview").body == "Welcome."


def test_the_page_editor_keeps_the_same_page_limit(client, olga, settings):
    settings.DEFINITION_MAX_PAGE_BYTES = 1000
    editor.competition_create(slug="paths", title="Paths", owner="olga")
    client.login(username="olga", password="pw-olga-123")
    url = reverse("competition:page_edit", args=["paths", "terms"])
    response = client.post(url, {"action": "save", "body": "x" * 1001})
    assert response.status_code == 200
    assert "a page is UTF-8 text without NUL of at most 1000 bytes" in response.content.decode()
    assert not CompetitionPage.objects.exists()
    response = client.post(url, {"action": "save", "body": "x" * 1000})
    assert response.status_code == 302
    assert CompetitionPage.objects.get(kind="terms").body == "x" * 1000
