"""View data for gains as the pages show them: the knob page's gains table (the value measured,
each side's median and spread, the change, its 95% interval and method, the runs), the notes with
each measurement's provenance, the "Gains" line at a glance, and the home page's ledger of
restored knobs. Every verdict comes from `gains/verdicts.py`; this module only says them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from markupsafe import Markup

from ...deploy.patterns import value_text
from ...gains.estimates import METHOD_TEXT, MIN_RUNS, NoInterval, Side
from ...gains.verdicts import (
    RestoreState,
    claimed_gains,
    describe_reclaimed,
    interval_text,
    measured_setting,
    noise_verdict,
    other_value_gains,
    restore_check,
    same_setting,
)
from ...records.model import Gain, gain_of, number_text, sides
from ...records.schema import Knob, Measurement
from .links import Links
from .markup import code, plain, record_inline
from .page_parts import Table, badge, when_cell, when_text


def gains_table(knob: Knob, links: Links, min_gain_pct: float) -> Table | None:
    """One row per measurement in five columns, so that the table fits a desktop page whole: the
    metric; the setting measured against its baseline and the conditions; each side's median and
    spread; the change with its interval and runs; when and from where."""
    if not knob.measurements:
        return None
    absolute = any(sides(m) is not None for m in knob.measurements)
    columns = ("Metric", "Setting, conditions", *(("Baseline \u2192 tuned",) if absolute else ()),
               "Change, 95% interval", "Measured")
    rows = []
    for m in knob.measurements:
        gain = gain_of(m)
        found = sides(m)
        metric = plain(m.metric) + (Markup("") if m.higher_is_better else Markup(" (lower is better)"))
        setting = _setting(knob, m) + (Markup("<br>") + plain(conditions_text(m)) if m.conditions else Markup())
        values = ((_sides(found[0], found[1], m.unit) if found else Markup()),) if absolute else ()
        source = _source(m, links)
        rows.append((metric, setting, *values, _change(m, gain, min_gain_pct),
                     when_cell(m.date) + (Markup("<br>") + source if source else Markup())))
    return Table(columns, tuple(rows))


METHOD_NOTE = (f"**95% interval:** {METHOD_TEXT}. With fewer than {MIN_RUNS} runs on a side there is none "
               "(\u201ctoo few runs for an interval\u201d); a single number, or a change in percent alone, is one run.")


def conditions_text(m: Measurement) -> str:
    return ", ".join(f"{k} {value_text(v)}" for k, v in m.conditions.items())


def _setting(knob: Knob, m: Measurement) -> Markup:
    """'512 vs 256': the value measured against the value it was compared with (the measurement's
    baseline_setting, else the knob's default; alone when neither is told). A value other than the
    knob's, or one that cannot be told, is marked as history."""
    setting = measured_setting(knob, m)
    baseline = m.baseline_setting if m.baseline_setting is not None else knob.default
    shown = code(value_text(setting)) if setting is not None else plain("a value not told")
    if baseline is not None:
        shown += Markup(" vs ") + code(value_text(baseline))
    if same_setting(setting, knob.value):
        return shown
    return shown + Markup(" ") + badge("gain", "history", "history")


# A time in seconds (or a smaller unit) is said in the unit that keeps its number at 1 or more.
_TIME_UNITS = (("s", 1.0), ("ms", 1e-3), ("\u00b5s", 1e-6), ("ns", 1e-9))
_TIME_ALIASES = {"s": 1.0, "sec": 1.0, "seconds": 1.0, "ms": 1e-3, "us": 1e-6, "\u00b5s": 1e-6, "ns": 1e-9}


def _readable(values: list[float], unit: str | None) -> tuple[float, str | None]:
    """The factor and unit `values` are shown in: times in the largest unit in which the smallest is
    1 or more (0.01839 s reads 18.39 ms); any other unit as recorded."""
    scale = _TIME_ALIASES.get(unit or "")
    if scale is None or not values:
        return 1.0, unit
    smallest = min(abs(v) for v in values) * scale
    for name, size in _TIME_UNITS:
        if smallest >= size or name == "ns":
            return scale / size, name
    return 1.0, unit


def _sides(baseline: Side, tuned: Side, unit: str | None) -> Markup:
    """'2398 \u2192 2718 tok/s' (the medians) and, with more than one run, their ranges below."""
    factor, unit = _readable([baseline.median, tuned.median], unit)
    text = plain(f"{number_text(baseline.median * factor)} \u2192 {number_text(tuned.median * factor)}"
                 + (f" {unit}" if unit else ""))
    if baseline.has_spread or tuned.has_spread:
        ranges = [f"{number_text(side.low * factor)}\u2013{number_text(side.high * factor)}" if side.has_spread
                  else number_text(side.median * factor) for side in (baseline, tuned)]
        text += Markup("<br>") + Markup('<span class="kb-spread">') + plain(" \u2192 ".join(ranges)) + Markup("</span>")
    return text


def _change(m: Measurement, gain: Gain | None, min_gain_pct: float) -> Markup:
    """The change (a badge), then its 95% interval (or why there is none) and the runs."""
    if m.invalid:
        return badge("gain", "invalid", "not counted")
    if gain is None:
        return Markup("no figure")
    shown = badge("gain", "better" if gain.is_better else "worse", gain.change_text)
    if noise_verdict(gain, min_gain_pct).is_noise:
        shown += Markup("<br>") + plain("not distinguishable from noise")
    interval = gain.change_interval
    said = str(interval) if isinstance(interval, NoInterval) else interval_text(interval)
    return shown + Markup("<br>") + plain(said) + Markup("<br>") + plain(gain.runs_text)


def _source(m: Measurement, links: Links) -> Markup:
    if m.evidence:
        return links.reference(m.evidence, short=True)
    if m.source:
        return code(m.source.split("/")[-1])
    return Markup()


def gain_notes(knob: Knob, min_gain_pct: float) -> Iterable[Markup]:
    """Under the table (in a cell they would squeeze it): per measurement, its provenance, why it
    is history or noise, and its note."""
    for m in knob.measurements:
        where = Markup("**") + plain(m.metric + (f", {conditions_text(m)}" if m.conditions else "")) + Markup(":** ")
        parts: list[Markup] = []
        setting = measured_setting(knob, m)
        if not same_setting(setting, knob.value):
            at = (f"at {value_text(setting)}" if setting is not None
                  else "at a value that cannot be told (no 'setting:')")
            parts.append(plain(f"measured {at}, not at the current {value_text(knob.value)}: history, never claimed "
                               "for the current value"))
        provenance = [(label, value) for label, value in (("host", m.host), ("software", m.software),
                                                          ("command", m.command), ("imported from", m.source))
                      if value]
        if provenance:
            parts.append(Markup("; ").join(plain(label + " ") + (code(value) if label in ("command", "imported from")
                                                                 else plain(value)) for label, value in provenance))
        gain = gain_of(m)
        if gain is not None and not m.invalid:
            verdict = noise_verdict(gain, min_gain_pct)
            if verdict.is_noise:
                parts.append(plain(f"not distinguishable from noise: {verdict.why}"))
        if m.invalid:
            parts.append(Markup("not counted: ") + record_inline(m.invalid))
        if m.note:
            parts.append(record_inline(m.note))
        if parts:
            yield where + Markup(". ").join(parts)


def gains_glance(knob: Knob, min_gain_pct: float) -> Markup:
    """The 'Gains' line at the top of a knob's page: what its current value gains (noise said as
    such), and how many measurements are history."""
    claimed = claimed_gains(knob)
    history = other_value_gains(knob)
    if claimed:
        text = plain(describe_reclaimed(claimed, min_gain_pct))
    elif history:
        text = plain(f"none measured at {value_text(knob.value)}")
    else:
        return Markup("no measured gain on record")
    if history:
        text += plain(f" ({len(history)} measured at other values: history, not claimed)")
    return text


@dataclass(frozen=True)
class RestoreRow:
    knob: Markup
    restored: Markup
    state: Markup
    gains: Markup


_STATES = {
    RestoreState.VERIFIED: "reclaimed, verified on {date}",
    RestoreState.NOT_REPRODUCED: "restored; measured on {date}: not distinguishable from noise",
    RestoreState.UNVERIFIED: "restored, not yet verified",
}


def restore_rows(knobs: Iterable[Knob], links: Links, verify_days: int, min_gain_pct: float) -> tuple[RestoreRow, ...]:
    """The ledger's restored knobs, in the order given: reclaimed and verified by a measurement
    since, or not yet."""
    rows = []
    for knob in knobs:
        check = restore_check(knob, verify_days, min_gain_pct)
        if check is None:
            continue
        state = _STATES[check.state].format(date=when_text(check.measured_on) if check.measured_on else "")
        if check.state is RestoreState.UNVERIFIED:
            state += f" (due {check.due.isoformat()})"
        gains = check.gains if check.state is not RestoreState.UNVERIFIED else claimed_gains(knob)
        said = describe_reclaimed(gains, min_gain_pct) if gains else "no measured gain on record"
        if check.state is RestoreState.UNVERIFIED and gains:
            said = f"{said}, measured before the revert"
        rows.append(RestoreRow(links.knob_in_table(knob.id), when_cell(check.entry.date),
                               badge("restore", check.state.value, state), plain(said)))
    return tuple(rows)
