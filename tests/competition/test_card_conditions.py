"""System-card questions that apply only when another answer says so (``when``), in the
definition YAML and in the organizers' editor, with their own questions and the on-board
choice: a system that is not an LLM is not asked for its base model."""

from __future__ import annotations

import pytest
import yaml
from django.contrib.auth import get_user_model
from django.urls import reverse

from competition import services
from competition.definition.current import competition_spec
from competition.definition.files import DefinitionFiles
from competition.definition.spec import CardQuestionSpec, CompetitionSpec, SpecError
from competition.definition.yaml_io import definition_data, definition_read
from competition.services import cards

pytestmark = pytest.mark.django_db


@pytest.fixture
def run(world):
    """A run of the world's development phase (not scored: only its card is read)."""
    return services.submission_create(
        team=world.alpha, phase=world.phase, user=world.alice, files=world.uploads()
    )


def test_a_condition_names_an_earlier_question_and_one_of_its_answers():
    llm = CardQuestionSpec.checked(slug="llm", text="LLM?", kind="yes_no")
    model = CardQuestionSpec.checked(slug="base-model", text="Base model", when=(("llm", "yes"),))
    CompetitionSpec.checked(slug="c", title="C", card_questions=(llm, model))
    for questions, words in [
        ((model, llm), "not an earlier yes/no or choice question"),
        (
            (llm, CardQuestionSpec.checked(slug="m", text="M", when=(("llm", "maybe"),))),
            "not one of",
        ),
    ]:
        with pytest.raises(SpecError, match=words):
            CompetitionSpec.checked(slug="c", title="C", card_questions=questions)


def test_a_non_llm_final_run_is_not_asked_for_its_model(world, run):
    from competition.models import Phase

    cards.card_defaults_set(competition=world.competition, required=True)
    Phase.objects.filter(pk=world.phase.pk).update(kind=Phase.Kind.TEST_PREDICTED)
    run.refresh_from_db()
    answers = {"llm": "no", "external-data": "none", "code": "https://example.org/c"}
    cards.card_check(phase=run.phase, answers=answers)  # no "n/a" needed
    cards.card_answers_save(submission=run, answers=answers)
    assert cards.card_missing(submission=run) == []
    with pytest.raises(cards.CardError) as refused:
        cards.card_check(phase=run.phase, answers={**answers, "llm": "yes"})
    assert refused.value.missing == ["base-model", "parameters", "adaptation", "weights-licence"]


def test_the_condition_round_trips_through_the_definition_yaml(tmp_path, world):
    cards.card_defaults_set(competition=world.competition)
    data = definition_data(competition_spec(competition=world.competition))
    base = next(q for q in data["system_card"] if q["slug"] == "base-model")
    assert base["when"] == {"llm": "yes"}
    for task in data["tasks"]:  # the keys, beside the definition as its zip has them
        for phase in task["phases"]:
            for subcorpus in phase["subcorpora"]:
                if key := subcorpus.get("key"):
                    (tmp_path / key).parent.mkdir(parents=True, exist_ok=True)
                    (tmp_path / key).write_text(world.key_text("light"), encoding="utf-8")
    text = yaml.safe_dump(data, sort_keys=False).replace("llm: 'yes'", "llm: yes")
    assert "llm: yes" in text  # as an organizer writes it (YAML reads a boolean)
    path = tmp_path / "competition.yaml"
    path.write_text(text, encoding="utf-8")
    spec = definition_read(DefinitionFiles(definition=path, root=tmp_path, name="competition.yaml"))
    read = {q.slug: q.when for q in spec.card_questions}
    assert read["base-model"] == (("llm", "yes"),) and read["code"] == ()


def test_the_editor_adds_an_own_question_with_its_condition_and_board_choice(client, world):
    olga = get_user_model().objects.create_user("olga", password="pw-olga-1")
    world.competition.organizers.add(olga)
    client.login(username="olga", password="pw-olga-1")
    edit = reverse("competition:edit", args=[world.competition.slug])
    page = client.get(edit).content.decode()
    assert 'id="card-question-form"' in page and "Show on the board" in page
    url = reverse("competition:card_question", args=[world.competition.slug])
    client.post(url, {"cq-slug": "llm", "cq-text": "LLM-based?", "cq-kind": "yes_no"})
    response = client.post(
        url,
        {
            "cq-slug": "prompting",
            "cq-text": "Prompting strategy",
            "cq-kind": "choice",
            "cq-choices": "chain of thought, plain",
            "cq-when": "llm=yes",
            "cq-on_board": "on",
        },
    )
    assert response.status_code == 302
    question = world.competition.card_questions.get(slug="prompting")
    assert (question.choices, question.when, question.on_board, question.required) == (
        ["chain of thought", "plain"],
        {"llm": "yes"},
        True,
        False,
    )
    page = client.get(edit).content.decode()
    assert "only if llm: yes" in page and "on the board" in page
    # a condition on a question the card does not have is refused, saying why
    response = client.post(
        url,
        {"cq-slug": "x", "cq-text": "X", "cq-kind": "text", "cq-when": "gpu=yes"},
        follow=True,
    )
    assert "not an earlier yes/no or choice question" in response.content.decode()
    assert not world.competition.card_questions.filter(slug="x").exists()
