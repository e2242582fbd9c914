"""Bar-chart geometry for the hand-written SVG charts (pure; the templates only draw).

Scores are fractions in [0, 1]; a chart is a list of `Bar` rectangles in SVG user units (y grows
downwards), plus tick marks for the value axis. A missing value (None) gets a bar of height 0 and
``missing=True`` so the template can write "n/a" instead of a misleading zero.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Bar:
    label: str
    value: float | None
    x: float
    y: float
    width: float
    height: float
    missing: bool = False

    @property
    def center(self) -> float:
        return self.x + self.width / 2

    @property
    def percent(self) -> str:
        return "n/a" if self.value is None else f"{100 * self.value:.2f}"


@dataclass(frozen=True, slots=True)
class Tick:
    value: float
    y: float

    @property
    def label(self) -> str:
        return f"{100 * self.value:g}"


@dataclass(frozen=True, slots=True)
class BarChart:
    width: float
    height: float
    plot_top: float
    plot_bottom: float
    plot_left: float
    bars: tuple[Bar, ...]
    ticks: tuple[Tick, ...]

    @property
    def plot_right(self) -> float:
        return self.width


def bar_chart(
    values: Sequence[tuple[str, float | None]],
    *,
    width: float = 480.0,
    height: float = 220.0,
    top: float = 16.0,
    bottom: float = 36.0,
    left: float = 36.0,
    gap: float = 0.25,
    max_value: float = 1.0,
    ticks: int = 5,
    max_bar_width: float | None = 64.0,
) -> BarChart:
    """Vertical bars, one per ``(label, value)``, over a value axis from 0 to ``max_value``.

    The plot area spans ``left``..``width`` horizontally and ``top``..``height - bottom``
    vertically; each bar gets an equal slot of which ``gap`` (a fraction) is left empty,
    half on each side; a bar is never wider than ``max_bar_width`` (None: no cap) and stays
    centred in its slot. Values are clipped to [0, max_value].

    >>> chart = bar_chart([("A", 0.5), ("B", None)], width=136, height=120, top=10, bottom=10,
    ...                   left=36, gap=0.5, max_bar_width=None)
    >>> [(b.x, b.y, b.width, b.height, b.missing) for b in chart.bars]
    [(48.5, 60.0, 25.0, 50.0, False), (98.5, 110.0, 25.0, 0.0, True)]
    """
    if max_value <= 0:
        raise ValueError(f"max_value must be positive: {max_value}")
    if not 0 <= gap < 1:
        raise ValueError(f"gap must be in [0, 1): {gap}")
    plot_bottom = float(height - bottom)
    plot_height = plot_bottom - top
    plot_width = width - left
    slot = plot_width / len(values) if values else plot_width
    bar_width = slot * (1 - gap)
    if max_bar_width is not None:
        bar_width = min(bar_width, max_bar_width)
    bars = []
    for i, (label, value) in enumerate(values):
        x = left + i * slot + (slot - bar_width) / 2
        if value is None:
            bars.append(Bar(label, None, x, plot_bottom, bar_width, 0.0, missing=True))
            continue
        clipped = min(max(value, 0.0), max_value)
        bar_height = plot_height * clipped / max_value
        bars.append(Bar(label, value, x, plot_bottom - bar_height, bar_width, bar_height))
    tick_marks = tuple(
        Tick(max_value * k / ticks, plot_bottom - plot_height * k / ticks) for k in range(ticks + 1)
    )
    return BarChart(width, height, top, plot_bottom, left, tuple(bars), tick_marks)
