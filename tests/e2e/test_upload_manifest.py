"""The upload page in a real browser sends what makes an upload whole or refusable: a key of
the run it means, the manifest announced first and sent last (each file's field, size and
SHA-256, computed in the browser); the server checks it and stores one run."""

from __future__ import annotations

import hashlib
import json
import re

import pytest

from competition import views
from competition.models import Submission
from tests.e2e.helpers import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_upload_page_sends_its_key_and_a_manifest_last(
    page, live_server, make_world, tmp_path, monkeypatch
):
    world = make_world()
    base = live_server.url
    light = tmp_path / "LIGHT.CONLLUA"
    light.write_text(world.response_text("light"))
    ami = tmp_path / "AMI.CONLLUA"
    ami.write_text(world.response_text("ami"))
    seen: list[tuple[list[str], str]] = []
    real_check = views.manifest_check

    def recorded(*, data, files):  # the live server runs in this process
        seen.append((list(data.keys()), data.get("manifest", "")))
        return real_check(data=data, files=files)

    monkeypatch.setattr(views, "manifest_check", recorded)
    log_in(page, base, "alice", "alice-pw-123!")
    page.goto(
        f"{base}/competitions/{world.competition.slug}/{world.task.slug}/{world.phase.slug}/submit/"
    )
    page.set_input_files("input[name=file_light]", str(light))
    page.set_input_files("input[name=file_ami]", str(ami))
    page.click("#submit-button")
    page.wait_for_url(re.compile(r".*/submissions/\d+/$"), timeout=60_000)

    ((fields, manifest),) = seen
    # the form's fields in the body's order: announced first, the manifest last
    assert fields.index("manifest_follows") < fields.index("run_name") < fields.index("manifest")
    assert fields[-1] == "manifest"
    listed = {e["field"]: e for e in json.loads(manifest)["files"]}
    assert sorted(listed) == ["file_ami", "file_light"]
    assert listed["file_ami"]["size"] == ami.stat().st_size
    assert listed["file_ami"]["sha256"] == hashlib.sha256(ami.read_bytes()).hexdigest()
    run = Submission.objects.get()
    assert len(run.idempotency_key) == 32
