"""System cards: organizers ask the CRAC questions; a run's team answers them on the run's
page or over the API; answers are checked by kind; a final run shows what it still lacks;
another team can neither read nor write a run's card."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from competition import services
from competition.models import Phase, SystemCardAnswer
from competition.services import cards

pytestmark = pytest.mark.django_db


@pytest.fixture
def run(world, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        return services.submission_create(
            team=world.alpha, phase=world.phase, user=world.alice, files=world.uploads()
        )


def test_the_crac_questions_are_set_once_and_answers_are_checked_by_kind(world, run):
    cards.card_defaults_set(competition=world.competition)
    cards.card_defaults_set(competition=world.competition)  # again: updated, not doubled
    assert [q.slug for q in world.competition.card_questions.all()] == [
        "llm",
        "base-model",
        "parameters",
        "adaptation",
        "external-data",
        "weights-licence",
        "code",
    ]
    saved = cards.card_answers_save(
        submission=run,
        answers={
            "llm": "Yes",
            "base-model": "Llama 3.1 8B",
            "adaptation": "few-shot",
            "code": "https://example.org/code",
        },
    )
    assert saved == {
        "llm": "yes",
        "base-model": "Llama 3.1 8B",
        "adaptation": "few-shot",
        "code": "https://example.org/code",
    }
    for answers, words in [
        ({"llm": "maybe"}, "answer yes or no"),
        ({"adaptation": "trained"}, "is not one of fine-tuned"),
        ({"code": "javascript:alert(1)"}, "expected a link"),
        ({"colour": "red"}, "no question 'colour'"),
    ]:
        with pytest.raises(cards.CardError, match=words):
            cards.card_answers_save(submission=run, answers={"parameters": "7B", **answers})
    # Nothing of a refused save was written; a blank answer clears one.
    assert "parameters" not in cards.card_of(submission=run)
    cards.card_answers_save(submission=run, answers={"llm": ""})
    assert "llm" not in cards.card_of(submission=run)


def test_a_final_run_names_the_required_questions_it_lacks(world, run):
    cards.card_defaults_set(competition=world.competition, required=True)
    assert cards.card_missing(submission=run) == []  # a development run is not final
    Phase.objects.filter(pk=world.phase.pk).update(kind=Phase.Kind.TEST_PREDICTED)
    run.refresh_from_db()
    # the questions on the model are asked of LLM-based systems only
    assert len(cards.card_missing(submission=run)) == 3
    cards.card_answers_save(submission=run, answers={"llm": "yes"})
    assert len(cards.card_missing(submission=run)) == 6
    with pytest.raises(cards.CardError, match="a final run needs answers to"):
        cards.card_check(phase=run.phase, answers={"llm": "no"})
    cards.card_answers_save(
        submission=run,
        answers={
            q["slug"]: "https://example.org/x"
            if q["kind"] == "url"
            else q.get("choices", ["yes"])[0]
            for q in cards.CRAC_QUESTIONS
        },
    )
    assert cards.card_missing(submission=run) == []
    questions, answers = cards.card_columns(competition=world.competition, submissions=[run])
    assert [q.slug for q in questions] == ["llm", "base-model", "adaptation"]
    assert answers[run.pk]["adaptation"] == "fine-tuned"


def test_the_team_answers_on_the_run_page_and_another_team_cannot(world, run, client):
    olga = get_user_model().objects.create_user("olga", password="pw-olga-1")
    world.competition.organizers.add(olga)
    client.login(username="olga", password="pw-olga-1")
    response = client.post(
        reverse("competition:card_defaults", args=[world.competition.slug]), {"required": "on"}
    )
    assert response.status_code == 302 and world.competition.card_questions.count() == 7

    client.login(username="alice", password="alice-pw-123!")
    page = client.get(reverse("competition:submission", args=[run.pk])).content.decode()
    assert 'id="card-form"' in page and "Is the system LLM-based?" in page
    client.post(
        reverse("competition:submission_card", args=[run.pk]),
        {"llm": "yes", "base-model": "<b>ours</b>", "csrfmiddlewaretoken": "x"},
    )
    assert cards.card_of(submission=run) == {"llm": "yes", "base-model": "<b>ours</b>"}
    page = client.get(reverse("competition:submission", args=[run.pk])).content.decode()
    assert "&lt;b&gt;ours&lt;/b&gt;" in page and "<b>ours</b>" not in page

    client.login(username="bob", password="bob-pw-123!")
    response = client.post(reverse("competition:submission_card", args=[run.pk]), {"llm": "no"})
    assert response.status_code == 404
    assert cards.card_of(submission=run)["llm"] == "yes"
    response = client.post(reverse("competition:card_defaults", args=[world.competition.slug]))
    assert response.status_code == 404


def test_the_api_reads_and_writes_a_runs_card_for_its_team_only(world, run):
    cards.card_defaults_set(competition=world.competition)
    api = APIClient()
    url = reverse("api-submission-card", args=[run.pk])
    api.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=world.alice).key}")
    response = api.put(url, {"answers": {"llm": "yes", "adaptation": "zero-shot"}}, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["answers"] == {"llm": "yes", "adaptation": "zero-shot"}
    response = api.put(url, {"answers": {"adaptation": "guessed"}}, format="json")
    assert response.status_code == 400
    assert response.json()["code"] == "bad_answer"
    assert "adaptation" in response.json()["fields"]
    assert api.get(url).json()["answers"]["adaptation"] == "zero-shot"

    api.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=world.bob).key}")
    assert api.get(url).status_code == 404
    assert api.put(url, {"answers": {"llm": "no"}}, format="json").status_code == 404
    assert SystemCardAnswer.objects.get(submission=run, question__slug="llm").value == "yes"


def test_the_definition_file_carries_the_questions_both_ways(world, tmp_path):
    from competition.definition.files import DefinitionFiles
    from competition.definition.upload import competition_definition_yaml
    from competition.definition.yaml_io import definition_read
    from competition.errors import DefinitionError

    cards.card_defaults_set(competition=world.competition, required=True)
    text = competition_definition_yaml(competition=world.competition)
    assert "system_card:" in text and "Is the system LLM-based?" in text
    path = tmp_path / "competition.yaml"
    path.write_text(text, encoding="utf-8")
    for slug in ("light", "ami"):  # the keys, where the zip download puts them
        key = tmp_path / "keys" / world.task.slug / "dev" / f"{slug}.conllua"
        key.parent.mkdir(parents=True, exist_ok=True)
        key.write_text(world.key_text(slug), encoding="utf-8")
    spec = definition_read(DefinitionFiles(definition=path, root=tmp_path, name="competition.yaml"))
    assert [(q.slug, q.kind, q.required) for q in spec.card_questions] == [
        (q["slug"], q["kind"], True) for q in cards.CRAC_QUESTIONS
    ]
    assert spec.card_questions[3].choices == (
        "fine-tuned",
        "few-shot",
        "zero-shot",
        "not applicable",
    )

    path.write_text(text.replace("kind: yes_no", "kind: maybe"), encoding="utf-8")
    with pytest.raises(DefinitionError, match=r"system_card\[0\].*'kind' is 'maybe'"):
        definition_read(DefinitionFiles(definition=path, root=tmp_path, name="competition.yaml"))
