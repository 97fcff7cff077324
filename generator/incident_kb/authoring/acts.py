"""What a postmortem author does to the records, one function per act: add a hypothesis or a piece
of evidence, refute or confirm a hypothesis, revert a knob to test one, restore it, and note a
measurement, a timeline event, a follow-up or a lesson.

Each act edits one record in place (`record_files.py` checks the result and writes it) and returns
what it did and what else now needs doing: deploy files to change, docs that tell the story, and
what `kb check` now reports (the whole check, git-based rules included, run after the write).
An edit that makes no sense (reverting a retired knob, or under a refuted hypothesis) is refused
with one line (KbError, exit 2) before anything is written; unknown records, hypotheses and
entries are reported the same way by every act. Knows what the records mean; parses no
arguments, prints nothing.
"""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path
from typing import Any

from ..check.pipeline import KnowledgeBase, check_knowledge_base
from ..deploy.patterns import value_text
from ..deploy.verdict import DeployState
from ..findings import Finding, KbError
from ..gains.verdicts import is_at_current_value
from ..records.model import last_revert, standing_revert_indexes
from ..records.schema import (
    Evidence,
    FollowUp,
    HistoryEntry,
    Hypothesis,
    Incident,
    Knob,
    Measurement,
    RootCause,
    TimelineEntry,
)
from ..records.verdicts import Standing, standing
from ..records.vocabulary import FollowUpStatus, HypothesisStatus, KnobStatus, RecordKind
from ..repository.files import UnreadableFile
from ..rules.knob_rules import read_deployment
from ..rules.references import docs_referring_to
from ..wording import day, shell_word
from .outcome import Outcome, entry, fields
from .record_files import RecordFile, Refused, open_record, require_record, save
from .yaml_emit import Flow
from .yaml_splice import Editor

When = date | datetime


# ---- incidents ---------------------------------------------------------------------------------

def add_hypothesis(root: Path, incident_id: str, hypothesis_id: str, statement: str,
                   suspect_knob: str | None = None) -> Outcome:
    record, editor, incident = _open_incident(root, incident_id)
    if suspect_knob:
        require_record(root, RecordKind.KNOB, suspect_knob)
    if _hypothesis(incident, hypothesis_id) is not None:
        raise KbError(f"incident '{incident_id}' already has a hypothesis '{hypothesis_id}'; pick another id")
    item = entry(Hypothesis, id=hypothesis_id, statement=statement, status="open",
                 suspect=Flow(knob=suspect_knob) if suspect_knob else None)
    editor.append(("hypotheses",), item, fields(Incident))
    save(record, editor)
    steps = [f"record what speaks for or against it: kb evidence add {incident_id} {hypothesis_id} "
             "--kind experiment|observation|report|correlation --stance for|against --text '...'"]
    if suspect_knob:
        steps.append(f"to test it by taking the knob out: kb revert {suspect_knob} --incident {incident_id} "
                     f"--hypothesis {hypothesis_id}")
    return Outcome(f"{record.rel_path}: added hypothesis '{hypothesis_id}' (open)", tuple(steps))


def add_evidence(root: Path, incident_id: str, hypothesis_id: str, kind: str, stance: str, text: str,
                 when: When) -> Outcome:
    record, editor, incident = _open_incident(root, incident_id)
    index = _hypothesis_index(incident, hypothesis_id)
    item = entry(Evidence, kind=kind, stance=stance, date=when, text=text)
    editor.append(("hypotheses", index, "evidence"), item, fields(Hypothesis))
    save(record, editor)
    return Outcome(f"{record.rel_path}: added {kind} evidence {stance} '{hypothesis_id}' ({day(when)})", (),
                   _check(root))


def refute(root: Path, incident_id: str, hypothesis_id: str, when: When | None = None) -> Outcome:
    """Refute a hypothesis, on `when` (its `decided:` date) when given."""
    record, editor, incident = _open_incident(root, incident_id)
    index = _hypothesis_index(incident, hypothesis_id)
    editor.set(("hypotheses", index), "status", "refuted", fields(Hypothesis))
    if when is not None:
        editor.set(("hypotheses", index), "decided", when, fields(Hypothesis))
    save(record, editor)
    on = f" ({day(when)})" if when is not None else ""
    return Outcome(f"{record.rel_path}: hypothesis '{hypothesis_id}' refuted{on}", (), _check(root))


