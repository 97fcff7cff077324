"""Gain charts: a knob's measurements as an SVG bar chart, light and dark, from one template.

One chart per knob and one panel per metric: for each condition, the tuned value next to the
baseline (as a percentage of the baseline when the record gives only the change), each bar with
its value written above it. The SVG is assembled here as text: every piece of record text is
XML-escaped, numbers are formatted with fixed precision, so the output is deterministic and
nothing a record says can become markup. A chart costs well under a millisecond, so charts are
drawn on every build and never cached: there is no chart file on disk for anyone to tamper with.
The chart has a title and a description for screen readers and keeps its labels as text. Decides
nothing about gains: `model.gain_of` does.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from xml.sax.saxutils import escape, quoteattr

from ...records.model import gain_of
from ...records.schema import Knob, Measurement

_THEMES = {
    "light": {"text": "#3c3c43", "axis": "#b0b3be", "baseline": "#a5a8b3", "better": "#3f51b5",
              "worse": "#d32f2f"},
    "dark": {"text": "#e2e4ea", "axis": "#5a5e73", "baseline": "#6c7086", "better": "#8c9eff",
             "worse": "#ff6e6e"},
}
_FONT = "-apple-system, BlinkMacSystemFont, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif"
# Geometry in px. Text cannot be measured here, so widths are estimated from the character count
# (an average sans-serif glyph is about 0.6 em wide) and generously rounded up.
_FONT_SIZE, _LABEL_SIZE, _TITLE_SIZE = 12, 11, 13
_GLYPH = 0.62
_MIN_WIDTH, _MAX_GROUP, _MIN_GROUP = 480, 260, 110
_MARGIN = 12
_PANEL_HEIGHT = 190  # title, bars, value labels above them, condition label below
_BARS_TOP, _BARS_BOTTOM = 46, 160  # within a panel
_BAR = 34


@dataclass(frozen=True, slots=True)
class Panel:
    """One metric: a pair of bars per condition."""

    metric: str
    conditions: tuple[str, ...]
    baselines: tuple[float, ...]
    tuned: tuple[float, ...]
    baseline_labels: tuple[str, ...]  # written above each bar: the values are read there, not on an axis
    labels: tuple[str, ...]
    better: tuple[bool, ...]


@dataclass(frozen=True, slots=True)
class GainChart:
    light: str
    dark: str
    description: str  # what the chart shows, for the image's alt text


def chart_panels(knob: Knob) -> tuple[Panel, ...]:
    """The chart's content: valid measurements grouped by metric, in record order."""
    by_metric: dict[str, list[Measurement]] = {}
    for measurement in knob.measurements:
        if gain_of(measurement) is not None:
            by_metric.setdefault(measurement.metric, []).append(measurement)
    return tuple(_panel(metric, measurements) for metric, measurements in by_metric.items())


def _panel(metric: str, measurements: list[Measurement]) -> Panel:
    units = {m.unit for m in measurements}
    absolute = all(m.baseline is not None and m.value is not None for m in measurements) and len(units) == 1
    baselines, tuned, baseline_labels, labels, better = [], [], [], [], []
    for m in measurements:
        gain = gain_of(m)
        assert gain is not None
        if absolute:
            assert m.baseline is not None and m.value is not None
            baselines.append(float(m.baseline))
            tuned.append(float(m.value))
            baseline_labels.append(f"{m.baseline:g}")
            labels.append(f"{m.value:g} ({gain.change_text})")
        else:
            baselines.append(100.0)
            tuned.append(100.0 + gain.change_pct)
            baseline_labels.append("100%")
            labels.append(gain.change_text)
        better.append(gain.is_better)
    unit = next(iter(units)) if absolute else None
    scale = (f" ({unit})" if unit else "") if absolute else " (% of baseline)"
    conditions = tuple(", ".join(f"{k} {v}" for k, v in m.conditions.items()) or "overall" for m in measurements)
    title = metric + scale + ("" if measurements[0].higher_is_better else ", lower is better")
    return Panel(title, conditions, tuple(baselines), tuple(tuned), tuple(baseline_labels), tuple(labels),
                 tuple(better))


def draw_gain_chart(knob: Knob) -> GainChart | None:
    """The knob's gain chart, or None when it has no valid measurement."""
    panels = chart_panels(knob)
    if not panels:
        return None
    description = "Gain chart. " + "; ".join(
        f"{p.metric}: " + ", ".join(f"{c} {label}" for c, label in zip(p.conditions, p.labels)) for p in panels)
    return GainChart(draw_svg(panels, "light", description), draw_svg(panels, "dark", description), description)


