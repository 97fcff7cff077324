"""The rules about gains: one that cannot be told from noise, a value changed and never measured, a
restore never verified by a measurement.

The verdicts come from `gains/verdicts.py` (the same functions the pages and the home
page's ledger ask); these rules only phrase them, each finding at the line it is about.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ..deploy.patterns import value_text
from ..findings import Finding, finding
from ..gains.verdicts import (
    RestoreState,
    claimed_gains,
    is_at_current_value,
    noise_verdict,
    restore_check,
    unmeasured_value,
)
from ..records.model import Catalog, describe_gains, gain_of, when_key
from ..records.schema import Knob, Measurement
from ..records.validate import dotted
from ..records.vocabulary import KnobStatus, RecordKind
from ..settings.rule_settings import RuleSettings
from ..wording import day, plural, shell_word


def _finding(catalog: Catalog, code: str, knob: Knob, key: tuple[str | int, ...], message: str) -> Finding:
    source = catalog.source(RecordKind.KNOB, knob.id)
    line, column = source.source_map.locate(key)
    return finding(code, source.rel_path, line, column, knob.id, message, dotted(key))


def _import_hint(knob: Knob) -> str:
    return f"`kb measurement import {knob.id} FILE... --metric NAME`"


def gains_within_noise(catalog: Catalog, root: Path, settings: RuleSettings) -> Iterator[Finding]:
    for knob in catalog.knobs.values():
        if knob.status is KnobStatus.RETIRED or not claimed_gains(knob):
            continue
        for i, measurement in enumerate(knob.measurements):
            gain = gain_of(measurement)
            if gain is None or not is_at_current_value(knob, measurement):
                continue
            verdict = noise_verdict(gain, settings.min_gain_pct)
            if not verdict.is_noise:
                continue
            yield _finding(
                catalog, "gain-within-noise", knob, ("measurements", i),
                f"knob '{knob.id}': {describe_gains((gain,))} ({gain.runs_text}) is not distinguishable from noise: "
                f"{verdict.why}. It is not counted as a gain; measure again with more runs on each side "
                f"({_import_hint(knob)}), or record why it stands with 'note:' and mark it 'invalid:' if it "
                "should not count")


def unmeasured_values(catalog: Catalog, root: Path, settings: RuleSettings) -> Iterator[Finding]:
    for knob in catalog.knobs.values():
        found = unmeasured_value(knob, settings.today, settings.unmeasured_value_days)
        if found is None:
            continue
        setting = f"{knob.name}={value_text(knob.value)}"
        since = (f"since it was set on {day(found.since)}" if found.change is not None else
                 f"since it was recorded on {day(found.since)}")
        measured = ", ".join("a value that cannot be told (add 'setting:')" if v is None else v
                             for v in found.other_values)
        elsewhere = f"; its measurements were taken at {measured} and count for that only" if measured else ""
        days = settings.unmeasured_value_days
        yield _finding(
            catalog, "unmeasured-value", knob, ("value",),
            f"knob '{knob.id}' is active at {setting} {since}, and nothing was measured at "
            f"{value_text(knob.value)} in the {plural(days, 'day')} after (unmeasured-value-days), as of "
            f"{settings.today.isoformat()}{elsewhere}. Measure it ({_import_hint(knob)} "
            f"--setting {shell_word(value_text(knob.value))}); a measurement taken at this value without "
            "'setting:' says so by its date")


def unverified_restores(catalog: Catalog, root: Path, settings: RuleSettings) -> Iterator[Finding]:
    for knob in catalog.knobs.values():
        check = restore_check(knob, settings.restore_verify_days, settings.min_gain_pct)
        if check is None or not check.is_overdue(settings.today):
            continue
        index = len(knob.history) - 1 - knob.history[::-1].index(check.entry)
        days = settings.restore_verify_days
        gains = describe_gains(claimed_gains(knob))
        before = f" (the gains on record, {gains}, were measured before it)" if gains else ""
        yield _finding(
            catalog, "restore-unverified", knob, ("history", index),
            f"knob '{knob.id}' was restored on {day(check.entry.date)}, more than {plural(days, 'day')} ago "
            f"(restore-verify-days) as of {settings.today.isoformat()}, and no measurement dated since shows its "
            f"gain back{before}. Verify it: measure at {knob.name}={value_text(knob.value)} and record "
            f"it ({_import_hint(knob)}, or `kb measurement add {knob.id} ... --date DATE`)")


def unreproduced_restores(catalog: Catalog, root: Path, settings: RuleSettings) -> Iterator[Finding]:
    for knob in catalog.knobs.values():
        check = restore_check(knob, settings.restore_verify_days, settings.min_gain_pct)
        if check is None or check.state is not RestoreState.NOT_REPRODUCED or check.newest is None:
            continue
        index = next(i for i, m in enumerate(knob.measurements) if m is check.newest)
        newest = check.newest
        restored = when_key(check.entry.date)
        before = tuple(g for g in claimed_gains(knob)
                       if g.measurement.date is not None and when_key(g.measurement.date) < restored)
        claimed = f"; it was restored for {describe_gains(before)}" if before else ""
        yield _finding(
            catalog, "restore-not-reproduced", knob, ("measurements", index),
            f"knob '{knob.id}' was restored on {day(check.entry.date)}, and the newest measurement since "
            f"({newest.metric}{_at(newest)}, {day(newest.date)}) does not show its gain back: {check.why}"  # type: ignore[arg-type]
            f"{claimed}. Measure it again at {knob.name}={value_text(knob.value)} (`kb measure {knob.id} "
            "--metric NAME --command CMD`), or, if the gain is gone, record why (kb set, or a note)")


def _at(measurement: Measurement) -> str:
    conditions = ", ".join(f"{key} {value_text(value)}" for key, value in measurement.conditions.items())
    return f" at {conditions}" if conditions else ""


GAIN_RULES = (gains_within_noise, unmeasured_values, unverified_restores, unreproduced_restores)
