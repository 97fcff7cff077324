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
from pathlib import Path

from ..deploy.patterns import value_text
from ..deploy.verdict import DeploymentVerdict, DeployState, deployment_verdict, same_value
from ..findings import Finding, finding
from ..gains.verdicts import best_told_gain, claimed_gains, describe_reclaimed
from ..records.consistency import path_problem
from ..records.model import Catalog, Gain, Suspicion
from ..records.schema import Deployment, Evidence, HistoryEntry, Hypothesis, Incident, Knob
from ..records.validate import dotted
from ..records.verdicts import (
    Revert,
    RevertReason,
    Standing,
    Support,
    current_reverts,
    has_experiment,
    reading_since,
    standing,
    still_suspected_elsewhere,
    support,
    supporting_evidence,
    unsettled_change,
)
from ..records.vocabulary import EvidenceKind, KnobStatus, RecordKind
from ..records.yaml_source import parse_yaml
from ..repository.files import UnreadableFile, read_bounded
from ..settings.rule_settings import RuleSettings
from ..wording import day, shell_word
from .gain_rules import GAIN_RULES

_MAX_DEPLOY_FILE = 10 << 20


@dataclass(frozen=True, slots=True)
class Reclaimable:
    """A knob kept reverted although every hypothesis it stands reverted under has fallen."""

    knob: Knob
    revert: HistoryEntry  # the entry that took it out (the date it stands reverted since)
    incident: Incident  # the latest reason's incident and hypothesis
    hypothesis: Hypothesis
    gains: tuple[Gain, ...]  # those measured at its value (gains.verdicts.claimed_gains)
    min_gain_pct: float = 0.0
    reasons: tuple[RevertReason, ...] = ()  # every hypothesis it stands reverted under, oldest first
    elsewhere: tuple[Suspicion, ...] = ()  # open incidents that still suspect it

    @property
    def reason(self) -> str:
        """Why each hypothesis fell: 'hypothesis 'h' of incident 'i' was refuted and ...'."""
        reasons = self.reasons or (RevertReason(self.revert, 0, self.incident, self.hypothesis),)
        return " and ".join(_fallen(reason) for reason in reasons)

    @property
    def gains_text(self) -> str:
        """What restoring it reclaims: gains at its value, those within noise said to be."""
        return describe_reclaimed(self.gains, self.min_gain_pct)

    @property
    def stake_pct(self) -> float | None:
        """The largest improvement restoring it reclaims, among gains that can be told from noise
        (None: nothing measured above noise): what the ledger ranks the knobs to restore by."""
        best = best_told_gain(self.gains, self.min_gain_pct)
        return best.pct if best is not None else None

    @property
    def hypotheses(self) -> tuple[tuple[Incident, Hypothesis], ...]:
        """Every (incident, hypothesis) it stands reverted under, oldest first."""
        found = tuple((r.incident, r.hypothesis) for r in self.reasons
                      if r.incident is not None and r.hypothesis is not None)
        return found or ((self.incident, self.hypothesis),)


def _fallen(reason: RevertReason) -> str:
    assert reason.incident is not None and reason.hypothesis is not None
    incident, hypothesis = reason.incident, reason.hypothesis
    named = reason.entry.incident or incident.id  # as the revert names it: 'platform:edge-outage' across
    if standing(incident, hypothesis) is Standing.REFUTED:
        on = f" on {day(hypothesis.decided)}" if hypothesis.decided is not None else ""
        cause = incident.root_cause
        actual = f" (root cause: {cause.hypothesis})" if cause and cause.hypothesis != hypothesis.id else ""
        return f"hypothesis '{hypothesis.id}' of incident '{named}' was refuted{on}{actual}"
    cause = incident.root_cause
    return (f"incident '{named}' was resolved on another root cause "
            f"('{cause.hypothesis if cause else '?'}'), not hypothesis '{hypothesis.id}'")


def find_reclaimable(catalog: Catalog, min_gain_pct: float = 0.0) -> list[Reclaimable]:
    found = []
    for r in current_reverts(catalog):
        if r.is_reclaimable and r.incident is not None and r.hypothesis is not None:
            found.append(Reclaimable(r.knob, r.first.entry, r.incident, r.hypothesis, claimed_gains(r.knob),
                                     min_gain_pct, r.reasons, still_suspected_elsewhere(catalog, r)))
    return found


def _knob_finding(catalog: Catalog, code: str, knob: Knob, key: tuple[str | int, ...], message: str) -> Finding:
    source = catalog.source(RecordKind.KNOB, knob.id)
    line, column = source.source_map.locate(key)
    return finding(code, source.rel_path, line, column, knob.id, message, dotted(key))


