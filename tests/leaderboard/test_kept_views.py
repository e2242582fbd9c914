"""A public board's page and API payload are kept in the cache and read from it
(`leaderboard.selectors.precomputed`): served from the cache, they are always what the same
request would build now, after any sequence of what happens to a phase; they are built when
scores change, so the first visitor reads them; organizers and hidden boards are never kept.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from html import escape
from pathlib import Path

import pytest
from django.contrib.auth.models import AnonymousUser
from django.core.cache import cache
from django.db import transaction
from django.http import QueryDict
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from competition.models import Competition, PublishedAverage, SubCorpus, Submission, Team
from competition.models import Phase as PhaseModel
from leaderboard import api, board_views, views
from leaderboard.selectors.precomputed import public_view_key
from leaderboard.services import board_views_warm
from tests.leaderboard.test_board_entries import ACTION, PICK, Phase

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
QUERIES = ("runs=all", "metric=muc")
MORE = st.one_of(
    ACTION,
    st.tuples(st.just("rename"), PICK),
    st.tuples(st.just("describe"), PICK),
    st.tuples(
        st.just("unavailable"),
    ),
)


def act(world: Phase, action: tuple) -> None:
    """The harness's actions, and changes made with a bulk update (no signal, no save)."""
    name = action[0]
    run = world.pick(action[1]) if len(action) > 1 and isinstance(action[1], int) else None
    if name == "rename" and run is not None:
        Team.objects.filter(pk=run.team_id).update(name=f"renamed {run.pk}")
    elif name == "describe" and run is not None:
        Submission.objects.filter(pk=run.pk).update(description=f"about {run.pk}")
    elif name == "unavailable":
        SubCorpus.objects.filter(phase=world.phase, slug="ami").update(available=False)
    elif name not in ("rename", "describe"):
        world.act(action)


def served(client, world: Phase, viewer, text: str) -> tuple[str, object]:
    """The page's board and the API's payload as ``viewer`` is served them."""
    client.logout()
    if not isinstance(viewer, AnonymousUser):
        client.force_login(viewer)
    task = world.phase.task
    page = client.get(
        reverse("leaderboard:board", args=[task.competition.slug, task.slug, world.phase.slug])
        + "?"
        + text
    )
    answer = client.get(reverse("api-leaderboard", args=[world.phase.pk]) + "?" + text)
    return page.content.decode(), answer.json()


def built(world: Phase, viewer, text: str) -> tuple[str, object]:
    """The same, built now from the database (nothing read from the cache)."""
    query = QueryDict(text)
    content, _ = board_views.board_page_content(phase=world.phase, viewer=viewer, query=query)
    try:
        payload = json.loads(
            json.dumps(board_views.board_api_payload(phase=world.phase, viewer=viewer, query=query))
        )
    except Exception as exc:  # a refused query: the API answers with its error
        payload = type(exc).__name__
    return content, payload


@settings(
    max_examples=6,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    counts=st.sampled_from(["best", "latest", "chosen"]),
    actions=st.lists(MORE, min_size=1, max_size=6),
)
def test_a_kept_view_is_always_the_view_built_now(make, client, counts, actions):
    with transaction.atomic():
        cache.clear()
        world = Phase(make, procedure="", counts=counts)
        for action in actions:
            act(world, action)
            for viewer, text in itertools.product(world.viewers(), QUERIES):
                for _ in range(2):  # the first request may build and keep; the second reads
                    page, payload = served(client, world, viewer, text)
                    content, expected = built(world, viewer, text)
                    assert content in page, (action, viewer, text)
                    if isinstance(expected, str):
                        assert payload.get("code") == "invalid_query"
                    else:
                        assert payload == expected, (action, viewer, text)
        transaction.set_rollback(True)


