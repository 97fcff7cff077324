"""What the records imply: reclaimable knobs, drift between records and deploy files, reverts that
were weak or overdue hypothesis tests, and changes made under hypotheses that later fell.

Each rule is a function from the catalog, the repository's root (drift reads deploy files) and the
rule settings (today's date, the configured days) to findings. The verdicts come from
`records/verdicts.py`; rules only phrase them. `find_reclaimable` also returns structured results,
for the site's "needs action" list.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path

from ..findings import Finding, finding
from ..records.consistency import path_problem
from ..records.deployments import any_value_pattern, deploy_pattern, value_text
from ..records.files import UnreadableFile, read_bounded
from ..records.patterns import compile_pattern
from ..records.gain_verdicts import claimed_gains, describe_reclaimed
from ..records.model import Catalog, Gain, when_key
from ..records.schema import Deployment, Evidence, HistoryEntry, Hypothesis, Incident, Knob
from ..records.vocabulary import KnobStatus, RecordKind, Stance
from ..records.validate import dotted
from ..records.verdicts import (
    Standing,
    Support,
    current_reverts,
    has_experiment,
    standing,
    support,
    supporting_evidence,
    unsettled_change,
)
from .gain_rules import GAIN_RULES
from .rule_settings import RuleSettings
from ..wording import shell_word

_MAX_DEPLOY_FILE = 10 << 20


@dataclass(frozen=True, slots=True)
class Reclaimable:
    """A knob kept reverted under a hypothesis that no longer stands."""

    knob: Knob
    revert: HistoryEntry
    incident: Incident
    hypothesis: Hypothesis
    gains: tuple[Gain, ...]  # those measured at its value (gain_verdicts.claimed_gains)
    min_gain_pct: float = 0.0

    @property
    def reason(self) -> str:
        if standing(self.incident, self.hypothesis) is Standing.REFUTED:
            return f"hypothesis '{self.hypothesis.id}' of incident '{self.incident.id}' was refuted"
        cause = self.incident.root_cause
        return (f"incident '{self.incident.id}' was resolved on another root cause "
                f"('{cause.hypothesis if cause else '?'}'), not hypothesis '{self.hypothesis.id}'")

    @property
    def gains_text(self) -> str:
        """What restoring it reclaims: gains at its value, those within noise said to be."""
        return describe_reclaimed(self.gains, self.min_gain_pct)


def find_reclaimable(catalog: Catalog, min_gain_pct: float = 0.0) -> list[Reclaimable]:
    return [Reclaimable(r.knob, r.entry, r.incident, r.hypothesis, claimed_gains(r.knob), min_gain_pct)
            for r in current_reverts(catalog)
            if r.is_reclaimable and r.incident is not None and r.hypothesis is not None]


def _knob_finding(catalog: Catalog, code: str, knob: Knob, key: tuple[str | int, ...], message: str) -> Finding:
    source = catalog.source(RecordKind.KNOB, knob.id)
    line, column = source.source_map.locate(key)
    return finding(code, source.rel_path, line, column, knob.id, message, dotted(key))


def _setting(knob: Knob) -> str:
    return f"{knob.name}={knob.value}"


def reclaimable_knobs(catalog: Catalog, root: Path, settings: RuleSettings) -> Iterator[Finding]:
    for item in find_reclaimable(catalog, settings.min_gain_pct):
        knob = item.knob
        cause = item.incident.root_cause
        actual = f" (root cause: {cause.hypothesis})" if cause and cause.hypothesis != item.hypothesis.id else ""
        where = ", ".join(d.path for d in knob.applies_to)
        yield _knob_finding(
            catalog, "reclaimable-knob", knob, ("status",),
            f"knob '{knob.id}' ({_setting(knob)}) is still reverted, but {item.reason}{actual}. "
            f"Restoring it reclaims {item.gains_text}. Restore it with `kb restore {knob.id}`"
            f"{' and set it back in ' + where if where else ''}, or record why it stays reverted in 'keep_reverted:'")


@dataclass(frozen=True, slots=True)
class DeployedSetting:
    """What a deploy file says about a knob: where its pattern matches, if it does."""

    path: str
    pattern: str  # the pattern searched, built from the record as it is now
    line: int | None  # 1-based line of the match; None when the file does not set the tuned value
    text: str | None  # the matching text
    other: tuple[int, str] | None = None  # when not set: a line that sets another value, and its text

    @property
    def is_set(self) -> bool:
        return self.line is not None


def find_setting(root: Path, knob: Knob, deployment: Deployment) -> DeployedSetting | None:
    """Whether `deployment.path` sets the knob's current value; None when the path or pattern is
    unusable (the consistency checks report those). Raises UnreadableFile when the file cannot be
    read."""
    if path_problem(root, deployment.path) is not None:
        return None
    pattern = deploy_pattern(knob, deployment)
    if compile_pattern(pattern) is None:
        return None
    text = read_bounded(root / deployment.path, _MAX_DEPLOY_FILE, root).decode("utf-8", errors="replace")
    found = _search(pattern, text)
    if found is None:
        return None
    if found:
        return DeployedSetting(deployment.path, pattern, *found)
    other_pattern = any_value_pattern(knob, deployment)
    other = _search(other_pattern, text) if other_pattern else None
    return DeployedSetting(deployment.path, pattern, None, None, other or None)


def _search(pattern: str, text: str) -> tuple[int, str] | tuple[()] | None:
    """(line, matching text) of the first match, () for none, None for a pattern RE2 cannot run."""
    compiled = compile_pattern(pattern)
    if compiled is None:
        return None
    match = compiled.search(text)
    if match is None:
        return ()
    # A pattern starting with \s* can begin on a blank line above: count from the text itself.
    start = match.start() + len(match.group(0)) - len(match.group(0).lstrip())
    return text.count("\n", 0, start) + 1, match.group(0).strip()


def knob_drift(catalog: Catalog, root: Path, settings: RuleSettings) -> Iterator[Finding]:
    for knob in catalog.knobs.values():
        if knob.status is KnobStatus.PROPOSED:
            continue
        expect_present = knob.status is KnobStatus.ACTIVE
        for i, deployment in enumerate(knob.applies_to):
            try:
                found = find_setting(root, knob, deployment)
            except UnreadableFile as exc:
                # Saying nothing would read as "no drift": the check could not be made, and that is news.
                yield _knob_finding(
                    catalog, "unreadable-file", knob, ("applies_to", i, "path"),
                    f"cannot read {deployment.path} ({exc}), so whether it sets knob '{knob.id}' is unknown; "
                    "make it a readable file inside the repository")
                continue
            if found is None:
                continue
            if expect_present and not found.is_set:
                instead = (f"; line {found.other[0]} sets '{found.other[1]}' instead" if found.other else "")
                yield _knob_finding(
                    catalog, "knob-drift", knob, ("applies_to", i),
                    f"knob '{knob.id}' is active, but {deployment.path} does not set it to {knob.value} (no "
                    f"match for `{found.pattern}`){instead}; deploy {_setting(knob)} there, or record the change "
                    "in the knob's history")
            elif not expect_present and found.is_set:
                yield _knob_finding(
                    catalog, "knob-drift", knob, ("applies_to", i),
                    f"knob '{knob.id}' is {knob.status.value}, but {deployment.path}:{found.line} still sets it "
                    f"('{found.text}'); remove it there, or record the knob as active")


def restore_candidates(catalog: Catalog, root: Path, settings: RuleSettings) -> Iterator[Finding]:
    for knob, revert, hypothesis in _open_reverts(catalog):
        since = [e for e in hypothesis.evidence
                 if e.stance is Stance.AGAINST and e.date is not None and when_key(e.date) >= when_key(revert.date)]
        if since:
            shown = "; ".join(_evidence_text(e) for e in since)
            gains = describe_reclaimed(claimed_gains(knob), settings.min_gain_pct) if claimed_gains(knob) else ""
            yield _knob_finding(
                catalog, "restore-candidate", knob, ("status",),
                f"knob '{knob.id}' was reverted on {revert.date.isoformat()} to test hypothesis '{hypothesis.id}' "
                f"(incident '{revert.incident}'), and evidence since then speaks against it: {shown}. Read as a "
                f"hypothesis test, the revert failed: refute the hypothesis and restore the knob"
                f"{' (' + gains + ')' if gains else ''}, or record evidence for it")


def correlation_only_reverts(catalog: Catalog, root: Path, settings: RuleSettings) -> Iterator[Finding]:
    for knob, revert, hypothesis in _open_reverts(catalog):
        basis = support(hypothesis)
        if basis.is_weak:
            supporting = supporting_evidence(hypothesis)
            shown = ("no evidence at all" if basis is Support.NONE
                     else "only correlation: " + "; ".join(_evidence_text(e) for e in supporting))
            settle = (f"`kb confirm {revert.incident} {hypothesis.id}` or `kb refute {revert.incident} {hypothesis.id}`")
            advice = (f"an experiment is on record, so settle it: {settle}" if has_experiment(hypothesis) else
                      "record what the symptom did after the revert as an experiment (`kb evidence add "
                      f"{revert.incident} {hypothesis.id} --kind experiment ...`), then {settle}")
            yield _knob_finding(
                catalog, "correlation-only-revert", knob, ("status",),
                f"knob '{knob.id}' was reverted under open hypothesis '{hypothesis.id}' (incident "
                f"'{revert.incident}'), which rests on {shown}. A revert is a hypothesis test, not a fix: {advice}")


def overdue_reverts(catalog: Catalog, root: Path, settings: RuleSettings) -> Iterator[Finding]:
    for revert in current_reverts(catalog):
        if not revert.is_overdue(settings.today, settings.overdue_days) or revert.hypothesis is None:
            continue
        knob, entry = revert.knob, revert.entry
        due = revert.review_due(settings.overdue_days)
        days = (settings.today - due).days
        why = (f"its review_by date {due.isoformat()}" if entry.review_by is not None else
               f"{settings.overdue_days} day{'s' * (settings.overdue_days != 1)} after the revert ({due.isoformat()})")
        yield _knob_finding(
            catalog, "revert-overdue", knob, ("history", _index(knob, entry)),
            f"knob '{knob.id}' was reverted on {_day(entry.date)} to test hypothesis '{revert.hypothesis.id}' "
            f"(incident '{entry.incident}'), which is still open {days} day{'s' * (days != 1)} past {why}, as of "
            f"{settings.today.isoformat()}. Settle the test: `kb refute {entry.incident} {revert.hypothesis.id}` "
            f"(then `kb restore {knob.id}`) or `kb confirm {entry.incident} {revert.hypothesis.id}`; or give it "
            "more time with 'review_by:' on the revert entry")


def changes_under_refuted(catalog: Catalog, root: Path, settings: RuleSettings) -> Iterator[Finding]:
    for knob in catalog.knobs.values():
        change = unsettled_change(catalog, knob)
        if change is None:
            continue
        entry = change.entry
        if entry.value is not None:
            what = (f"{knob.name} was changed from {change.previous_value} to {entry.value}"
                    if change.previous_value is not None else f"{knob.name} was set to {entry.value}")
        else:
            what = f"knob '{knob.id}' was made {entry.status.knob_status.value} ({_setting(knob)})"
        under = (f"hypothesis '{change.hypothesis.id}' of incident '{change.incident.id}', which was later refuted"
                 if change.standing is Standing.REFUTED else
                 f"hypothesis '{change.hypothesis.id}' of incident '{change.incident.id}', which was resolved on "
                 f"another root cause ('{change.incident.root_cause.hypothesis if change.incident.root_cause else '?'}')")
        back = f"`kb set {knob.id} {_typed(change.previous_value)} --note '...'`" \
            if change.previous_value is not None else f"`kb set {knob.id} VALUE --note '...'`"
        yield _knob_finding(
            catalog, "changed-under-refuted", knob, ("history", len(knob.history) - 1),
            f"{what} on {_day(entry.date)} under {under}: the change was made to fix something that was not the "
            f"cause, and nobody has reviewed it since. Change it back ({back}), or record why it stays "
            f"(`kb set {knob.id} {_typed(knob.value)} --note 'why it stays'`)")


def _typed(value: object) -> str:
    """A value as a word of a command to copy: as a record writes it, shell-quoted ('a b', not a b)."""
    return shell_word(value_text(value))


def unexplained_reverts(catalog: Catalog, root: Path, settings: RuleSettings) -> Iterator[Finding]:
    for revert in current_reverts(catalog):
        knob = revert.knob
        if not revert.is_explained and not knob.keep_reverted:
            yield _knob_finding(
                catalog, "unexplained-revert", knob, ("history", _index(knob, revert.entry)),
                f"knob '{knob.id}' was reverted on {revert.entry.date.isoformat()} without naming the incident and "
                "hypothesis behind it; add 'incident:' and 'hypothesis:' to that history entry so the revert can "
                "be undone when the hypothesis falls, or set 'keep_reverted:' with the reason")


def _open_reverts(catalog: Catalog) -> Iterator[tuple[Knob, HistoryEntry, Hypothesis]]:
    """Reverted knobs whose revert is a hypothesis test still running."""
    for revert in current_reverts(catalog):
        if revert.tests_open_hypothesis and revert.hypothesis is not None:
            yield revert.knob, revert.entry, revert.hypothesis


def _index(knob: Knob, entry: HistoryEntry) -> int:
    return len(knob.history) - 1 - knob.history[::-1].index(entry)


def _day(moment: date | datetime) -> str:
    return moment.isoformat(sep=" ") if isinstance(moment, datetime) else moment.isoformat()


def _evidence_text(evidence: Evidence) -> str:
    when = f"{evidence.date.isoformat()}, " if evidence.date else ""
    return f"'{evidence.text}' ({when}{evidence.kind.value})"


Rule = Callable[[Catalog, Path, RuleSettings], Iterator[Finding]]
RULES: tuple[Rule, ...] = (reclaimable_knobs, knob_drift, restore_candidates, correlation_only_reverts,
                           unexplained_reverts, overdue_reverts, changes_under_refuted, *GAIN_RULES)
