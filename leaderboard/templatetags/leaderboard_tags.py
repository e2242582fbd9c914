"""Template helpers of the leaderboard pages: number format, cell lookup, sort links, and the
analysis block the competition app's submission page embeds."""

from __future__ import annotations

import html

from django import template
from django.http import QueryDict
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import localize
from django.utils.html import conditional_escape
from django.utils.safestring import mark_safe
from django.utils.text import Truncator

from leaderboard.selectors import submission_analysis
from leaderboard.views import analysis_charts
from scoring.vocabulary import metric_label

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
def without_card_filter(context) -> str:
    """The current query string without its system-card filter (``card.<slug>``)."""
    query: QueryDict = context["request"].GET.copy()
    for name in [n for n in query if n.startswith("card.")]:
        query.pop(name)
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
    result = submission_analysis(
        submission=submission, viewer=request.user, document_metric=request.GET.get("metric")
    )
    if result is None:
        return {"analysis": None, "request": request}
    return {
        "analysis": result,
        "request": request,
        "submission": submission,
        **analysis_charts(result),
    }


@register.simple_tag
def group_span(columns, detail) -> int:
    """Header cells a group of sub-corpus columns spans: three per available column when
    recall and precision are shown, one otherwise."""
    return sum(3 if detail and column.available else 1 for column in columns)


@register.simple_tag
def variant_value(variants, submission_id, column):
    """A run's macro-average F1 in one variant column (None when it has none)."""
    return variants.value(submission_id, column)


# --- board bodies ---------------------------------------------------------------------------
# A board may list a thousand runs: its rows are written here in one pass (the same markup a
# per-row template loop wrote, about ten times faster), every value escaped.

_DASH = '<span class="lb-muted">–</span>'


def escape(text) -> str:
    """What Django's ``escape`` writes, without its wrapper for lazy strings (which costs
    more than the escaping): a board body escapes some five hundred plain strings."""
    return html.escape(str(text))


def _run_label(entry) -> str:
    """The run's name; an unnamed published result is "published result" (its number here
    means nothing to a reader), any other unnamed run its number."""
    if entry.run_name:
        return escape(entry.run_name)
    return "published result" if entry.is_reference else f"#{entry.submission_id}"


@register.simple_tag
def board_body(board, leaders, detail, avg_first=None) -> str:
    """The ``<tr>`` rows of a board's table (``leaders``: bold cells, `column_leaders`;
    ``detail``: recall and precision shown; ``avg_first``: the average right after the run,
    as the page puts it on wide boards and with recall and precision; None: on wide boards)."""
    if avg_first is None:
        avg_first = board.wide
    analysis = reverse("leaderboard:analysis", args=[0]).replace("/0/", "/{}/", 1)
    missing_title = (
        "not submitted: counts as 0 in the average"
        if board.missing_rule == "zero"
        else "not submitted"
    )
    columns = [
        (c.slug, c.available, leaders.get(c.slug, ()) if leaders else ()) for c in board.columns
    ]
    card_slugs = [c.slug for c in board.cards.columns]
    out = []
    for row in board.rows:
        sid = row.entry.submission_id
        avg_cells = _average_cells(row.average, detail)
        submitted = timezone.localtime(row.entry.submitted_at).strftime("%Y-%m-%d %H:%M")
        out.append(
            f'<tr class="{_row_classes(row)}" data-submission="{sid}">'
            + _run_cells(row, analysis)
            + (avg_cells if avg_first else "")
            + _score_cells(row, columns, detail, missing_title)
            + ("" if avg_first else avg_cells)
            + f'<td class="lb-date">{submitted}</td>'
            + _card_cells(board.cards.of(sid), card_slugs)
            + "</tr>"
        )
    return mark_safe("\n".join(out))


