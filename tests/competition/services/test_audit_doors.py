"""Every change an organizer or staff makes to what participants see or how they are scored
is in the audit log, whichever door it came through: a phase's dates moved once runs exist,
a task's scoring, a team approved or rejected (the editor's forms, a definition upload, the
operator's load_competition, the organizers' pages, the admin). Cards changed by the
organizers and locked-card overrides (the run page, the API) are in test_card_lock.py."""

from __future__ import annotations

import io
import zipfile
from datetime import timedelta
from html.parser import HTMLParser

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from competition import services
from competition.models import AuditEntry, Phase, Team, TeamApproval
from competition.services import pages
from competition.services.publish import competition_publish_waiving

pytestmark = pytest.mark.django_db


@pytest.fixture
def olga(world):
    user = get_user_model().objects.create_user("olga", password="pw-olga-123")
    world.competition.organizers.add(user)
    return user


@pytest.fixture
def as_olga(olga) -> Client:
    client = Client()
    client.force_login(olga)
    return client


@pytest.fixture
def run(world, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        return services.submission_create(
            team=world.alpha, phase=world.phase, user=world.alice, files=world.uploads()
        )


def logged(action: str) -> list[tuple[str | None, str]]:
    return [
        (e.actor.username if e.actor else None, e.detail)
        for e in AuditEntry.objects.filter(action=action).order_by("id")
    ]


def phase_post(world, **changes) -> dict:
    phase = world.phase
    data = {
        "action": "save",
        "phase-slug": phase.slug,
        "phase-title": phase.title,
        "phase-kind": phase.kind,
        "phase-time_zone": "UTC",
        "phase-start": phase.start.strftime("%Y-%m-%dT%H:%M"),
        "phase-end": "2030-01-31T23:59",
        "phase-leaderboard_visibility": "public",
        "phase-run_details": "public",
        "phase-daily_limit": "5",
        "phase-total_limit": "100",
        "phase-counts": "best",
        "phase-missing": "unranked",
    }
    return {**data, **{f"phase-{k}": v for k, v in changes.items()}}


def test_the_editor_logs_a_deadline_moved_once_runs_exist_and_a_scoring_change(world, as_olga, run):
    url = reverse("competition:edit_phase", args=["codi-test", world.task.slug, "dev"])
    assert as_olga.post(url, phase_post(world)).status_code == 302  # end set: runs exist
    assert as_olga.post(url, phase_post(world, end="2030-02-28T23:59")).status_code == 302
    moves = logged(AuditEntry.Action.DATES_CHANGED)
    assert len(moves) == 2 and all(who == "olga" for who, _ in moves)
    assert (
        "Task identity › Development: closes 2030-01-31 23:59 UTC → 2030-02-28 23:59 UTC"
        in (moves[1][1])
    )
    assert "with 1 runs submitted (by the editor)" in moves[1][1]
    # Saving the form unchanged logs nothing.
    as_olga.post(url, phase_post(world, end="2030-02-28T23:59"))
    assert len(logged(AuditEntry.Action.DATES_CHANGED)) == 2

    task_url = reverse("competition:edit_task", args=["codi-test", world.task.slug])
    response = as_olga.post(
        task_url,
        {
            "action": "save",
            "task-slug": world.task.slug,
            "task-title": world.task.title,
            "task-kind": "identity",
            "task-procedure": "",
            "task-scorer_options": "",
            "task-primary_metric": "lea",
        },
    )
    assert response.status_code == 302
    ((who, detail),) = logged(AuditEntry.Action.SCORING_CHANGED)
    assert who == "olga" and "primary metric conll → lea (by the editor)" in detail


def test_dates_of_a_phase_without_runs_move_without_an_entry(world, as_olga):
    url = reverse("competition:edit_phase", args=["codi-test", world.task.slug, "dev"])
    as_olga.post(url, phase_post(world, end="2030-03-31T23:59"))
    assert not logged(AuditEntry.Action.DATES_CHANGED)


DEFINITION = """\
slug: audited
title: Audited
organizers: [olga]
tasks:
  - slug: identity
    kind: identity
    title: Identity
    primary_metric: {metric}
    phases:
      - slug: test
        kind: test_predicted
        title: Test
        start: 2026-01-01T00:00:00Z
        end: {end}
        subcorpora:
          - {{name: LIGHT, key: light.conllua}}
"""


def write_definition(folder, world, *, metric: str, end: str):
    folder.mkdir(exist_ok=True)
    (folder / "light.conllua").write_text(world.key_text("light"), encoding="utf-8")
    path = folder / "audited.yaml"
    path.write_text(DEFINITION.format(metric=metric, end=end), encoding="utf-8")
    return path


@pytest.fixture
def audited(world, olga, tmp_path, django_capture_on_commit_callbacks):
    """A competition loaded from a definition, open, with one run."""
    path = write_definition(tmp_path / "v1", world, metric="conll", end="2030-06-30T23:59:00Z")
    load = services.competition_load(path=path, with_baselines=False)
    competition_publish_waiving(competition=load.competition)
    team = services.team_create(competition=load.competition, name="Alpha", user=world.alice)
    phase = Phase.objects.get(task__competition=load.competition)
    with django_capture_on_commit_callbacks(execute=True):
        services.submission_create(
            team=team,
            phase=phase,
            user=world.alice,
            files={
                "light": SimpleUploadedFile("LIGHT.CONLLUA", world.response_text("light").encode())
            },
        )
    return load.competition


def test_a_definition_upload_logs_the_dates_and_scoring_it_changes(world, olga, audited, tmp_path):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        zf.writestr("audited.yaml", DEFINITION.format(metric="muc", end="2030-07-31T23:59:00Z"))
        zf.writestr("light.conllua", world.key_text("light"))
    as_olga = Client()
    as_olga.force_login(olga)
    response = as_olga.post(
        reverse("competition:edit", args=["audited"]),
        {"action": "upload", "definition": SimpleUploadedFile("v2.zip", buffer.getvalue())},
    )
    assert response.status_code == 302, response.content.decode()[:500]
    ((who, moved),) = logged(AuditEntry.Action.DATES_CHANGED)
    assert who == "olga" and "closes 2030-06-30 23:59 UTC → 2030-07-31 23:59 UTC" in moved
    assert "(by the uploaded v2.zip)" in moved
    ((who, scoring),) = logged(AuditEntry.Action.SCORING_CHANGED)
    assert who == "olga" and "primary metric conll → muc" in scoring


def test_load_competition_logs_them_as_the_operator(world, audited, tmp_path):
    path = write_definition(tmp_path / "v3", world, metric="lea", end="2030-08-31T23:59:00Z")
    call_command("load_competition", str(path), "--no-baselines", stdout=io.StringIO())
    ((who, moved),) = logged(AuditEntry.Action.DATES_CHANGED)
    assert who is None and f"(by load_competition {path})" in moved
    ((who, scoring),) = logged(AuditEntry.Action.SCORING_CHANGED)
    assert who is None and "primary metric conll → lea" in scoring


def test_team_approvals_and_rejections_are_logged_from_the_page_and_the_admin(world, olga):
    pages.team_approval_require(competition=world.competition, required=True)
    as_olga = Client()
    as_olga.force_login(olga)
    url = reverse("competition:organize_teams", args=["codi-test"])
    as_olga.post(url, {"action": "approve", "team": world.alpha.pk})
    as_olga.post(url, {"action": "reject", "team": world.beta.pk, "reason": "no paper"})
    as_olga.post(url, {"action": "approve", "team": world.alpha.pk})  # again: no change
    assert logged(AuditEntry.Action.TEAM_APPROVED) == [("olga", "Alpha")]
    assert logged(AuditEntry.Action.TEAM_REJECTED) == [("olga", "Beta: no paper")]

    staff = get_user_model().objects.create_superuser("root", password="pw-root-123")
    admin = Client()
    admin.force_login(staff)
    decision = TeamApproval.objects.get(team=world.beta)
    response = admin.post(
        reverse("admin:competition_teamapproval_change", args=[decision.pk]),
        {"team": world.beta.pk, "status": "approved", "reason": ""},
    )
    assert response.status_code == 302, response.content.decode()[:500]
    assert logged(AuditEntry.Action.TEAM_APPROVED)[-1] == ("root", "Beta")
    assert TeamApproval.objects.get(team=world.beta).status == "approved"
    assert Team.objects.get(pk=world.beta.pk).approval.decided_by == staff


def test_the_admin_logs_a_deadline_moved_once_runs_exist(world, run):
    staff = get_user_model().objects.create_superuser("root", password="pw-root-123")
    admin = Client()
    admin.force_login(staff)
    phase = world.phase
    page = admin.get(reverse("admin:competition_phase_change", args=[phase.pk]))
    form = page.context["adminform"].form
    data = {
        name: form[name].value() if form[name].value() is not None else "" for name in form.fields
    }
    new_end = phase.start + timedelta(days=90)
    data.update(
        {
            "task": phase.task_id,
            "start_0": phase.start.strftime("%Y-%m-%d"),
            "start_1": phase.start.strftime("%H:%M:%S"),
            "end_0": new_end.strftime("%Y-%m-%d"),
            "end_1": new_end.strftime("%H:%M:%S"),
            "revealed_at_0": "",
            "revealed_at_1": "",
            "show_own_scores_when_hidden": "",
            "reveal_scheduled": "",
            "subcorpora-TOTAL_FORMS": "0",
            "subcorpora-INITIAL_FORMS": "0",
        }
    )
    data = {k: v for k, v in data.items() if v is not False and v is not None}
    response = admin.post(reverse("admin:competition_phase_change", args=[phase.pk]), data)
    assert response.status_code == 302, response.context["adminform"].form.errors
    ((who, moved),) = logged(AuditEntry.Action.DATES_CHANGED)
    assert who == "root" and "closes no end → " in moved and "(by the admin)" in moved


class _FormValues(HTMLParser):
    """The values a browser would send for the page's forms (inputs, checked boxes, selected
    options, text areas): what posting an admin page unchanged sends."""

    def __init__(self) -> None:
        super().__init__()
        self.values: dict[str, str] = {}
        self._select: str | None = None
        self._textarea: str | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        name = a.get("name")
        if tag == "input" and name and a.get("type") not in ("submit", "button", "file"):
            if a.get("type") in ("checkbox", "radio") and "checked" not in a:
                return
            self.values[name] = a.get("value") or ("on" if a.get("type") == "checkbox" else "")
        elif tag == "select" and name:
            self._select = name
            self.values.setdefault(name, "")
        elif tag == "option" and self._select and "selected" in a:
            self.values[self._select] = a.get("value") or ""
        elif tag == "textarea" and name:
            self._textarea = name
            self.values[name] = ""

    def handle_endtag(self, tag):
        if tag == "select":
            self._select = None
        elif tag == "textarea":
            self._textarea = None

    def handle_data(self, data):
        if self._textarea:
            self.values[self._textarea] += data.lstrip("\n")


def test_the_admin_logs_a_change_of_a_tasks_scoring(world, run):
    staff = get_user_model().objects.create_superuser("root", password="pw-root-123")
    admin = Client()
    admin.force_login(staff)
    url = reverse("admin:competition_task_change", args=[world.task.pk])
    parser = _FormValues()
    parser.feed(admin.get(url).content.decode())
    data = {k: v for k, v in parser.values.items() if k != "csrfmiddlewaretoken"}
    assert data["primary_metric"] == "conll"
    response = admin.post(url, {**data, "primary_metric": "muc"})
    assert response.status_code == 302, response.content.decode()[:300]
    ((who, detail),) = logged(AuditEntry.Action.SCORING_CHANGED)
    assert who == "root" and "primary metric conll → muc (by the admin)" in detail
    assert not logged(AuditEntry.Action.DATES_CHANGED)  # the phases' dates were sent unchanged
