"""Bar geometry of the SVG charts."""

import pytest

from leaderboard.charts import bar_chart


def test_bar_heights_are_proportional_to_values_and_stand_on_the_axis():
    chart = bar_chart([("a", 1.0), ("b", 0.25), ("c", 0.0)], width=336, height=240, top=20,
                      bottom=20, left=36, gap=0.0, max_bar_width=None)
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