def _setting(knob: Knob) -> str:
    return f"{knob.name}={value_text(knob.value)}"


def reclaimable_knobs(catalog: Catalog, root: Path, settings: RuleSettings) -> Iterator[Finding]:
    for item in find_reclaimable(catalog, settings.min_gain_pct):
        knob = item.knob
        where = ", ".join(d.path for d in knob.applies_to)
        caution = "".join(
            f" Incident '{s.incident_reference}' is still {s.incident.status.value} and suspects it too (hypothesis "
            f"'{s.hypothesis.id}', open): settle that before restoring, or restore it knowing so."
            for s in item.elsewhere)
        yield _knob_finding(
            catalog, "reclaimable-knob", knob, ("status",),
            f"knob '{knob.id}' ({_setting(knob)}) is still reverted, but {item.reason}. "
            f"Restoring it reclaims {item.gains_text}.{caution} Restore it with `kb restore {knob.id}`"
            f"{' and set it back in ' + where if where else ''}, or record why it stays reverted in 'keep_reverted:'")


def read_deployment(root: Path, knob: Knob, deployment: Deployment) -> DeploymentVerdict | None:
    """What `deployment.path` says against the knob (`deploy/verdict.py`); None when the path or pattern
    is unusable (the consistency checks report those) or the knob is only proposed. Raises
    UnreadableFile when the file cannot be read."""
    if path_problem(root, deployment.path) is not None:
        return None
    text = read_bounded(root / deployment.path, _MAX_DEPLOY_FILE, root).decode("utf-8", errors="replace")
    return deployment_verdict(knob, deployment, text)


def knob_drift(catalog: Catalog, root: Path, settings: RuleSettings) -> Iterator[Finding]:
    """Drift and unreadable settings, each at the deploy file's line (where the fix goes), naming the
    record."""
    for knob in catalog.knobs.values():
        if knob.status is KnobStatus.PROPOSED:
            continue
        record = catalog.source(RecordKind.KNOB, knob.id).rel_path
        for i, deployment in enumerate(knob.applies_to):
            try:
                verdict = read_deployment(root, knob, deployment)
            except UnreadableFile as exc:
                # Saying nothing would read as "no drift": the check could not be made, and that is news.
                yield _knob_finding(
                    catalog, "unreadable-file", knob, ("applies_to", i, "path"),
                    f"cannot read {deployment.path} ({exc}), so whether it sets knob '{knob.id}' is unknown; "
                    "make it a readable file inside the repository")
                continue
            if verdict is None:
                continue
            key = dotted(("applies_to", i))
            yield from _drift_findings(knob, record, deployment, verdict, key)
            for line in verdict.unreadable:
                forms = ("NAME=VALUE, YAML, JSON or HCL keys, Kubernetes env lists, sysctl, JVM or command-line "
                         "flags")
                why, fix = (
                    (f"it hands on the value {knob.name} has where it runs, which kb cannot see, and "
                     f"{deployment.path} sets it nowhere itself", f"set it in the file ({forms})")
                    if line.passes_through else
                    (f"no form kb reads ({forms}) sets a value here", "write it in one of those forms"))
                yield finding(
                    "unreadable-setting", deployment.path, line.line, line.column, knob.id,
                    f"cannot read {knob.name} in {deployment.path}:{line.line} ('{line.shown}'): {why}, so whether "
                    f"this line deploys knob '{knob.id}' ({record}, {knob.status.value}) is unknown; {fix}, or give "
                    f"'applies_to[{i}].pattern' in {record} that matches the line when the tuned value is set", key)


def _drift_findings(knob: Knob, record: str, deployment: Deployment, verdict: DeploymentVerdict,
                    key: str) -> Iterator[Finding]:
    path, setting = deployment.path, _setting(knob)
    matching = f" (no match for `{verdict.pattern}`)" if verdict.pattern else ""
    if verdict.state is DeployState.NOT_SET:
        yield finding(
            "knob-drift", path, 1, 1, knob.id,
            f"knob '{knob.id}' ({record}) is active, but {path} does not set it to {value_text(knob.value)}"
            f"{matching}; deploy {setting} there, or record the change in the knob's history", key)
    elif verdict.state is DeployState.OTHER_VALUE:
        for line in verdict.lines:
            sets = f"sets '{line.shown}' instead" + ("" if verdict.pattern else f" (the value {line.value})")
            yield finding(
                "knob-drift", path, line.line, line.column, knob.id,
                f"knob '{knob.id}' ({record}) is active, but {path} does not set it to {value_text(knob.value)}"
                f"{matching}: line {line.line} {sets}; deploy {setting} there, or record the change in the knob's "
                "history", key)
    elif verdict.state is DeployState.STILL_SET:
        for line in verdict.lines:
            value = verdict.still_set_value(knob, line)
            older = "" if same_value(value_text(value), knob.value) else \
                f", a value it was tuned to before ({value_text(value)})"
            yield finding(
                "knob-drift", path, line.line, line.column, knob.id,
                f"knob '{knob.id}' ({record}) is {knob.status.value}, but {path}:{line.line} still sets it "
                f"('{line.shown}'){older}; remove it there, or record the knob as active", key)


