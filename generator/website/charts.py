"""Gain charts: a knob's measurements drawn by matplotlib as SVG at build time, light and dark.

One figure per knob and one panel per metric: for each condition, the tuned value next to the
baseline (as a percentage of the baseline when the record gives only the change). Output is
deterministic (fixed hash salt, no date, text kept as text so the page's font draws it); the dark
variant is the same drawing with its colours swapped. Drawing costs tens of milliseconds, so
charts are cached on disk by content, and a build that must draw many uses every core. Decides
nothing about gains: `model.gain_of` does.
"""

from __future__ import annotations

import hashlib
import io
import multiprocessing
import os
import threading
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from importlib.metadata import version

from ..records.model import gain_of

if TYPE_CHECKING:
    from matplotlib.axes import Axes
from ..records.schema import Knob, Measurement

# Drawn with placeholder colours, then each theme's colours are put in their place.
_PLACEHOLDERS = {"text": "#0a0b0c", "axis": "#0b0c0d", "baseline": "#0c0d0e", "better": "#0d0e0f",
                 "worse": "#0e0f10"}
_THEMES = {
    "light": {"text": "#3c3c43", "axis": "#b0b3be", "baseline": "#a5a8b3", "better": "#3f51b5",
              "worse": "#d32f2f"},
    "dark": {"text": "#e2e4ea", "axis": "#5a5e73", "baseline": "#6c7086", "better": "#8c9eff",
             "worse": "#ff6e6e"},
}
_RC: dict[Any, Any] = {"svg.hashsalt": "incident-kb", "svg.fonttype": "none", "font.size": 10,
       "axes.titley": 1.02,  # a fixed title position: placing it automatically measures every artist
       "font.family": "sans-serif", "axes.edgecolor": _PLACEHOLDERS["axis"],
       "axes.labelcolor": _PLACEHOLDERS["text"], "xtick.color": _PLACEHOLDERS["text"],
       "ytick.color": _PLACEHOLDERS["text"], "text.color": _PLACEHOLDERS["text"]}
_SOURCE_KEY = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()
_MATPLOTLIB_VERSION = version("matplotlib")
_PARALLEL_FROM = 32  # charts to draw before worker processes pay for themselves
_MAX_WORKERS = 8


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


def draw_gain_chart(knob: Knob, cache_dir: Path | None = None) -> GainChart | None:
    """The knob's gain chart, or None when it has no valid measurement."""
    return draw_gain_charts([knob], cache_dir)[knob.id]


def draw_gain_charts(knobs: Iterable[Knob], cache_dir: Path | None = None) -> dict[str, GainChart | None]:
    """Every knob's gain chart, by knob id (None for a knob without valid measurements)."""
    wanted: dict[str, tuple[tuple[Panel, ...], str, str]] = {}
    charts: dict[str, GainChart | None] = {}
    for knob in knobs:
        panels = chart_panels(knob)
        if not panels:
            charts[knob.id] = None
            continue
        description = "Gain chart. " + "; ".join(
            f"{p.metric}: " + ", ".join(f"{c} {label}" for c, label in zip(p.conditions, p.labels)) for p in panels)
        key = hashlib.sha256(repr((panels, _MATPLOTLIB_VERSION, _SOURCE_KEY)).encode()).hexdigest()[:32]
        wanted[knob.id] = (panels, key, description)
    drawn: dict[str, str] = {}
    missing: dict[str, tuple[Panel, ...]] = {}
    for panels, key, _ in wanted.values():
        cached = _read_cache(cache_dir, key)
        if cached is not None:
            drawn[key] = cached
        else:
            missing[key] = panels
    for key, svg in zip(missing, _draw_all(list(missing.values()))):
        drawn[key] = svg
        _write_cache(cache_dir, key, svg)
    for knob_id, (_, key, description) in wanted.items():
        charts[knob_id] = GainChart(_themed(drawn[key], "light"), _themed(drawn[key], "dark"), description)
    return charts


def _draw_all(charts: list[tuple[Panel, ...]]) -> list[str]:
    """Draw many charts; a first build of a large knowledge base draws them on every core."""
    workers = min(os.cpu_count() or 1, _MAX_WORKERS)
    # Forked workers start with matplotlib imported and warm, but forking is only safe from a
    # single thread: `mkdocs build` is one; `mkdocs serve` is not, and its rebuilds find their
    # charts cached. ('spawn' would re-run the caller's main script.)
    if (len(charts) < _PARALLEL_FROM or workers < 2 or threading.active_count() > 1
            or "fork" not in multiprocessing.get_all_start_methods()):
        return [_draw(panels) for panels in charts]
    first = _draw(charts[0])
    try:
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
            return [first, *pool.map(_draw, charts[1:], chunksize=8)]
    except (BrokenProcessPool, OSError):
        return [first, *(_draw(panels) for panels in charts[1:])]


def _draw(panels: tuple[Panel, ...]) -> str:
    # Imported only when a chart is drawn: importing matplotlib takes about a second, and a build
    # whose charts are all cached, or `kb check`, need not pay it.
    import matplotlib
    from matplotlib.backends.backend_svg import FigureCanvasSVG
    from matplotlib.figure import Figure

    with matplotlib.rc_context(_RC):
        widest = max(len(p.conditions) for p in panels)
        width = max(6.5, min(9.0, 2.5 + 1.5 * widest))
        panel_height, above, below, left = 2.0, 0.45, 0.35, 0.2  # inches
        height = panel_height * len(panels)
        figure = Figure(figsize=(width, height))
        figure.patch.set_visible(False)  # transparent: the page's background shows through
        for index, panel in enumerate(panels):
            bottom = height - (index + 1) * panel_height + below
            axes = figure.add_axes((left / width, bottom / height, 1 - (left + 0.1) / width,
                                    (panel_height - above - below) / height))
            _draw_panel(axes, panel, legend=index == 0)
        buffer = io.StringIO()
        FigureCanvasSVG(figure).print_svg(buffer, metadata={"Date": None})
    return buffer.getvalue()


def _draw_panel(axes: Axes, panel: Panel, legend: bool) -> None:
    positions = range(len(panel.conditions))
    width = 0.38
    base = axes.bar([x - width / 2 for x in positions], panel.baselines, width, color=_PLACEHOLDERS["baseline"],
                    label="baseline")
    colours = [_PLACEHOLDERS["better"] if good else _PLACEHOLDERS["worse"] for good in panel.better]
    bars = axes.bar([x + width / 2 for x in positions], panel.tuned, width, color=colours, label="tuned")
    axes.bar_label(base, labels=list(panel.baseline_labels), padding=2, fontsize=9)
    axes.bar_label(bars, labels=list(panel.labels), padding=2, fontsize=9, fontweight="bold")
    axes.set_xticks(list(positions), list(panel.conditions))
    axes.set_xlim(-0.6, len(panel.conditions) - 0.4)
    axes.set_ylim(0, max(max(panel.tuned), max(panel.baselines)) * 1.2)
    axes.set_title(panel.metric, loc="left", fontweight="bold")
    if legend:
        axes.legend(loc="lower right", bbox_to_anchor=(1.0, 1.0), ncols=2, frameon=False, borderaxespad=0.2)
    # The values are written on the bars, so no y axis: it is also the costly part to draw.
    axes.yaxis.set_visible(False)
    axes.patch.set_visible(False)
    for side in ("top", "right", "left"):
        axes.spines[side].set_visible(False)
    axes.tick_params(axis="x", length=0)


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
