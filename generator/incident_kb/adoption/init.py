"""`kb init [DIR]`: a new knowledge base, ready to check, build and commit.

Writes the record folders, a first doc (so git keeps docs/), the JSON Schemas where the records'
modelines point, the site's configuration (`--site mkdocs`, the default: a mkdocs.yml that uses the
`incident-kb` plugin; `--site zensical`: a zensical.toml that builds what `kb render` writes),
`.gitignore` entries for what the build and a killed edit leave, and, at the top of the git
repository (where GitHub and pre-commit look for them), the PR workflow, the weekly report's workflow
(an issue of what needs action) and a pre-commit hook. DIR
may be a subfolder of a larger repository. A file that exists is never overwritten: it is kept and
named in the output (only missing lines are added to .gitignore), so running it twice is safe.

Everything is checked before anything is written (the folder's name, every place a file goes, what
the written files will read back as), then all is written or nothing: a write that fails takes back
what this run made. Files go through `repository/writes.py`, so no link leads a write out of the
repository; `.gitignore` is read through the bounded reader. The starter files are in `starter/`.
"""

from __future__ import annotations

import functools
import json
import os
import posixpath
import stat
import urllib.parse
from dataclasses import dataclass
from pathlib import Path

from ..check.formats import displayable
from ..findings import KbError
from ..places import is_inside
from ..records.vocabulary import RecordKind
from ..repository.files import UnreadableFile, read_bounded
from ..repository.writes import Unwritable, make_folders, way_out, write_file
from ..settings.config_files import MKDOCS_CONFIGS, SITE_CONFIGS, ZENSICAL_TOML, site_yaml
from ..settings.docs_folder import DEFAULT_DOCS
from ..wording import path_word, plural
from . import first_files
from .hook_merge import HookAddition, hook_addition
from .setup_advice import config_state, hook_to_add, next_steps, what_to_add
from .site_merge import CannotMerge, SiteSetup, read_site_setup
from .site_needs import SiteNeeds, install_words, site_needs
from .toml_merge import zensical_site_setup
from .workflow_pins import MAX_WHEEL, WHEELS, pinned_requirement

WORKFLOW = ".github/workflows/kb-check.yml"
REPORT_WORKFLOW = ".github/workflows/kb-report.yml"  # the weekly issue of what needs action (kb report)
PRE_COMMIT_CONFIG = ".pre-commit-config.yaml"
# What `mkdocs build` writes, tools' caches (kb keeps its own outside the repository), and the
# temporary files a killed edit leaves.
IGNORED = ("site/", ".cache/", ".*.tmp")
ZENSICAL_IGNORED = (*IGNORED, "kb-site/")  # and what `kb render` writes for Zensical (zensical.toml)
# The Zensical the workflow installs: the version tested (0.1.x needs a package not in every index).
ZENSICAL_REQUIREMENT = "zensical>=0.0.73,<0.1"
GITIGNORE_LIMIT = 1 << 20  # a .gitignore larger than 1 MiB is no .gitignore kb init adds to


@dataclass(frozen=True, slots=True)
class Layout:
    root: Path  # the knowledge base (its real path)
    top: Path  # the repository's top (the knowledge base itself when it is not in one yet)
    in_git: bool

    @property
    def kb_dir(self) -> str:
        """The knowledge base relative to the repository's top ('.' at the top)."""
        return self.root.relative_to(self.top).as_posix()


def locate(folder: Path) -> Layout:
    """Where the knowledge base and its repository are: the repository is found from the folder as
    given (a link on the way must not carry the knowledge base out of it)."""
    given = Path(os.path.abspath(folder))
    root = Path(os.path.realpath(given))
    for parent in (given, *given.parents):
        if os.path.lexists(parent / ".git"):
            top = Path(os.path.realpath(parent))
            if not is_inside(root, top):
                raise KbError(f"{folder} leads out of the repository at {parent} through a symbolic link (to {root}); "
                              "kb init writes nothing through a link that leaves the repository; nothing was written")
            return Layout(root, top, True)
    return Layout(root, root, False)


