"""What a visitor sees of a board, computed once per state of the phase and kept in the cache.

A public board is the same for every viewer who is not an organizer: its rows, ranks, tied
groups, chart and variants depend only on the phase's runs and settings. Building it costs
tens of milliseconds of CPU at a thousand runs (reading, ranking, testing, rendering), and a
fresh web process paid seconds for its first one. So the page's board (the HTML below the
site header) and the API's payload are kept in Django's cache (Redis in production, shared by
every process: docs/deploy.md) under a key that names everything they are built from:

- ``board_state``: one aggregate query over the phase's shown runs (each run's status, team
  and team name, run name, flags, track, current scoring, board entry), hashed by the
  database on PostgreSQL; a run's scores belong to its current scoring run, which a new
  scoring replaces, so its id stands for them;
- the phase, its task, competition, sub-corpora, tracks, sibling phases (the tabs, and the
  predicted-versus-gold table of a test phase, which reads the other test phase) and the
  active snapshot;
- the view (page or API), the query parameters and the viewer's visibility (only a public
  board is kept; organizers and teams seeing their own runs are served as before).

A change of any of these is a new key: nothing is ever invalidated, an old view just stops
being asked for and expires. `leaderboard.services.board_views_warm` builds the default
views when a run's scores change (`competition.services.boards.board_entries_written`), so
the first visitor reads a kept view too.
"""

from __future__ import annotations

import hashlib

from django.db.models import Aggregate, F, FilteredRelation, Func, Q, TextField, Value
from django.db.models.functions import Cast, Coalesce

from competition.models import Phase, Submission
from competition.visibility import Visibility, phase_visibility
from leaderboard.models import BoardSnapshot

VERSION = 1
"""Part of every key: raise it when what a kept view holds changes shape."""
KEPT_SECONDS = 7 * 24 * 3600
PREFIX = "leaderboard:view:"

_RUN_FIELDS = ("id", "status", "team_id", "team__name", "run_name", "created_at",
               "is_baseline", "is_chosen", "disqualified", "track_id", "scorer_version",
               "is_reference", "source", "description", "link", "current__id",
               "current__procedure", "board_entry__run_id", "board_entry__pairs")


class _Digest(Aggregate):
    """The rows' texts: on PostgreSQL their md5 in the database (ordered, so the same rows
    give the same digest), elsewhere joined by newlines for the caller to hash."""

    function = "GROUP_CONCAT"
    output_field = TextField()

    def as_sqlite(self, compiler, connection, **extra_context):
        sql, params = compiler.compile(self.source_expressions[0])
        return f"GROUP_CONCAT({sql}, char(10))", params

    def as_postgresql(self, compiler, connection, **extra_context):
        sql, params = compiler.compile(self.source_expressions[0])
        return f"md5(string_agg({sql}, E'\\n' ORDER BY {sql}))", (*params, *params)


class _Joined(Func):
    """``a || b || …`` flat (Django's Concat nests a pair per argument, too deep for SQLite's
    parser at twenty fields); every part is text and never NULL."""

    arg_joiner = " || "
    template = "(%(expressions)s)"
    output_field = TextField()


def _text(name: str):
    return Coalesce(Cast(F(name), TextField()), Value("\N{EMPTY SET}"))


def _runs_digest(phase: Phase) -> str:
    parts = []
    for name in _RUN_FIELDS:
        parts += [_text(name), Value("\t")]
    found = (
        Submission.objects.filter(
            phase=phase, status__in=[Submission.Status.SCORED, Submission.Status.FAILED])
        .annotate(current=FilteredRelation("runs", condition=Q(runs__is_current=True)))
        .aggregate(state=_Digest(_Joined(*parts[:-1])))
    )["state"] or ""
    if len(found) != 32 or "\t" in found:  # joined texts, not a digest: sort and hash them
        found = hashlib.sha256("\n".join(sorted(found.split("\n"))).encode()).hexdigest()
    return found


def _fields(instance) -> tuple:
    return tuple(getattr(instance, f.attname) for f in type(instance)._meta.concrete_fields)


def board_state(*, phase: Phase, with_siblings: bool = False) -> str:
    """A digest of everything a public board of ``phase`` is built from (see the module
    docstring). ``with_siblings``: also the other phases' runs (the predicted-versus-gold
    table of a test phase shows them)."""
    task = phase.task
    siblings = list(task.phases.all())
    parts = [
        _fields(phase), _fields(task), _fields(task.competition),
        [_fields(s) for s in phase.subcorpora.all()],
        [_fields(t) for t in task.tracks.all()],
        [(s.pk, s.slug, s.title, s.kind, s.order) for s in siblings],
        BoardSnapshot.objects.filter(phase=phase, active=True).order_by(
            "-created_at", "-id").values_list("pk", flat=True).first(),
        _runs_digest(phase),
    ]
    if with_siblings:
        parts += [(s.pk, _fields(s), _runs_digest(s)) for s in siblings if s.pk != phase.pk]
    return hashlib.sha256(repr(parts).encode()).hexdigest()


def public_view_key(*, phase: Phase, viewer, view: str, query) -> str | None:
    """The cache key of the ``view`` ("page" or "api") of ``phase`` for these query
    parameters (a QueryDict), or None when ``viewer`` does not see the public board (an
    organizer, or a hidden phase): such boards are built on each request."""
    if phase_visibility(phase=phase, user=viewer) is not Visibility.PUBLIC:
        return None
    items = sorted((name, tuple(values)) for name, values in query.lists())
    state = board_state(phase=phase,
                        with_siblings=view == "page" and phase.kind != Phase.Kind.DEVELOPMENT)
    digest = hashlib.sha256(repr((VERSION, view, items, state)).encode()).hexdigest()
    return f"{PREFIX}{phase.pk}:{digest}"
