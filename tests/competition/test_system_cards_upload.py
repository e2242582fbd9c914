"""System cards at upload: a final run (of a test phase) whose competition requires the card
is refused, before anything is stored or counted, until it answers every required question;
the answers given with a run are saved with it, from the service, the web form and the API."""

from __future__ import annotations

import pytest
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from competition import services
from competition.errors import SubmissionRejected
from competition.models import Phase, Submission, SubmissionFile, SystemCardAnswer
from competition.services import cards

pytestmark = pytest.mark.django_db

COMPLETE = {
    "llm": "yes",
    "base-model": "Llama 3.1 8B",
    "parameters": "8B",
    "adaptation": "fine-tuned",
    "external-data": "none",
    "weights-licence": "Llama 3.1 Community Licence",
    "code": "https://example.org/code",
}


@pytest.fixture
def final(world):
    """The world's phase as a final (test) phase of a competition requiring the CRAC card."""
    cards.card_defaults_set(competition=world.competition, required=True)
    Phase.objects.filter(pk=world.phase.pk).update(kind=Phase.Kind.TEST_PREDICTED)
    world.phase.refresh_from_db()
    return world


def _nothing_stored(world) -> None:
    assert not Submission.objects.filter(phase=world.phase).exists()
    assert not SubmissionFile.objects.exists()
    assert not SystemCardAnswer.objects.exists()
    assert services.submission_quota(team=world.alpha, phase=world.phase).total_used == 0


def test_it_refuses_a_final_run_without_its_card_and_names_what_is_missing(final):
    partial = {k: v for k, v in COMPLETE.items() if k not in ("code", "parameters")}
    with pytest.raises(SubmissionRejected) as refused:
        services.submission_create(
            team=final.alpha,
            phase=final.phase,
            user=final.alice,
            files=final.uploads(),
            card=partial,
        )
    assert refused.value.code == "card_incomplete"
    assert refused.value.params["missing"] == ["parameters", "code"]
    assert "Number of parameters (e.g. 7B) (parameters)" in refused.value.message
    assert "Link to the code (code)" in refused.value.message
    _nothing_stored(final)


def test_it_refuses_a_wrong_answer_before_reading_the_files(final):
    with pytest.raises(SubmissionRejected) as refused:
        services.submission_create(
            team=final.alpha,
            phase=final.phase,
            user=final.alice,
            files=final.uploads({"light": "not a conllua file"}),
            card={**COMPLETE, "llm": "perhaps"},
        )
    assert refused.value.code == "bad_answer" and refused.value.params["field"] == "llm"
    _nothing_stored(final)


def test_a_complete_card_is_saved_with_the_run(final, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        run = services.submission_create(
            team=final.alpha,
            phase=final.phase,
            user=final.alice,
            files=final.uploads(),
            card={**COMPLETE, "llm": "Yes"},
        )
    assert cards.card_of(submission=run) == {**COMPLETE, "llm": "yes"}
    assert cards.card_missing(submission=run) == []


def test_a_development_run_and_a_baseline_need_no_card(world, final):
    Phase.objects.filter(pk=final.phase.pk).update(kind=Phase.Kind.DEVELOPMENT)
    final.phase.refresh_from_db()
    run = services.submission_create(
        team=final.alpha,
        phase=final.phase,
        user=final.alice,
        files=final.uploads(),
        card={"llm": "no"},
    )
    assert cards.card_of(submission=run) == {"llm": "no"}
    Phase.objects.filter(pk=final.phase.pk).update(kind=Phase.Kind.TEST_GOLD)
    final.phase.refresh_from_db()
    organizers = services.organizer_team_get_or_create(competition=final.competition)
    baseline = services.submission_create(
        team=organizers, phase=final.phase, user=None, files=final.uploads(), is_baseline=True
    )
    assert cards.card_of(submission=baseline) == {}


def test_the_submit_form_asks_the_questions_and_refuses_an_incomplete_card(final, client):
    client.login(username="alice", password="alice-pw-123!")
    url = reverse(
        "competition:submit",
        args=[final.competition.slug, final.task.slug, final.phase.slug],
    )
    page = client.get(url).content.decode()
    assert 'id="submit-card"' in page and "Is the system LLM-based?" in page
    assert '<select name="card.adaptation"' in page and "few-shot" in page
    assert 'name="card.code"' in page and "required" in page
    # The browser requires the marked fields; the server refuses without them too.
    files = {f"file_{slug}": f for slug, f in final.uploads().items()}
    response = client.post(url, {**files, "card.llm": "yes"})
    assert response.status_code == 200 and not Submission.objects.exists()
    files = {f"file_{slug}": f for slug, f in final.uploads().items()}
    response = client.post(url, {**files, **{f"card.{k}": v for k, v in COMPLETE.items()}})
    assert response.status_code == 302, response.content.decode()[:2000]
    run = Submission.objects.get()
    assert cards.card_of(submission=run) == COMPLETE


def test_the_api_takes_card_fields_and_names_the_missing_ones(final):
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=final.alice).key}")
    url = reverse("api-phase-submissions", args=[final.phase.pk])
    phase = api.get(reverse("api-phase", args=[final.phase.pk])).json()
    assert [(q["slug"], q["required"]) for q in phase["card_questions"]][:2] == [
        ("llm", True),
        ("base-model", True),
    ]
    partial = {f"card.{k}": v for k, v in COMPLETE.items() if k != "weights-licence"}
    response = api.post(url, {**final.uploads(), **partial}, format="multipart")
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "card_incomplete"
    assert list(body["fields"]) == ["card.weights-licence"]
    assert "Licence of the model weights" in body["detail"]
    _nothing_stored(final)
    complete = {f"card.{k}": v for k, v in COMPLETE.items()}
    response = api.post(url, {**final.uploads(), **complete}, format="multipart")
    assert response.status_code == 201, response.content
    assert cards.card_of(submission=Submission.objects.get()) == COMPLETE
