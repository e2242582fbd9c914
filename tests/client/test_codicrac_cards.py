"""`codicrac` and system cards (a live server): `card-template` prints the phase's questions
as a YAML file to fill in, `submit --card` sends its answers, and a final run refused for a
missing answer names the questions on standard error."""

import io

import pytest

from client.main import main


@pytest.fixture
def config(tmp_path, monkeypatch):
    path = tmp_path / "home" / "codicrac" / "config.json"
    monkeypatch.setenv("CODICRAC_CONFIG", str(path))
    return path


@pytest.fixture
def final(live_server, make_world):
    """The test world's phase as a test phase whose competition requires the CRAC card."""
    from competition.models import Phase
    from competition.services import cards

    world = make_world()
    cards.card_defaults_set(competition=world.competition, required=True)
    Phase.objects.filter(pk=world.phase.pk).update(kind=Phase.Kind.TEST_PREDICTED)
    world.phase.refresh_from_db()
    return world


def login(monkeypatch, live_server):
    monkeypatch.setattr("sys.stdin", io.StringIO("alice-pw-123!\n"))
    return main(["login", "--server", live_server.url, "--username", "alice", "--password-stdin"])


def run_files(world, tmp_path) -> list[str]:
    paths = []
    for slug in ("light", "ami"):
        path = tmp_path / f"{slug.upper()}.CONLLUA"
        path.write_text(world.response_text(slug), encoding="utf-8")
        paths.append(str(path))
    return paths


def test_the_template_lists_the_questions_and_a_filled_card_is_sent(
    final, live_server, config, monkeypatch, capsys, tmp_path
):
    from competition.models import Submission
    from competition.services import cards

    assert login(monkeypatch, live_server) == 0
    capsys.readouterr()
    phase = str(final.phase.pk)
    assert main(["card-template", "--phase", phase]) == 0
    template = capsys.readouterr().out
    assert "# Is the system LLM-based? (required)" in template
    assert "#   one of: fine-tuned, few-shot, zero-shot, not applicable" in template
    assert "\nadaptation:\n" in template and "\ncode:\n" in template

    # The template as it is parses (every answer blank) and is refused by the server.
    card = tmp_path / "card.yaml"
    card.write_text(template, encoding="utf-8")
    files = run_files(final, tmp_path)
    assert main(["submit", "--phase", phase, "--card", str(card), *files]) == 1
    err = capsys.readouterr().err
    assert "[card_incomplete]" in err and "Is the system LLM-based? (llm)" in err
    assert "  code: required for a final run" in err
    assert not Submission.objects.exists()

    filled = (
        template.replace("\nllm:\n", "\nllm: yes\n")
        .replace("\nbase-model:\n", '\nbase-model: "Llama 3.1: 8B"\n')
        .replace("\nparameters:\n", "\nparameters: 8B\n")
        .replace("\nadaptation:\n", "\nadaptation: few-shot\n")
        .replace("\nexternal-data:\n", "\nexternal-data: none\n")
        .replace("\nweights-licence:\n", "\nweights-licence: Llama 3.1 Community\n")
    )
    card.write_text(filled, encoding="utf-8")
    # Still one missing: the server names it alone.
    assert main(["submit", "--phase", phase, "--card", str(card), *files]) == 1
    err = capsys.readouterr().err
    assert "Link to the code (code)" in err and "(llm)" not in err

    card.write_text(filled.replace("\ncode:\n", "\ncode: https://example.org/c\n"))
    assert main(["submit", "--phase", phase, "--card", str(card), *files]) == 0
    assert "Submitted #" in capsys.readouterr().out
    assert cards.card_of(submission=Submission.objects.get()) == {
        "llm": "yes",
        "base-model": "Llama 3.1: 8B",
        "parameters": "8B",
        "adaptation": "few-shot",
        "external-data": "none",
        "weights-licence": "Llama 3.1 Community",
        "code": "https://example.org/c",
    }


def test_a_card_naming_no_question_or_not_yaml_is_refused_before_the_upload(
    final, live_server, config, monkeypatch, capsys, tmp_path
):
    from competition.models import Submission

    login(monkeypatch, live_server)
    capsys.readouterr()
    files = run_files(final, tmp_path)
    card = tmp_path / "card.yaml"
    phase = str(final.phase.pk)
    for text, words in [
        ("llm: yes\ncolour: red\n", "no question 'colour' in the card; expected"),
        ("llm: [yes, no]\n", "llm: one answer, not a list"),
        ("llm: yes\n  base-model: x: y\n", "card.yaml:2: the card is not valid YAML"),
        ("- llm\n", "a card is lines of `question: answer`"),
    ]:
        card.write_text(text, encoding="utf-8")
        assert main(["submit", "--phase", phase, "--card", str(card), *files]) == 2
        assert words in capsys.readouterr().err
    assert main(["submit", "--phase", phase, "--card", str(tmp_path / "nope.yaml"), *files]) == 2
    assert "cannot read the card" in capsys.readouterr().err
    # A wrong answer is the server's to say, with the question it concerns.
    card.write_text("llm: perhaps\n", encoding="utf-8")
    assert main(["submit", "--phase", phase, "--card", str(card), *files]) == 1
    err = capsys.readouterr().err
    assert "answer yes or no, not 'perhaps'" in err and "[bad_answer]" in err
    assert not Submission.objects.exists()


def test_the_board_shows_the_answers_and_filters_by_them(
    final, live_server, config, monkeypatch, capsys, tmp_path
):
    from competition import services
    from competition.models import Phase
    from competition.services import cards

    Phase.objects.filter(pk=final.phase.pk).update(kind=Phase.Kind.DEVELOPMENT)
    final.phase.refresh_from_db()
    run = services.submission_create(
        team=final.alpha, phase=final.phase, user=final.alice, files=final.uploads()
    )
    cards.card_answers_save(submission=run, answers={"llm": "yes", "adaptation": "zero-shot"})
    login(monkeypatch, live_server)
    capsys.readouterr()
    phase = str(final.phase.pk)
    assert main(["leaderboard", phase]) == 0
    out = capsys.readouterr().out
    assert "system card (llm, base-model, adaptation)" in out
    assert "yes · - · zero-shot" in out
    assert main(["leaderboard", phase, "--card", "llm=no"]) == 0
    out = capsys.readouterr().out
    assert "(no rows)" in out and "Only runs whose system card says llm=no: 0 of 1 rows" in out
    assert main(["leaderboard", phase, "--card", "llm"]) == 2
    assert "expected QUESTION=ANSWER" in capsys.readouterr().err
    assert main(["leaderboard", phase, "--card", "colour=red"]) == 1
    assert "unknown system-card question 'colour'" in capsys.readouterr().err


def test_the_card_template_says_when_a_question_applies():
    from client.main import card_template

    text = card_template(
        {
            "id": 7,
            "card_questions": [
                {"slug": "llm", "text": "LLM?", "kind": "yes_no", "required": True},
                {
                    "slug": "base-model",
                    "text": "Base model",
                    "kind": "text",
                    "required": True,
                    "when": {"llm": "yes"},
                },
            ],
        }
    )
    assert (
        "# Base model (required)\n#   text\n#   only when llm: yes; otherwise leave it blank\n"
        in text
    )
    assert text.endswith("base-model:\n")