def confirm(root: Path, incident_id: str, hypothesis_id: str, *, root_cause: bool = False,
            summary: str | None = None, resolve_on: When | None = None, when: When | None = None) -> Outcome:
    """Confirm a hypothesis (on `when`, its `decided:` date, when given); make it the root cause
    (`root_cause`, implied by a summary or by resolving), and resolve the incident on `resolve_on`."""
    record, editor, incident = _open_incident(root, incident_id)
    index = _hypothesis_index(incident, hypothesis_id)
    editor.set(("hypotheses", index), "status", "confirmed", fields(Hypothesis))
    if when is not None:
        editor.set(("hypotheses", index), "decided", when, fields(Hypothesis))
    done = [f"hypothesis '{hypothesis_id}' confirmed" + (f" ({day(when)})" if when is not None else "")]
    if root_cause or summary is not None or resolve_on is not None:
        current = incident.root_cause
        if current is not None:
            if current.hypothesis != hypothesis_id:
                raise KbError(f"incident '{incident_id}' already has root cause '{current.hypothesis}'; "
                              "refute it or edit root_cause by hand first")
            if summary is not None:
                editor.set(("root_cause",), "summary", summary, fields(RootCause))
        else:
            editor.set((), "root_cause", entry(RootCause, hypothesis=hypothesis_id, summary=summary), fields(Incident))
        done.append("root cause")
    if resolve_on is not None:
        editor.set((), "status", "resolved", fields(Incident))
        editor.set((), "resolved", resolve_on, fields(Incident))
        done.append(f"incident resolved ({day(resolve_on)})")
    save(record, editor)
    return Outcome(f"{record.rel_path}: {', '.join(done)}", (), _check(root))


def add_timeline_event(root: Path, incident_id: str, when: When, event: str) -> Outcome:
    record, editor, _ = _open_incident(root, incident_id)
    editor.append(("timeline",), entry(TimelineEntry, at=when, event=event), fields(Incident))
    save(record, editor)
    return Outcome(f"{record.rel_path}: added a timeline event ({day(when)})")


def add_follow_up(root: Path, incident_id: str, action: str, *, done: bool = False, knob: str | None = None,
                  owner: str | None = None) -> Outcome:
    record, editor, _ = _open_incident(root, incident_id)
    if knob:
        require_record(root, RecordKind.KNOB, knob)
    item = entry(FollowUp, action=action, status="done" if done else "open", knob=knob, owner=owner)
    editor.append(("follow_ups",), item, fields(Incident))
    save(record, editor)
    return Outcome(f"{record.rel_path}: added a follow-up ({item['status']})")


def follow_up_done(root: Path, incident_id: str, which: str) -> Outcome:
    """Mark a follow-up done; `which` is its number as listed (1 for the first) or its action's text
    (the whole text, or a part of it that only one follow-up contains, ignoring case)."""
    record, editor, incident = _open_incident(root, incident_id)
    index = _follow_up_index(incident, which)
    item = incident.follow_ups[index]
    if item.status is FollowUpStatus.DONE:
        raise KbError(f"follow-up {index + 1} of incident '{incident_id}' ('{item.action}') is already done")
    editor.set(("follow_ups", index), "status", "done", fields(FollowUp))
    save(record, editor)
    return Outcome(f"{record.rel_path}: follow-up {index + 1} done ('{item.action}')", (), _check(root))


def _follow_up_index(incident: Incident, which: str) -> int:
    actions = [item.action for item in incident.follow_ups]
    listed = "; ".join(f"{i + 1} '{action}'" for i, action in enumerate(actions)) or "none yet"
    if _looks_numeric(which):
        number = which.strip()
        if not actions:
            raise KbError(f"incident '{incident.id}' has no follow-up {number}: it has none yet; add one with "
                          f"`kb follow-up add {incident.id} --action '...'`")
        valid = "1" if len(actions) == 1 else f"1 to {len(actions)}"
        if not (number.isascii() and number.isdigit()):
            raise KbError(f"'{which}' is not a follow-up number; give {valid} in ASCII digits, or the follow-up's "
                          f"text (incident '{incident.id}' has: {listed})")
        digits = number.lstrip("0") or "0"
        if len(digits) > 9 or not 1 <= int(digits) <= len(actions):  # int() of 5,000 digits would raise
            shown = digits if len(digits) <= 12 else digits[:12] + "..."
            raise KbError(f"incident '{incident.id}' has no follow-up {shown}: its follow-ups are numbered "
                          f"{valid} (it has: {listed})")
        return int(digits) - 1
    exact = [i for i, action in enumerate(actions) if action == which]
    partial = [i for i, action in enumerate(actions) if which.strip() and which.lower() in action.lower()]
    if exact or len(partial) == 1:
        return (exact or partial)[0]
    if len(partial) > 1:
        raise KbError(f"incident '{incident.id}': more than one follow-up contains '{which}' (it has: {listed}); "
                      "give its number")
    raise KbError(f"incident '{incident.id}' has no follow-up '{which}' (it has: {listed}); give its number or its "
                  f"text, or add one with `kb follow-up add {incident.id} --action '...'`")


