"""The verdicts about gains, each decided here once: which value of the knob a measurement was taken
at (so which gains belong to its current value), whether a gain can be told from noise, whether a
restore was verified by a measurement, and whether a changed value was ever measured.

Rules, pages and the home page's ledger all call these, so none of them can claim a gain the check
does not. Model in, verdicts out: no findings, no markup.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from ..deploy.patterns import value_text
from ..records.by_record import by_record
from ..records.model import Gain, describe_gains, gain_of, signed_pct, when_key
from ..records.schema import HistoryEntry, Knob, Measurement
from ..records.verdicts import day_of
from ..records.vocabulary import HistoryStatus, KnobStatus
from .estimates import Interval, NoInterval

NOT_DISTINGUISHABLE = "not distinguishable from noise"


# ---- which value was measured ------------------------------------------------------------------

def same_setting(one: Any, other: Any) -> bool:
    """Whether two values of a setting are the same value: 512 and '512' are, 512 and 768 are not."""
    if one is None or other is None:
        return False
    numbers = (int, float)
    if isinstance(one, numbers) and isinstance(other, numbers) and not isinstance(one, bool) \
            and not isinstance(other, bool):
        return float(one) == float(other)
    return value_text(one) == value_text(other)


def value_changes(knob: Knob) -> tuple[HistoryEntry, ...]:
    """The history entries that changed the knob's value (`kb set`), oldest first. The first history
    entry records the value the knob started with, and an entry that repeats the value before it
    (why a value stays) changes nothing."""
    changes: list[HistoryEntry] = []
    known = knob.history[0].value
    for entry in knob.history[1:]:
        if entry.value is None or same_setting(entry.value, known):
            continue
        changes.append(entry)
        known = entry.value
    return tuple(changes)


def measured_setting(knob: Knob, measurement: Measurement) -> Any | None:
    """The knob's value the measurement was taken at: its `setting`, else the value the knob had on
    the measurement's date by its history; None when that cannot be told (a measurement older than
    every recorded change of value, or undated, on a knob whose value changed)."""
    if measurement.setting is not None:
        return measurement.setting
    changes = value_changes(knob)
    if not changes:
        start = knob.history[0].value
        return knob.value if start is None or same_setting(start, knob.value) else None
    if measurement.date is None:
        return None
    before = [entry for entry in changes if _not_after(entry.date, measurement.date)]
    if before:
        return before[-1].value
    return knob.history[0].value  # None when the value it started with is not on record


def _not_after(change: date | datetime, moment: date | datetime) -> bool:
    """Whether a change dated `change` was in force at `moment` (a date counts as its whole day)."""
    if isinstance(change, datetime) and isinstance(moment, datetime):
        return change <= moment
    return day_of(change) <= day_of(moment)


def is_at_current_value(knob: Knob, measurement: Measurement) -> bool:
    return same_setting(measured_setting(knob, measurement), knob.value)


@by_record  # asked of every knob by the rules, the home page and the knobs index
def claimed_gains(knob: Knob) -> tuple[Gain, ...]:
    """The gains that belong to the knob's current value: valid measurements taken at it. Gains
    measured at another value are history, never claimed for this one."""
    return tuple(gain for m in knob.measurements if is_at_current_value(knob, m) and (gain := gain_of(m)) is not None)


def other_value_gains(knob: Knob) -> tuple[tuple[Gain, Any | None], ...]:
    """Valid gains measured at another value (or at one that cannot be told: None), with that value."""
    return tuple((gain, measured_setting(knob, m)) for m in knob.measurements
                 if not is_at_current_value(knob, m) and (gain := gain_of(m)) is not None)


# ---- noise -------------------------------------------------------------------------------------

class Noise(enum.Enum):
    """Whether a gain can be told from noise."""

    DISTINGUISHABLE = "distinguishable"  # its interval excludes zero, and it is not below min-gain-pct
    WITHIN_NOISE = "within noise"  # its interval includes zero, or it is below min-gain-pct
    UNTESTED = "untested"  # no interval (too few runs), and not below min-gain-pct


@dataclass(frozen=True, slots=True)
class NoiseVerdict:
    noise: Noise
    why: str  # for a gain within noise: what makes it so; else what the interval is, or why there is none

    @property
    def is_noise(self) -> bool:
        return self.noise is Noise.WITHIN_NOISE


def noise_verdict(gain: Gain, min_gain_pct: float = 0.0) -> NoiseVerdict:
    """Is this gain within noise? When its 95% interval includes zero, or when it is an
    improvement smaller than `min-gain-pct` (the smallest gain the team counts). A clear regression
    is not noise; a gain without an interval is untested unless it is below the minimum."""
    interval = gain.change_interval  # said in the metric's own direction, like the gain
    if not isinstance(interval, NoInterval) and interval.includes(0.0):
        return NoiseVerdict(Noise.WITHIN_NOISE, f"its 95% interval, {interval_text(interval)}, includes zero")
    if 0 <= gain.pct < min_gain_pct:
        return NoiseVerdict(Noise.WITHIN_NOISE, f"it is below min-gain-pct ({min_gain_pct:g}%)")
    if isinstance(interval, NoInterval):
        return NoiseVerdict(Noise.UNTESTED, str(interval))
    return NoiseVerdict(Noise.DISTINGUISHABLE, f"95% interval {interval_text(interval)}")


def best_told_gain(gains: tuple[Gain, ...], min_gain_pct: float = 0.0) -> Gain | None:
    """The largest improvement that can be told from noise (None: none can): what a knob is ranked
    by, in the reclaimable ledger and the indexes alike. A gain within noise is no knob's best."""
    return max((g for g in gains if not noise_verdict(g, min_gain_pct).is_noise), key=lambda g: g.pct, default=None)


