"""The pipeline: find the record files, load and validate them all, then check what they imply.

Everything is gathered before anything is judged, and a broken file never hides findings in the
others. `load_knowledge_base` is `kb validate`; `check_knowledge_base` adds the rules (`kb check`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from .records.consistency import check_consistency
from .checking.severities import Config, load_config
from .findings import Finding, KbError, finding
from .history.timelines import MaterialChange
from .records.model import Catalog, RecordSource
from .checking.rules import RULES
from .records.schema import FOLDERS, RECORD_SUFFIXES, Incident, Knob
from .checking.stale_docs import check_docs_against_history
from .records.validate import validate_record
from .records.yaml_source import parse_yaml, read_yaml_file

@dataclass
class KnowledgeBase:
    root: Path
    catalog: Catalog
    config: Config
    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # one-line remarks for stderr (git checks skipped...)
    # Each record's material changes from git, when asked for (the site); empty without history.
    timelines: dict[tuple[str, str], list[MaterialChange]] = field(default_factory=dict)


def find_root(start: Path) -> Path:
    """The repository containing `start` (the nearest folder with .git), else `start` itself."""
    start = start.resolve()
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return start


def record_files(root: Path, kind: str) -> list[Path]:
    folder = root / FOLDERS[kind]
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.suffix in RECORD_SUFFIXES and not p.name.startswith("."))


def load_knowledge_base(root: Path, replaced: Mapping[str, str] | None = None) -> KnowledgeBase:
    """Load and validate every record under `root`; raises KbError only when root is unusable.

    `replaced` maps repository-relative record paths to text read instead of the file (which need
    not exist yet): editing commands check a change this way before they write it.
    """
    replaced = replaced or {}
    if not root.is_dir():
        raise KbError(f"{root} is not a folder; pass the knowledge base's repository with --root")
    if not any((root / folder).is_dir() for folder in FOLDERS.values()):
        raise KbError(f"{root} has no knobs/ or incidents/ folder; is --root the knowledge base's repository?")
    config, findings = load_config(root)
    catalog = Catalog()
    for kind in FOLDERS:
        paths = set(record_files(root, kind)) | {root / rel for rel in replaced if rel.startswith(FOLDERS[kind] + "/")}
        for path in sorted(paths):
            findings.extend(_load_record(root, kind, path, catalog, replaced.get(path.relative_to(root).as_posix())))
    findings.extend(check_consistency(catalog, root))
    return KnowledgeBase(root, catalog, config, findings)


def _load_record(root: Path, kind: str, path: Path, catalog: Catalog, text: str | None = None) -> list[Finding]:
    rel_path = path.relative_to(root).as_posix()
    loaded = read_yaml_file(path) if text is None else parse_yaml(text)
    record, findings = validate_record(kind, rel_path, loaded)
    if record is None:
        raw_id = loaded.value.get("id") if isinstance(loaded.value, dict) else None
        catalog.broken_ids[kind].add(raw_id if isinstance(raw_id, str) else path.stem)
        return findings
    assert isinstance(record, Knob | Incident)
    records: dict = catalog.knobs if kind == "knob" else catalog.incidents
    if record.id in records:
        first = catalog.source(kind, record.id).rel_path
        line, column = loaded.source_map.locate(("id",))
        return [finding("duplicate-id", rel_path, line, column, record.id,
                        f"{kind} id '{record.id}' is already used by {first}; each record needs its own id")]
    records[record.id] = record
    catalog.sources[(kind, record.id)] = RecordSource(kind, rel_path, loaded.source_map)
    return findings


def check_knowledge_base(root: Path, *, allow_shallow: bool = False, repo_folder: Path | None = None,
                         rev: str | None = None, timelines: bool = False) -> KnowledgeBase:
    """Validation plus every rule, the git-based ones included; findings carry the configured
    severities, sorted by place. `repo_folder` and `rev` read git history from elsewhere (PR mode);
    `timelines` also keeps every record's material changes (`KnowledgeBase.timelines`)."""
    kb = load_knowledge_base(root)
    kb.findings.extend(rule_findings(kb))
    docs = check_docs_against_history(kb.catalog, root, repo_folder=repo_folder, rev=rev,
                                      allow_shallow=allow_shallow, timelines=timelines)
    kb.findings.extend(docs.findings)
    kb.notes, kb.timelines = docs.notes, docs.timelines
    kb.findings = finalize(kb)
    return kb


def rule_findings(kb: KnowledgeBase) -> list[Finding]:
    """What the rules find in a loaded knowledge base (default severities, unsorted)."""
    return [item for rule in RULES for item in rule(kb.catalog, kb.root)]


def finalize(kb: KnowledgeBase) -> list[Finding]:
    return sorted(kb.config.apply(kb.findings), key=lambda f: f.sort_key)
