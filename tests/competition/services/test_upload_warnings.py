"""A scored run keeps what the worker's reading warned about in its files (a MISC attribute
that looks like a misspelt ``Entity``, whose mentions are not read) and shows it to the team:
on the run's page and in the API's submission detail, naming the file and the line."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from rest_framework.test import APIClient

from competition import scoring as lifecycle
from competition import services
from competition.models import Competition, Phase, Submission
from competition.services.publish import competition_publish_waiving
from tasks.scoring import finish_parts_task, score_part_task
from tests.checked import checked_run

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[3]
RUN = ROOT / "fixtures" / "corefud" / "string-match" / "en_gum-corefud-test.conllu"


def misspelt(text: str) -> tuple[str, int]:
    """``text`` with ``Entitty=`` in the MISC of its first token line without one, and that
    line's number."""
    lines = text.split("\n")
    number = next(i for i, line in enumerate(lines) if line[:1].isdigit() and line.endswith("\t_"))
    lines[number] = lines[number][:-1] + "Entitty=(e900-person-1-)"
    return "\n".join(lines), number + 1


@pytest.fixture
def upload(django_capture_on_commit_callbacks):
    get_user_model().objects.create_user("organizer")
    services.competition_load(path=ROOT / "fixtures" / "corefud-demo.yaml", with_baselines=False)
    competition = Competition.objects.get(slug="corefud-demo")
    competition_publish_waiving(competition=competition)
    user = get_user_model().objects.create_user("dana", password="a-long-passphrase-42")
    team = services.team_create(competition=competition, name="Delta", user=user)
    phase = Phase.objects.get(task__competition=competition, slug="post-task")
    slug = phase.subcorpora.get(name="en_gum").slug

    def send(text: str, **more: str) -> Submission:
        """The run of ``text`` (and of ``more`` files by dataset name) as stored once the
        worker has scored it."""
        files = {slug: SimpleUploadedFile("gum-run.conllu", text.encode("utf-8"))}
        for name, other in more.items():
            files[phase.subcorpora.get(name=name).slug] = SimpleUploadedFile(
                f"{name}-run.conllu", other.encode("utf-8")
            )
        return checked_run(
            django_capture_on_commit_callbacks,
            lambda: services.submission_create(
                team=team, phase=phase, user=user, files=files, track="llm"
            ),
        )

    return send, user


def test_a_run_with_a_misspelt_attribute_is_accepted_with_a_warning_naming_file_and_line(
    upload,
):
    send, _ = upload
    text, line = misspelt(RUN.read_text(encoding="utf-8"))
    submission = send(text)
    submission.refresh_from_db()
    assert submission.status == Submission.Status.SCORED, submission.scoring_log
    [warning] = submission.upload_warnings
    assert (warning["file"], warning["subcorpus"], warning["line"]) == (
        "gum-run.conllu",
        "en_gum",
        line,
    )
    assert "'Entitty' looks like a misspelt 'Entity'" in warning["message"]
    assert "codicrac-upload-" not in warning["message"]  # no path of the server's


def test_a_run_without_one_has_no_warning(upload):
    send, _ = upload
    submission = send(RUN.read_text(encoding="utf-8"))
    submission.refresh_from_db()
    assert submission.status == Submission.Status.SCORED, submission.scoring_log
    assert submission.upload_warnings == []


def test_the_team_sees_the_warning_on_the_runs_page_and_in_the_api(upload, client):
    send, user = upload
    text, line = misspelt(RUN.read_text(encoding="utf-8"))
    submission = send(text)
    client.force_login(user)
    page = client.get(reverse("competition:submission", args=[submission.pk]))
    assert page.status_code == 200
    shown = page.content.decode()
    assert 'id="upload-warnings"' in shown
    assert f"gum-run.conllu:{line}" in shown and "Entitty" in shown
    api = APIClient()
    api.force_authenticate(user)
    detail = api.get(f"/api/submissions/{submission.pk}/").json()
    assert [(w["file"], w["line"]) for w in detail["warnings"]] == [("gum-run.conllu", line)]


def test_a_run_scored_again_in_parts_writes_the_warnings_of_its_own_reading(
    upload, django_capture_on_commit_callbacks
):
    """Each part finds the warnings of its file, the staged part keeps them and the run's
    last job writes them with the run: once more, from this scoring's reading."""
    send, _ = upload
    text, line = misspelt(RUN.read_text(encoding="utf-8"))
    ami = (ROOT / "fixtures" / "corefud" / "previous" / "en_ami-corefud-test.conllu").read_text(
        encoding="utf-8"
    )
    submission = send(text, en_ami=ami)
    assert submission.status == Submission.Status.SCORED, submission.scoring_log
    found = submission.upload_warnings
    assert [(w["subcorpus"], w["line"]) for w in found] == [("en_gum", line)]
    with django_capture_on_commit_callbacks():
        services.submission_rescore(submission=submission)
    Submission.objects.filter(pk=submission.pk).update(upload_warnings=[])
    held = lifecycle.submission_claim(submission_id=submission.pk, task_id="c")
    subcorpora = lifecycle.scoring_parts_create(submission=held, claim="c")
    assert len(subcorpora) == 2
    for subcorpus_id in subcorpora:
        assert score_part_task.apply(args=[submission.pk, subcorpus_id, "c"]).result == "done"
    assert finish_parts_task.apply(args=[submission.pk, "c"]).result == "scored"
    submission.refresh_from_db()
    assert submission.status == Submission.Status.SCORED
    assert submission.upload_warnings == found