def test_a_public_board_is_built_once_and_then_read(make, client, monkeypatch):
    world = Phase(make, procedure="", counts="best")
    world.record(world.queued(0), {"light": 0.5, "ami": 0.25})
    calls = []
    page_content, api_payload = views.board_page_content, api.board_api_payload
    monkeypatch.setattr(
        views, "board_page_content", lambda **kw: calls.append("page") or page_content(**kw)
    )
    monkeypatch.setattr(
        api, "board_api_payload", lambda **kw: calls.append("api") or api_payload(**kw)
    )
    first = served(client, world, AnonymousUser(), "runs=all")
    assert served(client, world, AnonymousUser(), "runs=all") == first
    page, payload = served(client, world, world.members[1], "runs=all")  # public: the same
    assert payload == first[1] and page != first[0]  # (the site's header names the member)
    assert calls == ["page", "api"]
    served(client, world, world.organizer, "runs=all")  # never kept: built every time
    served(client, world, world.organizer, "runs=all")
    assert calls == ["page", "api"] + ["page", "api"] * 2
    world.record(world.queued(1), {"light": 0.75, "ami": 0.25})  # a new state: built again
    served(client, world, AnonymousUser(), "runs=all")
    assert calls[-2:] == ["page", "api"] and len(calls) == 8


def test_a_crac_2026_board_is_kept_with_its_empty_node_table(make, client):
    """The kept board of a CRAC 2026 task holds what the page adds for it: the empty-node
    measures in a table of their own (not among the variants) and the link to the view by
    language; served from the cache it is the board built now."""
    world = Phase(make, procedure="crac-2026", counts="best")
    world.record(world.queued(0), {"light": 0.5, "ami": 0.25})
    world.record(world.queued(1), {"light": 0.75, "ami": 0.5})
    anonymous = AnonymousUser()
    first, _ = served(client, world, anonymous, "")
    phase = PhaseModel.objects.select_related("task__competition").get(pk=world.phase.pk)
    kept = cache.get(
        public_view_key(phase=phase, viewer=anonymous, view="page", query=QueryDict(""))
    )
    content, _ = built(world, anonymous, "")
    assert kept == content and content in first
    assert served(client, world, anonymous, "")[0] == first
    empty = content[content.index('id="empty-nodes"') :]
    empty = empty[: empty.index("</table>")]
    variants = content[content.index('id="variants"') :]
    variants = variants[: variants.index("</table>")]
    for measure in ("ARC", "DEP_WO", "FEATS", "ALL"):
        assert f">{measure}</th>" in empty and f">{measure}</th>" not in variants
    assert empty.count("<tr") == 3  # its head and the two teams' runs
    task = world.phase.task
    languages = reverse(
        "leaderboard:board_languages", args=[task.competition.slug, task.slug, world.phase.slug]
    )
    assert languages in content
    # the page by language is kept the same way, under a key of its own
    page = client.get(languages).content.decode()
    kept = cache.get(
        public_view_key(phase=phase, viewer=anonymous, view="languages", query=QueryDict(""))
    )
    content, error = board_views.board_languages_content(
        phase=phase, viewer=anonymous, query=QueryDict("")
    )
    assert not error and kept == content and content in page
    assert 'id="heatmap"' in content and 'id="empty-nodes"' not in content
    assert client.get(languages).content.decode() == page


def test_views_are_built_when_scores_change_so_the_first_visitor_reads_them(
    make, client, monkeypatch, django_capture_on_commit_callbacks
):
    world = Phase(make, procedure="crac-2025", counts="best")
    with django_capture_on_commit_callbacks(execute=True):
        world.record(world.queued(0), {"light": 0.5, "ami": 0.25})
    world.phase.refresh_from_db()  # as a request reads it
    anonymous = AnonymousUser()
    for text in ("", "runs=all"):
        for view in ("page", "api"):
            key = public_view_key(
                phase=world.phase, viewer=anonymous, view=view, query=QueryDict(text)
            )
            assert cache.get(key) is not None, (view, text)
    monkeypatch.setattr(views, "board_page_content", None)  # would raise if it were called
    monkeypatch.setattr(api, "board_api_payload", None)
    page, payload = served(client, world, anonymous, "")
    assert "lb-table" in page and len(payload["rows"]) == 1


def test_nothing_is_kept_of_a_hidden_board_or_for_organizers(make):
    world = Phase(make, procedure="", counts="best")
    world.record(world.queued(0), {"light": 0.5, "ami": 0.25})
    query = QueryDict("")
    assert (
        public_view_key(phase=world.phase, viewer=world.organizer, view="page", query=query) is None
    )
    world.act(("hide",))
    world.phase.refresh_from_db()
    for viewer in (AnonymousUser(), world.members[0]):
        assert public_view_key(phase=world.phase, viewer=viewer, view="page", query=query) is None
    assert board_views_warm(phase_ids=[world.phase.pk]) == 0


