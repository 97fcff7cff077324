"""Gain charts: per metric, the baseline and the tuned value across the condition, light and dark,
from one template.

One panel per metric, drawn from the measurements taken at the knob's current value (others are
history): for each condition, in order (concurrency 64, 80, 96), the baseline's and the tuned
value's medians as points joined by a line, in the metric's unit (as a percentage of the baseline
when the record gives only the change), each with its spread (the lowest to the highest run) as a
whisker, so an anomaly such as "96 below 80" shows. The SVG is assembled here as text: every piece
of record text is XML-escaped, numbers are formatted with fixed precision, so the output is
deterministic and nothing a record says can become markup. A chart costs well under a millisecond,
so charts are drawn on every build and never cached: there is no chart file on disk for anyone to
tamper with. The chart has a title and a description for screen readers and keeps its labels as
text. Decides nothing about gains: `records/model.py`'s `gain_of` and `gains/verdicts.py` do.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from xml.sax.saxutils import escape, quoteattr

from ...gains.verdicts import is_at_current_value
from ...records.model import gain_of, number_text, sides, when_key
from ...records.schema import Knob, Measurement
from .gain_views import conditions_text

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
_MIN_WIDTH, _MAX_GROUP, _MIN_GROUP = 480, 600, 110
_MARGIN = 12
_AXIS = 58  # room for the value axis' labels, left of the plot
_PANEL_HEIGHT = 220  # title, the plot with labels above and below its points, condition labels
_PLOT_TOP, _PLOT_BOTTOM = 58, 172  # within a panel
_DOT = 4.5


@dataclass(frozen=True, slots=True)
class Panel:
    """One metric: for each condition, the baseline's and the tuned value's median and spread."""

    metric: str
    conditions: tuple[str, ...]
    baselines: tuple[float, ...]
    tuned: tuple[float, ...]
    baseline_labels: tuple[str, ...]  # written under each baseline point: the values are read there
    labels: tuple[str, ...]  # written over each tuned point
    better: tuple[bool, ...]
    baseline_spread: tuple[tuple[float, float], ...] = ()  # (lowest, highest run) per condition, when runs vary
    tuned_spread: tuple[tuple[float, float], ...] = ()
    unit: str = ""  # of the value axis: the metric's unit, or '%' of the baseline


@dataclass(frozen=True, slots=True)
class GainChart:
    light: str
    dark: str
    description: str  # what the chart shows, for the image's alt text


def chart_panels(knob: Knob) -> tuple[Panel, ...]:
    """The chart's content: valid measurements taken at the knob's current value, by metric (in
    record order), each metric across its conditions (in the conditions' order; of two
    measurements under the same conditions, the newer)."""
    by_metric: dict[str, dict[str, Measurement]] = {}
    for measurement in knob.measurements:
        if gain_of(measurement) is None or not is_at_current_value(knob, measurement):
            continue
        found = by_metric.setdefault(measurement.metric, {})
        key = conditions_text(measurement) or "overall"
        if key not in found or _newer(measurement, found[key]):
            found[key] = measurement
    return tuple(_panel(metric, _in_order(list(found.values()))) for metric, found in by_metric.items())


def _newer(one: Measurement, other: Measurement) -> bool:
    return one.date is not None and (other.date is None or when_key(one.date) >= when_key(other.date))


def _in_order(measurements: list[Measurement]) -> list[Measurement]:
    """By the value of each condition: numbers as numbers, and anything else after them as text."""
    def key(m: Measurement) -> tuple[tuple[int, float, str], ...]:
        return tuple((0, float(v), "") if isinstance(v, int | float) and not isinstance(v, bool) else (1, 0.0, str(v))
                     for v in m.conditions.values())
    return sorted(measurements, key=key)


def _panel(metric: str, measurements: list[Measurement]) -> Panel:
    units = {m.unit for m in measurements}
    absolute = all(sides(m) is not None and m.delta_pct is None for m in measurements) and len(units) == 1
    baselines, tuned, baseline_labels, labels, better = [], [], [], [], []
    base_spread, tuned_spread = [], []
    for m in measurements:
        gain = gain_of(m)
        assert gain is not None
        found = sides(m)
        if absolute:
            assert found is not None
            base, top = found
            baselines.append(base.median)
            tuned.append(top.median)
            baseline_labels.append(number_text(base.median))
            labels.append(f"{number_text(top.median)} ({gain.change_text})")
            base_spread.append((base.low, base.high))
            tuned_spread.append((top.low, top.high))
        else:
            baselines.append(100.0)
            tuned.append(100.0 + gain.change_pct)
            baseline_labels.append("100%")
            labels.append(gain.change_text)
            if found is not None and m.delta_pct is None:  # runs given, in another unit than the rest
                base, top = found
                percent = 100.0 / base.median
                base_spread.append((base.low * percent, base.high * percent))
                tuned_spread.append((top.low * percent, top.high * percent))
            else:
                base_spread.append((100.0, 100.0))
                tuned_spread.append((tuned[-1], tuned[-1]))
        better.append(gain.is_better)
    unit = (next(iter(units)) or "") if absolute else "%"
    scale = (f" ({unit})" if unit else "") if absolute else " (% of baseline)"
    conditions = tuple(conditions_text(m) or "overall" for m in measurements)
    title = metric + scale + ("" if measurements[0].higher_is_better else ", lower is better")
    return Panel(title, conditions, tuple(baselines), tuple(tuned), tuple(baseline_labels), tuple(labels),
                 tuple(better), tuple(base_spread), tuple(tuned_spread), unit)


def draw_gain_chart(knob: Knob) -> GainChart | None:
    """The knob's gain chart, or None when it has no valid measurement at its current value."""
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
    width = max(_MIN_WIDTH, 2 * _MARGIN + _AXIS + group * max(len(p.conditions) for p in panels))
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
    """Room for one condition: the widest of its labels."""
    label = max(len(text) for p in panels for text in (*p.labels, *p.baseline_labels)) * _LABEL_SIZE * _GLYPH
    condition = max(len(text) for p in panels for text in p.conditions) * _FONT_SIZE * _GLYPH
    return max(_MIN_GROUP, min(_MAX_GROUP, int(max(label, condition)) + 24))