def interval_text(interval: Interval) -> str:
    """'+11.9% to +13.6%'."""
    return f"{signed_pct(interval.low)} to {signed_pct(interval.high)}"


def describe_reclaimed(gains: tuple[Gain, ...], min_gain_pct: float = 0.0) -> str:
    """What restoring a knob reclaims, said the same way by the check and the home page: the gains
    that can be told from noise, and the others named as 'not distinguishable from noise'."""
    if not gains:
        return "no measured gain on record"
    real = tuple(g for g in gains if not noise_verdict(g, min_gain_pct).is_noise)
    noise = tuple(g for g in gains if noise_verdict(g, min_gain_pct).is_noise)
    if not noise:
        return describe_gains(real)
    if not real:
        return f"nothing distinguishable from noise ({describe_gains(noise)})"
    return f"{describe_gains(real)}; {describe_gains(noise)} {'is' if len(noise) == 1 else 'are'} {NOT_DISTINGUISHABLE}"


# ---- restores ----------------------------------------------------------------------------------

class RestoreState(enum.Enum):
    VERIFIED = "verified"  # the newest measurement at the current value since the restore shows the gain back
    NOT_REPRODUCED = "not reproduced"  # measured since, but the newest shows no gain told from noise
    UNVERIFIED = "unverified"  # not measured since the restore


@dataclass(frozen=True, slots=True)
class RestoreCheck:
    """A knob that stands restored, and whether a measurement since the restore shows the gain back."""

    knob: Knob
    entry: HistoryEntry  # the restore
    state: RestoreState
    measured_on: date | datetime | None  # the date of the newest measurement since the restore (None: none)
    gains: tuple[Gain, ...]  # the gains measured since the restore, oldest first (the newest decides)
    due: date  # when it should have been verified (restore-verify-days after the restore)
    newest: Measurement | None = None  # the measurement that decides the state
    why: str = ""  # what the newest shows when it does not show the gain back ('within noise: ...')

    def is_overdue(self, today: date) -> bool:
        return self.state is RestoreState.UNVERIFIED and today > self.due


def current_restore(knob: Knob) -> HistoryEntry | None:
    """The restore the knob stands on: it is active, and nothing after its last restore changed its
    status or value."""
    if knob.status is not KnobStatus.ACTIVE:
        return None
    changes = {id(entry) for entry in value_changes(knob)}
    for entry in reversed(knob.history):
        if entry.status is HistoryStatus.RESTORED:
            return entry
        if entry.status is not HistoryStatus.ACTIVE or id(entry) in changes:
            return None
    return None


def restore_check(knob: Knob, verify_days: int, min_gain_pct: float = 0.0) -> RestoreCheck | None:
    """Whether the knob's restore was verified: the newest valid measurement at its current value,
    dated on or after the restore, shows a gain distinguishable from noise (a single run counts; it has
    no interval to test). The newest decides: a later run that does not reproduce the gain outweighs
    an earlier one that did. None when the knob does not stand restored."""
    entry = current_restore(knob)
    if entry is None:
        return None
    due = day_of(entry.date) + timedelta(days=verify_days)
    since = sorted(((m, gain) for m in knob.measurements
                    if m.date is not None and not m.invalid and _not_after(entry.date, m.date)
                    and is_at_current_value(knob, m) and (gain := gain_of(m)) is not None),
                   key=lambda found: when_key(found[0].date))  # type: ignore[arg-type]
    if not since:
        return RestoreCheck(knob, entry, RestoreState.UNVERIFIED, None, (), due)
    gains = tuple(gain for _, gain in since)
    newest, gain = since[-1]
    verdict = noise_verdict(gain, min_gain_pct)
    if gain.pct > 0 and not verdict.is_noise:
        return RestoreCheck(knob, entry, RestoreState.VERIFIED, newest.date, gains, due, newest)
    why = f"within noise ({verdict.why})" if verdict.is_noise else "a regression" if gain.pct < 0 else "no change"
    return RestoreCheck(knob, entry, RestoreState.NOT_REPRODUCED, newest.date, gains, due, newest,
                        f"{gain.change_text}, {why}")


# ---- a changed value, unmeasured ---------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class UnmeasuredValue:
    """An active knob with no valid measurement at its current value, past the days allowed."""

    knob: Knob
    change: HistoryEntry | None  # the change that set the value; None when it has had it all along
    since: date | datetime
    other_values: tuple[Any, ...]  # values that were measured instead (None: one that cannot be told)


def unmeasured_value(knob: Knob, today: date, days: int) -> UnmeasuredValue | None:
    """An active knob whose current value was set more than `days` ago and never measured, when
    there is something to miss: its value changed, or it has measurements, all at other values."""
    if knob.status is not KnobStatus.ACTIVE:
        return None
    valid = [m for m in knob.measurements if not m.invalid and gain_of(m) is not None]
    if any(is_at_current_value(knob, m) for m in valid):
        return None
    changes = value_changes(knob)
    change = changes[-1] if changes and same_setting(changes[-1].value, knob.value) else None
    if change is None and not valid:
        return None  # never changed, never measured: nothing is claimed, nothing went stale
    since = change.date if change is not None else knob.history[0].date
    if (today - day_of(since)).days <= days:
        return None
    others = tuple(dict.fromkeys(value_text(v) if v is not None else None for v in
                                 (measured_setting(knob, m) for m in valid)))
    return UnmeasuredValue(knob, change, since, others)
