"""The record schema, declared once: knob and incident records as pydantic models.

Validation (types, enums, required and unknown fields), the JSON Schema editors use (`kb schema`)
and the field reference come from these declarations; each field's `description` is its doc.
Field order is the canonical key order of a record (`kb fmt`, `kb new`): what identifies it, then
short values, then prose, then lists; in list entries the long text comes last.
Validated instances are the immutable model the rest of the tool reads. Rules about how fields and
records relate (references, dates in order) live in `consistency.py`, not here. What a field is to
the rest of the tool is a mark on it, read by one derivation each: `RefersTo` (the records it
names), `NamesPath` (the files it names) and `Material` (a change of it is material).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date, datetime
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    Strict,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    StringConstraints,
    WithJsonSchema,
)

from .vocabulary import (
    MAX_MAGNITUDE,
    EvidenceKind,
    FollowUpStatus,
    HistoryStatus,
    HypothesisStatus,
    IncidentStatus,
    KnobKind,
    KnobStatus,
    RecordKind,
    Stance,
    parse_when,
)

SCHEMA_VERSION = 1


When = Annotated[
    datetime | date,
    BeforeValidator(parse_when),
    WithJsonSchema({"type": "string", "anyOf": [{"format": "date"}, {"format": "date-time"}],
                    "description": "YYYY-MM-DD or an ISO 8601 date-time"}),
]
# Scalars are strict: YAML already typed every value, and '12' where a number belongs is a mistake
# worth reporting. Enums and lists stay lax so they accept YAML's strings and lists.
SLUG_PATTERN = r"^[a-z0-9]+(-[a-z0-9]+)*$"
Slug = Annotated[str, Strict(), StringConstraints(pattern=SLUG_PATTERN, max_length=100)]
Text = Annotated[str, Strict(), StringConstraints(min_length=1)]


@dataclass(frozen=True)
class RefersTo:
    """Marks a field that names another record by id: records depend on each other only through
    these (a re-check after an edit follows them to what the edit can change)."""

    kind: RecordKind


# A reference: a record's id, or `NAME:ID` for a record of another knowledge base of the organisation.
REFERENCE_PATTERN = r"^([a-z0-9]+(-[a-z0-9]+)*:)?[a-z0-9]+(-[a-z0-9]+)*$"
Reference = Annotated[str, Strict(), StringConstraints(pattern=REFERENCE_PATTERN, max_length=201)]
KnobRef = Annotated[Reference, RefersTo(RecordKind.KNOB)]
IncidentRef = Annotated[Reference, RefersTo(RecordKind.INCIDENT)]


@dataclass(frozen=True)
class NamesPath:
    """Marks a field that names a file of the repository (relative to the knowledge base's root): the
    checks read or look for it, so the pre-commit check runs when it is staged, PR mode lays it out
    from the base, the consistency checks report it missing or outside, pages link it
    (`links.named_paths` derives them all from this mark). `role` says what the file is to the
    record; `urls`: a web address may stand instead (it is then no path)."""

    role: str  # 'deploy', 'doc', 'evidence'
    urls: bool = False


@dataclass(frozen=True)
class Material:
    """Marks a field whose change is material: a doc about the record is stale once it changes, and
    the record's timeline lists the change (`materiality.material_fields` derives them from this mark).
    `label` names the field in a change ('status'; in a list of entries with ids, "{id}" stands for
    the entry's); `via`: for a field holding an entry, the entry's field that stands for it; `quiet`:
    values whose coming or going is no change (a hypothesis added or dropped while open is no verdict);
    `rank`: where the field is listed in a change, before the declaration order."""

    label: str
    rank: int = 0
    via: str | None = None
    quiet: tuple[str, ...] = ()


DeployPath = Annotated[Text, NamesPath("deploy")]
DocPath = Annotated[Text, NamesPath("doc")]
EvidencePlace = Annotated[Text, NamesPath("evidence", urls=True)]
Flag = Annotated[bool, Strict()]


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError("not a finite number; write the number itself")
    return value


def _measured(value: int | float) -> int | float:
    if _finite(value) is value and abs(value) > MAX_MAGNITUDE:
        raise ValueError(f"beyond {MAX_MAGNITUDE:g} in size, which no measurement here is; check the number and "
                         "its unit (e.g. write 12.5 with 'unit: GB/s')")
    return value


Scalar = Annotated[StrictStr | StrictBool | StrictInt | StrictFloat, Field(union_mode="left_to_right"),
                   AfterValidator(_finite)]
Number = Annotated[StrictInt | StrictFloat, Field(union_mode="left_to_right"), AfterValidator(_measured)]


class Record(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# ---- knob ------------------------------------------------------------------------------------

class Deployment(Record):
    path: DeployPath = Field(description=(
        "Repository-relative file where the setting is deployed, e.g. deploy/decode.sh."))
    pattern: Text | None = Field(default=None, description=(
        "Regular expression (RE2 syntax: no lookaround or backreferences) that matches a line of that file when the "
        "tuned value is set; {name} and {value} stand for the knob's current setting name and value. Without one, kb "
        "reads the file's common forms (NAME=VALUE, YAML, JSON or HCL keys, env lists, sysctl, JVM and command-line "
        "flags) under the knob's name and aliases."))


class Measurement(Record):
    metric: Text = Field(description="What was measured, e.g. 'output throughput'.")
    conditions: dict[str, Scalar] = Field(default_factory=dict, description=(
        "Conditions of the measurement, e.g. {concurrency: 64}."))
    setting: Scalar | None = Field(default=None, description=(
        "The knob's value that was measured, e.g. 512. Default: the value the knob had on the measurement's date. "
        "Gains count for that value only."))
    baseline_setting: Scalar | None = Field(default=None, description=(
        "The value it was compared with. Default: the knob's `default`."))
    baseline: Number | None = Field(default=None, description=(
        "The metric without the tuned value, one run (or give `baseline_runs`)."))
    value: Number | None = Field(default=None, description="The metric with the tuned value, one run (or give `runs`).")
    delta_pct: Number | None = Field(default=None, description=(
        "The change in percent, when neither runs nor baseline and value are given."))
    unit: Text | None = Field(default=None, description="Unit of baseline and value, e.g. tok/s.")
    higher_is_better: Flag = Field(default=True, description="False for metrics such as latency.")
    date: When | None = Field(default=None, description="When it was measured.")
    host: Text | None = Field(default=None, description="Where it was measured: the host or hardware.")
    software: Text | None = Field(default=None, description="What was measured: the version or commit of the software.")
    command: Text | None = Field(default=None, description="The benchmark invocation.")
    source: Text | None = Field(default=None, description=(
        "The file the runs were imported from (`kb measurement import`)."))
    evidence: EvidencePlace | None = Field(default=None, description="Repository path or URL of the benchmark output.")
    note: Text | None = Field(default=None, description="Anything a reader needs to interpret the number.")
    invalid: Text | None = Field(default=None, description=(
        "Why this measurement must not count (e.g. taken in a contaminated period)."))
    baseline_runs: tuple[Number, ...] = Field(default=(), min_length=1, description=(
        "The metric without the tuned value, one entry per run; the baseline is their median."))
    runs: tuple[Number, ...] = Field(default=(), min_length=1, description=(
        "The metric with the tuned value, one entry per run; the tuned result is their median."))


class HistoryEntry(Record):
    date: When = Field(description="When the status or value changed.")
    status: HistoryStatus = Field(description="The status from this date on.")
    value: Scalar | None = Field(default=None, description=(
        "The value set by this change, when it changed the value (kb set)."))
    incident: IncidentRef | None = Field(default=None, description=(
        "Id of the incident that caused the change (NAME:ID for another knowledge base's, e.g. platform:edge-outage)."))
    hypothesis: Slug | None = Field(default=None, description=(
        "Id of the hypothesis (in that incident) the change acted on."))
    review_by: When | None = Field(default=None, description=(
        "For a revert: the date by which its hypothesis should be settled (else revert-overdue-days after it)."))
    note: Text | None = Field(default=None, description="Why, in a sentence.")


class Knob(Record):
    id: Slug = Field(description="Slug equal to the file name: lowercase letters, digits, dashes.")
    name: Text = Field(description="The setting as written in config, e.g. the environment variable.")
    summary: Text = Field(description="One line: what the setting does.")
    value: Annotated[Scalar, Material("value", rank=1)] = Field(description="The tuned value.")
    status: Annotated[KnobStatus, Material("status", rank=0)] = Field(description=(
        "Current status: that of the last history entry, where `restored` counts as active."))
    kind: KnobKind | None = Field(default=None, description="How the setting is applied.")
    component: Text | None = Field(default=None, description="The component it tunes, e.g. decode.")
    default: Annotated[Scalar | None, Material("default", rank=2)] = Field(default=None, description=(
        "The value when the setting is not given."))
    description: Text | None = Field(default=None, description="Markdown: what it does and why this value.")
    tags: tuple[Text, ...] = Field(default=(), description="Free-form tags.")
    aliases: tuple[Text, ...] = Field(default=(), description=(
        "Other names docs use for the setting (an old name, a config key); a doc that contains one as a whole word "
        "refers to the knob."))
    owners: tuple[Text, ...] = Field(default=(), description="People or teams who own it.")
    scope: dict[str, Scalar] = Field(default_factory=dict, description=(
        "Where it applies, e.g. {hardware: RTX PRO 6000, model: DeepSeek-V4-Flash}."))
    docs: tuple[DocPath, ...] = Field(default=(), description="Repository-relative paths of docs about it.")
    keep_reverted: Text | None = Field(default=None, description=(
        "Why it stays reverted although its revert was not justified: an explicit decision."))
    applies_to: tuple[Deployment, ...] = Field(default=(), description=(
        "Files where it is deployed, with a pattern that matches when the tuned value is set."))
    measurements: tuple[Measurement, ...] = Field(default=(), description="Measured gains and their conditions.")
    history: tuple[HistoryEntry, ...] = Field(min_length=1, description="Status changes, oldest first.")


# ---- incident --------------------------------------------------------------------------------

class Evidence(Record):
    kind: EvidenceKind = Field(description="correlation | experiment | observation | report.")
    stance: Stance = Field(description="for | against the hypothesis.")
    date: When | None = Field(default=None, description="When.")
    text: Text = Field(description="What was seen or done.")


class Suspect(Record):
    knob: KnobRef = Field(description=(
        "Id of the suspected knob (NAME:ID for another knowledge base's, e.g. payments:db-pool-size)."))


class Hypothesis(Record):
    id: Slug = Field(description="Slug, unique within the incident.")
    statement: Text = Field(description="The suspected cause, as a claim that evidence can support or refute.")
    status: Annotated[HypothesisStatus, Material("hypothesis '{id}'", rank=2, quiet=("open",))] = Field(description=(
        "open | confirmed | refuted."))
    decided: When | None = Field(default=None, description=(
        "When it was refuted or confirmed (kb refute and kb confirm write it)."))
    suspect: Suspect | None = Field(default=None, description="The knob this hypothesis blames, if any.")
    evidence: tuple[Evidence, ...] = Field(default=(), description="Evidence for and against.")


class RootCause(Record):
    hypothesis: Slug = Field(description="Id of the confirmed hypothesis.")
    summary: Text | None = Field(default=None, description="The cause in a few sentences.")


class TimelineEntry(Record):
    at: When = Field(description="When it happened.")
    event: Text = Field(description="What happened.")


class FollowUp(Record):
    action: Text = Field(description="What must be done.")
    status: FollowUpStatus = Field(default=FollowUpStatus.OPEN, description="open | done.")
    knob: KnobRef | None = Field(default=None, description="Id of the knob it concerns, if any.")
    owner: Text | None = Field(default=None, description="Who does it.")


class Incident(Record):
    id: Slug = Field(description="Slug equal to the file name.")
    title: Text = Field(description="One line.")
    status: Annotated[IncidentStatus, Material("status", rank=0)] = Field(description="open | mitigated | resolved.")
    started: When = Field(description="When the symptoms began.")
    severity: Text | StrictInt | None = Field(default=None, description="Your scale, e.g. sev2.")
    resolved: When | None = Field(default=None, description="When it was resolved; required when status is resolved.")
    summary: Text | None = Field(default=None, description="Markdown summary.")
    systems: tuple[Text, ...] = Field(default=(), description="Systems involved.")
    symptoms: tuple[Text, ...] = Field(default=(), description="What users and operators saw.")
    hypotheses: tuple[Hypothesis, ...] = Field(default=(), description="Suspected causes with their evidence.")
    root_cause: Annotated[RootCause | None, Material("root cause", rank=1, via="hypothesis")] = Field(
        default=None, description="The confirmed cause; required when resolved.")
    timeline: tuple[TimelineEntry, ...] = Field(default=(), description="What happened when, oldest first.")
    follow_ups: tuple[FollowUp, ...] = Field(default=(), description="Actions that came out of it.")
    lessons: tuple[Text, ...] = Field(default=(), description="What to do differently.")
    owners: tuple[Text, ...] = Field(default=(), description="People or teams who own it.")
    docs: tuple[DocPath, ...] = Field(default=(), description="Repository-relative paths of docs about it.")


MODELS: dict[RecordKind, type[Knob] | type[Incident]] = {RecordKind.KNOB: Knob, RecordKind.INCIDENT: Incident}


def json_schema(kind: RecordKind | str) -> dict[str, Any]:
    """The JSON Schema for editors, derived from the model above."""
    kind = RecordKind(kind)
    schema = MODELS[kind].model_json_schema(mode="validation")
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"https://incident-kb.invalid/schemas/{kind}.schema.json",
        "title": f"incident-kb {kind} record",
        **{k: v for k, v in schema.items() if k != "title"},
    }