def _looks_numeric(text: str) -> bool:
    """Whether `text` reads as a number: digits of any script ('2', '²', '٣', '½'), with a sign or a
    decimal point. Such a text is taken as a number or refused, never matched against a follow-up's
    text (a number out of range would otherwise pick whichever follow-up mentions it)."""
    text = text.strip()
    return any(char.isnumeric() for char in text) and all(char.isnumeric() or char in "+-.," for char in text)


def add_lesson(root: Path, incident_id: str, lesson: str) -> Outcome:
    record, editor, _ = _open_incident(root, incident_id)
    editor.append(("lessons",), lesson, fields(Incident))
    save(record, editor)
    return Outcome(f"{record.rel_path}: added a lesson")


# ---- knobs -------------------------------------------------------------------------------------

def revert(root: Path, knob_id: str, incident_id: str, hypothesis_id: str, when: When,
           note: str | None = None, review_by: When | None = None) -> Outcome:
    """Revert a knob to test a hypothesis; a knob already reverted (under other hypotheses) stays
    reverted, now also to test this one."""
    record, editor, knob = _open_knob(root, knob_id)
    standing_revert = last_revert(knob)
    if standing_revert is not None and any((e.incident, e.hypothesis) == (incident_id, hypothesis_id)
                                           for e in map(knob.history.__getitem__, standing_revert_indexes(knob))):
        since = knob.history[standing_revert_indexes(knob)[0]]
        raise KbError(f"knob '{knob_id}' is already reverted (since {day(since.date)}); `kb restore {knob_id}` first")
    if knob.status is KnobStatus.RETIRED:
        raise KbError(f"knob '{knob_id}' is retired; there is nothing deployed to revert")
    incident = _readable_incident(root, incident_id)
    hypothesis = incident.hypotheses[_hypothesis_index(incident, hypothesis_id)] if incident else None
    verdict = standing(incident, hypothesis) if incident and hypothesis else None
    if verdict is Standing.REFUTED:
        raise KbError(f"hypothesis '{hypothesis_id}' of incident '{incident_id}' is already refuted; a revert under "
                      "it would test nothing (and be reclaimable at once)")
    if verdict is Standing.SUPERSEDED:
        cause = incident.root_cause.hypothesis if incident and incident.root_cause else "?"
        raise KbError(f"incident '{incident_id}' is resolved on another root cause ('{cause}'); a revert under "
                      f"hypothesis '{hypothesis_id}' would test nothing (and be reclaimable at once)")
    item = entry(HistoryEntry, date=when, status="reverted", incident=incident_id, hypothesis=hypothesis_id,
                 review_by=review_by, note=note)
    editor.append(("history",), item, fields(Knob))
    editor.set((), "status", "reverted", fields(Knob))
    knob, checked = _save_knob(record, editor, knob_id)
    steps = [*_deploy_steps(checked, knob, want_set=False), *_doc_steps(checked, knob_id),
             f"the revert tests hypothesis '{hypothesis_id}': record what the symptom does now with "
             f"`kb evidence add {incident_id} {hypothesis_id} --kind experiment --stance for|against --text '...'`, "
             f"then `kb refute` or `kb confirm` it"]
    if standing_revert is not None:
        since = knob.history[standing_revert_indexes(knob)[0]]
        return Outcome(f"{record.rel_path}: '{knob_id}' stays reverted (since {day(since.date)}), now also to test "
                       f"hypothesis '{hypothesis_id}' of incident '{incident_id}' ({day(when)})", tuple(steps),
                       checked.findings)
    return Outcome(f"{record.rel_path}: '{knob_id}' reverted on {day(when)} to test hypothesis '{hypothesis_id}' "
                   f"of incident '{incident_id}'", tuple(steps), checked.findings)