@functools.cache
def schema_text(kind: RecordKind) -> str:
    """A record kind's JSON Schema as `kb init` writes it: a function of the models alone, so worked out
    once a process (pydantic takes a quarter of an in-process `kb init` for it)."""
    from ..records.schema import json_schema  # the models: imported by `kb init` alone, as above

    return json.dumps(json_schema(kind), indent=2) + "\n"


def starter_files(layout: Layout, site: str | SiteSetup = "mkdocs",
                  needs: SiteNeeds | None = None) -> dict[Path, str | bytes]:
    """Every file `kb init` writes, by path, with its text (an existing site configuration is not
    among them: see `init_knowledge_base`); `needs`: what the site's own build installs besides."""
    setup = site if isinstance(site, SiteSetup) else SiteSetup(
        site, "mkdocs.yml" if site == "mkdocs" else "zensical.toml", False, DEFAULT_DOCS, "", "site")
    kb_dir = layout.kb_dir
    prefix = "" if kb_dir == "." else kb_dir + "/"
    install = pinned_requirement()
    requirement = install.requirement
    values = {
        "site_name": first_files.site_name(layout.root.name),
        "docs_path": f"{prefix}{setup.docs}/",
        "kb_dir": kb_dir,
        "install": f"python -m pip install {first_files.shell_quoted(requirement)}"
                   + ("" if setup.generator == "mkdocs" else f" {first_files.shell_quoted(ZENSICAL_REQUIREMENT)}")
                   + (f" {install_words(needs)}" if needs is not None and needs.install else ""),
        "entry": "kb check --staged"
                 + ("" if kb_dir == "."
                    else f" --root {first_files.shell_quoted(f'./{kb_dir}' if kb_dir.startswith('-') else kb_dir)}"),
    }
    files: dict[Path, str | bytes] = {layout.root / kind.folder / ".gitkeep": "" for kind in RecordKind}
    if install.wheel is not None:
        try:
            files[layout.root / WHEELS / install.wheel.name] = read_bounded(install.wheel, MAX_WHEEL)
        except UnreadableFile as exc:
            raise KbError(f"kb init: cannot copy the wheel incident-kb was installed from ({install.wheel}: {exc}), "
                          "which the workflow installs; nothing was written") from None
    if setup.generator == "mkdocs" or not setup.prefix:  # a team's Zensical docs get no page of kb's in them
        files[layout.root / setup.docs / setup.about_page] = first_files.fill("about.md", {"docs": setup.docs})
    for kind in RecordKind:
        files[layout.root / "schemas" / f"{kind}.schema.json"] = schema_text(kind)
    if not setup.existing:
        files[layout.root / setup.config_name] = first_files.fill(setup.config_name, {
            "site_name": values["site_name"], "edit_uri_path": urllib.parse.quote(values["docs_path"])})
    workflow = first_files.fill("kb-check.yml", {"kb_dir": values["kb_dir"], "install": values["install"]})
    assert "run: mkdocs build --strict\n" in workflow, "the starter workflow no longer builds with mkdocs"
    if setup.generator == "zensical":  # the site is built by Zensical from what kb render writes
        workflow = workflow.replace("run: mkdocs build --strict\n", "run: kb render && zensical build\n")
    elif setup.builder != "mkdocs" or setup.config_name != "mkdocs.yml":
        build = f"{setup.builder} build --strict" + ("" if setup.config_name == f"{setup.builder}.yml"
                                                      else f" -f {first_files.shell_quoted(setup.config_name)}")
        workflow = workflow.replace("run: mkdocs build --strict\n", f"run: {build}\n")
    files[layout.top / WORKFLOW] = workflow
    files[layout.top / REPORT_WORKFLOW] = first_files.fill("kb-report.yml", {"kb_dir": values["kb_dir"],
                                                                             "install": values["install"]})
    files[layout.top / PRE_COMMIT_CONFIG] = first_files.fill("pre-commit-config.yaml", {"entry": values["entry"]})
    first_files.check_reads_back(files, [
        *([(layout.root / "mkdocs.yml", ("site_name",), values["site_name"])]
          if setup.generator == "mkdocs" and not setup.existing else []),
        (layout.top / WORKFLOW, ("jobs", "kb-check", "defaults", "run", "working-directory"), values["kb_dir"]),
        (layout.top / WORKFLOW, ("jobs", "kb-check", "steps", 2, "run"), values["install"]),
        (layout.top / REPORT_WORKFLOW, ("jobs", "kb-report", "defaults", "run", "working-directory"), values["kb_dir"]),
        (layout.top / REPORT_WORKFLOW, ("jobs", "kb-report", "steps", 2, "run"), values["install"]),
        (layout.top / PRE_COMMIT_CONFIG, ("repos", 0, "hooks", 0, "entry"), values["entry"])])
    if setup.generator == "zensical" and not setup.existing:
        first_files.check_toml_reads_back(str(files[layout.root / setup.config_name]), ("project", "site_name"),
                                          values["site_name"])
    return files


