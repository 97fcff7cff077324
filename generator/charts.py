"""Gain charts: a knob's measurements drawn by matplotlib as SVG at build time, light and dark.

One figure per knob and one panel per metric: for each condition, the tuned value next to the
baseline (as a percentage of the baseline when the record gives only the change). Output is
deterministic (fixed hash salt, no date, text kept as text so the page's font draws it); the dark
variant is the same drawing with its colours swapped. Drawing costs tens of milliseconds, so
charts are cached on disk by content. Decides nothing about gains: `model.gain_of` does.
"""

from __future__ import annotations

import hashlib
import io
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from importlib.metadata import version

from .model import gain_of

if TYPE_CHECKING:
    from matplotlib.axes import Axes
from .schema import Knob, Measurement

# Drawn with placeholder colours, then each theme's colours are put in their place.
_PLACEHOLDERS = {"text": "#0a0b0c", "grid": "#0b0c0d", "baseline": "#0c0d0e", "better": "#0d0e0f",
                 "worse": "#0e0f10"}
_THEMES = {
    "light": {"text": "#3c3c43", "grid": "#d9d9de", "baseline": "#a5a8b3", "better": "#3f51b5",
              "worse": "#d32f2f"},
    "dark": {"text": "#e2e4ea", "grid": "#41445a", "baseline": "#6c7086", "better": "#8c9eff",
             "worse": "#ff6e6e"},
}
_RC: dict[Any, Any] = {"svg.hashsalt": "incident-kb", "svg.fonttype": "none", "font.size": 10,
       "font.family": "sans-serif", "axes.edgecolor": _PLACEHOLDERS["grid"],
       "axes.labelcolor": _PLACEHOLDERS["text"], "xtick.color": _PLACEHOLDERS["text"],
       "ytick.color": _PLACEHOLDERS["text"], "text.color": _PLACEHOLDERS["text"]}
_SOURCE_KEY = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()
_MATPLOTLIB_VERSION = version("matplotlib")


@dataclass(frozen=True, slots=True)
class Panel:
    """One metric: a pair of bars per condition."""

    metric: str
    axis_label: str
    conditions: tuple[str, ...]
    baselines: tuple[float, ...]
    tuned: tuple[float, ...]
    labels: tuple[str, ...]  # the gain written above each tuned bar
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
    baselines, tuned, labels, better = [], [], [], []
    for m in measurements:
        gain = gain_of(m)
        assert gain is not None
        if absolute:
            assert m.baseline is not None and m.value is not None
            baselines.append(float(m.baseline))
            tuned.append(float(m.value))
        else:
            baselines.append(100.0)
            tuned.append(100.0 + _change_pct(m))
        labels.append(f"{gain.pct:+.1f}%")
        better.append(gain.pct >= 0)
    unit = next(iter(units)) if absolute else None
    axis_label = (unit or "") if absolute else "% of baseline"
    conditions = tuple(", ".join(f"{k} {v}" for k, v in m.conditions.items()) or "overall" for m in measurements)
    title = metric if measurements[0].higher_is_better else f"{metric} (lower is better)"
    return Panel(title, axis_label, conditions, tuple(baselines), tuple(tuned), tuple(labels), tuple(better))


def _change_pct(m: Measurement) -> float:
    """The raw change of the metric in percent (gain_of says whether that is better)."""
    if m.delta_pct is not None:
        return float(m.delta_pct)
    assert m.baseline is not None and m.value is not None
    return (m.value - m.baseline) / abs(m.baseline) * 100


def draw_gain_chart(knob: Knob, cache_dir: Path | None = None) -> GainChart | None:
    """The knob's gain chart, or None when it has no valid measurement."""
    panels = chart_panels(knob)
    if not panels:
        return None
    description = "; ".join(
        f"{p.metric}: " + ", ".join(f"{c} {label}" for c, label in zip(p.conditions, p.labels)) for p in panels)
    key = hashlib.sha256(repr((panels, _MATPLOTLIB_VERSION, _SOURCE_KEY)).encode()).hexdigest()[:32]
    cached = _read_cache(cache_dir, key)
    svg = cached if cached is not None else _draw(panels)
    if cached is None:
        _write_cache(cache_dir, key, svg)
    return GainChart(_themed(svg, "light"), _themed(svg, "dark"), f"Gain chart. {description}")


def _draw(panels: tuple[Panel, ...]) -> str:
    # Imported here: importing matplotlib takes about a second, and a build whose charts are all
    # cached, or `kb check`, need not pay it.
    import matplotlib
    from matplotlib.backends.backend_svg import FigureCanvasSVG
    from matplotlib.figure import Figure

    with matplotlib.rc_context(_RC):
        widest = max(len(p.conditions) for p in panels)
        width = min(9.0, 3.0 + 1.3 * widest)
        panel_height, above, below, left = 2.2, 0.45, 0.4, 0.75  # inches
        height = panel_height * len(panels)
        figure = Figure(figsize=(width, height))
        figure.patch.set_visible(False)  # transparent: the page's background shows through
        for index, panel in enumerate(panels):
            bottom = height - (index + 1) * panel_height + below
            axes = figure.add_axes((left / width, bottom / height, 1 - (left + 0.1) / width,
                                    (panel_height - above - below) / height))
            _draw_panel(axes, panel)
        buffer = io.StringIO()
        FigureCanvasSVG(figure).print_svg(buffer, metadata={"Date": None})
    return buffer.getvalue()


def _draw_panel(axes: Axes, panel: Panel) -> None:
    positions = range(len(panel.conditions))
    width = 0.38
    axes.bar([x - width / 2 for x in positions], panel.baselines, width, color=_PLACEHOLDERS["baseline"],
             label="baseline")
    colours = [_PLACEHOLDERS["better"] if good else _PLACEHOLDERS["worse"] for good in panel.better]
    bars = axes.bar([x + width / 2 for x in positions], panel.tuned, width, color=colours, label="tuned")
    axes.bar_label(bars, labels=list(panel.labels), padding=2, fontweight="bold")
    axes.set_xticks(list(positions), list(panel.conditions))
    axes.set_ylabel(panel.axis_label)
    axes.set_ylim(0, max(max(panel.tuned), max(panel.baselines)) * 1.18)
    axes.set_title(panel.metric, loc="left", fontweight="bold")
    axes.legend(loc="lower right", bbox_to_anchor=(1.0, 1.0), ncols=2, frameon=False, borderaxespad=0.2)
    axes.grid(axis="y", color=_PLACEHOLDERS["grid"], linewidth=0.6)
    axes.set_axisbelow(True)
    axes.patch.set_visible(False)
    for side in ("top", "right", "left"):
        axes.spines[side].set_visible(False)
    axes.tick_params(axis="both", length=0)


def _themed(svg: str, theme: str) -> str:
    for role, placeholder in _PLACEHOLDERS.items():
        svg = svg.replace(placeholder, _THEMES[theme][role])
    return svg


def _read_cache(cache_dir: Path | None, key: str) -> str | None:
    if cache_dir is None:
        return None
    try:
        return (cache_dir / f"{key}.svg").read_text(encoding="utf-8")
    except OSError:
        return None


def _write_cache(cache_dir: Path | None, key: str, svg: str) -> None:
    if cache_dir is None:
        return
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        temporary = cache_dir / f".{key}.{os.getpid()}.tmp"
        temporary.write_text(svg, encoding="utf-8")
        temporary.replace(cache_dir / f"{key}.svg")
    except OSError:
        pass  # a cache that cannot be written only costs time