def restore(root: Path, knob_id: str, when: When, note: str | None = None) -> Outcome:
    record, editor, before = _open_knob(root, knob_id)
    last = last_revert(before)
    if last is None:
        raise KbError(f"knob '{knob_id}' is {before.status.value}, not reverted; only a reverted knob can be restored")
    reverts = [before.history[i] for i in standing_revert_indexes(before)]
    item = entry(HistoryEntry, date=when, status="restored", incident=last.incident,
                 hypothesis=last.hypothesis, note=note)
    editor.append(("history",), item, fields(Knob))
    editor.set((), "status", "active", fields(Knob))
    knob, checked = _save_knob(record, editor, knob_id)
    steps = [*_deploy_steps(checked, knob, want_set=True), *_doc_steps(checked, knob_id)]
    if knob.keep_reverted:
        steps.append(f"remove 'keep_reverted' from {record.rel_path}: the knob is no longer reverted")
    days = checked.config.restore_verify_days
    steps.append(f"verify that the gain came back: measure {knob.name}={value_text(knob.value)} and record it "
                 f"(kb measurement import {knob_id} FILE... --metric NAME); without a measurement dated since the "
                 f"restore, kb check reports restore-unverified after {days} day{'s' * (days != 1)}")
    for reverted in reverts:
        hypothesis = checked.catalog.hypothesis(reverted.incident, reverted.hypothesis)
        if hypothesis is not None and hypothesis.status is HypothesisStatus.OPEN:
            steps.append(f"hypothesis '{hypothesis.id}' is still open: if the knob is innocent, "
                         f"`kb refute {reverted.incident} {hypothesis.id}`")
    return Outcome(f"{record.rel_path}: '{knob_id}' restored on {day(when)} ({knob.name}={knob.value})",
                   tuple(steps), checked.findings)


def set_value(root: Path, knob_id: str, value: Any, when: When, note: str | None = None,
              incident_id: str | None = None, hypothesis_id: str | None = None) -> Outcome:
    """A new tuned value (or, with the same value and a note, a record of why it stays): a history
    entry that keeps the status and records the value, the note, and the incident and hypothesis
    it was made under, if any."""
    record, editor, knob = _open_knob(root, knob_id)
    if knob.status in (KnobStatus.RETIRED, KnobStatus.REVERTED):
        hint = f"`kb restore {knob_id}` first" if knob.status is KnobStatus.REVERTED else "it is no longer deployed"
        raise KbError(f"knob '{knob_id}' is {knob.status.value}; kb set changes an active or proposed knob ({hint})")
    if hypothesis_id is not None and incident_id is None:
        raise KbError("--hypothesis names a hypothesis of an incident; give --incident too")
    if incident_id is not None:
        incident = _readable_incident(root, incident_id)
        if hypothesis_id is not None and incident is not None:
            _hypothesis_index(incident, hypothesis_id)
    same = value_text(value) == value_text(knob.value) and type(value) is type(knob.value)
    if same and note is None:
        raise KbError(f"knob '{knob_id}' is already {knob.name}={value_text(knob.value)}; to record why it stays, "
                      "give --note")
    old = knob.value
    # Gains belong to the value measured: measurements taken at the old value say so from now on,
    # in the record itself, so nothing can read them as measurements of the new one.
    stamped = [] if same else [i for i, m in enumerate(knob.measurements)
                               if m.setting is None and is_at_current_value(knob, m)]
    for index in stamped:
        editor.set(("measurements", index), "setting", old, fields(Measurement))
    item = entry(HistoryEntry, date=when, status=knob.status.value, value=value, incident=incident_id,
                 hypothesis=hypothesis_id,
                 note=note if note is not None
                 else f"{knob.name} changed from {value_text(old)} to {value_text(value)}.")
    editor.set((), "value", value, fields(Knob))
    editor.append(("history",), item, fields(Knob))
    knob, checked = _save_knob(record, editor, knob_id)
    steps = [*(_deploy_steps(checked, knob, want_set=True) if knob.status is KnobStatus.ACTIVE else ()),
             *_doc_steps(checked, knob_id)]
    if not same and any(not is_at_current_value(knob, m) for m in knob.measurements):
        marked = f" ('setting: {value_text(old)}' added to {len(stamped)} of them)" if stamped else ""
        steps.append(f"the gains on record were measured at other values{marked}: they are history now, not "
                     f"claimed for {value_text(value)}; measure it: kb measurement import {knob_id} FILE... "
                     f"--metric NAME --setting {shell_word(value_text(value))}")
    done = (f"'{knob_id}' stays {knob.name}={value_text(value)} ({day(when)})" if same else
            f"'{knob_id}' set to {knob.name}={value_text(value)} on {day(when)} (was {value_text(old)})")
    return Outcome(f"{record.rel_path}: {done}", tuple(steps), checked.findings)


