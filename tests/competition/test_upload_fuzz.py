"""Mutated CONLL-UA uploads through the REST API against PostgreSQL: each is refused with
its file and line (400 at once, nothing stored; or, by the worker's check, its run refused
with the problems in its detail, nothing scored; no quota spent either way) or scored
exactly as the file it was made from, never a 500. The run is a real CODI-CRAC 2021
baseline (AMI, heuristic), the key its real gold file; the mutations are the ones that were
once read by guessing: a column deleted or added, a bracket dropped, a NUL, a truncation, a
line of megabytes, other encodings and line ends. Bounded: a fixed number of examples, no
deadline per example."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.core.files.uploadedfile import SimpleUploadedFile
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from competition import services
from competition.models import Score, SubCorpus, Submission

pytestmark = [pytest.mark.services, pytest.mark.django_db]

ROOT = Path(__file__).resolve().parents[2]
KEY = ROOT / "fixtures/data/codi-crac21/AMI_test_partial.ES2004a.CONLLUA"
RUN = ROOT / "fixtures/baselines/codi-crac21/heuristic-gold/AMI.CONLLUA"
LINES = RUN.read_bytes().split(b"\n")
TOKEN_LINES = [i for i, line in enumerate(LINES) if line and not line.startswith(b"#")]
MARKABLE_LINES = [i for i in TOKEN_LINES if b"EntityID=" in LINES[i]]
EXAMPLES = 40


def replace_line(number: int, line: bytes) -> bytes:
    lines = list(LINES)
    lines[number] = line
    return b"\n".join(lines)


@st.composite
def mutations(draw) -> tuple[str, bytes]:
    """(what was done, the mutated file)."""
    kind = draw(
        st.sampled_from(
            [
                "delete_column",
                "extra_column",
                "drop_bracket",
                "nul",
                "truncate",
                "huge_line",
                "utf16",
                "latin1",
                "crlf",
                "bom",
            ]
        )
    )
    if kind in ("delete_column", "extra_column", "nul", "huge_line"):
        number = draw(st.sampled_from(TOKEN_LINES))
        cells = LINES[number].split(b"\t")
        if kind == "delete_column":
            at = draw(st.integers(0, len(cells) - 2))  # the last one may be absent by design
            cells = cells[:at] + cells[at + 1 :]
        elif kind == "extra_column":
            cells.insert(draw(st.integers(0, len(cells))), b"_")
        elif kind == "nul":
            at = draw(st.integers(0, len(cells) - 1))
            cells[at] = cells[at][:1] + b"\x00" + cells[at][1:]
        else:
            cells[1] = b"x" * 3_000_000
        return f"{kind} on line {number + 1}", replace_line(number, b"\t".join(cells))
    if kind == "drop_bracket":
        number = draw(st.sampled_from(MARKABLE_LINES))
        line = LINES[number]
        places = [i for i, c in enumerate(line) if c in b"()"]
        at = draw(st.sampled_from(places))
        return f"{kind} on line {number + 1}", replace_line(number, line[:at] + line[at + 1 :])
    data = b"\n".join(LINES)
    if kind == "truncate":
        at = draw(st.integers(len(data) // 2, len(data) - 1))
        return f"truncated at byte {at}", data[:at]
    if kind == "utf16":
        return kind, data.decode("utf-8").encode("utf-16")
    if kind == "latin1":
        return kind, data.decode("utf-8").encode("latin-1", errors="replace")
    if kind == "crlf":
        return kind, data.replace(b"\n", b"\r\n")
    return kind, b"\xef\xbb\xbf" + data


@pytest.fixture
def eager_jobs():
    """Jobs run in this process for this test only (the point here is the upload path, not
    the queue). Celery's own setting is switched: it is read from Django's settings once, so
    changing those would leave every later test of the process eager."""
    from config.celery import app

    saved = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = saved


@pytest.fixture
def ami_phase(world, services_ready, eager_jobs):
    """The world's phase with one sub-corpus, AMI, keyed by the real gold file."""
    key_dir = Path(django_settings.PRIVATE_ROOT) / "keys"
    shutil.copy(KEY, key_dir / "ami_real.conllua")
    SubCorpus.objects.filter(phase=world.phase).exclude(slug="ami").delete()
    SubCorpus.objects.filter(phase=world.phase, slug="ami").update(key_file="keys/ami_real.conllua")
    world.phase.daily_limit = world.phase.total_limit = 10_000
    world.phase.save()
    return world


def scores_of(submission_id: int) -> dict:
    return {
        (s.mode, s.metric, s.document): (s.recall, s.precision, s.f1)
        for s in Score.objects.filter(submission_id=submission_id)
    }


def test_mutated_uploads_are_refused_with_a_place_or_scored_as_the_original(
    ami_phase, django_capture_on_commit_callbacks
):
    world = ami_phase
    api = APIClient()
    token, _ = Token.objects.get_or_create(user=world.alice)
    api.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    url = f"/api/phases/{world.phase.pk}/submissions/"

    def post(data: bytes):
        with django_capture_on_commit_callbacks(execute=True):
            return api.post(
                url, {"ami": SimpleUploadedFile("AMI.CONLLUA", data)}, format="multipart"
            )

    original = post(b"\n".join(LINES))
    assert original.status_code == 201, original.content
    expected = scores_of(original.json()["id"])
    assert Submission.objects.get(pk=original.json()["id"]).status == "scored" and expected
    seen: dict[str, int] = {}

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
    )
    @given(mutations())
    def check(mutation: tuple[str, bytes]) -> None:
        what, data = mutation
        before = Submission.objects.filter(team=world.alpha).count()
        counted = services.submission_quota(team=world.alpha, phase=world.phase).total_used
        answer = post(data)
        assert answer.status_code in (201, 400), (what, answer.status_code)
        body = answer.json()
        submission = Submission.objects.filter(pk=body.get("id")).first()
        if answer.status_code == 400 or submission.status == "rejected":
            # refused at once (nothing stored), or by the worker's check (the run refused:
            # its problems in its detail, nothing scored, nothing counted)
            seen["refused"] = seen.get("refused", 0) + 1
            if submission is not None:
                body = api.get(f"/api/submissions/{submission.pk}/").json()
                assert not Score.objects.filter(submission=submission).exists(), what
                quota = services.submission_quota(team=world.alpha, phase=world.phase)
                assert quota.total_used == counted, what
            else:
                assert Submission.objects.filter(team=world.alpha).count() == before, what
            problems = body.get("problems") or []
            assert problems, (what, body)
            first = problems[0]
            assert first["file"] == "AMI.CONLLUA", (what, first)
            assert first["line"] or first["code"] in ("decode_error", "encoding"), (what, first)
            assert "Traceback" not in str(body) and "ami_real" not in str(body), what
            return
        seen["scored"] = seen.get("scored", 0) + 1
        assert submission.status == "scored", (what, submission.error)
        assert scores_of(submission.pk) == expected, what

    check()
    assert seen.get("refused", 0) > EXAMPLES // 2 and seen.get("scored"), seen
