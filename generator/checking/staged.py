"""Pre-commit mode (`kb check --staged`): does the commit being made touch the knowledge base, and
against what is it judged.

The hook runs on every commit (`always_run`) because a knowledge base's files can be anywhere in
its folder: records and docs, its pyproject.toml, and each knob's `applies_to` files (deploy
scripts, helm charts) and the docs and evidence records name. Deciding is quick: the staged paths
come from one `git diff --cached`; a commit with no staged file inside the knowledge base's folder
is answered without reading a record, one that stages a record, a doc or pyproject.toml without
reading one either; only the rest loads the records to see which files they name. Nothing here
decides what is a finding.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..findings import KbError
from ..history.gitio import NotARepository, open_repository, repository_state, staged_paths
from ..records.links import files_named
from ..records.model import Catalog
from ..records.docs_folder import DEFAULT_DOCS, MKDOCS_CONFIGS, ZENSICAL_TOML, docs_folder
from ..records.vocabulary import record_kind_of

SETTINGS_FILE = "pyproject.toml"
OWN_SETTINGS = (SETTINGS_FILE, *MKDOCS_CONFIGS, ZENSICAL_TOML)


@dataclass(frozen=True, slots=True)
class Staged:
    touched: tuple[str, ...]  # staged files of the knowledge base, relative to its root
    base: str | None  # "HEAD", or None before the first commit (everything is new then)


def staged_changes(root: Path, load_catalog: Callable[[], Catalog]) -> Staged:
    """What the commit being made changes in the knowledge base at `root`; `load_catalog` loads its
    records, called only when a staged file could be one they name."""
    try:
        with open_repository(root) as repo:
            state = repository_state(repo, root)
            paths = [path[len(state.prefix):] for path in staged_paths(repo) if path.startswith(state.prefix)]
    except NotARepository as exc:
        raise KbError(f"--staged checks the commit being made: {exc}") from None
    docs = docs_folder(root).rel_path
    touched = [path for path in paths if is_own_file(path, docs)]
    if paths and len(touched) < len(paths):
        named = files_named_by_records(load_catalog())
        touched = [path for path in paths if path in touched or path in named]
    return Staged(tuple(touched), "HEAD" if state.head is not None else None)


def is_own_file(rel_path: str, docs: str = DEFAULT_DOCS) -> bool:
    """A file of the knowledge base itself: a record, a doc (under `docs`, its docs folder), or its
    settings (pyproject.toml, and the site's configuration, which says where the docs are)."""
    return record_kind_of(rel_path) is not None or rel_path.startswith(docs + "/") or rel_path in OWN_SETTINGS


def files_named_by_records(catalog: Catalog) -> set[str]:
    """The files the records name (the fields the schema marks `NamesPath`: deploy files, docs,
    measurement evidence...)."""
    return files_named((*catalog.knobs.values(), *catalog.incidents.values()))
