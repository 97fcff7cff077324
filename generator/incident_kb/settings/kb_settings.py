"""The knowledge base's settings as one value: read once from its configuration files, validated
once, and carried by the checked knowledge base to every stage after it. No stage works a setting
out again from the root: it asks this value.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from ..findings import Finding, finding
from ..records.vocabulary import RecordKind
from .codeowners import CodeOwners, read_codeowners
from .config_files import ConfigFiles, read_config_files
from .docs_folder import DocsFolder, docs_folder_of
from .rule_settings import RuleSettings
from .severities import Config, config_of


@dataclass(frozen=True, slots=True)
class Settings:
    files: ConfigFiles  # the configuration files as read (the site's settings read the site's file here)
    config: Config  # severities and the rules' numbers, from [tool.incident-kb]
    config_findings: tuple[Finding, ...]  # what is wrong with [tool.incident-kb]
    docs: DocsFolder  # the folder of hand-written docs
    codeowners: CodeOwners  # who owns a doc: the CODEOWNERS file that counts, parsed

    def rules(self, today: date) -> RuleSettings:
        """What the rules take, counting from `today`."""
        return RuleSettings.of(today, self.config)

    @property
    def folders(self) -> tuple[str, ...]:
        """What kb reads whole, relative to the root: the record folders and the docs folder."""
        return (*(kind.folder for kind in RecordKind), self.docs.rel_path)

    def outside_docs(self, docs: Iterable[str]) -> list[str]:
        """The docs among `docs` that lie outside the docs folder (a record lists them), sorted: their
        history is read besides the folders'."""
        return sorted({doc for doc in docs if not doc.startswith(self.docs.rel_path + "/")})

    @property
    def docs_finding(self) -> Finding | None:
        """The docs folder a configuration names but kb cannot use, as the check reports it."""
        docs = self.docs
        if docs.problem is None or docs.config_file is None:
            return None
        return finding("bad-config", docs.config_file, 1, 1, None,
                       f"{docs.problem}; so kb reads the docs under {docs.rel_path}/, which the site may not "
                       f"render: give the site's docs folder as docs_dir, or as docs-dir under "
                       f"[tool.incident-kb] in pyproject.toml (a folder inside the knowledge base)")


def read_settings(root: Path) -> Settings:
    """The settings of the knowledge base at `root`: each configuration file read and parsed once."""
    files = read_config_files(root)
    config, findings = config_of(files.pyproject)
    codeowners = read_codeowners(root)
    if codeowners.problem is not None and codeowners.rel_path is not None:
        findings.append(finding("bad-config", codeowners.rel_path, 1, 1, None,
                                f"{codeowners.problem}; so kb cannot say who owns the docs, and says they are owned "
                                "by nobody: make it a readable UTF-8 file (GitHub's and GitLab's syntax)"))
    return Settings(files, config, tuple(findings), docs_folder_of(root, files), codeowners)
