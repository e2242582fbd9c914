"""Template helpers of the leaderboard pages: number format, cell lookup, sort links, and the
analysis block the competition app's submission page embeds."""

from __future__ import annotations

from django import template
from django.http import QueryDict
from scoring.vocabulary import metric_label

from leaderboard.selectors import submission_analysis
from leaderboard.views import analysis_charts

register = template.Library()


@register.filter
def pct(value) -> str:
    """A fraction as a percentage with two decimals; a dash when missing."""
    if value is None or value == "":
        return "—"
    return f"{100 * float(value):.2f}"


@register.filter
def signed_pct(value) -> str:
    if value is None:
        return "—"
    return f"{100 * float(value):+.2f}"


@register.filter
def metric_name(metric: str) -> str:
    return metric_label(metric)


@register.filter
def cell(entry, slug):
    """The entry's score on sub-corpus ``slug`` (or None)."""
    return entry.scores.get(slug)


@register.filter
def lookup(mapping, key):
    return mapping.get(key) if mapping else None


@register.filter
def field(score, name):
    return None if score is None else getattr(score, name)


@register.simple_tag(takes_context=True)
def sort_url(context, column: str) -> str:
    """Query string that sorts the board by ``column``, flipping the order on a second click."""
    request = context["request"]
    board = context.get("board")
    query: QueryDict = request.GET.copy()
    descending = True
    if board is not None and board.sort == column:
        descending = not board.descending
    if column == "team" and (board is None or board.sort != column):
        descending = False
    query["sort"] = column
    query["order"] = "desc" if descending else "asc"
    return "?" + query.urlencode()


@register.simple_tag(takes_context=True)
def with_param(context, name: str, value) -> str:
    """The current query string with one parameter set (or removed when value is empty)."""
    query: QueryDict = context["request"].GET.copy()
    if value in (None, ""):
        query.pop(name, None)
    else:
        query[name] = str(value)
    return "?" + query.urlencode()


@register.simple_tag(takes_context=True)
def sort_mark(context, column: str) -> str:
    board = context.get("board")
    if board is None or board.sort != column:
        return ""
    return "▼" if board.descending else "▲"


@register.inclusion_tag("leaderboard/_analysis_block.html", takes_context=True)
def submission_analysis_block(context, submission):
    """Everything the analysis page shows, for embedding in the submission page:
    ``{% load leaderboard_tags %}{% submission_analysis_block submission %}``."""
    request = context["request"]
    result = submission_analysis(submission=submission, viewer=request.user,
                                 document_metric=request.GET.get("metric"))
    if result is None:
        return {"analysis": None, "request": request}
    return {"analysis": result, "request": request, "submission": submission,
            **analysis_charts(result)}


@register.simple_tag
def group_span(columns, detail) -> int:
    """Header cells a group of sub-corpus columns spans: three per available column when
    recall and precision are shown, one otherwise."""
    return sum(3 if detail and column.available else 1 for column in columns)


@register.simple_tag
def variant_value(variants, submission_id, column):
    """A run's macro-average F1 in one variant column (None when it has none)."""
    return variants.value(submission_id, column)
