"""The board's rows are written by a template tag in one pass (a thousand-run board rendered
per row by the template language took seconds); they must be the markup the per-row template
wrote, which is kept here as the oracle, for every kind of row: ranked, tied groups,
baselines, published results, disqualified, failed, missing and unavailable sub-corpora, the
zero rule, wide boards, recall and precision shown or not, names that need escaping."""

# ruff: noqa: E501  (the oracle is the template as it was, one line per row part)

from __future__ import annotations

import re
from dataclasses import replace

import pytest
from django.template import Context, Template

from competition.models import Submission
from leaderboard.ranking import column_leaders
from leaderboard.selectors import leaderboard_board
from leaderboard.selectors.variants import VariantColumn, Variants

pytestmark = pytest.mark.django_db

OLD_ROWS = """{% load leaderboard_tags %}    {% for row in board.rows %}
      <tr class="{% if row.entry.is_baseline %}lb-baseline{% endif %}{% if row.entry.disqualified %} lb-disqualified{% endif %}{% if row.entry.status != 'scored' %} lb-failed{% endif %}{% if row.rank == 1 %} lb-first{% endif %}" data-submission="{{ row.entry.submission_id }}">
        <td class="lb-rank">{% if row.rank %}{{ row.rank }}{% else %}<span class="lb-muted">–</span>{% endif %}{% if row.group %}<sup class="lb-groupmark" title="statistical group">{{ row.group }}</sup>{% endif %}</td>
        <td class="lb-team">{{ row.entry.team }}{% if row.entry.is_baseline %} <span class="lb-badge">baseline</span>{% endif %}{% if row.entry.is_reference %} <span class="lb-badge lb-badge-ref" title="{{ row.entry.source }}">published</span>{% endif %}{% if row.entry.disqualified %} <span class="lb-badge lb-badge-dq">disqualified</span>{% endif %}</td>
        <td class="lb-run">{% if row.entry.status == 'scored' %}<a href="{% url 'leaderboard:analysis' row.entry.submission_id %}">{% if row.entry.run_name %}{{ row.entry.run_name }}{% else %}#{{ row.entry.submission_id }}{% endif %}</a>{% else %}{% if row.entry.run_name %}{{ row.entry.run_name }}{% else %}#{{ row.entry.submission_id }}{% endif %} <span class="lb-badge lb-badge-fail">{{ row.entry.status }}</span>{% endif %}{% if row.entry.link %}<a class="lb-run-link" href="{{ row.entry.link }}" rel="nofollow noopener" title="{{ row.entry.link }}">paper/code</a>{% endif %}{% if row.entry.description %}<span class="lb-run-about" title="{{ row.entry.description }}">{{ row.entry.description }}</span>{% endif %}</td>
        {% if avg_first %}{% include "leaderboard/_avg_cells.html" %}{% endif %}
        {% for c in board.columns %}{% with s=row.entry|cell:c.slug %}
          {% if not c.available %}<td class="lb-num lb-na"><span class="lb-muted">—</span></td>
          {% elif c.slug in row.missing %}<td class="lb-num lb-missing" colspan="{% if query.detail %}3{% else %}1{% endif %}" title="not submitted{% if board.missing_rule == 'zero' %}: counts as 0 in the average{% endif %}">missing</td>
          {% else %}
          {% if query.detail %}<td class="lb-num">{{ s|field:"recall"|pct }}</td><td class="lb-num">{{ s|field:"precision"|pct }}</td>{% endif %}
          <td class="lb-num">{% if row.entry.submission_id in leaders|lookup:c.slug %}<strong class="lb-best">{{ s|field:"f1"|pct }}</strong>{% else %}{{ s|field:"f1"|pct }}{% endif %}</td>{% endif %}
        {% endwith %}{% endfor %}
        {% if not avg_first %}{% include "leaderboard/_avg_cells.html" %}{% endif %}
        <td class="lb-date">{{ row.entry.submitted_at|date:"Y-m-d H:i" }}</td>
      </tr>
    {% endfor %}
"""