def _row_classes(row) -> str:
    """The classes of a board row: baseline, disqualified, failed, first."""
    entry = row.entry
    return "".join(
        [
            "lb-baseline" if entry.is_baseline else "",
            " lb-disqualified" if entry.disqualified else "",
            " lb-failed" if entry.status != "scored" else "",
            " lb-first" if row.rank == 1 else "",
        ]
    )


def _run_cells(row, analysis: str) -> str:
    """The rank, team and run cells of a board row (``analysis``: the analysis page's
    address, ``{}`` for the run's number)."""
    entry = row.entry
    rank = str(row.rank) if row.rank else _DASH
    if row.group:
        rank += f'<sup class="lb-groupmark" title="statistical group">{escape(row.group)}</sup>'
    team = escape(entry.team)
    if entry.is_baseline:
        team += ' <span class="lb-badge">baseline</span>'
    if entry.is_reference:
        team += (
            f' <span class="lb-badge lb-badge-ref" title="{escape(entry.source)}">published</span>'
        )
    if entry.disqualified:
        team += ' <span class="lb-badge lb-badge-dq">disqualified</span>'
    if entry.status == "scored":
        run = f'<a href="{analysis.format(entry.submission_id)}">{_run_label(entry)}</a>'
    else:
        run = (
            f'{_run_label(entry)} <span class="lb-badge lb-badge-fail">'
            f"{escape(entry.status)}</span>"
        )
    if entry.link:
        link = escape(entry.link)
        run += (
            f'<a class="lb-run-link" href="{link}" rel="nofollow noopener" '
            f'title="{link}">paper/code</a>'
        )
    if entry.description:
        about = escape(entry.description)
        run += f'<span class="lb-run-about" title="{about}">{about}</span>'
    return (
        f'<td class="lb-rank">{rank}</td><td class="lb-team">{team}</td>'
        f'<td class="lb-run">{run}</td>'
    )


def _average_cells(average, detail) -> str:
    """The average's cells of a board row: recall and precision (``detail``), then F1."""
    cells = ""
    if detail:
        cells = (
            f'<td class="lb-num lb-avg">{pct(field(average, "recall"))}</td>'
            f'<td class="lb-num lb-avg">{pct(field(average, "precision"))}</td>'
        )
    return cells + f'<td class="lb-num lb-avg"><strong>{pct(field(average, "f1"))}</strong></td>'


def _score_cells(row, columns, detail, missing_title: str) -> str:
    """A board row's cells of each sub-corpus column (``columns``: slug, available, the
    runs it shows in bold): not averaged, missing, or the run's scores."""
    span = "3" if detail else "1"
    sid = row.entry.submission_id
    scores = row.entry.scores
    cells = []
    for slug, available, best in columns:
        if not available:
            cells.append(f'<td class="lb-num lb-na">{_DASH.replace("–", "—")}</td>')
        elif slug in row.missing:
            cells.append(
                f'<td class="lb-num lb-missing" colspan="{span}" '
                f'title="{missing_title}">missing</td>'
            )
        else:
            score = scores.get(slug)
            if detail:
                cells.append(
                    f'<td class="lb-num">{pct(field(score, "recall"))}</td>'
                    f'<td class="lb-num">{pct(field(score, "precision"))}</td>'
                )
            f1 = pct(field(score, "f1"))
            cells.append(
                f'<td class="lb-num"><strong class="lb-best">{f1}</strong></td>'
                if sid in best
                else f'<td class="lb-num">{f1}</td>'
            )
    return "".join(cells)


def _card_cells(card, card_slugs) -> str:
    """A board row's system-card cells: the run's answer to each question, or a dash."""
    return "".join(
        f'<td class="lb-card">{escape(card[slug]) if slug in card else _DASH}</td>'
        for slug in card_slugs
    )


