"""What a visitor sees of a board, computed once per state of the phase and kept in the cache.

A public board is the same for every viewer who is not an organizer: its rows, ranks, tied
groups, chart and variants depend only on the phase's runs and settings. Building it costs
tens of milliseconds of CPU at a thousand runs (reading, ranking, testing, rendering), and a
fresh web process paid seconds for its first one. So the page's board (the HTML below the
site header) and the API's payload are kept in Django's cache (Redis in production, shared by
every process: docs/deploy.md) under a key that names everything they are built from:

- ``board_state``: one query of aggregates over the phase's shown runs (each run's status,
  team and team name, run name, flags, track, current scoring, board entry), its
  sub-corpora, its task's tracks and phases (the tabs) and its active snapshot, hashed by
  the database on PostgreSQL; a run's scores belong to its current scoring run, which a new
  scoring replaces, so its id stands for them. With the phase, its task and competition as
  the request read them; on a test phase also the other phases' runs (the
  predicted-versus-gold table reads them);
- the system-card questions shown on boards and the runs' answers to them;
- the view (page or API), the query parameters and the viewer's visibility (only a public
  board is kept; organizers and teams seeing their own runs are served as before).

A change of any of these is a new key: nothing is ever invalidated, an old view just stops
being asked for and expires. `leaderboard.services.board_views_warm` builds the default
views when a run's scores change (`competition.services.boards.board_entries_written`), once
per batch of changes (`leaderboard.jobs`), so the first visitor reads a kept view too.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.core.cache import cache
from django.db import connection

from competition.models import (
    Phase,
    PublishedAverage,
    Submission,
    SystemCardAnswer,
    SystemCardQuestion,
)
from competition.visibility import Visibility, phase_visibility
from leaderboard.models import BoardSnapshot
from leaderboard.selectors.inputs import INPUTS_DIGEST, STATE_FIELDS

VERSION = 4  # 2: the API's view is rendered JSON; 3, 4: cards, published averages in the state
"""Part of every key: raise it when what a kept view holds changes shape (a change of the
runs' fields boards read changes the key by itself: `INPUTS_DIGEST`)."""
KEPT_SECONDS = 7 * 24 * 3600
PREFIX = "leaderboard:view:"

_RUN_FIELDS = STATE_FIELDS  # the fields boards read (`leaderboard.selectors.inputs`)
_SQL: dict[str, str] = {}
"""The state query of each database vendor, written once per process."""


def _columns(model, alias: str, names=None) -> list[str]:
    fields = model._meta.concrete_fields
    if names is not None:
        by_name = {f.name: f for f in fields} | {f.attname: f for f in fields}
        fields = [by_name[name] for name in names]
    return [f"{alias}.{connection.ops.quote_name(f.column)}" for f in fields]


def _state_sql(vendor: str) -> str:
    """One statement: a digest of the phase's shown runs (with their team's name, current
    scoring and board entry), of its sub-corpora, of its task's tracks and phases (the
    tabs), of the system-card questions on boards and the runs' answers, of the published
    averages, and the active snapshot. On PostgreSQL each digest is an md5 made by the server;
    elsewhere the rows' texts joined by newlines, hashed by `_read_state`."""
    digest = _digest_sql(vendor)
    return "SELECT " + ", ".join(
        [
            *_runs_sql(digest),
            *_phase_parts_sql(digest),
            *_cards_sql(digest),
            f"(SELECT MAX(b.id) FROM {_table(BoardSnapshot)} b WHERE b.phase_id = %s AND b.active)",
        ]
    )


def _table(model) -> str:
    return connection.ops.quote_name(model._meta.db_table)


def _digest_sql(vendor: str) -> Callable[[list[str]], str]:
    """The SQL of a digest of rows given their columns: each row's columns as one text
    (``-`` for NULL), an md5 of the sorted texts on PostgreSQL, else the texts joined."""
    if vendor == "postgresql":
        separator, line = "chr(31)", "chr(10)"
    else:
        separator, line = "char(31)", "char(10)"

    def digest(columns: list[str]) -> str:
        text = f" || {separator} || ".join(
            f"COALESCE(CAST({column} AS TEXT), '-')" for column in columns
        )
        if vendor == "postgresql":
            return f"md5(string_agg({text}, {line} ORDER BY {text}))"
        return f"GROUP_CONCAT({text}, {line})"

    return digest


def _runs_sql(digest) -> list[str]:
    """The phase's shown runs, each with its team's name, current scoring and board entry."""
    from competition.models import BoardEntry, ScoringRun, Team

    runs = _columns(Submission, "s", _RUN_FIELDS) + [
        "t.name",
        "r.id",
        "r.procedure",
        "e.run_id",
        "e.pairs",
    ]
    status = ", ".join(
        f"'{value}'" for value in (Submission.Status.SCORED, Submission.Status.FAILED)
    )
    return [
        f"(SELECT {digest(runs)} FROM {_table(Submission)} s "
        f"JOIN {_table(Team)} t ON t.id = s.team_id "
        f"LEFT JOIN {_table(ScoringRun)} r ON r.submission_id = s.id AND r.is_current "
        f"LEFT JOIN {_table(BoardEntry)} e ON e.submission_id = s.id "
        f"WHERE s.phase_id = %s AND s.status IN ({status}))"
    ]


def _phase_parts_sql(digest) -> list[str]:
    """The phase's sub-corpora, its task's tracks and phases (the tabs)."""
    from competition.models import SubCorpus, Track

    return [
        f"(SELECT {digest(_columns(SubCorpus, 'c'))} FROM {_table(SubCorpus)} c "
        "WHERE c.phase_id = %s)",
        f"(SELECT {digest(_columns(Track, 'k'))} FROM {_table(Track)} k WHERE k.task_id = %s)",
        f"(SELECT {digest(_columns(Phase, 'p'))} FROM {_table(Phase)} p WHERE p.task_id = %s)",
    ]


def _cards_sql(digest) -> list[str]:
    """The system-card questions the competition's boards show, the phase's runs' answers to
    them (a team may change its answers after the run was scored), and the published
    averages."""
    questions = _columns(
        SystemCardQuestion, "q", ["id", "slug", "text", "kind", "choices", "order"]
    )
    answers = _columns(SystemCardAnswer, "a", ["submission_id", "question_id", "value"])
    return [
        f"(SELECT {digest(questions)} FROM {_table(SystemCardQuestion)} q "
        "WHERE q.competition_id = %s AND q.on_board)",
        f"(SELECT {digest(answers)} FROM {_table(SystemCardAnswer)} a "
        f"JOIN {_table(Submission)} sa ON sa.id = a.submission_id "
        f"JOIN {_table(SystemCardQuestion)} qa ON qa.id = a.question_id "
        "WHERE sa.phase_id = %s AND qa.competition_id = %s AND qa.on_board)",
        f"(SELECT {digest(_columns(PublishedAverage, 'pa'))} "
        f"FROM {_table(PublishedAverage)} pa WHERE pa.phase_id = %s)",
    ]


def _read_state(phase: Phase) -> list:
    vendor = connection.vendor
    sql = _SQL.get(vendor)
    if sql is None:
        sql = _SQL[vendor] = _state_sql(vendor)
    with connection.cursor() as cursor:
        competition = phase.task.competition_id
        cursor.execute(
            sql,
            [
                *(phase.pk, phase.pk, phase.task_id, phase.task_id),
                *(competition, phase.pk, competition, phase.pk, phase.pk),
            ],
        )
        found = list(cursor.fetchone())
    for index, value in enumerate(found[:7]):
        if value and (len(value) != 32 or "\n" in value or chr(31) in value):
            # joined texts, not a digest: hash them, sorted (the order is the database's)
            found[index] = hashlib.sha256("\n".join(sorted(value.split("\n"))).encode()).hexdigest()
    return found


def _fields(instance) -> tuple:
    return tuple(getattr(instance, f.attname) for f in type(instance)._meta.concrete_fields)


def board_state(*, phase: Phase, with_siblings: bool = False) -> str:
    """A digest of everything a public board of ``phase`` is built from (see the module
    docstring). ``with_siblings``: also the runs of the task's other phases (the
    predicted-versus-gold table of a test phase shows them)."""
    task = phase.task
    parts = [_fields(phase), _fields(task), _fields(task.competition), _read_state(phase)]
    if with_siblings:
        parts += [
            (other.pk, _read_state(other))
            for other in task.phases.exclude(pk=phase.pk).order_by("pk")
        ]
    return hashlib.sha256(repr(parts).encode()).hexdigest()


def public_view_key(*, phase: Phase, viewer, view: str, query) -> str | None:
    """The cache key of the ``view`` ("page", "languages" or "api") of ``phase`` for these query
    parameters (a QueryDict), or None when ``viewer`` does not see the public board (an
    organizer, or a hidden phase): such boards are built on each request."""
    if phase_visibility(phase=phase, user=viewer) is not Visibility.PUBLIC:
        return None
    items = sorted((name, tuple(values)) for name, values in query.lists())
    state = board_state(
        phase=phase, with_siblings=view == "page" and phase.kind != Phase.Kind.DEVELOPMENT
    )
    digest = hashlib.sha256(repr((VERSION, INPUTS_DIGEST, view, items, state)).encode()).hexdigest()
    return f"{PREFIX}{phase.pk}:{digest}"


@dataclass(frozen=True)
class KeptView:
    """A view as `kept_view` gave it."""

    content: Any
    error: bool = False
    built: bool = False
    """Built by this call (else read from the cache, or not built at all)."""
    kept: bool = False
    """A view kept for visitors (a public board): False for an organizer or a hidden phase."""


def kept_view(
    *,
    phase: Phase,
    viewer,
    view: str,
    query,
    build: Callable[[], tuple[Any, bool]],
    only_kept: bool = False,
) -> KeptView:
    """The one writer of the kept views: the ``view`` of ``phase`` for ``viewer`` and
    ``query``, read from the cache when it is kept there, else built (``build`` returns the
    content and whether the query was wrong) and, when it is a public board's and right,
    kept. ``only_kept``: build nothing for a view that is not kept (the warming job)."""
    key = public_view_key(phase=phase, viewer=viewer, view=view, query=query)
    if key is None and only_kept:
        return KeptView(content=None)
    content = cache.get(key) if key else None
    if content is not None:
        return KeptView(content=content, kept=True)
    content, error = build()
    if key and not error:
        cache.set(key, content, timeout=KEPT_SECONDS)
    return KeptView(content=content, error=error, built=True, kept=key is not None)
