"""`kb init [DIR]`: a new knowledge base, ready to check, build and commit.

Writes the record folders, a first doc (so git keeps docs/), the JSON Schemas where the records'
modelines point, a mkdocs.yml that uses the `incident-kb` plugin, `.gitignore` entries for what the
build writes, and, at the top of the git repository (where GitHub and pre-commit look for them),
the PR workflow and a pre-commit hook. DIR may be a subfolder of a larger repository. A file that
exists is never overwritten: it is kept and named in the output (only missing lines are added to
.gitignore), so running it twice is safe. The starter files are in `starter/`.
"""

from __future__ import annotations

import argparse
import json
import os
from dataclasses import dataclass
from pathlib import Path

from ..command import Command
from ..findings import KbError
from ..records.vocabulary import DOCS_FOLDER, RecordKind

STARTER = Path(__file__).parent / "starter"
WORKFLOW = ".github/workflows/kb-check.yml"
PRE_COMMIT_CONFIG = ".pre-commit-config.yaml"
IGNORED = ("site/", ".cache/")  # what `mkdocs build` writes, and tools' caches (kb keeps its own outside)


@dataclass(frozen=True, slots=True)
class Layout:
    root: Path  # the knowledge base
    top: Path  # the repository's top (the knowledge base itself when it is not in one yet)
    in_git: bool

    @property
    def kb_dir(self) -> str:
        """The knowledge base relative to the repository's top ('.' at the top)."""
        return self.root.relative_to(self.top).as_posix()


def locate(folder: Path) -> Layout:
    root = folder.resolve()
    for parent in (root, *root.parents):
        if (parent / ".git").exists():
            return Layout(root, parent, True)
    return Layout(root, root, False)


def pinned_requirement() -> tuple[str, str | None]:
    """How CI installs the incident-kb running now (PEP 610 says where it came from), and a note
    when that cannot be repeated elsewhere (a local file or folder)."""
    from importlib import metadata  # imported by `kb init` alone: it costs every other command its start

    dist = metadata.distribution("incident-kb")
    direct = json.loads(dist.read_text("direct_url.json") or "{}")
    url, vcs = direct.get("url", ""), direct.get("vcs_info")
    if vcs and not url.startswith("file:"):
        return f"incident-kb @ {vcs['vcs']}+{url}@{vcs.get('requested_revision') or vcs['commit_id']}", None
    if url.startswith(("https://", "http://")):
        return f"incident-kb @ {url}", None
    pinned = f"incident-kb=={dist.version}"
    if url:
        return pinned, (f"incident-kb {dist.version} was installed from {url}; change the install step of "
                        f"{WORKFLOW} to where your team installs it from")
    return pinned, None


def starter_files(layout: Layout) -> dict[Path, str]:
    """Every file `kb init` writes, by path, with its text."""
    from ..records.schema import json_schema  # the models: imported by `kb init` alone, as above

    kb_dir = layout.kb_dir
    prefix = "" if kb_dir == "." else kb_dir + "/"
    requirement, _ = pinned_requirement()
    values = {
        "site_name": layout.root.name,
        "docs_path": f"{prefix}{DOCS_FOLDER}/",
        "kb_dir": kb_dir,
        "requirement": requirement,
        "entry": "kb check --staged" + ("" if kb_dir == "." else f" --root {kb_dir}"),
    }
    files: dict[Path, str] = {layout.root / kind.folder / ".gitkeep": "" for kind in RecordKind}
    files[layout.root / DOCS_FOLDER / "about.md"] = _starter("about.md", values)
    for kind in RecordKind:
        files[layout.root / "schemas" / f"{kind}.schema.json"] = json.dumps(json_schema(kind), indent=2) + "\n"
    files[layout.root / "mkdocs.yml"] = _starter("mkdocs.yml", values)
    files[layout.top / WORKFLOW] = _starter("kb-check.yml", values)
    files[layout.top / PRE_COMMIT_CONFIG] = _starter("pre-commit-config.yaml", values)
    return files


def _starter(name: str, values: dict[str, str]) -> str:
    text = (STARTER / name).read_text(encoding="utf-8")
    for key, value in values.items():  # "@key@" in YAML: a quoted value; elsewhere, as it is
        text = text.replace(f'"@{key}@"', json.dumps(value)).replace(f"@{key}@", value)
    return text


def init_knowledge_base(folder: Path) -> list[str]:
    """Write what is missing; returns the lines to print."""
    layout = locate(folder)
    if layout.root.exists() and not layout.root.is_dir():
        raise KbError(f"{folder} is a file; kb init needs a folder (it is created if missing)")
    shown = os.path.relpath  # paths as the user would type them
    where = shown(layout.root)
    lines = [f"kb init: a knowledge base in {where} (site '{layout.root.name}')"]
    try:
        for path, text in starter_files(layout).items():
            if path.exists():
                lines.append(f"  kept    {shown(path)} (it exists)")
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            lines.append(f"  created {shown(path)}")
        lines.append(_ignore_build_output(layout.root / ".gitignore"))
    except OSError as exc:
        raise KbError(f"cannot write the knowledge base into {folder}: {exc.strerror or exc}") from None
    _, note = pinned_requirement()
    if note:
        lines.append(f"note: {note}")
    root_option = "" if where == "." else f" --root {where}"
    lines += ["next:",
              *([f"  git init {shown(layout.top)}   # the checks read git history"] if not layout.in_git else []),
              f"  kb new knob ID --name SETTING --summary TEXT --value VALUE{root_option}",
              "  git add -A && git commit -m 'Start a knowledge base'",
              f"  kb check{root_option}",
              f"  mkdocs serve{'' if where == '.' else f' -f {where}/mkdocs.yml'}   # the site, rebuilt as you edit"]
    return lines


def _ignore_build_output(gitignore: Path) -> str:
    """Add what the build writes to .gitignore: the one file kb init adds to rather than keeps."""
    text = gitignore.read_text(encoding="utf-8") if gitignore.exists() else ""
    present = {line.strip() for line in text.splitlines()}
    missing = [entry for entry in IGNORED if entry not in present and "/" + entry not in present]
    name = os.path.relpath(gitignore)
    if not missing:
        return f"  kept    {name} (it ignores {', '.join(IGNORED)})"
    separator = "" if not text or text.endswith("\n") else "\n"
    gitignore.write_text(text + separator + "".join(f"{entry}\n" for entry in missing), encoding="utf-8")
    added = ", ".join(missing)
    return f"  added   {added} to {name}" if text else f"  created {name}"


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("folder", nargs="?", type=Path, default=Path("."), metavar="DIR",
                        help="where the knowledge base goes (default: here); may be a subfolder of a repository")


def run_init(args: argparse.Namespace) -> int:
    print("\n".join(init_knowledge_base(args.folder)))
    return 0


INIT = Command(("init",), "start a knowledge base: record folders, schemas, mkdocs.yml, the PR workflow and "
                          "a pre-commit hook (never overwrites a file)", _arguments, run_init)
