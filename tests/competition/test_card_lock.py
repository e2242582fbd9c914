"""System cards lock when their phase ends: the team's change is refused with the date and
the reason (service, run page, API, command line), the run page shows the card as locked,
and an organizer may still correct it, giving a reason that the audit log keeps."""

from __future__ import annotations

import io
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from client.main import main
from competition import services
from competition.models import AuditEntry, Phase
from competition.services import cards

pytestmark = pytest.mark.django_db


@pytest.fixture
def run(world, django_capture_on_commit_callbacks):
    cards.card_defaults_set(competition=world.competition, required=False)
    with django_capture_on_commit_callbacks(execute=True):
        submission = services.submission_create(
            team=world.alpha,
            phase=world.phase,
            user=world.alice,
            files=world.uploads(),
            card={"llm": "no", "base-model": "BERT"},
        )
    return submission


@pytest.fixture
def olga(world):
    user = get_user_model().objects.create_user("olga", password="pw-olga-1")
    world.competition.organizers.add(user)
    return user


def end_phase(world, *, days_ago: int = 1) -> None:
    end = timezone.now() - timedelta(days=days_ago)
    Phase.objects.filter(pk=world.phase.pk).update(end=end, time_zone="AoE")


def test_a_card_is_open_while_the_phase_runs_and_locked_after(world, run):
    assert cards.card_lock(submission=run) == ""
    cards.card_answers_save(submission=run, answers={"llm": "yes"}, user=world.alice)
    assert AuditEntry.objects.count() == 0  # a team's own change while open is not logged

    end_phase(world)
    run.refresh_from_db()
    locked = cards.card_lock(submission=run)
    assert locked.startswith("the phase Development ended on ") and " AoE (UTC−12)" in locked
    with pytest.raises(cards.CardError) as refused:
        cards.card_answers_save(submission=run, answers={"llm": "no"}, user=world.alice)
    assert refused.value.code == "cards_locked"
    assert "only the organizers can change a card now" in refused.value.message
    assert cards.card_of(submission=run)["llm"] == "yes"
    # Another phase without an end never locks.
    Phase.objects.filter(pk=world.phase.pk).update(end=None)
    run.refresh_from_db()
    assert cards.card_lock(submission=run) == ""


def test_an_organizer_overrides_a_locked_card_with_a_reason_that_is_logged(world, run, olga):
    end_phase(world)
    run.refresh_from_db()
    with pytest.raises(cards.CardError) as refused:
        cards.card_answers_save(submission=run, answers={"llm": "yes"}, user=olga)
    assert refused.value.code == "override_reason" and refused.value.field == "reason"
    assert AuditEntry.objects.count() == 0

    saved = cards.card_answers_save(
        submission=run,
        answers={"llm": "yes"},
        user=olga,
        reason="The team's paper says the system is LLM-based; the team asked by e-mail.",
    )
    assert saved["llm"] == "yes"
    entry = AuditEntry.objects.get()
    assert entry.action == AuditEntry.Action.CARD_OVERRIDE and entry.actor == olga
    assert f"run #{run.pk} of Alpha" in entry.detail
    assert "the team asked by e-mail" in entry.detail and "llm: no → yes" in entry.detail


def test_an_organizers_change_to_an_open_card_is_logged(world, run, olga):
    cards.card_answers_save(submission=run, answers={"base-model": "RoBERTa"}, user=olga)
    entry = AuditEntry.objects.get()
    assert entry.action == AuditEntry.Action.CARD_CHANGED
    assert "base-model: BERT → RoBERTa" in entry.detail
    # Saving the same answers again changes nothing and logs nothing.
    cards.card_answers_save(submission=run, answers={"base-model": "RoBERTa"}, user=olga)
    assert AuditEntry.objects.count() == 1


def test_the_run_page_shows_the_lock_and_refuses_the_form(world, run, olga, client):
    end_phase(world)
    url = reverse("competition:submission", args=[run.pk])
    client.login(username="alice", password="alice-pw-123!")
    page = client.get(url).content.decode()
    assert 'id="card-locked"' in page and "its system cards are locked" in page
    assert 'id="card-form"' not in page and 'id="card-answers"' in page
    response = client.post(
        reverse("competition:submission_card", args=[run.pk]), {"llm": "yes"}, follow=True
    )
    assert "The system card was not saved: the phase Development ended on" in (
        response.content.decode()
    )
    assert cards.card_of(submission=run)["llm"] == "no"

    client.login(username="olga", password="pw-olga-1")
    page = client.get(url).content.decode()
    assert 'id="card-form"' in page and 'name="override_reason"' in page
    client.post(reverse("competition:submission_card", args=[run.pk]), {"llm": "yes"})
    assert cards.card_of(submission=run)["llm"] == "no"  # no reason, no change
    client.post(
        reverse("competition:submission_card", args=[run.pk]),
        {"llm": "yes", "base-model": "BERT", "override_reason": "typo fixed at the team's word"},
    )
    assert cards.card_of(submission=run)["llm"] == "yes"
    assert AuditEntry.objects.get().action == AuditEntry.Action.CARD_OVERRIDE


def test_the_api_refuses_a_locked_card_with_403_and_says_why(world, run, olga):
    end_phase(world)
    api = APIClient()
    url = reverse("api-submission-card", args=[run.pk])
    api.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=world.alice).key}")
    assert "its system cards are locked" in api.get(url).json()["locked"]
    response = api.put(url, {"answers": {"llm": "yes"}}, format="json")
    assert response.status_code == 403
    assert response.json()["code"] == "cards_locked"
    assert "the phase Development ended on" in response.json()["detail"]

    api.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=olga).key}")
    response = api.put(url, {"answers": {"llm": "yes"}}, format="json")
    assert response.status_code == 400 and response.json()["code"] == "override_reason"
    response = api.put(url, {"answers": {"llm": "yes"}, "reason": "per the paper"}, format="json")
    assert response.status_code == 200 and response.json()["answers"]["llm"] == "yes"
    assert "per the paper" in AuditEntry.objects.get().detail


def test_the_command_line_shows_the_refusal_on_one_line(
    world, run, live_server, tmp_path, monkeypatch, capsys
):
    monkeypatch.setenv("CODICRAC_CONFIG", str(tmp_path / "config.json"))
    monkeypatch.setattr("sys.stdin", io.StringIO("alice-pw-123!\n"))
    assert (
        main(["login", "--server", live_server.url, "--username", "alice", "--password-stdin"]) == 0
    )
    assert main(["card", str(run.pk)]) == 0
    out = capsys.readouterr().out
    assert "  llm: no" in out and "  base-model: BERT" in out and "Locked" not in out

    card = tmp_path / "card.yaml"
    card.write_text("llm: yes\n", encoding="utf-8")
    end_phase(world)
    assert main(["card", str(run.pk), "--card", str(card)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert err[0].startswith("codicrac: the phase Development ended on ")
    assert err[0].endswith("[cards_locked]") and "Traceback" not in err[0]
    assert main(["card", str(run.pk)]) == 0
    assert "Locked: the phase Development ended on" in capsys.readouterr().out