def restore_candidates(catalog: Catalog, root: Path, settings: RuleSettings) -> Iterator[Finding]:
    for revert_of, reason in _open_reasons(catalog):
        knob, revert, hypothesis = revert_of.knob, reason.entry, reason.hypothesis
        assert hypothesis is not None
        reading = reading_since(hypothesis, revert.date)
        if reading is None or not reading.failed:
            continue
        against = "; ".join(_evidence_text(e) for e in reading.against)
        supporting = "; ".join(_evidence_text(e) for e in reading.supporting) or "nothing"
        decisive = reading.decisive
        gains = describe_reclaimed(claimed_gains(knob), settings.min_gain_pct) if claimed_gains(knob) else ""
        others = [r for r in revert_of.reasons if r is not reason and r.standing is not None and r.standing.stands]
        also = "".join(f" (it also stands reverted under hypothesis '{r.entry.hypothesis}' of incident "
                       f"'{r.entry.incident}', which still stands: settle that too)" for r in others)
        stronger = "" if decisive.kind is EvidenceKind.EXPERIMENT else " or stronger"
        yield _knob_finding(
            catalog, "restore-candidate", knob, ("status",),
            f"knob '{knob.id}' was reverted on {day(revert.date)} to test hypothesis '{hypothesis.id}' "
            f"(incident '{revert.incident}'), and evidence since then speaks against it: {against}; for it: "
            f"{supporting}. The strongest and newest ({decisive.kind.value}, {day(decisive.date or revert.date)}) is "
            "against it. "
            f"Read as a hypothesis test, the revert failed: refute the hypothesis and restore the knob"
            f"{' (' + gains + ')' if gains else ''}{also}, or record evidence for it at least as strong "
            f"({decisive.kind.value}{stronger}) if there is any")


def correlation_only_reverts(catalog: Catalog, root: Path, settings: RuleSettings) -> Iterator[Finding]:
    for revert, reason in _open_reasons(catalog):
        knob, hypothesis, incident_id = revert.knob, reason.hypothesis, reason.entry.incident
        assert hypothesis is not None
        basis = support(hypothesis)
        if basis.is_weak:
            supporting = supporting_evidence(hypothesis)
            shown = ("no evidence at all" if basis is Support.NONE
                     else "only correlation: " + "; ".join(_evidence_text(e) for e in supporting))
            settle = (f"`kb confirm {incident_id} {hypothesis.id}` or `kb refute {incident_id} {hypothesis.id}`")
            advice = (f"an experiment is on record, so settle it: {settle}" if has_experiment(hypothesis) else
                      "record what the symptom did after the revert as an experiment (`kb evidence add "
                      f"{incident_id} {hypothesis.id} --kind experiment ...`), then {settle}")
            yield _knob_finding(
                catalog, "correlation-only-revert", knob, ("status",),
                f"knob '{knob.id}' was reverted under open hypothesis '{hypothesis.id}' (incident "
                f"'{incident_id}'), which rests on {shown}. A revert is a hypothesis test, not a fix: {advice}")


def overdue_reverts(catalog: Catalog, root: Path, settings: RuleSettings) -> Iterator[Finding]:
    for revert in current_reverts(catalog):
        for reason in revert.overdue_reasons(settings.today, settings.overdue_days):
            knob, entry, hypothesis = revert.knob, reason.entry, reason.hypothesis
            assert hypothesis is not None
            due = reason.review_due(settings.overdue_days)
            days = (settings.today - due).days
            why = (f"its review_by date {due.isoformat()}" if entry.review_by is not None else
                   f"{settings.overdue_days} day{'s' * (settings.overdue_days != 1)} after the revert "
                   f"({due.isoformat()})")
            yield _knob_finding(
                catalog, "revert-overdue", knob, ("history", reason.index),
                f"knob '{knob.id}' was reverted on {day(entry.date)} to test hypothesis '{hypothesis.id}' "
                f"(incident '{entry.incident}'), which is still open {days} day{'s' * (days != 1)} past {why}, as of "
                f"{settings.today.isoformat()}. Settle the test: `kb refute {entry.incident} {hypothesis.id}` "
                f"(then `kb restore {knob.id}`) or `kb confirm {entry.incident} {hypothesis.id}`; or give it "
                "more time with 'review_by:' on the revert entry")


