"""The organisation's configuration: the `knowledge_bases:` the org site's mkdocs.yml (or
properdocs.yml) gives the incident-kb plugin, read once into a frozen `OrgConfig`.

    plugins:
      - incident-kb:
          knowledge_bases:
            - {name: payments, path: ../payments}
            - {name: platform, git: https://git.example.com/platform-kb.git, ref: main}

An entry that is not well formed is a `bad-config` finding at its line, and the others are read;
a file that cannot be read, or names no knowledge bases, stops kb (KbError). Reads the file and
nothing else.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..findings import Finding, KbError, finding
from ..repository.files import UnreadableFile, describe_error, read_bounded
from ..settings.config_files import MAX_CONFIG_BYTES, MKDOCS_CONFIGS

PLUGIN = "incident-kb"
OPTION = "knowledge_bases"
NAME_PATTERN = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
_FIELDS = ("name", "path", "git", "ref")
_FORMS = "{name: NAME, path: DIR} or {name: NAME, git: URL, ref: BRANCH_OR_COMMIT}"


@dataclass(frozen=True, slots=True)
class KnowledgeBaseEntry:
    """One knowledge base of the organisation: a folder (`path`, relative to the configuration
    file's folder) or a git repository (`git`, at `ref`; None: its default branch)."""

    name: str
    path: str | None
    git: str | None
    ref: str | None
    line: int  # where the entry is written, for findings about it
    column: int

    @property
    def where(self) -> str:
        """How the entry names its place, in a message: "path ../payments", "git URL at main"."""
        if self.path is not None:
            return f"path {self.path}"
        return f"git {self.git}" + (f" at {self.ref}" if self.ref else "")


@dataclass(frozen=True, slots=True)
class OrgConfig:
    """The organisation as configured: its knowledge bases in the order written, and the findings
    about entries that could not be read as one."""

    config_path: Path
    entries: tuple[KnowledgeBaseEntry, ...]
    findings: tuple[Finding, ...]

    @property
    def folder(self) -> Path:
        return self.config_path.parent

    @property
    def rel_path(self) -> str:
        """The configuration file as findings name it: its name (the org repository's root holds it)."""
        return self.config_path.name


def find_org_config(folder: Path) -> Path:
    """The org site's configuration in `folder` (the first of properdocs.yml ... mkdocs.yaml); KbError when none."""
    for name in MKDOCS_CONFIGS:
        if (folder / name).is_file():
            return folder / name
    raise KbError(f"no {' or '.join(MKDOCS_CONFIGS[:3:2])} in {folder}; run kb org check in the org site's "
                  "repository, or pass --config with its configuration file")


def read_org_config(config_path: Path, required: bool = True) -> OrgConfig | None:
    """The organisation configured in `config_path`; None when it configures no knowledge_bases and
    `required` is False (a team's own site); KbError when it cannot be read (or configures none)."""
    import yaml  # type: ignore[import-untyped]  # PyYAML, installed with MkDocs: what reads mkdocs.yml

    from ..settings.config_files import lenient_loader

    try:
        text = read_bounded(config_path, MAX_CONFIG_BYTES).decode("utf-8")
        document = yaml.compose(text, Loader=lenient_loader())
    except (UnreadableFile, OSError) as exc:
        raise KbError(f"cannot read {config_path} ({describe_error(exc) if isinstance(exc, OSError) else exc}); "
                      "pass the org site's mkdocs.yml with --config") from None
    except UnicodeDecodeError:
        raise KbError(f"cannot read {config_path}: it is not UTF-8") from None
    except yaml.YAMLError as exc:
        raise KbError(f"{config_path} is not valid YAML ({' '.join(str(exc).split())[:200]})") from None
    options = _plugin_options(document)
    listed = _value(options, OPTION) if options is not None else None
    if listed is None:
        if not required:
            return None
        raise KbError(f"{config_path.name} configures no knowledge bases; add them under the incident-kb "
                      "plugin, e.g. 'plugins: [{incident-kb: {knowledge_bases: [{name: payments, path: "
                      "../payments}]}}]'")
    if not isinstance(listed, yaml.SequenceNode):
        return OrgConfig(config_path, (), (_bad(config_path, listed, f"{OPTION} is not a list; give a list of "
                                                f"entries, each {_FORMS}"),))
    entries: list[KnowledgeBaseEntry] = []
    findings: list[Finding] = []
    for node in listed.value:
        entry = _entry(config_path, node, findings)
        if entry is None:
            continue
        first = next((e for e in entries if e.name == entry.name), None)
        if first is not None:
            findings.append(_bad(config_path, node, f"the name '{entry.name}' is used twice (also at line "
                                                    f"{first.line}); give each knowledge base its own name"))
            continue
        entries.append(entry)
    return OrgConfig(config_path, tuple(entries), tuple(findings))


def _plugin_options(document: Any) -> Any:
    """The incident-kb plugin's options node (a mapping), if the configuration lists the plugin with options."""
    import yaml

    plugins = _value(document, "plugins")
    items = plugins.value if isinstance(plugins, yaml.SequenceNode) else [
        yaml.MappingNode("tag:yaml.org,2002:map", [pair]) for pair in plugins.value
    ] if isinstance(plugins, yaml.MappingNode) else []
    for item in items:
        if isinstance(item, yaml.MappingNode):
            found = _value(item, PLUGIN)
            if found is not None:
                return found
    return None


def _value(node: Any, key: str) -> Any:
    import yaml

    if not isinstance(node, yaml.MappingNode):
        return None
    return next((value for name, value in node.value if isinstance(name, yaml.ScalarNode) and name.value == key), None)


def _entry(config_path: Path, node: Any, findings: list[Finding]) -> KnowledgeBaseEntry | None:
    import yaml

    if not isinstance(node, yaml.MappingNode):
        findings.append(_bad(config_path, node, f"an entry of {OPTION} is not a mapping; write each as {_FORMS}"))
        return None
    fields: dict[str, str] = {}
    for key, value in node.value:
        field = str(key.value) if isinstance(key, yaml.ScalarNode) else "?"
        if field not in _FIELDS:
            close = difflib.get_close_matches(field, _FIELDS, n=1, cutoff=0.6)
            hint = f"did you mean '{close[0]}'?" if close else f"an entry's fields are: {', '.join(_FIELDS)}"
            findings.append(_bad(config_path, key, f"'{field}' is not a field of a knowledge base entry; {hint}"))
            return None
        if not isinstance(value, yaml.ScalarNode) or not str(value.value).strip():
            findings.append(_bad(config_path, value, f"'{field}' must be a single value, e.g. {_FORMS}"))
            return None
        fields[field] = str(value.value)
    name = fields.get("name")
    if name is None or not NAME_PATTERN.match(name):
        said = "has no 'name'" if name is None else f"has the name {name!r}"
        findings.append(_bad(config_path, node, f"a knowledge base entry {said}; a name is a slug of lowercase "
                                                "letters, digits and dashes (records refer to its records as "
                                                "NAME:ID), e.g. {name: payments, path: ../payments}"))
        return None
    if ("path" in fields) == ("git" in fields):
        findings.append(_bad(config_path, node, f"knowledge base '{name}' needs one of 'path' (a folder) and 'git' "
                                                f"(a repository URL), not {'both' if 'path' in fields else 'neither'}; "
                                                f"write it as {_FORMS}"))
        return None
    if "ref" in fields and "path" in fields:
        findings.append(_bad(config_path, node, f"knowledge base '{name}' gives 'ref' with 'path'; a ref belongs to a "
                                                "'git' entry (a folder is read as it is): remove 'ref'"))
        return None
    return KnowledgeBaseEntry(name, fields.get("path"), fields.get("git"), fields.get("ref"),
                              node.start_mark.line + 1, node.start_mark.column + 1)


def _bad(config_path: Path, node: Any, message: str) -> Finding:
    return finding("bad-config", config_path.name, node.start_mark.line + 1, node.start_mark.column + 1, None, message)