@dataclass(frozen=True, slots=True)
class Initialised:
    """What `kb init` did: the lines to print, and how many errors they name that the user must fix
    before the first pull request's workflow can pass (a Material pin incident-kb cannot install
    beside): the files are written all the same (kb never changes the team's requirements), and the
    command exits 1."""

    lines: tuple[str, ...]
    errors: int = 0


def init_knowledge_base(folder: Path, site: str | None = None, merge: bool = False) -> Initialised:
    """Check, then write what is missing (all of it, or nothing); returns the lines to print. Beside
    an existing site configuration (mkdocs.yml, properdocs.yml, zensical.toml), say what it must add to
    show the knowledge base, or add it with `merge` (never without). `site` None: the generator whose
    configuration is there."""
    layout = locate(folder)
    _refuse_unusable(folder, layout)
    site = site or site_generator_found(layout.root)
    for name in SITE_CONFIGS:  # one that is there must be a regular file inside the repository, as if written
        if os.path.lexists(layout.root / name):
            _plan(layout.top, layout.root / name)
    try:
        def read_text(path: Path) -> str:
            return read_bounded(path, GITIGNORE_LIMIT, layout.top).decode("utf-8")

        setup = read_site_setup(layout.root, site, read_text)
        if setup.generator == "zensical" and setup.existing:  # the team's own zensical.toml
            setup = zensical_site_setup(layout.root, read_text(layout.root / setup.config_name), setup.docs)
    except (CannotMerge, UnreadableFile, UnicodeDecodeError) as exc:
        raise KbError(f"kb init: the site's configuration in {_shown(layout.root)} cannot be used: {exc}; nothing "
                      "was written") from None
    if merge and setup.cannot_merge is not None:
        raise KbError(f"kb init --merge cannot add the knowledge base to {setup.config_name} line by line "
                      f"({setup.cannot_merge}); run kb init without --merge to see what to add by hand; nothing was "
                      "written")
    needs = _site_needs(layout, setup)
    files = starter_files(layout, setup, needs)
    planned = [(path, _plan(layout.top, path)) for path in files]
    config_path = layout.root / setup.config_name
    merged = setup.additions.new_text if merge and setup.additions is not None else None
    if merged is not None:
        _plan(layout.top, config_path)  # refuses a link out, a FIFO... in its place
    hook_path = layout.top / PRE_COMMIT_CONFIG
    hook = None if dict(planned)[hook_path] else _hook_in(layout, hook_path, str(files[hook_path]))
    if merge and hook is not None and hook.new_text is not None:
        _plan(layout.top, hook_path)
    rendered = f"{posixpath.normpath(posixpath.join(setup.docs, setup.prefix))}/"  # kb render writes there
    ignored = (*_site_ignored(setup), *IGNORED[1:]) if setup.generator == "mkdocs" else \
        (*_site_ignored(setup), *ZENSICAL_IGNORED[1:], rendered) if setup.prefix else ZENSICAL_IGNORED
    gitignore = _GitIgnore.planned(layout, ignored)
    where = _shown(layout.root)
    lines = [f"kb init: a knowledge base in {where} (site '{displayable(first_files.site_name(layout.root.name))}')"
             if not setup.existing else
             f"kb init: a knowledge base in {where}, for the site of {displayable(setup.config_name)}"]
    made: list[Path] = []
    try:
        if not layout.in_git and not os.path.lexists(layout.root):  # a new folder outside any repository
            make_folders(layout.root, made)
        for path, create in planned:
            if path == hook_path and merge and hook is not None and hook.new_text is not None and hook.old_text:
                _write_through(layout, path, hook.new_text, hook.old_text)
                lines.append(f"  added   the kb-check hook to {_shown(path)} (every other line kept)")
            elif create:
                content = files[path]
                write_file(layout.top, path, content.encode("utf-8") if isinstance(content, str) else content,
                           made=made)
                made.append(path)
                lines.append(f"  created {_shown(path)}")
            else:
                lines.append(f"  kept    {_shown(path)} (it exists)")
        if merged is not None and setup.old_text is not None:
            target = _write_through(layout, config_path, merged, setup.old_text)
            through = f", through the link to {_shown(target)}" if target != config_path else ""
            lines.append(f"  added   the knowledge base to {_shown(config_path)} "
                         f"(its comments and order kept{through})")
        elif setup.existing:
            lines.append(f"  kept    {_shown(config_path)} ({config_state(setup)})")
        lines.append(gitignore.write(made))
    except (Unwritable, OSError) as exc:
        _take_back(made)
        why = f"{_shown(exc.path)} {exc.why}" if isinstance(exc, Unwritable) else exc.strerror or str(exc)
        raise KbError(f"cannot write the knowledge base into {folder}: {why}; nothing was written") from None
    lines += [*(f"  site    the workflow installs {found}" for found in needs.found),
              *(f"note: {line}" for line in needs.unresolved), *needs.conflicts]
    note = pinned_requirement().note
    if note:
        lines.append(f"note: {note}")
    if setup.existing and merged is None:
        lines += what_to_add(setup)
    if hook is not None and not (merge and hook.new_text is not None):
        lines += hook_to_add(hook, _shown(hook_path))
    lines += next_steps(setup, where, layout.in_git, os.path.relpath(layout.top), os.path.relpath(layout.root),
                        merged is not None)
    if needs.conflicts:
        lines.append(f"kb init: {plural(len(needs.conflicts), 'error')} above: the files are written, but the "
                     "workflow's install step fails until the site's requirements admit incident-kb's Material")
    return Initialised(tuple(lines), len(needs.conflicts))


