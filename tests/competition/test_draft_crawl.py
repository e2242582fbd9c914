"""A draft competition is nowhere for anyone but its organizers and staff.

The crawl walks every URL pattern of the site (the resolver, not a hand-kept list: a page
added later is crawled too), fills its slugs and ids with a draft competition's objects, and
asks it as an anonymous visitor, as a participant of another competition and as another
competition's organizer, by GET and by POST. Each answer must be the answer for a slug or id
that was never used (404, or the same log-in redirect or 401), and must not name the draft.
The draft's organizer gets the pages, which shows that the URLs were filled right.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from django.utils import timezone

from competition import services
from competition.models import (
    Competition,
    CompetitionPage,
    DefinitionJob,
    Phase,
    PhaseDataFile,
    RescoreBatch,
    SubCorpus,
    Submission,
    Task,
    Team,
)
from competition.services.publish import competition_publish
from competition.services.teams import organizer_team_get_or_create
from leaderboard.services import board_freeze

pytestmark = pytest.mark.django_db

TITLE = "Zanzibar Hidden Shared Task"
SLUG = "zanzibar-draft"
GHOST_SLUG = "no-such-competition"
GHOST_ID = 987654

# Whole areas that never show a competition: Django's admin (staff only) and the accounts.
SKIPPED_PREFIXES = ("admin/", "accounts/", "health/")


def walk(patterns, prefix="", namespace=""):
    """(route, name, pattern) for every URL pattern of the site: routes joined, names with
    their namespace."""
    for entry in patterns:
        if isinstance(entry, URLResolver):
            inner = f"{namespace}{entry.namespace}:" if entry.namespace else namespace
            yield from walk(entry.url_patterns, prefix + str(entry.pattern), inner)
        elif isinstance(entry, URLPattern):
            route = prefix + str(entry.pattern)
            yield route, (namespace + entry.name) if entry.name else route, entry


class Draft:
    """A draft with one of everything a URL can name."""

    def __init__(self):
        User = get_user_model()
        self.organizer = User.objects.create_user("draft-organizer", password="pw-12345!")
        self.competition = Competition.objects.create(
            slug=SLUG, title=TITLE, description="Secret plans.", owner=self.organizer
        )
        self.competition.organizers.add(self.organizer)
        now = timezone.now()
        self.task = Task.objects.create(
            competition=self.competition,
            slug="identity",
            kind="identity",
            title="Identity",
            primary_metric="conll",
        )
        self.phase = Phase.objects.create(
            task=self.task,
            slug="dev",
            kind="development",
            title="Development",
            start=now - timedelta(days=1),
        )
        key = Path(settings.PRIVATE_ROOT) / "keys" / "light.conllua"
        key.parent.mkdir(parents=True, exist_ok=True)
        key.write_text("# newdoc id = d1\n1\tHi\t_\n", encoding="utf-8")
        self.subcorpus = SubCorpus.objects.create(
            phase=self.phase, name="LIGHT", slug="light", key_file="keys/light.conllua"
        )
        data = Path(settings.PRIVATE_ROOT) / "data" / "light-dev.conllua"
        data.parent.mkdir(parents=True, exist_ok=True)
        data.write_text("# newdoc id = d1\n", encoding="utf-8")
        self.data = PhaseDataFile.objects.create(
            phase=self.phase,
            file_name="light-dev.conllua",
            path="data/light-dev.conllua",
            size=17,
            sha256="0" * 64,
            release_at=now - timedelta(1),
        )
        for kind in CompetitionPage.Kind.values:
            CompetitionPage.objects.create(
                competition=self.competition, kind=kind, body=f"The {kind} of the secret task."
            )
        self.team = organizer_team_get_or_create(competition=self.competition)
        self.team.memberships.create(user=self.organizer, competition=self.competition)
        self.runs = [
            Submission.objects.create(
                team=self.team,
                phase=self.phase,
                submitted_by=self.organizer,
                run_name=f"r{i}",
                status=Submission.Status.SCORED,
            )
            for i in range(2)
        ]
        self.batch = RescoreBatch.objects.create(
            phase=self.phase, submission_ids=[r.pk for r in self.runs]
        )
        self.snapshot = board_freeze(phase=self.phase, user=self.organizer)
        # The bundle import that made the draft (staff see its page and report).
        self.bundle_job = DefinitionJob.objects.create(
            competition=self.competition,
            kind=DefinitionJob.Kind.BUNDLE,
            params={"owner": self.organizer.username},
            file_name="secret.zip",
            path="jobs/gone/upload",
            status=DefinitionJob.Status.DONE,
        )

    def values(self, name: str, route_name: str) -> str:
        """The draft's value for a URL parameter."""
        if route_name == "competition:data_download":
            return {"pk": str(self.data.pk), "file_name": self.data.file_name}[name]
        table = {
            "slug": SLUG,
            "competition": SLUG,
            "task": self.task.slug,
            "phase": self.phase.slug,
            "subcorpus": self.subcorpus.slug,
            "kind": "overview",
            "pk": str(self.runs[0].pk),
            "submission_id": str(self.runs[0].pk),
            "phase_id": str(self.phase.pk),
            "team_id": str(self.team.pk),
            "user_id": str(self.organizer.pk),
            "batch_id": str(self.batch.pk),
            "token": "any-token",
            "snapshot_id": str(self.snapshot.pk),
            "job_id": str(self.bundle_job.pk),
        }
        if name not in table:
            raise AssertionError(
                f"the crawl does not know the URL parameter {name!r} of "
                f"{route_name!r}: teach it a draft's value"
            )
        return table[name]