def _panel_svg(panel: Panel, top: int, width: int, group: int, colours: dict[str, str], legend: bool) -> str:
    spreads = [*panel.baseline_spread, *panel.tuned_spread]
    low = min(*panel.baselines, *panel.tuned, *(s[0] for s in spreads))
    high = max(*panel.baselines, *panel.tuned, *(s[1] for s in spreads))
    pad = (high - low) * 0.08 or abs(high) * 0.05 or 1.0
    low, high = low - pad, high + pad
    plot_top, plot_bottom = top + _PLOT_TOP, top + _PLOT_BOTTOM

    def y(value: float) -> float:
        return plot_bottom - (value - low) / (high - low) * (plot_bottom - plot_top)

    parts = [f'<g aria-hidden="true">\n<text x="{_MARGIN}" y="{top + 20}" font-size="{_TITLE_SIZE}" '
             f'font-weight="bold">{escape(panel.metric)}</text>\n']
    if legend:
        parts.append(_legend(width, top + 20, colours))
    left = _MARGIN + _AXIS
    for value in (low + pad, high - pad) if high - pad > low + pad else (low + pad,):  # the value axis' ends
        parts.append(f'<line x1="{left - 4}" y1="{y(value):.1f}" x2="{width - _MARGIN}" y2="{y(value):.1f}" '
                     f'stroke="{colours["axis"]}" stroke-width="1" stroke-dasharray="2 3"/>\n'
                     f'<text x="{left - 8}" y="{y(value) + 4:.1f}" font-size="{_LABEL_SIZE}" text-anchor="end">'
                     f'{escape(_axis_label(value, panel.unit))}</text>\n')
    start = left + (width - _MARGIN - left - group * len(panel.conditions)) // 2
    centres = [start + group * i + group / 2 for i in range(len(panel.conditions))]
    series = (("baseline", panel.baselines, panel.baseline_spread, panel.baseline_labels, 14),
              ("tuned", panel.tuned, panel.tuned_spread, panel.labels, -9))
    for name, values, spread, labels, label_dy in series:
        colour = colours["baseline"] if name == "baseline" else colours["better"]
        points = " ".join(f"{x:.1f},{y(v):.1f}" for x, v in zip(centres, values))
        parts.append(f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="2"/>\n')
        for i, (x, value) in enumerate(zip(centres, values)):
            fill = colour if name == "baseline" else colours["better" if panel.better[i] else "worse"]
            lowest, highest = spread[i] if spread else (value, value)
            if highest > lowest:  # the spread: from the lowest run to the highest
                parts.append(f'<path d="M{x - 5:.1f} {y(highest):.1f}H{x + 5:.1f}M{x:.1f} {y(highest):.1f}'
                             f'V{y(lowest):.1f}M{x - 5:.1f} {y(lowest):.1f}H{x + 5:.1f}" stroke="{fill}" '
                             f'stroke-width="1.5" fill="none"/>\n')
            # Labels clear of the whiskers: the tuned value's above its highest run, the baseline's below its lowest.
            anchor = y(highest) + label_dy if name == "tuned" else y(lowest) + label_dy
            weight = "bold" if name == "tuned" else "normal"
            parts.append(f'<circle cx="{x:.1f}" cy="{y(value):.1f}" r="{_DOT}" fill="{fill}"/>\n'
                         f'<text x="{x:.1f}" y="{anchor:.1f}" font-size="{_LABEL_SIZE}" font-weight="{weight}" '
                         f'text-anchor="middle">{escape(labels[i])}</text>\n')
    for x, condition in zip(centres, panel.conditions):
        parts.append(f'<text x="{x:.1f}" y="{plot_bottom + 34}" text-anchor="middle">{escape(condition)}</text>\n')
    parts.append(f'<line x1="{left}" y1="{plot_bottom + 18}" x2="{width - _MARGIN}" y2="{plot_bottom + 18}" '
                 f'stroke="{colours["axis"]}" stroke-width="1"/>\n</g>\n')
    return "".join(parts)


def _axis_label(value: float, unit: str) -> str:
    return f"{number_text(value)}%" if unit == "%" else number_text(value)


def _legend(width: int, baseline_y: int, colours: dict[str, str]) -> str:
    right = width - _MARGIN
    items = (("tuned", colours["better"], right - 50), ("baseline", colours["baseline"], right - 140))
    return "".join(f'<line x1="{x - 2}" y1="{baseline_y - 4}" x2="{x + 14}" y2="{baseline_y - 4}" stroke="{fill}" '
                   f'stroke-width="2"/><circle cx="{x + 6}" cy="{baseline_y - 4}" r="{_DOT}" fill="{fill}"/>'
                   f'<text x="{x + 19}" y="{baseline_y}">{name}</text>\n' for name, fill, x in items)