def site_generator_found(root: Path) -> str:
    """zensical when the folder holds a zensical.toml and no MkDocs-family configuration (a team's
    Zensical site: a new mkdocs.yml beside it would build a second site); else mkdocs."""
    if os.path.lexists(root / ZENSICAL_TOML) and not any(os.path.lexists(root / name) for name in MKDOCS_CONFIGS):
        return "zensical"
    return "mkdocs"


def _site_needs(layout: Layout, setup: SiteSetup) -> SiteNeeds:
    """What the team's own site build needs installed (none for a site kb init writes itself)."""
    if not setup.existing or setup.generator != "mkdocs":
        return SiteNeeds()

    def read_text(rel: str) -> str | None:
        path = layout.root / rel
        if not os.path.isfile(path):
            return None
        try:
            return read_bounded(path, GITIGNORE_LIMIT, layout.top).decode("utf-8")
        except (UnreadableFile, UnicodeDecodeError):
            return None

    site = setup.built  # with what it INHERITs: a plugin a parent names is installed too
    if site is None:  # a parent kb cannot read (the check says so): what the file names itself
        try:
            site = site_yaml(setup.old_text or "")
        except ValueError:
            site = None
    return site_needs(read_text, site if isinstance(site, dict) else None)


def _hook_in(layout: Layout, path: Path, starter: str) -> HookAddition:
    """What the repository's own pre-commit configuration needs to run kb check."""
    try:
        text = read_bounded(path, GITIGNORE_LIMIT, layout.top).decode("utf-8")
    except (UnreadableFile, UnicodeDecodeError) as exc:
        entry = starter[starter.index("repos:\n") + len("repos:\n"):].splitlines(True)
        return HookAddition(None, tuple(entry), f"kb cannot read it: {exc}")
    return hook_addition(text, starter)