def ghost(name: str) -> str:
    return {
        "slug": GHOST_SLUG,
        "competition": GHOST_SLUG,
        "file_name": "nothing.txt",
        "kind": "overview",
        "token": "any-token",
    }.get(name, "nothing" if name in ("task", "phase", "subcorpus") else str(GHOST_ID))


def fill(route: str, pattern: URLPattern, value) -> str:
    path = route
    for name in pattern.pattern.converters:
        for converter in ("slug", "int", "str", "path", "uuid"):
            path = path.replace(f"<{converter}:{name}>", value(name))
        path = path.replace(f"<{name}>", value(name))
    return "/" + path


def crawl_urls(draft: Draft) -> list[tuple[str, str, str]]:
    """(route name, draft URL, ghost URL) for every pattern that names something."""
    urls = []
    for route, name, pattern in walk(get_resolver().url_patterns):
        if route.startswith(SKIPPED_PREFIXES) or not pattern.pattern.converters:
            continue
        urls.append(
            (
                name,
                fill(route, pattern, lambda n, name=name: draft.values(n, name)),
                fill(route, pattern, ghost),
            )
        )
    # the pages that name runs in their query
    a, b = draft.runs
    urls += [
        ("compare-a", f"/compare/?a={a.pk}", f"/compare/?a={GHOST_ID}"),
        ("compare-ab", f"/compare/?a={a.pk}&b={b.pk}", f"/compare/?a={GHOST_ID}&b={GHOST_ID}"),
    ]
    return urls


def listing_urls() -> list[str]:
    """Every pattern that names nothing (home, lists, the API's index and schema)."""
    return [
        "/" + route
        for route, _, pattern in walk(get_resolver().url_patterns)
        if not route.startswith(SKIPPED_PREFIXES) and not pattern.pattern.converters
    ]


def body(response) -> bytes:
    if getattr(response, "streaming", False):
        return b"".join(response.streaming_content)
    return response.content


def answer(client: Client, method: str, url: str):
    call = client.get if method == "GET" else client.post
    response = call(url, HTTP_ACCEPT="text/html,application/json")
    return response.status_code, response.get("Location", ""), body(response)


@pytest.fixture
def draft() -> Draft:
    return Draft()


