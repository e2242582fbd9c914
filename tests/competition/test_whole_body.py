"""An upload is stored only whole: a body cut short of its Content-Length (or without its
closing boundary) is refused with 400 ``upload_incomplete``, nothing stored or counted; the
manifest a client sends last is checked against what arrived."""

from __future__ import annotations

import io
import json

import pytest
from django.http.multipartparser import MultiPartParser
from django.test import RequestFactory
from rest_framework.authtoken.models import Token

from competition.models import Phase, Submission
from competition.whole_body import UploadIncomplete, WholeBody
from tests.competition.uploads_on_the_wire import BOUNDARY, manifest, multipart, send


def _files(world) -> list[tuple[str, str, bytes]]:
    return [
        ("light", "LIGHT.CONLLUA", world.response_text("light").encode()),
        ("ami", "AMI.CONLLUA", world.response_text("ami").encode()),
    ]


def _parse(stream, length: int):
    meta = {
        "CONTENT_TYPE": f"multipart/form-data; boundary={BOUNDARY}",
        "CONTENT_LENGTH": str(length),
    }
    handlers = RequestFactory().post("/").upload_handlers
    return MultiPartParser(meta, stream, handlers).parse()


def test_djangos_parser_alone_keeps_the_first_file_of_a_cut_body(world):
    """The hole this guards: the parser ends where the bytes end and returns the parts
    before the cut as if the body were whole."""
    body, starts = multipart(files=_files(world))
    cut = starts[1] + 150
    _, files = _parse(io.BytesIO(body[:cut]), len(body))
    assert list(files) == ["light"]


def test_the_guarded_stream_refuses_a_cut_body_and_one_without_its_closing_boundary(world):
    body, starts = multipart(files=_files(world))
    cut = starts[1] + 150
    guard = WholeBody(io.BytesIO(body[:cut]), length=len(body), boundary=BOUNDARY.encode())
    with pytest.raises(UploadIncomplete, match=f"{cut:,} of {len(body):,} bytes"):
        _parse(guard, len(body))
    assert guard.cut
    unclosed = body[:cut]  # all of it declared: the length is right, the end is not
    guard = WholeBody(io.BytesIO(unclosed), length=len(unclosed), boundary=BOUNDARY.encode())
    with pytest.raises(UploadIncomplete, match="closing boundary"):
        _parse(guard, len(unclosed))
    whole = WholeBody(io.BytesIO(body), length=len(body), boundary=BOUNDARY.encode())
    _, files = _parse(whole, len(body))
    assert sorted(files) == ["ami", "light"] and whole.cut is None


@pytest.fixture
def zero_world(live_server, make_world):
    """The world of a phase where a skipped dataset counts 0 (CRAC): a run of the first file
    alone would be a valid run there, which is what made a cut upload look whole."""
    world = make_world()
    Phase.objects.filter(pk=world.phase.pk).update(missing=Phase.Missing.ZERO)
    return world


def _api_headers(world) -> dict[str, str]:
    token, _ = Token.objects.get_or_create(user=world.alice)
    return {"Authorization": f"Token {token.key}"}


def test_a_cut_api_upload_is_refused_at_socket_level_and_nothing_is_stored(zero_world, live_server):
    world = zero_world
    body, starts = multipart(fields=[("run_name", "cut")], files=_files(world))
    path = f"/api/phases/{world.phase.pk}/submissions/"
    status, content = send(
        live_server.url, path, body, headers=_api_headers(world), cut_at=starts[1] + 150
    )
    assert status == 400, content
    answer = json.loads(content)
    assert answer["code"] == "upload_incomplete"
    assert "cut short; nothing was stored or counted" in answer["detail"]
    assert not Submission.objects.exists()
    # the same body whole is a run (the refusal is the cut's, not the request's)
    status, content = send(live_server.url, path, body, headers=_api_headers(world))
    assert status == 201, content
    assert sorted(f["subcorpus"] for f in json.loads(content)["files"]) == ["ami", "light"]


def test_a_cut_form_upload_is_refused_at_socket_level_and_nothing_is_stored(
    zero_world, live_server, client
):
    world = zero_world
    client.force_login(world.alice)
    csrf = client.get(_submit_url(world)).cookies["csrftoken"].value
    cookies = f"sessionid={client.cookies['sessionid'].value}; csrftoken={csrf}"
    files = [(f"file_{field}", name, data) for field, name, data in _files(world)]
    body, starts = multipart(fields=[("csrfmiddlewaretoken", csrf)], files=files)
    headers = {"Cookie": cookies, "Referer": live_server.url + "/"}
    status, content = send(
        live_server.url, _submit_url(world), body, headers=headers, cut_at=starts[1] + 150
    )
    assert status == 400
    assert b"cut short; nothing was stored or counted" in content
    assert not Submission.objects.exists()


def _submit_url(world) -> str:
    from django.urls import reverse

    return reverse(
        "competition:submit",
        kwargs={"slug": world.competition.slug, "task": world.task.slug, "phase": world.phase.slug},
    )


# --- the manifest -------------------------------------------------------------------------


def _post(client, world, files, *, fields=(), tail=()):
    body, _ = multipart(fields=fields, files=files, tail_fields=tail)
    return client.generic(
        "POST",
        f"/api/phases/{world.phase.pk}/submissions/",
        body,
        content_type=f"multipart/form-data; boundary={BOUNDARY}",
        HTTP_AUTHORIZATION=_api_headers(world)["Authorization"],
    )


def test_a_manifest_that_matches_its_files_lets_the_run_in(world, client):
    files = _files(world)
    answer = _post(
        client,
        world,
        files,
        fields=[("manifest_follows", "1")],
        tail=[("manifest", manifest(files))],
    )
    assert answer.status_code == 201, answer.content
    assert Submission.objects.count() == 1


def test_a_file_whose_digest_differs_from_its_manifest_is_refused(world, client):
    files = _files(world)
    sent = manifest(
        [files[0], (files[1][0], files[1][1], files[1][2].replace(b"remote", b"r3mote"))]
    )
    answer = _post(client, world, files, tail=[("manifest", sent)])
    assert answer.status_code == 400
    assert answer.json()["code"] == "upload_manifest" and "ami" in answer.json()["detail"]
    assert not Submission.objects.exists()


def test_a_listed_file_that_did_not_arrive_is_an_incomplete_upload(world, client):
    files = _files(world)
    answer = _post(client, world, files[:1], tail=[("manifest", manifest(files))])
    assert answer.status_code == 400 and answer.json()["code"] == "upload_incomplete"
    assert not Submission.objects.exists()


def test_an_announced_manifest_that_never_came_is_an_incomplete_upload(world, client):
    """A body cut before its last field lost the manifest: the early field says one was
    coming, so the upload is not taken for an older client's."""
    files = _files(world)
    answer = _post(client, world, files, fields=[("manifest_follows", "1")])
    assert answer.status_code == 400 and answer.json()["code"] == "upload_incomplete"
    # an older client sends neither and is not checked
    assert _post(client, world, files).status_code == 201