def _write_through(layout: Layout, path: Path, text: str, old_text: str) -> Path:
    """Replace the file at `path` (or the one a link inside the repository leads to: _plan refused a
    link out, and the link stays a link) with `text`, if it still holds `old_text`; returns where."""
    target = Path(os.path.realpath(path))
    write_file(layout.top, target, text.encode("utf-8"), replace=True, expected=old_text.encode("utf-8"),
               mode=stat.S_IMODE(os.stat(target).st_mode))
    return target


def _site_ignored(setup: SiteSetup) -> tuple[str, ...]:
    """What the site's build writes, for .gitignore: its own site_dir (none when outside the root)."""
    return (f"{setup.site_dir}/",) if setup.site_dir else ()


def _refuse_unusable(folder: Path, layout: Layout) -> None:
    """Refuse a folder kb init must not make a knowledge base of, before anything is written."""
    root = layout.root
    if root.parent == root:
        raise KbError(f"{folder} is the file system's root; kb init needs a folder with a name (the site is named "
                      "after it)")
    if any(part.casefold() == ".git" for part in (*Path(layout.kb_dir).parts, *root.parts)) or _in_git_folder(root):
        raise KbError(f"{folder} is inside a repository's .git folder, which git keeps for itself; give a folder of "
                      "the work tree")
    if os.path.lexists(root) and not os.path.isdir(root):
        raise KbError(f"{folder} is a file; kb init needs a folder (it is created if missing)")
    for name, what in ((root.name, "the folder's name"), (layout.kb_dir, "the folder's path in its repository")):
        try:
            name.encode("utf-8")
        except UnicodeEncodeError:
            raise KbError(f"{what} ({name}) is not UTF-8; mkdocs.yml, the workflow and the hook name it, and they "
                          "are read as UTF-8: rename the folder; nothing was written") from None
    if not first_files.site_name(root.name):
        raise KbError(f"{folder}: its name gives no site name; give a folder with a name; nothing was written")


def _in_git_folder(root: Path) -> bool:
    """Whether `root` is (inside) a git folder: a bare repository, or a work tree's .git."""
    for folder in (root, *root.parents):
        if os.path.isfile(folder / "HEAD") and os.path.isdir(folder / "objects") and os.path.isdir(folder / "refs"):
            return True
    return False


def _plan(top: Path, path: Path) -> bool:
    """Whether `path` is to be created (False: kept as it is); KbError when kb init may not go on."""
    problem = way_out(top, path)
    if problem is not None:
        raise KbError(f"{_shown(problem.path)} {problem.why}; nothing was written")
    try:
        found = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        _refuse_unless_creatable(path)
        return True
    except OSError as exc:
        raise KbError(f"{_shown(path)} cannot be looked at ({_words(exc)}); nothing was written") from None
    kind = found.st_mode
    if stat.S_ISLNK(kind):
        try:
            kind = os.stat(path).st_mode
        except OSError:
            raise KbError(f"{_shown(path)} is a symbolic link that leads nowhere; kb init writes through no link: "
                          "remove it, or put the file there; nothing was written") from None
    if not stat.S_ISREG(kind):
        raise KbError(f"{_shown(path)} is {_kind(kind)}, where kb init puts a file; move it away; nothing was written")
    return False