@pytest.fixture
def viewers(draft):
    """An anonymous visitor, a participant of another competition, another competition's
    organizer: each a logged-in (or not) test client."""
    User = get_user_model()
    other = Competition.objects.create(
        slug="public-one", title="Public one", published_at=timezone.now()
    )
    other_organizer = User.objects.create_user("other-organizer", password="pw-12345!")
    other.organizers.add(other_organizer)
    participant = User.objects.create_user("participant", password="pw-12345!")
    services.team_create(competition=other, name="Team P", user=participant)
    clients = {"anonymous": Client()}
    for label, user in (("participant", participant), ("other organizer", other_organizer)):
        clients[label] = Client()
        clients[label].force_login(user)
    return clients


def test_the_crawl_covers_every_page_that_names_a_competition_or_its_objects(draft):
    names = {name for name, _, _ in crawl_urls(draft)}
    for expected in (
        "competition:competition",
        "competition:phase",
        "competition:page",
        "competition:data_download",
        "competition:publish",
        "competition:audit_log",
        "competition:organizers",
        "leaderboard:board",
        "leaderboard:board_csv",
        "leaderboard:analysis",
        "leaderboard:final_submissions",
        "api-competition",
        "api-phase",
        "api-leaderboard",
        "api-submission",
        "api-submission-documents",
    ):
        assert expected in names
    assert len(names) >= 45


@pytest.mark.parametrize("viewer", ["anonymous", "participant", "other organizer"])
def test_a_draft_answers_everyone_else_as_if_it_did_not_exist(draft, viewers, viewer):
    client = viewers[viewer]
    leaks = []
    for name, url, ghost_url in crawl_urls(draft):
        for method in ("GET", "POST"):
            got = answer(client, method, url)
            expected = answer(client, method, ghost_url)
            same_status = got[0] == expected[0]
            same_target = got[1].replace(url, "") == expected[1].replace(ghost_url, "")
            named = TITLE.encode() in got[2] or SLUG.encode() in got[2].replace(url.encode(), b"")
            if not (same_status and same_target) or named or got[0] == 403:
                leaks.append(
                    f"{method} {url} ({name}): {got[0]} {got[1]!r}, "
                    f"a never-used one: {expected[0]} {expected[1]!r}"
                    + (", names the draft" if named else "")
                )
    assert not leaks, "\n".join(leaks)
    # and the draft is on no list
    for url in listing_urls():
        status, _, content = answer(client, "GET", url)
        assert TITLE.encode() not in content and SLUG.encode() not in content, url
    assert not Submission.objects.filter(
        team__competition=draft.competition, status=Submission.Status.QUEUED
    ).exists()
    assert Team.objects.filter(competition=draft.competition).count() == 1


def test_its_organizer_and_staff_see_every_page_of_the_draft(draft):
    staff = get_user_model().objects.create_user("staff", password="pw-12345!", is_staff=True)
    for user in (draft.organizer, staff):
        client = Client()
        client.force_login(user)
        urls = dict((name, url) for name, url, _ in crawl_urls(draft))
        for name in (
            "competition:competition",
            "competition:phase",
            "competition:page",
            "competition:data_download",
            "competition:publish",
            "competition:audit_log",
            "competition:organizers",
            "competition:edit",
            "leaderboard:board",
            "leaderboard:board_csv",
            "leaderboard:competition",
            "leaderboard:organize_phase",
            "api-competition",
            "api-phase",
            "api-leaderboard",
            "competition:submission",
        ):
            response = client.get(urls[name])
            assert response.status_code == 200, (user, name, urls[name])
        home = client.get("/").content.decode()
        assert TITLE in home and 'class="badge draft"' in home
        listed = client.get("/api/competitions/").json()
        assert SLUG in [c["slug"] for c in listed]
        page = client.get(f"/competitions/{SLUG}/").content.decode()
        assert 'id="draft-mark"' in page and "Draft" in page


def test_once_published_everyone_sees_it(draft, viewers):
    competition_publish(competition=draft.competition, actor=draft.organizer)
    for client in viewers.values():
        assert client.get(f"/competitions/{SLUG}/").status_code == 200
        assert TITLE in client.get("/").content.decode()
        assert client.get(f"/api/phases/{draft.phase.pk}/").status_code == 200
        assert 'id="draft-mark"' not in client.get(f"/competitions/{SLUG}/").content.decode()
