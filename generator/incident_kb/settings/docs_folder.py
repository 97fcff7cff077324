"""Which folder holds the knowledge base's hand-written docs: the docs folder its site renders.

Decided here, once, for everything that reads docs (the stale-doc check, the pre-commit and PR
modes, `kb init`, `kb render`, the site's settings), in this order:

1. `docs-dir` under `[tool.incident-kb]` in the knowledge base's pyproject.toml (a site whose
   configuration lives elsewhere, say a `root:` option pointing here from a mkdocs.yml above);
2. `docs_dir` of zensical.toml (where `kb init --site zensical` builds `kb-site/docs`, a folder
   `kb render` fills from `docs/`, the hand-written docs are `docs/`);
3. `docs_dir` of the MkDocs configuration: properdocs.yml, properdocs.yaml, mkdocs.yml or
   mkdocs.yaml, the first that exists (the order ProperDocs looks in; MkDocs reads the last two);
4. `docs`.

The files are read once, by `config_files.read_config_files` (through the repository's reader, so a
cached check sees them as inputs). A configured folder that cannot be used (outside the knowledge base, absolute, a file
that cannot be read or parsed) is a `problem` the check reports, never a silent fallback. A
docs_dir given by `!ENV` is a problem (it depends on the environment), never the default in silence.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .config_files import SETTINGS_FILE, ZENSICAL_TOML, ConfigFiles, Tagged, read_config_files, repository_path

DEFAULT_DOCS = "docs"
SETTING = "docs-dir"  # under [tool.incident-kb]
ZENSICAL_DOCS = "kb-site/docs"  # what a `kb init --site zensical` set-up builds: kb render's output


@dataclass(frozen=True, slots=True)
class DocsFolder:
    rel_path: str  # relative to the knowledge base's root, '/'-separated ('docs' by default)
    source: str  # where it was decided, for messages: "docs_dir in mkdocs.yml", "the default"
    config_file: str | None = None  # the file it was read from (root-relative), None for the default
    problem: str | None = None  # why the configured folder could not be used ('docs' is read instead)


def docs_folder(root: Path) -> DocsFolder:
    """The docs folder of the knowledge base at `root`, its configuration read for this alone: for
    tools and tests. kb's own stages receive it with the settings (`kb_settings.read_settings`)."""
    return docs_folder_of(root, read_config_files(root))


def docs_folder_of(root: Path, files: ConfigFiles) -> DocsFolder:
    """The folder of hand-written docs of the knowledge base at `root`, as its configuration `files`
    say (see the module's docstring)."""
    pyproject = files.pyproject.parsed if files.pyproject is not None else None  # (unreadable: the check
    section = (pyproject or {}).get("tool", {})  # reports it already, in severities.config_of)
    section = section.get("incident-kb", {}) if isinstance(section, dict) else {}
    if isinstance(section, dict) and SETTING in section:
        return _checked(root, section[SETTING], f"{SETTING} under [tool.incident-kb] in {SETTINGS_FILE}",
                        SETTINGS_FILE)
    zensical = files.zensical
    if zensical is not None:
        if zensical.parsed is None:
            return _problem(DEFAULT_DOCS, zensical.problem or "", ZENSICAL_TOML)
        project = zensical.parsed.get("project", zensical.parsed)
        value = project.get("docs_dir", DEFAULT_DOCS) if isinstance(project, dict) else DEFAULT_DOCS
        if value == ZENSICAL_DOCS:  # kb render's output: the hand-written docs it copies are docs/
            return DocsFolder(DEFAULT_DOCS, f"the docs kb render copies into {ZENSICAL_DOCS} ({ZENSICAL_TOML})",
                              ZENSICAL_TOML)
        return _checked(root, value, f"docs_dir in {ZENSICAL_TOML}", ZENSICAL_TOML)
    site = files.site
    if site is not None:
        if site.parsed is None:
            return _problem(DEFAULT_DOCS, site.problem or "", site.name)
        value = site.parsed.get("docs_dir", DEFAULT_DOCS)
        if isinstance(value, Tagged):  # `!ENV [DOCS, site-src]`: the folder depends on the build's environment
            return _problem(DEFAULT_DOCS, f"docs_dir in {site.name} is {value.tag} {value.text}, which kb does not "
                            "resolve (a check must not depend on the environment it runs in)", site.name)
        return _checked(root, DEFAULT_DOCS if value is None else value, f"docs_dir in {site.name}", site.name)
    return DocsFolder(DEFAULT_DOCS, "the default")


def _checked(root: Path, value: object, source: str, config_file: str) -> DocsFolder:
    """`value` as a folder inside the knowledge base, or the default with the problem said."""
    rel, problem = repository_path(root, value, source, through_links=False)
    if rel is None:
        return _problem(DEFAULT_DOCS, problem or "", config_file)
    return DocsFolder(rel, source, config_file)


def _problem(rel: str, why: str, config_file: str) -> DocsFolder:
    return DocsFolder(rel, "the default", config_file, why)
