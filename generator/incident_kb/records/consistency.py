"""Consistency checks: what the schema alone cannot see, within a record and between records.

Ids match file names, references resolve, dates are in order, a knob's status agrees with its
history, a resolved incident has a confirmed root cause, paths stay inside the repository and
exist. Model in, findings out; reads nothing but the existence of referenced paths.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Set as AbstractSet
from datetime import date, datetime
from pathlib import Path, PurePosixPath

from ..deploy.patterns import deploy_pattern
from ..deploy.safe_regex import pattern_problem
from ..findings import Finding, finding
from ..gains.estimates import median
from ..repository.files import describe_error, exists, is_file, resolved
from ..wording import day
from .links import named_paths
from .model import MAX_CHANGE_PCT, Catalog, change_pct, sides, when_key
from .schema import Incident, Knob, Measurement
from .setting_names import unmatchable_reason
from .validate import dotted
from .vocabulary import RECORD_SUFFIXES, HypothesisStatus, IncidentStatus, RecordKind, split_reference
from .yaml_source import Key


def check_consistency(catalog: Catalog, root: Path, unwritten: AbstractSet[str] = frozenset()) -> list[Finding]:
    """`unwritten`: record files of `root` that kb laid out in memory only (--staged), as if there."""
    findings: list[Finding] = []
    for knob in catalog.knobs.values():
        findings.extend(_check_knob(knob, catalog, root, unwritten))
    for incident in catalog.incidents.values():
        findings.extend(_check_incident(incident, catalog, root, unwritten))
    return findings


class _Reporter:
    """Findings about one record, placed at the line of a key path."""

    def __init__(self, catalog: Catalog, kind: RecordKind, record_id: str) -> None:
        self.source = catalog.source(kind, record_id)
        self.subject = record_id

    def __call__(self, code: str, key: Key, message: str) -> Finding:
        line, column = self.source.source_map.locate(key)
        return finding(code, self.source.rel_path, line, column, self.subject, message, dotted(key))


def _check_knob(knob: Knob, catalog: Catalog, root: Path, unwritten: AbstractSet[str]) -> Iterator[Finding]:
    report = _Reporter(catalog, RecordKind.KNOB, knob.id)
    yield from _check_id(report, RecordKind.KNOB, knob.id)
    last = knob.history[-1]
    if last.status.knob_status is not knob.status:
        yield report("status-mismatch", ("status",),
                     f"status is '{knob.status.value}' but the last history entry ({day(last.date)}) says "
                     f"'{last.status.value}'; change status to '{last.status.knob_status.value}', or add a history "
                     f"entry for the change to '{knob.status.value}'")
    yield from _check_order(report, [(("history", i, "date"), e.date) for i, e in enumerate(knob.history)],
                            "history entries")
    for i, entry in enumerate(knob.history):
        key = ("history", i, "incident")
        if entry.incident is not None:
            yield from _check_reference(report, catalog, (root, unwritten), RecordKind.INCIDENT, entry.incident, key,
                                        f"{dotted(key)} names incident '{entry.incident}'")
        if entry.hypothesis is not None:
            under = catalog.incident(entry.incident)
            if entry.incident is None:
                yield report("dangling-ref", ("history", i, "hypothesis"),
                             f"{dotted(('history', i))} names hypothesis '{entry.hypothesis}' but no incident; add "
                             "'incident:' with the id of the incident it belongs to")
            elif under is not None and catalog.hypothesis(entry.incident, entry.hypothesis) is None:
                known = ", ".join(h.id for h in under.hypotheses) or "none yet"
                yield report("dangling-ref", ("history", i, "hypothesis"),
                             f"incident '{entry.incident}' has no hypothesis '{entry.hypothesis}' (it has: {known}); "
                             "fix the id or add the hypothesis to the incident")
    for i, deployment in enumerate(knob.applies_to):
        pattern = deploy_pattern(knob, deployment)
        problem = pattern_problem(pattern) if pattern is not None else None
        if problem is not None:
            yield report("bad-value", ("applies_to", i, "pattern"),
                         f"applies_to[{i}].pattern is not a regular expression kb can run ({problem}); patterns "
                         "use RE2 syntax, which runs in linear time: no backreferences or lookaround; e.g. "
                         f"'^export {knob.name}=' ")
    yield from _check_names(report, knob)
    for i, measurement in enumerate(knob.measurements):
        yield from _check_measurement(report, i, measurement)
    yield from _check_paths(report, root, knob)


def _check_names(report: _Reporter, knob: Knob) -> Iterator[Finding]:
    """A setting name or alias that no doc can ever be found naming (see `setting_names`): said, with
    the fix, rather than a knob whose docs silently never refer to it."""
    why = unmatchable_reason(knob.name)
    if why is not None and not any(unmatchable_reason(alias) is None for alias in knob.aliases):
        example = re.sub(r"[^\w.-]+", "_", knob.name.strip()).strip("_")
        if unmatchable_reason(example) is not None:  # '---' would suggest itself
            example = "the_name_docs_use"
        yield report("unmatchable-name", ("name",),
                     f"no doc can ever be found naming knob '{knob.id}' by its name {knob.name!r}: {why}; list the "
                     f"names docs use under 'aliases:', e.g. 'aliases: [{example}]'")
    for i, alias in enumerate(knob.aliases):
        why = unmatchable_reason(alias)
        if why is not None:
            yield report("unmatchable-name", ("aliases", i),
                         f"aliases[{i}] {alias!r} can never be found in a doc: {why}; write it as docs do, in one "
                         "token (e.g. with '_' or '-' for spaces)")


def _check_measurement(report: _Reporter, i: int, measurement: Measurement) -> Iterator[Finding]:
    """Both sides given once (single numbers or runs), and a change that can be computed."""
    where = f"measurements[{i}]"
    has_runs = bool(measurement.runs or measurement.baseline_runs)
    if measurement.delta_pct is not None and has_runs:
        yield report("bad-value", ("measurements", i, "delta_pct"),
                     f"{where} gives runs and delta_pct; with runs the change is the one between their medians, "
                     "so remove delta_pct")
        return
    for single, runs in (("baseline", "baseline_runs"), ("value", "runs")):
        number, values = getattr(measurement, single), getattr(measurement, runs)
        if number is not None and values and not _agrees(number, median(values)):
            yield report("bad-value", ("measurements", i, single),
                         f"{where}.{single} is {number:g}, but the median of its {runs} is {median(values):g}; the "
                         f"runs give it, so remove '{single}'")
            return
    found = sides(measurement)
    if measurement.delta_pct is None and found is None:
        yield report("missing-field", ("measurements", i),
                     f"{where} needs both sides: 'baseline' (or 'baseline_runs') and 'value' (or 'runs'), "
                     "or else 'delta_pct'")
    elif measurement.delta_pct is None and found is not None and found[0].median == 0:
        field = "baseline_runs" if measurement.baseline_runs else "baseline"
        yield report("bad-value", ("measurements", i, field),
                     f"{where}.{field} {'has the median 0' if measurement.baseline_runs else 'is 0'}, so no gain in "
                     "percent can be computed; give delta_pct")
    elif change_pct(measurement) is None:
        field = "delta_pct" if measurement.delta_pct is not None else "runs" if measurement.runs else "value"
        yield report("bad-value", ("measurements", i, field),
                     f"{where} is a change of more than {MAX_CHANGE_PCT:,.0f}% (over 10,000 times), "
                     "which no tuning gains; check the numbers and their unit")


def _agrees(number: float, middle: float) -> bool:
    """Whether a number written by hand is the median, to the precision it is written with."""
    decimals = (len(repr(float(number)).partition(".")[2])
                if isinstance(number, float) and "e" not in repr(number) else 0)
    return abs(number - middle) <= max(0.5 * 10.0 ** -decimals, 1e-9 * abs(middle))


def _check_incident(incident: Incident, catalog: Catalog, root: Path,
                    unwritten: AbstractSet[str]) -> Iterator[Finding]:
    report = _Reporter(catalog, RecordKind.INCIDENT, incident.id)
    yield from _check_id(report, RecordKind.INCIDENT, incident.id)
    seen: dict[str, int] = {}
    for i, hypothesis in enumerate(incident.hypotheses):
        if hypothesis.id in seen:
            yield report("duplicate-id", ("hypotheses", i, "id"),
                         f"hypothesis id '{hypothesis.id}' is used twice (also hypotheses[{seen[hypothesis.id]}]); "
                         "give each hypothesis its own id")
        seen.setdefault(hypothesis.id, i)
        if hypothesis.suspect is not None:
            yield from _check_reference(report, catalog, (root, unwritten), RecordKind.KNOB, hypothesis.suspect.knob,
                                        ("hypotheses", i, "suspect", "knob"),
                                        f"hypotheses[{i}] suspects knob '{hypothesis.suspect.knob}'")
    cause = incident.root_cause
    if cause is not None:
        cause_hypothesis = catalog.hypothesis(incident.id, cause.hypothesis)
        if cause_hypothesis is None:
            yield report("dangling-ref", ("root_cause", "hypothesis"),
                         f"root_cause names hypothesis '{cause.hypothesis}', which this incident does not have; "
                         f"add it under hypotheses or fix the id (known: {', '.join(seen) or 'none'})")
        elif cause_hypothesis.status is not HypothesisStatus.CONFIRMED:
            yield report("root-cause", ("root_cause", "hypothesis"),
                         f"the root cause is hypothesis '{cause.hypothesis}', but its status is "
                         f"'{cause_hypothesis.status.value}'; set that hypothesis's status to 'confirmed'")
    if incident.status is IncidentStatus.RESOLVED:
        if incident.resolved is None:
            yield report("missing-field", ("status",),
                         "a resolved incident needs 'resolved:' with the date it was resolved, "
                         "e.g. 'resolved: 2026-11-09'")
        if cause is None:
            yield report("root-cause", ("status",),
                         "a resolved incident needs a root cause: add 'root_cause: {hypothesis: <id>, summary: ...}' "
                         "naming a confirmed hypothesis, or set status to 'mitigated'")
    if incident.resolved is not None:
        yield from _check_order(report, [(("started",), incident.started), (("resolved",), incident.resolved)],
                                "'started' and 'resolved'")
    yield from _check_order(report, [(("timeline", i, "at"), e.at) for i, e in enumerate(incident.timeline)],
                            "timeline entries")
    for i, follow_up in enumerate(incident.follow_ups):
        if follow_up.knob is not None:
            yield from _check_reference(report, catalog, (root, unwritten), RecordKind.KNOB, follow_up.knob,
                                        ("follow_ups", i, "knob"), f"follow_ups[{i}] names knob '{follow_up.knob}'",
                                        fix="")
    yield from _check_paths(report, root, incident)


def _check_reference(report: _Reporter, catalog: Catalog, where: tuple[Path, AbstractSet[str]], kind: RecordKind,
                     reference: str, key: Key, said: str, fix: str | None = None) -> Iterator[Finding]:
    """A reference resolves: to a record here, or (`NAME:ID`) to one of knowledge base NAME of the
    organisation. Alone in its repository, a `NAME:ID` reference cannot be resolved: said as info
    (`kb org check` and the org site resolve it), never as an error."""
    kb_name, record_id = split_reference(reference)
    if catalog.is_unresolved_here(reference):
        yield report("unresolved-here", key,
                     f"{said} of knowledge base '{kb_name}', which is not read here; `kb org check` (or the org "
                     "site) resolves it among the knowledge bases of the organisation")
        return
    if kb_name is None or kb_name == catalog.name:
        if not _exists(catalog, where, kind, record_id):
            yield report("dangling-ref", key, f"{said}, but there is no {kind.folder}/{record_id}.yaml"
                         + ("; fix the id or add the " + str(kind) if fix is None else fix))
        return
    if kb_name not in catalog.neighbours:
        known = ", ".join(sorted(catalog.neighbours)) or "none"
        yield report("dangling-ref", key,
                     f"{said}, but the organisation has no knowledge base named '{kb_name}' (it has: {known}); fix "
                     "the name, or add the knowledge base under knowledge_bases: in the org site's mkdocs.yml")
    elif not catalog.exists(kind, reference):
        yield report("dangling-ref", key,
                     f"{said}, but knowledge base '{kb_name}' has no {kind.folder}/{record_id}.yaml; fix the id or "
                     f"add the {kind} there")


def _exists(catalog: Catalog, where: tuple[Path, AbstractSet[str]], kind: RecordKind, record_id: str) -> bool:
    """A record with that id, or a record file of that name (whose id differs from it: id-mismatch
    reports that, and a reference by the file's name is not dangling too), on disk or held in memory."""
    root, unwritten = where
    return catalog.exists(kind, record_id) or any(
        f"{kind.folder}/{record_id}{suffix}" in unwritten or is_file(root / kind.folder / f"{record_id}{suffix}")
        for suffix in RECORD_SUFFIXES)


def _check_id(report: _Reporter, kind: RecordKind, record_id: str) -> Iterator[Finding]:
    stem = PurePosixPath(report.source.rel_path).stem
    if record_id != stem:
        yield report("id-mismatch", ("id",),
                     f"id '{record_id}' differs from the file name '{stem}'; rename the file to "
                     f"{record_id}.yaml or set 'id: {stem}'")


def _check_order(report: _Reporter, dated: list[tuple[Key, date | datetime]], what: str) -> Iterator[Finding]:
    for (_, earlier), (key, later) in zip(dated, dated[1:]):
        if when_key(later) < when_key(earlier):
            yield report("date-order", key,
                         f"{what} are out of order: {dotted(key)} is {day(later)}, before {day(earlier)} above it; "
                         "list them oldest first and check the dates")


def _check_paths(report: _Reporter, root: Path, record: Knob | Incident) -> Iterator[Finding]:
    """Every file the record names (`links.named_paths`) is inside the repository and there."""
    for named in named_paths(record):
        problem = path_problem(root, named.path)
        if problem is not None:
            yield report(problem[0], named.key, f"{dotted(named.key)}: {problem[1]}")


def path_problem(root: Path, rel: str) -> tuple[str, str] | None:
    """('bad-path' | 'missing-path', why) for a repository-relative path, or None when it is fine."""
    posix = PurePosixPath(rel.replace("\\", "/"))
    if posix.is_absolute() or re.match(r"^[a-zA-Z]:", rel):
        return "bad-path", f"'{rel}' is absolute; write it relative to the repository root, e.g. docs/design/plan.md"
    if ".." in posix.parts:
        return "bad-path", f"'{rel}' leaves the repository through '..'; name a file inside it"
    try:
        found = resolved(root / posix)
        if not found.is_relative_to(resolved(root)):
            return "bad-path", f"'{rel}' resolves outside the repository (a symbolic link?); name a file inside it"
        if not exists(found):
            return "missing-path", f"'{rel}' does not exist; fix the path or add the file"
    except PermissionError:
        return "unreadable-file", f"'{rel}' cannot be reached: permission denied on a folder on its way"
    except (OSError, ValueError, RuntimeError) as exc:  # RuntimeError: a symbolic link loop (Python 3.11)
        return "bad-path", f"'{rel}' cannot be resolved ({describe_error(exc)})"
    return None
