"""Bar geometry of the SVG charts, and their markup."""

# ruff: noqa: E501  (the oracle is the template as it was)

import re

import pytest
from django.template import Context, Template
from django.template.loader import render_to_string

from leaderboard.charts import bar_chart

OLD_CHART = """{# the chart's template as it was, before the bar_chart_svg tag wrote it #}
{% load leaderboard_tags %}
<figure class="lb-chart">
  <svg role="img" aria-label="{{ title }}" viewBox="0 0 {{ chart.width }} {{ chart.height }}" width="{{ chart.width }}" height="{{ chart.height }}" xmlns="http://www.w3.org/2000/svg">
    <title>{{ title }}</title>
    {% for tick in chart.ticks %}
      <line class="lb-grid" x1="{{ chart.plot_left }}" x2="{{ chart.plot_right }}" y1="{{ tick.y }}" y2="{{ tick.y }}"/>
      <text class="lb-tick" x="{{ chart.plot_left|add:-4 }}" y="{{ tick.y }}" text-anchor="end" dominant-baseline="middle">{{ tick.label }}</text>
    {% endfor %}
    {% for bar in chart.bars %}
      <g class="lb-bar{% if forloop.last and highlight_last %} lb-bar-last{% endif %}">
        <rect x="{{ bar.x }}" y="{{ bar.y }}" width="{{ bar.width }}" height="{{ bar.height }}" rx="2" data-label="{{ bar.label }}" data-value="{% if bar.value is None %}{% else %}{{ bar.value }}{% endif %}"><title>{{ bar.label }}: {{ bar.percent }}</title></rect>
        <text class="lb-value" x="{{ bar.center }}" y="{{ bar.y|add:-4 }}" text-anchor="middle">{{ bar.percent }}</text>
        <text class="lb-label" x="{{ bar.center }}" y="{{ chart.plot_bottom|add:14 }}" text-anchor="middle">{{ bar.label|truncatechars:14 }}</text>
      </g>
    {% endfor %}
    <line class="lb-axis" x1="{{ chart.plot_left }}" x2="{{ chart.plot_right }}" y1="{{ chart.plot_bottom }}" y2="{{ chart.plot_bottom }}"/>
  </svg>
  {% if title %}<figcaption>{{ title }}</figcaption>{% endif %}
</figure>
"""


def test_bar_heights_are_proportional_to_values_and_stand_on_the_axis():
    chart = bar_chart(
        [("a", 1.0), ("b", 0.25), ("c", 0.0)],
        width=336,
        height=240,
        top=20,
        bottom=20,
        left=36,
        gap=0.0,
        max_bar_width=None,
    )
    heights = [b.height for b in chart.bars]
    assert heights == pytest.approx([200.0, 50.0, 0.0])
    assert all(b.y + b.height == pytest.approx(chart.plot_bottom) for b in chart.bars)
    assert [b.x for b in chart.bars] == pytest.approx([36, 136, 236])
    assert all(b.width == pytest.approx(100) for b in chart.bars)


def test_bars_never_leave_the_plot_area():
    chart = bar_chart([("low", -0.5), ("high", 7.0)], width=200, height=100)
    low, high = chart.bars
    assert low.height == 0
    assert high.y == pytest.approx(chart.plot_top)
    assert high.value == 7.0  # the label keeps the true value


def test_a_missing_value_is_marked_not_drawn_as_zero():
    (bar,) = bar_chart([("x", None)]).bars
    assert bar.missing and bar.height == 0 and bar.percent == "n/a"


def test_ticks_span_the_axis_from_bottom_to_top():
    chart = bar_chart([("a", 0.5)], ticks=4, top=10, height=110, bottom=0)
    assert [t.value for t in chart.ticks] == pytest.approx([0, 0.25, 0.5, 0.75, 1.0])
    assert chart.ticks[0].y == pytest.approx(110) and chart.ticks[-1].y == pytest.approx(10)


def test_bad_geometry_is_refused():
    with pytest.raises(ValueError, match="max_value"):
        bar_chart([("a", 1)], max_value=0)
    with pytest.raises(ValueError, match="gap"):
        bar_chart([("a", 1)], gap=1)


def test_wide_slots_get_capped_bars_centred_in_their_slot():
    (bar,) = bar_chart([("only", 0.5)], width=536, left=36, gap=0.2, max_bar_width=50).bars
    assert bar.width == 50
    assert bar.center == pytest.approx(36 + 250)


@pytest.mark.parametrize(
    ("values", "size", "title", "highlight_last"),
    [
        (
            [
                ("Team A", 0.7812345),
                ("B<&>'\"", None),
                ("A very long team name indeed", 0.1),
                ("tiny", 1e-7),
            ],
            (480, 200),
            "Macro-average F1 (%)",
            False,
        ),
        ([("light", 0.5), ("Average", 0.25)], (480, 220), "MUC & <b> F1 (%) per sub-corpus", True),
        ([], (480, 220), "", False),
        ([("over", 1.5)], (881, 201), None, True),
    ],
)
def test_the_chart_is_the_markup_of_its_old_template(values, size, title, highlight_last):
    """The board draws its chart with a tag (the template language took a tenth of the
    page's time): the same bytes, numbers, escaping and truncated labels included."""
    context = {"chart": bar_chart(values, width=size[0], height=size[1]), "title": title}
    if highlight_last:
        context["highlight_last"] = True
    expected = Template(OLD_CHART).render(Context(context))
    assert render_to_string("leaderboard/_bar_chart.html", context) == expected


def test_labels_of_narrow_slots_are_cut_to_their_slot():
    """Four bars on a 320-px chart leave 71 px a bar: a label of 14 characters (about 84 px
    at 10 px) would run into its neighbour's, so it is cut to what the slot holds."""
    names = ["Previous annotation", "String match", "All singletons", "Universität des Saarlandes"]
    chart = bar_chart([(name, 0.5) for name in names], width=320, height=200)
    svg = render_to_string("leaderboard/_bar_chart.html", {"chart": chart, "title": "F1"})
    labels = re.findall(r'<text class="lb-label"[^>]*>([^<]*)</text>', svg)
    slot = (chart.plot_right - chart.plot_left) / len(names)
    assert labels == ["Previous a…", "String mat…", "All single…", "Universitä…"]
    assert all(len(label) * 6 <= slot for label in labels)
    wide = bar_chart([(name, 0.5) for name in names], width=640, height=200)
    svg = render_to_string("leaderboard/_bar_chart.html", {"chart": wide, "title": "F1"})
    assert re.findall(r'<text class="lb-label"[^>]*>([^<]*)</text>', svg)[0] == "Previous anno…"