def changes_under_refuted(catalog: Catalog, root: Path, settings: RuleSettings) -> Iterator[Finding]:
    for knob in catalog.knobs.values():
        change = unsettled_change(catalog, knob)
        if change is None:
            continue
        entry = change.entry
        previous = change.previous_value
        if previous is None:
            previous = _value_before_from_git(root, catalog, knob, len(knob.history) - 1)
        value_now = entry.value if entry.value is not None else knob.value
        changed = previous is not None and value_text(previous) != value_text(value_now)
        if changed:
            what = f"{knob.name} was changed from {value_text(previous)} to {value_text(value_now)}"
        elif entry.value is not None:
            what = f"{knob.name} was set to {value_text(entry.value)}"
        else:
            what = f"knob '{knob.id}' was made {entry.status.knob_status.value} ({_setting(knob)})"
        under = (f"hypothesis '{change.hypothesis.id}' of incident '{change.incident.id}', which was later refuted"
                 if change.standing is Standing.REFUTED else
                 f"hypothesis '{change.hypothesis.id}' of incident '{change.incident.id}', which was resolved on "
                 "another root cause "
                 f"('{change.incident.root_cause.hypothesis if change.incident.root_cause else '?'}')")
        if changed:
            back = (f" To undo it: set to {value_text(previous)} from {value_text(value_now)}. Change it back "
                    f"(`kb set {knob.id} {_typed(previous)} --note '...'`)")
        elif entry.value is not None:
            back = (" Neither its history nor git says what the value was before. Change it back "
                    f"(`kb set {knob.id} VALUE --note '...'`)")
        else:
            back = f" Change it back (`kb set {knob.id} VALUE --note '...'`)"
        yield _knob_finding(
            catalog, "changed-under-refuted", knob, ("history", len(knob.history) - 1),
            f"{what} on {day(entry.date)} under {under}: the change was made to fix something that was not the "
            f"cause, and nobody has reviewed it since.{back}, or record why it stays "
            f"(`kb set {knob.id} {_typed(knob.value)} --note 'why it stays'`)")


def _value_before_from_git(root: Path, catalog: Catalog, knob: Knob, index: int) -> object | None:
    """The knob's `value:` in the newest committed version of its record that did not have history
    entry `index` yet (the value before that change), when git has one; None otherwise."""
    from ..history.versions import committed_versions

    for content in committed_versions(root, catalog.source(RecordKind.KNOB, knob.id).rel_path):
        record = parse_yaml(content.decode("utf-8", errors="replace")).value
        history = record.get("history") if isinstance(record, dict) else None
        if isinstance(history, list) and len(history) <= index:
            value = record.get("value")
            return value if isinstance(value, str | int | float | bool) else None
    return None


def _typed(value: object) -> str:
    """A value as a word of a command to copy: as a record writes it, shell-quoted ('a b', not a b)."""
    return shell_word(value_text(value))


def unexplained_reverts(catalog: Catalog, root: Path, settings: RuleSettings) -> Iterator[Finding]:
    for revert in current_reverts(catalog):
        knob = revert.knob
        if knob.keep_reverted:
            continue
        for reason in revert.reasons:
            if not reason.is_explained:
                yield _knob_finding(
                    catalog, "unexplained-revert", knob, ("history", reason.index),
                    f"knob '{knob.id}' was reverted on {day(reason.entry.date)} without naming the incident and "
                    "hypothesis behind it; add 'incident:' and 'hypothesis:' to that history entry so the revert "
                    "can be undone when the hypothesis falls, or set 'keep_reverted:' with the reason")


def _open_reasons(catalog: Catalog) -> Iterator[tuple[Revert, RevertReason]]:
    """Each hypothesis test still running: a reverted knob and an open hypothesis it stands reverted under."""
    for revert in current_reverts(catalog):
        for reason in revert.open_reasons:
            yield revert, reason


def _evidence_text(evidence: Evidence) -> str:
    when = f"{day(evidence.date)}, " if evidence.date else ""
    return f"'{evidence.text}' ({when}{evidence.kind.value})"


Rule = Callable[[Catalog, Path, RuleSettings], Iterator[Finding]]
RULES: tuple[Rule, ...] = (reclaimable_knobs, knob_drift, restore_candidates, correlation_only_reverts,
                           unexplained_reverts, overdue_reverts, changes_under_refuted, *GAIN_RULES)