def retire(root: Path, knob_id: str, when: When, note: str | None = None) -> Outcome:
    record, editor, knob = _open_knob(root, knob_id)
    if knob.status is KnobStatus.RETIRED:
        raise KbError(f"knob '{knob_id}' is already retired (since {day(knob.history[-1].date)})")
    editor.append(("history",), entry(HistoryEntry, date=when, status="retired", note=note), fields(Knob))
    editor.set((), "status", "retired", fields(Knob))
    knob, checked = _save_knob(record, editor, knob_id)
    steps = [*_deploy_steps(checked, knob, want_set=False), *_doc_steps(checked, knob_id)]
    if knob.keep_reverted:
        steps.append(f"'keep_reverted' in {record.rel_path} no longer applies: the knob is retired")
    return Outcome(f"{record.rel_path}: '{knob_id}' retired on {day(when)}", tuple(steps), checked.findings)


# ---- helpers -----------------------------------------------------------------------------------

def _open_knob(root: Path, knob_id: str) -> tuple[RecordFile, Editor, Knob]:
    record = open_record(root, RecordKind.KNOB, knob_id)
    knob, editor = record.open()
    assert isinstance(knob, Knob)
    return record, editor, knob


def _open_incident(root: Path, incident_id: str) -> tuple[RecordFile, Editor, Incident]:
    record = open_record(root, RecordKind.INCIDENT, incident_id)
    incident, editor = record.open()
    assert isinstance(incident, Incident)
    return record, editor, incident


def _readable_incident(root: Path, incident_id: str) -> Incident | None:
    """The incident a knob change names: it must exist; one with errors of its own does not block
    the change (None: its hypotheses cannot be checked now, `kb check` will)."""
    try:
        return _open_incident(root, incident_id)[2]
    except Refused:
        return None


def _hypothesis(incident: Incident, hypothesis_id: str) -> Hypothesis | None:
    return next((h for h in incident.hypotheses if h.id == hypothesis_id), None)


def _hypothesis_index(incident: Incident, hypothesis_id: str) -> int:
    ids = [h.id for h in incident.hypotheses]
    if hypothesis_id not in ids:
        raise KbError(f"incident '{incident.id}' has no hypothesis '{hypothesis_id}' (it has: "
                      f"{', '.join(ids) or 'none yet'}); add it with `kb hypothesis add {incident.id} {hypothesis_id} "
                      "--statement '...'`")
    return ids.index(hypothesis_id)


def _deploy_steps(kb: KnowledgeBase, knob: Knob, want_set: bool) -> list[str]:
    if not knob.applies_to:
        return [f"make the change where {knob.name} is deployed (the knob lists no file under 'applies_to', "
                "so kb check cannot catch drift there)"]
    steps = []
    setting = f"{knob.name}={value_text(knob.value)}"
    for deployment in knob.applies_to:
        path = deployment.path
        try:
            verdict = read_deployment(kb.root, knob, deployment)
        except UnreadableFile as exc:
            steps.append(f"{path}: cannot be read ({exc}); make the change there by hand")
            continue
        if verdict is None:
            steps.append(f"{path}: cannot be read; make the change there by hand")
            continue
        until = f"until a line matches `{verdict.pattern}`" if verdict.pattern else "until it does"
        if verdict.state is DeployState.OTHER_VALUE:
            steps += [f"{path}:{line.line}: change '{line.shown}' to set {setting} (kb check reports knob-drift "
                      f"{until})" for line in verdict.lines]
        elif verdict.state is DeployState.NOT_SET:
            steps.append(f"{path}: set {setting} again (kb check reports knob-drift {until})")
        elif verdict.state is DeployState.STILL_SET:
            steps += [f"{path}:{line.line}: remove '{line.shown}' (kb check reports knob-drift until then)"
                      for line in verdict.lines]
        elif not verdict.unreadable:
            steps.append(f"{path}: already {'sets' if want_set else 'leaves out'} {setting}")
        steps += [f"{path}:{line.line}: cannot read {knob.name} in '{line.shown}'; make the change there by hand "
                  "(kb check reports unreadable-setting)" for line in verdict.unreadable]
    return steps


def _doc_steps(kb: KnowledgeBase, knob_id: str) -> list[str]:
    docs = docs_referring_to(kb.references, RecordKind.KNOB, knob_id)
    return [f"{doc} refers to the knob: make sure it tells the story as it now stands" for doc in docs]


def _save_knob(record: RecordFile, editor: Editor, knob_id: str) -> tuple[Knob, KnowledgeBase]:
    """Write the edited knob (refused unless the records stay valid), then the knob as it now stands
    and the knowledge base as `kb check` now sees it (the next steps and the summary come from it)."""
    save(record, editor)
    checked = check_knowledge_base(record.root)
    return checked.catalog.knobs[knob_id], checked


def _check(root: Path) -> tuple[Finding, ...]:
    """What `kb check` reports now, for the whole knowledge base (git-based rules too, where git is)."""
    return check_knowledge_base(root).findings
