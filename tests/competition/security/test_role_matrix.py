"""Every writer of the site, walked for every role, against one table of who may write.

`ROUTES` names every URL of the site (the admin aside, staff's own tool) with what it is: a
page that reads (``READ``), or a writer with the roles it allows and a request that writes
through it. A URL added to the URLconf without a line here fails
`test_every_url_is_in_the_table`, so that a new door cannot skip the rules by being
forgotten. `test_each_writer_for_each_role` then posts each writer's request as each role
and checks the table: an allowed role changes what the request writes; a refused one is
answered 4xx (or sent to log in, or told on the page) and nothing changes.

Roles: a visitor (``anonymous``), a participant of the competition (``participant``, in a
team with a run), a co-organizer, its owner, an organizer of another competition
(``elsewhere``) and staff.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable
from dataclasses import dataclass

import pytest
import yaml
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from rest_framework.authtoken.models import Token

from competition import services
from competition.definition.upload import competition_definition_yaml
from competition.models import (
    Announcement,
    AuditEntry,
    Competition,
    CompetitionPage,
    ParticipationRules,
    Phase,
    SubCorpus,
    Submission,
    SystemCardQuestion,
    Task,
    Team,
    TermsAcceptance,
)
from competition.services.publish import competition_organizer_add
from tests.competition.bundles.builders import codalab_bundle
from tests.conftest import KEY_DOCS, conllua

pytestmark = pytest.mark.django_db

ROLES = ("anonymous", "participant", "coorg", "owner", "elsewhere", "staff")
ORGANIZERS = frozenset({"coorg", "owner", "staff"})
OWNER = frozenset({"owner", "staff"})
STAFF = frozenset({"staff"})
TEAM = frozenset({"participant"})
TEAM_OR_ORGANIZERS = TEAM | ORGANIZERS
ANY_USER = frozenset(ROLES) - {"anonymous"}

READ = "read"
"""A page that writes nothing (its visibility has its own tests)."""
ACCOUNT = "account"
"""The visitor's own account (Django's auth views, signup): no competition's rules apply."""


@dataclass(frozen=True)
class Writer:
    allowed: frozenset[str]
    request: Callable[[Ctx], tuple[str, str, dict]]  # (method, url, data)
    says: str = ""  # a refusal that is a page of its own (200): what it says
    setup: Callable[[Ctx], object] | None = None  # what the write needs first


@dataclass
class Ctx:
    world: object
    run: Submission

    @property
    def slug(self) -> str:
        return self.world.competition.slug


# --- the requests ---------------------------------------------------------------------------


def _definition(ctx: Ctx, *, title: str = "Changed by a definition", add: str = "") -> bytes:
    data = yaml.safe_load(competition_definition_yaml(competition=ctx.world.competition))
    data["title"] = title
    if add:
        data["organizers"] = [*data.get("organizers", []), add]
    return yaml.safe_dump(data, sort_keys=False).encode()


