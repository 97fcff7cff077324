"""Pre-commit mode (`kb check --staged`): which staged files make a commit one of the knowledge base's.

The hook runs on every commit (`always_run`) because a knowledge base's files can be anywhere in
its folder: records and docs, its pyproject.toml, and each knob's `applies_to` files (deploy
scripts, helm charts) and the docs and evidence records name. A commit with no staged file inside
the knowledge base's folder is answered without reading a record (`pr_mode.check_staged`, which
judges the commit from the index). Nothing here decides what is a finding.
"""

from __future__ import annotations

from ..records.links import files_named
from ..records.model import Catalog
from ..records.vocabulary import record_kind_of
from ..settings.config_files import CONFIG_FILES
from ..settings.docs_folder import DEFAULT_DOCS


def is_own_file(rel_path: str, docs: str = DEFAULT_DOCS) -> bool:
    """A file of the knowledge base itself: a record, a doc (under `docs`, its docs folder), or its
    settings (pyproject.toml, and the site's configuration, which says where the docs are)."""
    return (record_kind_of(rel_path.lower()) is not None  # (knobs/x.YAML: a finding says it is not read)
            or rel_path.startswith(docs + "/") or rel_path in CONFIG_FILES)


def files_named_by_records(catalog: Catalog) -> set[str]:
    """The files the records name (the fields the schema marks `NamesPath`: deploy files, docs,
    measurement evidence...)."""
    return files_named((*catalog.knobs.values(), *catalog.incidents.values()))