def _refuse_unless_creatable(path: Path) -> None:
    """Refuse unless the folders on the way to `path` are folders, and the last one there is writable."""
    folder = path.parent
    while not os.path.lexists(folder):
        folder = folder.parent
    try:
        kind = os.stat(folder).st_mode
    except OSError as exc:
        raise KbError(f"{_shown(folder)} cannot be looked at ({_words(exc)}); nothing was written") from None
    if not stat.S_ISDIR(kind):
        raise KbError(f"{_shown(folder)} is {_kind(kind)}, where kb init needs a folder; nothing was written")
    if not _writable(folder, kind):
        raise KbError(f"{_shown(folder)} is read-only; kb init writes nothing into it (make it writable, e.g. "
                      f"chmod u+w {path_word(os.path.relpath(folder))}); nothing was written")


def _writable(path: Path, mode: int) -> bool:
    """Writable by its owner's choice (whoever runs kb, root included) and by this process."""
    return bool(mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)) and os.access(path, os.W_OK | os.X_OK
                                                                                   if stat.S_ISDIR(mode) else os.W_OK)


@dataclass(frozen=True, slots=True)
class _GitIgnore:
    """The knowledge base's .gitignore: what it holds, and the lines kb init adds to it."""

    path: Path  # as named: root/.gitignore
    real: Path  # where its bytes are (a link inside the repository is followed)
    top: Path
    old: bytes | None  # None: no .gitignore yet
    mode: int | None
    missing: tuple[str, ...]
    ignored: tuple[str, ...] = IGNORED  # what it should ignore

    @classmethod
    def planned(cls, layout: Layout, ignored: tuple[str, ...] = IGNORED) -> _GitIgnore:
        path = layout.root / ".gitignore"
        if not os.path.lexists(path) or way_out(layout.top, path):
            _plan(layout.top, path)  # refuses a link that leads nowhere, or out of the repository
            return cls(path, path, layout.top, None, None, ignored, ignored)
        try:
            old = read_bounded(path, GITIGNORE_LIMIT, layout.top)
        except UnreadableFile as exc:
            raise KbError(f"{_shown(path)}: kb init cannot read it ({exc}); add {', '.join(ignored)} to it yourself, "
                          "or replace it with a regular file; nothing was written") from None
        real = Path(os.path.realpath(path))
        present = {line.strip() for line in old.decode("utf-8", "surrogateescape").splitlines()}
        missing = tuple(entry for entry in ignored if entry not in present and "/" + entry not in present)
        mode = os.stat(real).st_mode
        if missing and (not _writable(real, mode) or not _writable(real.parent, os.stat(real.parent).st_mode)):
            raise KbError(f"{_shown(path)} is read-only; kb init does not change it (add {', '.join(missing)} to it, "
                          "or make it writable); nothing was written")
        return cls(path, real, layout.top, old, stat.S_IMODE(mode), missing, ignored)

    def write(self, made: list[Path]) -> str:
        name = _shown(self.path)
        if not self.missing:
            return f"  kept    {name} (it ignores {', '.join(self.ignored)})"
        added = "".join(f"{entry}\n" for entry in self.missing).encode()
        if self.old is None:
            write_file(self.top, self.path, added, made=made)
            made.append(self.path)
            return f"  created {name}"
        separator = b"" if not self.old or self.old.endswith(b"\n") else b"\n"
        write_file(self.top, self.real, self.old + separator + added, replace=True, expected=self.old, mode=self.mode)
        return f"  added   {', '.join(self.missing)} to {name}"


def _take_back(made: list[Path]) -> None:
    """Remove what this run made (files, then folders, newest first): a failed init leaves nothing."""
    for path in reversed(made):
        try:
            os.rmdir(path) if os.path.isdir(path) and not os.path.islink(path) else os.unlink(path)
        except OSError:
            pass  # already gone, or not empty: someone else's now


def _kind(mode: int) -> str:
    return next((name for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a named pipe (FIFO)"),
                                         (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a device"),
                                         (stat.S_ISBLK, "a device"), (stat.S_ISREG, "a file")) if test(mode)),
                "something else")


def _words(exc: OSError) -> str:
    return (exc.strerror or str(exc)).lower()


def _shown(path: Path) -> str:
    """A path as the user would type it, with what a terminal would not show escaped."""
    return displayable(os.path.relpath(path))
