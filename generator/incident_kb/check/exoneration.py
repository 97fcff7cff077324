"""Exoneration in PR mode: a change that clears a suspect (a hypothesis that stood at the base and no
longer stands: refuted, or the incident resolved on another cause) names everything that still
blames the knob, with its owners: "cleared: X; these still blame it: ...".

What still blames it: each doc that refers to the knob and that the change leaves as it was at the
base, and each incident with a hypothesis that suspects the knob and still stands. The incident
that cleared it is not among them, nor the knob itself (reclaimable-knob speaks for a knob left
reverted). Whether a hypothesis stands is asked of records/verdicts.py; nothing is decided here twice.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..records.model import Catalog
from ..records.verdicts import standing
from ..records.vocabulary import RecordKind
from .owners import Owners, Ownership
from .pipeline import KnowledgeBase


@dataclass(frozen=True, slots=True)
class Exoneration:
    knob_id: str
    incident_id: str
    hypothesis_id: str
    still_blaming: tuple[tuple[str, Owners], ...]  # (repository-relative path, its owners)

    @property
    def notice(self) -> str:
        """The line the text output and the step summary show."""
        cleared = (f"cleared: {self.knob_id} (hypothesis '{self.hypothesis_id}' of incident "
                   f"'{self.incident_id}' no longer stands)")
        if not self.still_blaming:
            return f"{cleared}; nothing still blames it"
        blamers = ", ".join(f"{path} ({owners.said})" for path, owners in self.still_blaming)
        return f"{cleared}; these still blame it: {blamers}; tell their owners"


def find_exonerations(base: Catalog, kb: KnowledgeBase, unchanged_docs: Mapping[str, bool]) -> list[Exoneration]:
    """The suspects the change from `base` to `kb` clears. `unchanged_docs`: for each doc that refers
    to a record, whether the change left it as it was at the base (a doc the change rewrote is taken
    as corrected)."""
    ownership = Ownership.of(kb)
    found: list[Exoneration] = []
    for incident in kb.catalog.incidents.values():
        before = base.incidents.get(incident.id)
        for hypothesis in incident.hypotheses:
            if hypothesis.suspect is None or standing(incident, hypothesis).stands:
                continue
            earlier = next((h for h in (before.hypotheses if before else ()) if h.id == hypothesis.id), None)
            if before is None or earlier is None or not standing(before, earlier).stands:
                continue
            knob_id = hypothesis.suspect.knob
            docs = sorted({ref.doc for ref in kb.references if ref.kind is RecordKind.KNOB and ref.record_id == knob_id
                           and unchanged_docs.get(ref.doc, False)})
            incidents = sorted({suspicion.incident.id for suspicion in kb.catalog.suspicions(knob_id)
                                if suspicion.kb_name is None and suspicion.hypothesis.suspect is not None
                                and suspicion.hypothesis.suspect.knob == knob_id
                                and standing(suspicion.incident, suspicion.hypothesis).stands})
            blaming = [(doc, ownership.of_path(doc)) for doc in docs]
            blaming += [(kb.catalog.source(RecordKind.INCIDENT, other).rel_path,
                         ownership.of_record(RecordKind.INCIDENT, other)) for other in incidents]
            found.append(Exoneration(knob_id, incident.id, hypothesis.id, tuple(blaming)))
    return sorted(found, key=lambda item: (item.knob_id, item.incident_id, item.hypothesis_id))