def _zip(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buffer.getvalue()


def _post(
    name: str, args: Callable[[Ctx], list] = lambda ctx: [ctx.slug], **data: str
) -> Callable[[Ctx], tuple[str, str, dict]]:
    """A POST of ``data`` (text fields only) to the URL ``name`` with ``args``."""
    return lambda ctx: ("post", reverse(name, args=args(ctx)), dict(data))


PHASE_ARGS: Callable[[Ctx], list] = lambda ctx: [ctx.slug, "identity", "dev"]  # noqa: E731
RUN_ARGS: Callable[[Ctx], list] = lambda ctx: [ctx.run.pk]  # noqa: E731


def _edit(action: str, **data) -> Callable[[Ctx], tuple[str, str, dict]]:
    return lambda ctx: (
        "post",
        reverse("competition:edit", args=[ctx.slug]),
        {"action": action, **data},
    )


def _upload(ctx: Ctx, name: str, body: bytes) -> tuple[str, str, dict]:
    url = reverse("competition:edit", args=[ctx.slug])
    return "post", url, {"action": "upload", "definition": SimpleUploadedFile(name, body)}


def _phase_url(name: str) -> Callable[[Ctx], str]:
    return lambda ctx: reverse(name, args=PHASE_ARGS(ctx))


def _results(ctx: Ctx) -> tuple[str, str, dict]:
    csv = "submission_pk,User,LIGHT CoNLL F1\n1,ancient,51.5\n"
    return (
        "post",
        reverse("competition:bundle_results", args=[ctx.slug]),
        {
            "phase": str(ctx.world.phase.pk),
            "results": SimpleUploadedFile("results.csv", csv.encode()),
            "source": "the old server",
            "unit": "auto",
        },
    )


def _api_submit(ctx: Ctx) -> tuple[str, str, dict]:
    files = {
        slug: SimpleUploadedFile(f"{slug.upper()}.CONLLUA", text.encode())
        for slug, text in ((s, conllua(docs)) for s, docs in KEY_DOCS.items())
    }
    url = reverse("api-phase-submissions", args=[ctx.world.phase.pk])
    return "api-post", url, {**files, "run_name": "by the API"}


NEW_PHASE = {
    "slug": "added",
    "title": "Added",
    "kind": "development",
    "time_zone": "UTC",
    "start": "2026-06-01T00:00",
    "leaderboard_visibility": "public",
    "run_details": "public",
    "daily_limit": "3",
    "total_limit": "9",
    "counts": "best",
    "missing": "unranked",
}

ROUTES: dict[str, Writer | str] = {
    # --- organizers: the editor's forms, the definition, results, clone, boards ------------
    "competition:edit": Writer(ORGANIZERS, _edit("save", title="Changed", website="")),
    "competition:edit_task": Writer(
        ORGANIZERS,
        _post(
            "competition:edit_task",
            lambda ctx: [ctx.slug, "identity"],
            **{f"phase-{key}": value for key, value in NEW_PHASE.items()},
            action="phase",
        ),
    ),
    "competition:edit_phase": Writer(
        ORGANIZERS,
        lambda ctx: (
            "post",
            _phase_url("competition:edit_phase")(ctx),
            {
                "action": "subcorpus",
                "sc-name": "EXTRA",
                "sc-available": "on",
                "sc-key": SimpleUploadedFile("extra.conllua", conllua(KEY_DOCS["ami"]).encode()),
            },
        ),
    ),
    "competition:edit_subcorpus": Writer(
        ORGANIZERS,
        _post(
            "competition:edit_subcorpus",
            lambda ctx: [*PHASE_ARGS(ctx), "switchboard"],
            action="delete",
        ),
    ),
    "competition:page_edit": Writer(
        ORGANIZERS,
        _post(
            "competition:page_edit", lambda ctx: [ctx.slug, "overview"], action="save", body="New."
        ),
    ),
    "competition:organize_teams": Writer(
        ORGANIZERS, _post("competition:organize_teams", action="require")
    ),
    "competition:announcements": Writer(
        ORGANIZERS, _post("competition:announcements", title="News", body="Something.")
    ),
    "competition:card_defaults": Writer(ORGANIZERS, _post("competition:card_defaults")),
    "competition:card_question": Writer(
        ORGANIZERS,
        _post(
            "competition:card_question",
            **{"cq-slug": "team-size", "cq-text": "How many people?", "cq-kind": "text"},
        ),
    ),
    "competition:bundle_results": Writer(ORGANIZERS, _results),
    "leaderboard:organize_phase": Writer(
        ORGANIZERS, _post("leaderboard:organize_phase", PHASE_ARGS, action="hide")
    ),
    "leaderboard:organize_submission": Writer(
        ORGANIZERS,
        _post("leaderboard:organize_submission", RUN_ARGS, action="disqualify", reason="unfair"),
    ),
    # --- who organizes: the owner and staff only --------------------------------------------
    "competition:organizers": Writer(
        OWNER, _post("competition:organizers", action="add", username="bob")
    ),
    # --- staff only -------------------------------------------------------------------------
    "competition:competition_new": Writer(
        STAFF,
        _post(
            "competition:competition_new",
            lambda ctx: [],
            slug="brand-new",
            title="Brand new",
            owner="coorg",
        ),
    ),
    "competition:bundle_import": Writer(
        STAFF,
        lambda ctx: (
            "post",
            reverse("competition:bundle_import"),
            {
                "bundle": SimpleUploadedFile("bundle.zip", codalab_bundle()),
                "owner": "coorg",
                "slug": "imported",
            },
        ),
    ),
    # --- a team's own writes ------------------------------------------------------------------
    "competition:submit": Writer(
        TEAM,
        lambda ctx: (
            "post",
            _phase_url("competition:submit")(ctx),
            {
                **{f"file_{slug}": f for slug, f in ctx.world.uploads().items()},
                "run_name": "another",
            },
        ),
        says="team",
    ),
    "competition:submission_describe": Writer(
        TEAM_OR_ORGANIZERS,
        _post("competition:submission_describe", RUN_ARGS, run_name="renamed", description=""),
    ),
    "competition:submission_cancel": Writer(
        TEAM_OR_ORGANIZERS, _post("competition:submission_cancel", RUN_ARGS)
    ),
    "competition:team_rename": Writer(
        TEAM_OR_ORGANIZERS,
        _post(
            "competition:team_rename",
            lambda ctx: [ctx.slug, ctx.world.alpha.pk],
            **{"rename-name": "Alpha Prime"},
        ),
    ),
    "competition:terms_accept": Writer(
        ANY_USER,
        _post("competition:terms_accept"),
        setup=lambda ctx: CompetitionPage.objects.create(
            competition=ctx.world.competition, kind="terms", body="Be fair."
        ),
    ),
    "api-phase-submissions": Writer(TEAM, _api_submit),
    # --- pages that read (or write only the visitor's own choices) --------------------------
    "competition:home": READ,
    "competition:competition": READ,
    "competition:team": ACCOUNT,  # create or join a team: one's own membership
    "competition:page": READ,
    "competition:publish": READ,  # its writes: tests/competition/services/test_publish.py
    "competition:audit_log": READ,
    "competition:announcement_emails": ACCOUNT,  # one's own e-mail choice
    "competition:unsubscribe": ACCOUNT,
    "competition:team_leave": ACCOUNT,
    "competition:team_member_remove": READ,  # tests/competition/services/test_team_actions.py
    "competition:teams_organize": READ,  # a redirect to organize_teams
    "competition:submissions": READ,
    "competition:phase": READ,
    "competition:data_download": READ,
    "competition:definition_yaml": READ,
    "competition:definition_zip": READ,
    "competition:submission": READ,
    "competition:submission_card": READ,  # the card's writes: test_system_cards*.py
    "competition:submission_status": READ,
    "competition:submission_choose": READ,  # tests/competition/test_run_records.py
    "leaderboard:competition": READ,
    "leaderboard:board": READ,
    "leaderboard:board_languages": READ,
    "leaderboard:board_csv": READ,
    "leaderboard:board_json": READ,
    "leaderboard:final_submissions": READ,
    "leaderboard:results_package": READ,
    # its POST queues a package job (the cache, no row): organizers only, tests/leaderboard/
    # test_record.py and tests/e2e/test_results_package.py
    "leaderboard:results_package_progress": READ,
    "leaderboard:results_package_download": READ,
    "competition:bundle_job": READ,  # staff only, like the import page: test_draft_crawl.py
    "leaderboard:frozen_board_json": READ,
    "leaderboard:rescore_progress": READ,
    "leaderboard:rescore_progress_json": READ,
    "leaderboard:analysis": READ,
    "leaderboard:documents_csv": READ,
    "leaderboard:documents_json": READ,
    "leaderboard:compare": READ,
    "api-token": ACCOUNT,
    "api-competitions": READ,
    "api-competition": READ,
    "api-phase": READ,
    "api-phase-check": READ,  # checks a run, stores nothing
    "api-leaderboard": READ,
    "api-submission": READ,
    "api-submission-documents": READ,
    "api-submission-card": READ,  # the card's writes: tests/leaderboard/test_api_cards*.py
    "api-schema": READ,
    "api-docs": READ,
    "health:web": READ,
    "health:broker": READ,
    "health:workers": READ,
    "favicon": READ,
    "signup": ACCOUNT,
    "login": ACCOUNT,
    "logout": ACCOUNT,
    "password_change": ACCOUNT,
    "password_change_done": ACCOUNT,
    "password_reset": ACCOUNT,
    "password_reset_done": ACCOUNT,
    "password_reset_confirm": ACCOUNT,
    "password_reset_complete": ACCOUNT,
}

# The definition's doors, each a writer of the competition edit page's own actions.
DEFINITION_DOORS: dict[str, Writer] = {
    "definition-yaml": Writer(
        ORGANIZERS, lambda ctx: _upload(ctx, "definition.yaml", _definition(ctx))
    ),
    "definition-zip": Writer(
        ORGANIZERS,
        lambda ctx: _upload(ctx, "definition.zip", _zip({"competition.yaml": _definition(ctx)})),
    ),
    "definition-adding-an-organizer": Writer(
        OWNER, lambda ctx: _upload(ctx, "definition.yaml", _definition(ctx, add="bob"))
    ),
    "clone": Writer(
        ORGANIZERS,
        _edit("clone", **{"clone-slug": "next", "clone-title": "Next", "clone-days": "365"}),
    ),
}


def _url_names() -> set[str]:
    def walk(patterns, namespace: str = ""):
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                if str(pattern.pattern).startswith("admin/"):
                    continue
                inner = pattern.namespace or ""
                space = f"{namespace}:{inner}" if namespace and inner else namespace or inner
                yield from walk(pattern.url_patterns, space)
            elif isinstance(pattern, URLPattern):
                name = pattern.name or pattern.callback.__name__
                yield f"{namespace}:{name}" if namespace else name

    return set(walk(get_resolver().url_patterns))


def test_every_url_is_in_the_table():
    """A new URL must say here whether it writes, and for whom."""
    names = _url_names()
    assert names - set(ROUTES) == set(), "URLs missing from ROUTES (say who may write)"
    assert set(ROUTES) - names == set(), "ROUTES names URLs that no longer exist"


# --- the walk -------------------------------------------------------------------------------


@pytest.fixture
def ctx(world, settings) -> Ctx:
    User = get_user_model()
    owner = User.objects.create_user("owner", password="pw-owner-123")
    User.objects.create_user("coorg", password="pw-coorg-123")
    User.objects.create_user("elsewhere", password="pw-elsewhere-123")
    User.objects.create_user("staff", password="pw-staff-123", is_staff=True)
    User.objects.create_user("participant", password="pw-participant-123")
    competition = world.competition
    competition.owner = owner
    competition.save(update_fields=["owner"])
    competition.organizers.add(owner)
    competition_organizer_add(competition=competition, actor=owner, username="coorg")
    other = Competition.objects.create(slug="elsewhere", title="Elsewhere")
    other.organizers.add(User.objects.get(username="elsewhere"))
    CompetitionPage.objects.create(competition=competition, kind="overview", body="Welcome.")
    # the participant role is alice of team Alpha, with a run
    run = services.submission_create(
        team=world.alpha, phase=world.phase, user=world.alice, files=world.uploads()
    )
    return Ctx(world=world, run=run)


def _login(client, role: str, ctx: Ctx) -> None:
    if role == "anonymous":
        return
    if role == "participant":
        client.force_login(ctx.world.alice)
    else:
        client.force_login(get_user_model().objects.get(username=role))


def _state() -> tuple:
    """What any writer of the table changes."""
    return (
        list(Competition.objects.order_by("pk").values_list("slug", "title")),
        list(Competition.objects.get(slug="codi-test").organizers.values_list("pk", flat=True)),
        list(Task.objects.values_list("slug", "title")),
        list(Phase.objects.order_by("pk").values_list("slug", "leaderboard_visibility")),
        list(SubCorpus.objects.order_by("pk").values_list("name", "available")),
        list(CompetitionPage.objects.values_list("kind", "body")),
        list(ParticipationRules.objects.values_list("team_approval", flat=True)),
        Announcement.objects.count(),
        SystemCardQuestion.objects.count(),
        list(Team.objects.order_by("pk").values_list("name", flat=True)),
        list(
            Submission.objects.order_by("pk").values_list(
                "run_name", "status", "disqualified", "is_reference"
            )
        ),
        TermsAcceptance.objects.count(),
        AuditEntry.objects.count(),
    )


def _send(client, ctx: Ctx, role: str, request: tuple[str, str, dict]):
    method, url, data = request
    if method == "api-post":
        if role != "anonymous":
            user = ctx.world.alice if role == "participant" else None
            user = user or get_user_model().objects.get(username=role)
            token, _ = Token.objects.get_or_create(user=user)
            client.defaults["HTTP_AUTHORIZATION"] = f"Token {token.key}"
        return client.post(url, data)
    _login(client, role, ctx)
    return client.post(url, data)


WRITERS = [
    pytest.param(name, writer, role, id=f"{name}-{role}")
    for name, writer in [
        *((n, w) for n, w in ROUTES.items() if isinstance(w, Writer)),
        *DEFINITION_DOORS.items(),
    ]
    for role in ROLES
]


@pytest.mark.parametrize(("name", "writer", "role"), WRITERS)
def test_each_writer_for_each_role(client, ctx, name, writer, role):
    if writer.setup is not None:
        writer.setup(ctx)
    request = writer.request(ctx)
    before = _state()
    response = _send(client, ctx, role, request)
    after = _state()
    assert response.status_code < 500
    if role in writer.allowed:
        assert response.status_code < 400, (response.status_code, response.content[-2000:])
        assert after != before, f"{role} was allowed but {name} wrote nothing"
        return
    assert after == before, f"{role} wrote through {name}"
    location = response.get("Location", "")
    assert (
        response.status_code in (400, 401, 403, 404, 405)
        or location.startswith((reverse("login"), reverse("admin:login")))
        or (response.status_code in (200, 302) and _told(client, response))
        or (writer.says and response.status_code == 200 and writer.says in _text(response))
    ), (response.status_code, location)


def _text(response) -> str:
    return response.content.decode(errors="replace")


def _told(client, response) -> bool:
    """A refusal said on the page it returns to (a team's run pages redirect with it)."""
    from django.contrib.messages import get_messages

    return any(m.level_tag == "error" for m in get_messages(response.wsgi_request))
