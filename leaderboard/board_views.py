"""What a visitor sees of a board, built from the viewer and the query parameters only: the
board part of the page (below the site's header) and the API's payload. The page and the API
serve them, kept in the cache when the board is public (`leaderboard.selectors.precomputed`);
`leaderboard.services.board_views_warm` builds them ahead of visitors when scores change.
"""

from __future__ import annotations

from django.http import QueryDict
from django.template.loader import render_to_string
from rest_framework.renderers import JSONRenderer

from competition.models import Phase
from competition.selectors import track_named
from competition.visibility import user_is_organizer
from leaderboard import charts
from leaderboard.params import board_params
from leaderboard.ranking import column_leaders
from leaderboard.selectors import BoardQueryError, leaderboard_board, task_gap_table
from leaderboard.selectors.boards import TrackTab, active_record
from leaderboard.selectors.languages import board_languages
from leaderboard.selectors.published import published_averages_table
from leaderboard.selectors.variants import board_variants
from leaderboard.serializers import board_payload


class _QueryOnly:
    """What the board's template reads of a request: its query parameters."""

    def __init__(self, query: QueryDict) -> None:
        self.GET = query


def board_page_content(*, phase: Phase, viewer, query: QueryDict) -> tuple[str, bool]:
    """The board part of the page (all but the site's header), and whether the query was
    wrong. Built from the viewer and the query parameters only, so that a public board is
    the same for every visitor and can be kept (`leaderboard.selectors.precomputed`)."""
    try:
        params = board_params(query)
        result = leaderboard_board(phase=phase, viewer=viewer, groups=True, **params.as_kwargs())
        error = None
    except BoardQueryError as exc:
        result, error = None, str(exc)
    # The predicted-versus-gold table belongs to the evaluation's own boards: a development
    # or post-task board would list the evaluation's teams beside runs of another phase.
    gap = (
        task_gap_table(task=phase.task, viewer=viewer)
        if phase.kind in (Phase.Kind.TEST_PREDICTED, Phase.Kind.TEST_GOLD)
        else None
    )
    context = {
        "request": _QueryOnly(query),
        "phase": phase,
        "task": phase.task,
        "competition": phase.task.competition,
        "siblings": list(phase.task.phases.all()),
        "board": result,
        "error": error,
        "gap": gap,
        "query": query,
        # The average (the ranking column) right after the run when the scores are many or
        # detailed (recall & precision): it never starts off-screen.
        "avg_first": bool(result and (result.wide or query.get("detail"))),
        "is_organizer": user_is_organizer(competition=phase.task.competition, user=viewer),
        "chart": _board_chart(result) if result else None,
        "leaders": column_leaders(result.rows, [c.slug for c in result.columns]) if result else {},
        "variants": board_variants(board=result) if result else None,
    }
    # The edition's published averages, kept with the board (the state digests them): below
    # it, or, on a board of published results only, first, as its official ranking, the
    # per-dataset figures some systems' papers give shown after it as such (not ranked).
    published = published_averages_table(
        phase=phase, record=result.record if result is not None else None
    )
    official = (
        bool(published)
        and result is not None
        and bool(result.rows)
        and all(row.entry.is_reference for row in result.rows)
    )
    context.update(published=published, published_official=official)
    content = render_to_string("leaderboard/_board.html", context)
    if not official:
        content += render_to_string("leaderboard/_published.html", {"published": published})
    return content, error is not None


def board_languages_content(*, phase: Phase, viewer, query: QueryDict) -> tuple[str, bool]:
    """The by-language part of the board's page by language (the per-language averages and
    the team × dataset heatmap), and whether the query was wrong; kept like the board's
    part when the board is public."""
    context = {
        "request": _QueryOnly(query),
        "phase": phase,
        "task": phase.task,
        "competition": phase.task.competition,
    }
    try:
        params = board_params(query)
        result = leaderboard_board(phase=phase, viewer=viewer, **params.as_kwargs())
    except BoardQueryError as exc:
        context["error"] = str(exc)
        return render_to_string("leaderboard/_languages.html", context), True
    context.update(view=board_languages(board=result), board=result, query=query)
    return render_to_string("leaderboard/_languages.html", context), False


def board_track_name(*, phase: Phase, query: QueryDict, viewer=None) -> str:
    """The name of the track the board shows (the page's title names it; "" in a task
    without tracks or for a track no one has): on a frozen board, as named at the freeze."""
    record = None
    if not (
        query.get("live") and user_is_organizer(competition=phase.task.competition, user=viewer)
    ):
        record = active_record(phase=phase)
    tracks: list = (
        [TrackTab(slug, name) for slug, name in record.tracks]
        if record is not None
        else list(phase.task.tracks.order_by("order", "id"))  # one task's: no join to order
    )
    if not tracks:
        return ""
    named = track_named(tracks=tracks, label=query.get("track") or tracks[0].slug)
    return named.name if named is not None else ""


def _board_chart(result) -> charts.BarChart | None:
    # Disqualified runs stay in the organizers' table, marked, but never in the chart.
    ranked = [r for r in result.rows if r.average is not None and not r.entry.disqualified][:12]
    if not ranked:
        return None
    # a baseline by its run's name; a published one may have none: then by its team
    values = [
        ((r.entry.run_name or r.entry.team) if r.entry.is_baseline else r.entry.team, r.average.f1)
        for r in ranked
    ]
    return charts.bar_chart(values, width=max(320, 70 * len(values) + 40), height=200)


def board_api_payload(*, phase: Phase, viewer, query) -> dict:
    """The API's board for ``viewer`` and these query parameters (BoardQueryError when one
    is wrong); a public one is kept (`leaderboard.selectors.precomputed`)."""
    params = board_params(query)
    board = leaderboard_board(
        phase=phase,
        viewer=viewer,
        groups=query.get("groups") in ("1", "true"),
        **params.as_kwargs(),
    )
    return board_payload(board)


def board_api_body(payload: dict) -> bytes:
    """The API's board as the JSON a client receives, rendered once: a kept view holds these
    bytes, so a request that reads it sends them without encoding the board again."""
    return JSONRenderer().render(payload)