@register.simple_tag
def variants_body(board, variants, primary=True) -> str:
    """The ``<tr>`` rows of a board's variant table (``primary``: with the primary score)."""
    out = []
    for row in board.rows:
        entry = row.entry
        rank = str(row.rank) if row.rank else _DASH
        values = "".join(
            f'<td class="lb-num">{pct(variants.value(entry.submission_id, column))}</td>'
            for column in variants.columns
        )
        out.append(
            f'<tr><td class="lb-rank">{rank}</td><td class="lb-team">'
            f'{escape(entry.team)}</td><td class="lb-run">{_run_label(entry)}</td>'
            + (
                f'<td class="lb-num"><strong>{pct(field(row.average, "f1"))}</strong></td>'
                if primary
                else ""
            )
            + f"{values}</tr>"
        )
    return mark_safe("".join(out))


# --- bar charts -----------------------------------------------------------------------------
# The board page draws its chart on every request: written here in one pass, the markup the
# template language wrote (`leaderboard/_bar_chart.html` calls this tag), at a tenth of its cost.


def _number(value) -> str:
    """A number as the template language writes it (``{{ value }}``)."""
    return conditional_escape(localize(value))


@register.simple_tag
def bar_chart_svg(chart, title, highlight_last=False) -> str:
    """A `leaderboard.charts.BarChart` as an SVG figure; ``highlight_last`` marks the last
    bar (the analysis page's average)."""
    label = conditional_escape(title)
    width, height = _number(chart.width), _number(chart.height)
    left, right = _number(chart.plot_left), _number(chart.plot_right)
    bottom = _number(chart.plot_bottom)
    out = [
        f'<figure class="lb-chart">\n  <svg role="img" aria-label="{label}" viewBox="0 0 '
        f'{width} {height}" width="{width}" height="{height}" '
        f'xmlns="http://www.w3.org/2000/svg">\n    <title>{label}</title>\n    '
    ]
    tick_x = int(chart.plot_left) - 4  # the template's ``|add:-4``: integers
    for tick in chart.ticks:
        y = _number(tick.y)
        out.append(
            f'\n      <line class="lb-grid" x1="{left}" x2="{right}" y1="{y}" '
            f'y2="{y}"/>\n      <text class="lb-tick" x="{tick_x}" y="{y}" '
            f'text-anchor="end" dominant-baseline="middle">'
            f"{conditional_escape(tick.label)}</text>\n    "
        )
    out.append("\n    ")
    label_y = int(chart.plot_bottom) + 14
    last = len(chart.bars) - 1
    # a label fits its bar's slot (about 6 px a character at the labels' 10 px): at most 14
    slot = (chart.plot_right - chart.plot_left) / max(1, len(chart.bars))
    characters = max(4, min(14, int(slot // 6)))
    for index, bar in enumerate(chart.bars):
        name = conditional_escape(bar.label)
        percent = conditional_escape(bar.percent)
        value = "" if bar.value is None else _number(bar.value)
        center = _number(bar.center)
        marked = " lb-bar-last" if index == last and highlight_last else ""
        out.append(
            f'\n      <g class="lb-bar{marked}">\n        <rect x="{_number(bar.x)}" '
            f'y="{_number(bar.y)}" width="{_number(bar.width)}" '
            f'height="{_number(bar.height)}" rx="2" data-label="{name}" '
            f'data-value="{value}"><title>{name}: {percent}</title></rect>\n'
            f'        <text class="lb-value" x="{center}" y="{int(bar.y) - 4}" '
            f'text-anchor="middle">{percent}</text>\n'
            f'        <text class="lb-label" x="{center}" y="{label_y}" text-anchor="middle">'
            f"{conditional_escape(Truncator(bar.label).chars(characters))}</text>\n"
            "      </g>\n    "
        )
    out.append(
        f'\n    <line class="lb-axis" x1="{left}" x2="{right}" y1="{bottom}" '
        f'y2="{bottom}"/>\n  </svg>\n  '
    )
    if title:
        out.append(f"<figcaption>{label}</figcaption>")
    out.append("\n</figure>")
    return mark_safe("".join(out))