OLD_VARIANTS = """{% load leaderboard_tags %}{% for row in board.rows %}<tr><td class="lb-rank">{% if row.rank %}{{ row.rank }}{% else %}<span class="lb-muted">–</span>{% endif %}</td><td class="lb-team">{{ row.entry.team }}</td><td class="lb-run">{% if row.entry.run_name %}{{ row.entry.run_name }}{% else %}#{{ row.entry.submission_id }}{% endif %}</td><td class="lb-num"><strong>{{ row.average|field:"f1"|pct }}</strong></td>{% for v in variants.columns %}<td class="lb-num">{% variant_value variants row.entry.submission_id v as value %}{{ value|pct }}</td>{% endfor %}</tr>{% endfor %}"""


def normal(html: str) -> str:
    return re.sub(r">\s+<", "><", html).strip()


def rendered(source: str, **context) -> str:
    return normal(Template(source).render(Context(context)))


@pytest.mark.parametrize("missing", ["unranked", "zero"])
@pytest.mark.parametrize("wide", [False, True])
def test_the_rows_are_the_markup_of_the_per_row_template(make, missing, wide):
    organizer = make.user()
    competition = make.competition(organizers=[organizer])
    subcorpora = ("light", "ami", "tr", "sw", "pe", "ar", "ln") if wide else ("light", "ami")
    phase = make.phase(make.task(competition), subcorpora=subcorpora, unavailable=("gone",))
    phase.missing = missing
    phase.save()
    full = {slug: 0.5 for slug in subcorpora}
    teams = [
        make.team(competition, name=name)
        for name in ("Alpha", "<b>Beta & co</b>", "Gamma", "Delta")
    ]
    make.run(
        phase,
        teams[0],
        {**full, "light": (0.7, 0.6, 0.65)},
        run_name="first",
        link='https://example.org/?a=1&b="2"',
        description="<i>ours</i> & more",
    )
    make.run(phase, teams[1], full, run_name='quote " <run>')
    make.run(phase, teams[2], {"light": 0.9})
    make.run(phase, teams[3], full, disqualified=True)
    make.run(phase, teams[0], None, status=Submission.Status.FAILED, run_name="broken")
    make.run(
        phase, make.team(competition, organizer=True), full, is_baseline=True, run_name="baseline"
    )
    make.run(
        phase,
        make.team(competition, name="Published"),
        full,
        is_reference=True,
        source='CRAC "2022" & co',
        run_name="sys",
    )
    for runs in (False, True):
        board = leaderboard_board(phase=phase, viewer=organizer, runs=runs)
        board = replace(
            board,
            rows=[
                replace(r, group="ab"[i % 2] if r.rank else None) for i, r in enumerate(board.rows)
            ],
        )
        leaders = column_leaders(board.rows, [c.slug for c in board.columns])
        assert board.wide is wide
        for detail in ("", "1"):
            avg_first = wide or bool(detail)  # as the board page puts it
            old = rendered(
                OLD_ROWS,
                board=board,
                leaders=leaders,
                query={"detail": detail},
                avg_first=avg_first,
            )
            new = rendered(
                "{% load leaderboard_tags %}{% board_body board leaders detail avg_first %}",
                board=board,
                leaders=leaders,
                detail=detail,
                avg_first=avg_first,
            )
            assert new == old
            assert "&lt;b&gt;Beta &amp; co&lt;/b&gt;" in new and "lb-groupmark" in new
            assert "&lt;i&gt;ours&lt;/i&gt; &amp; more" in new and "paper/code" in new
        columns = [VariantColumn("task", "muc", "MUC"), VariantColumn("exact", "conll", "Exact")]
        variants = Variants(
            columns=columns,
            values={r.entry.submission_id: {("task", "muc"): 0.25} for r in board.rows[::2]},
        )
        assert rendered(
            "{% load leaderboard_tags %}{% variants_body board variants %}",
            board=board,
            variants=variants,
        ) == rendered(OLD_VARIANTS, board=board, variants=variants)