def test_a_kept_view_is_never_built_nor_served_for_a_draft(make, client):
    world = Phase(make, procedure="", counts="best")
    world.record(world.queued(0), {"light": 0.5, "ami": 0.25})
    anonymous = AnonymousUser()
    served(client, world, anonymous, "runs=all")  # published: kept
    world.phase.refresh_from_db()  # as a request reads it
    kept = public_view_key(
        phase=world.phase, viewer=anonymous, view="page", query=QueryDict("runs=all")
    )
    assert cache.get(kept) is not None
    competition = world.phase.task.competition
    # A draft again (written directly: the service refuses once teams have joined, but a
    # view kept while it was public must not outlive that).
    Competition.objects.filter(pk=competition.pk).update(published_at=None)
    world.phase.refresh_from_db()
    task = world.phase.task
    for viewer in (anonymous, world.members[0]):
        assert (
            public_view_key(
                phase=world.phase, viewer=viewer, view="page", query=QueryDict("runs=all")
            )
            is None
        )
        client.logout()
        if viewer is not anonymous:
            client.force_login(viewer)
        page = client.get(
            reverse("leaderboard:board", args=[competition.slug, task.slug, world.phase.slug])
            + "?runs=all"
        )
        answer = client.get(reverse("api-leaderboard", args=[world.phase.pk]) + "?runs=all")
        assert (page.status_code, answer.status_code) == (404, 404), viewer
    cache.clear()
    assert board_views_warm(phase_ids=[world.phase.pk]) == 0


@pytest.mark.parametrize(
    "url, backend",
    [
        ("redis://127.0.0.1:6379/6", "django.core.cache.backends.redis.RedisCache"),
        ("file:///tmp/codicrac-cache", "django.core.cache.backends.filebased.FileBasedCache"),
        ("", "django.core.cache.backends.locmem.LocMemCache"),
    ],
)
def test_cache_url_selects_djangos_own_backend(url, backend):
    env = {**os.environ, "CACHE_URL": url, "DJANGO_SETTINGS_MODULE": "config.settings"}
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from django.conf import settings; print(settings.CACHES['default']['BACKEND'])",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        check=True,
    )
    assert done.stdout.strip() == backend


def test_a_cache_url_of_another_kind_is_refused():
    env = {**os.environ, "CACHE_URL": "memcached://x", "DJANGO_SETTINGS_MODULE": "config.settings"}
    done = subprocess.run(
        [sys.executable, "-c", "from django.conf import settings; settings.CACHES"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
    )
    assert done.returncode != 0 and "CACHE_URL='memcached://x'" in done.stderr


def test_a_kept_api_board_is_sent_as_rendered_and_still_browsable(make, client):
    world = Phase(make, procedure="", counts="best")
    world.record(world.queued(0), {"light": 0.5, "ami": 0.25})
    url = reverse("api-leaderboard", args=[world.phase.pk])
    first = client.get(url)  # builds and keeps the rendered JSON
    kept = client.get(url)  # sends the kept bytes as they are
    assert kept["Content-Type"] == "application/json"
    assert kept.content == first.content and kept.json()["rows"]
    assert "Accept" in kept["Vary"]
    browsed = client.get(url, HTTP_ACCEPT="text/html")  # the browsable API renders the same board
    assert browsed.status_code == 200 and "text/html" in browsed["Content-Type"]
    assert escape(json.dumps(kept.json()["rows"][0]["team"])) in browsed.content.decode()


def test_published_averages_imported_later_show_on_the_kept_page(make, client):
    world = Phase(make, procedure="", counts="best")
    world.record(world.queued(0), {"light": 0.5, "ami": 0.25})
    task = world.phase.task
    url = reverse("leaderboard:board", args=[task.competition.slug, task.slug, world.phase.slug])
    assert "Published official results" not in client.get(url).content.decode()  # kept now
    PublishedAverage.objects.create(
        phase=world.phase, metric="conll", team="Printed Team", average=0.7018, source="Table 3"
    )
    page = client.get(url).content.decode()
    assert "Published official results" in page and "Printed Team" in page and "70.18" in page