def draw_gain_charts(knobs: Iterable[Knob]) -> dict[str, GainChart | None]:
    """Every knob's gain chart, by knob id (None for a knob without valid measurements)."""
    return {knob.id: draw_gain_chart(knob) for knob in knobs}


def draw_svg(panels: tuple[Panel, ...], theme: str, description: str) -> str:
    """The chart as a standalone SVG document in `theme`'s colours ('light' or 'dark')."""
    colours = _THEMES[theme]
    group = _group_width(panels)
    width = max(_MIN_WIDTH, 2 * _MARGIN + group * max(len(p.conditions) for p in panels))
    height = _PANEL_HEIGHT * len(panels)
    title = panels[0].metric if len(panels) == 1 else f"Gains in {len(panels)} metrics"
    out = [
        '<?xml version="1.0" encoding="utf-8"?>\n',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-labelledby="title desc" '
        f'font-family={quoteattr(_FONT)} font-size="{_FONT_SIZE}" fill="{colours["text"]}">\n',
        f'<title id="title">{escape(title)}</title>\n',
        f'<desc id="desc">{escape(description)}</desc>\n',
    ]
    for index, panel in enumerate(panels):
        out.append(_panel_svg(panel, index * _PANEL_HEIGHT, width, group, colours, legend=index == 0))
    out.append("</svg>\n")
    return "".join(out)


def _group_width(panels: tuple[Panel, ...]) -> int:
    """Room for one condition: both bars, and the widest of its labels."""
    label = max(len(text) for p in panels for text in (*p.labels, *p.baseline_labels)) * _LABEL_SIZE * _GLYPH
    condition = max(len(text) for p in panels for text in p.conditions) * _FONT_SIZE * _GLYPH
    return max(_MIN_GROUP, min(_MAX_GROUP, int(max(2 * label, condition)) + 24))


def _panel_svg(panel: Panel, top: int, width: int, group: int, colours: dict[str, str], legend: bool) -> str:
    highest = max(max(panel.tuned), max(panel.baselines), 0.0) or 1.0
    scale = (_BARS_BOTTOM - _BARS_TOP) / (highest * 1.05)
    floor = top + _BARS_BOTTOM
    parts = [f'<g aria-hidden="true">\n<text x="{_MARGIN}" y="{top + 20}" font-size="{_TITLE_SIZE}" '
             f'font-weight="bold">{escape(panel.metric)}</text>\n']
    if legend:
        parts.append(_legend(width, top + 20, colours))
    start = _MARGIN + (width - 2 * _MARGIN - group * len(panel.conditions)) // 2
    for i, condition in enumerate(panel.conditions):
        centre = start + group * i + group / 2
        # The baseline's label ends at its bar's right edge and the tuned value's starts at its bar's
        # left edge: side by side above the pair, they never overlap.
        bars = ((centre - _BAR - 2, panel.baselines[i], panel.baseline_labels[i], colours["baseline"], "normal",
                 "end", centre - 2),
                (centre + 2, panel.tuned[i], panel.labels[i], colours["better" if panel.better[i] else "worse"],
                 "bold", "start", centre + 2))
        for x, value, label, fill, weight, anchor, label_x in bars:
            bar = max(value, 0.0) * scale
            parts.append(f'<rect x="{x:.1f}" y="{floor - bar:.1f}" width="{_BAR}" height="{bar:.1f}" fill="{fill}"/>\n'
                         f'<text x="{label_x:.1f}" y="{floor - bar - 4:.1f}" font-size="{_LABEL_SIZE}" '
                         f'font-weight="{weight}" text-anchor="{anchor}">{escape(label)}</text>\n')
        parts.append(f'<text x="{centre:.1f}" y="{floor + 17}" text-anchor="middle">{escape(condition)}</text>\n')
    parts.append(f'<line x1="{_MARGIN}" y1="{floor}" x2="{width - _MARGIN}" y2="{floor}" '
                 f'stroke="{colours["axis"]}" stroke-width="1"/>\n</g>\n')
    return "".join(parts)


def _legend(width: int, baseline_y: int, colours: dict[str, str]) -> str:
    right = width - _MARGIN
    items = (("tuned", colours["better"], right - 44), ("baseline", colours["baseline"], right - 130))
    return "".join(f'<rect x="{x}" y="{baseline_y - 10}" width="12" height="12" fill="{fill}"/>'
                   f'<text x="{x + 17}" y="{baseline_y}">{name}</text>\n' for name, fill, x in items)
