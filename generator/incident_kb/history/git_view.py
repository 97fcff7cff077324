"""What git reports about a repository, as a cache key needs it: everything that changes git's
answers about history and uncommitted changes, read from git itself.

- its state: git folder, common folder (a linked worktree's configuration and shallow boundary live
  there), top level, HEAD's branch and commit, whether the clone is shallow;
- its effective configuration, as `git config --list` prints it from every level it reads (system,
  global through $HOME or $XDG_CONFIG_HOME, the repository's, the worktree's, includes,
  GIT_CONFIG_* and -c in the environment);
- the files git reads beyond its configuration: the index git uses (`git rev-parse --git-path index`,
  which follows GIT_INDEX_FILE), the shallow boundary and grafts (by content), info/exclude and
  info/attributes, the user's and the system's ignore and attributes files (a relative
  core.excludesFile or core.attributesFile as git reads it: from the top of the work tree), and the
  git program itself.

A plain `subprocess` for the few calls, so that a remembered `kb check` imports no git library.
Every git call of kb takes `--no-optional-locks` (GIT_OPTIONAL_LOCKS=0): a read never rewrites
`.git/index`. kb reads history as committed: replace refs are not applied (GIT_NO_REPLACE_OBJECTS). kb writes
nothing into `.git`: in a partial clone, git may not fetch missing objects (GIT_NO_LAZY_FETCH).
Knows nothing of records.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ..findings import KbError
from ..repository.files import UnreadableFile, read_bounded, real_path, signature

# The environment of every git command kb runs (gitio too): see `kb_git_environment`.
GIT_ENVIRONMENT = {"GIT_OPTIONAL_LOCKS": "0", "GIT_NO_REPLACE_OBJECTS": "1", "GIT_NO_LAZY_FETCH": "1"}
# Settings every git command kb runs is given, as `git -c` gives them: `git log` opens the work tree's
# .mailmap (log.mailmap is on by default) with a blocking open, and kb needs no mapped name: a FIFO there
# would hang every history read. Off, git opens no mailmap at all.
GIT_SETTINGS = ("log.mailmap=false",)
_MAX_BOUNDARY = 64 << 20
COMMIT_ID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")  # a commit id, SHA-1 or SHA-256
_PROMISOR = re.compile(r"remote\..*\.promisor$|extensions\.partialclone$")  # what makes a partial clone


@dataclass(frozen=True)
class GitView:
    """git's view of a repository, as strings a key can hold (see the module's docstring)."""

    state: str  # git folder, common folder, top level, shallow or not (or why git cannot tell)
    head: str  # HEAD's branch and commit (or why there is none)
    config: str  # the effective configuration with each value's origin
    boundary: str  # digest of the shallow boundary and grafts
    files: tuple[str, ...]  # signatures of the other files git reads
    # The repository's own files whose change changes this view (its HEAD and branch, index, refs,
    # configuration, ignore and attributes files, shallow boundary): what the live preview watches.
    # Not part of the key: their contents are, as the fields above.
    watched: tuple[str, ...] = ()
    index: str = ""  # the index git uses (absolute; GIT_INDEX_FILE followed); "" when unknown

    @property
    def git_dir(self) -> str | None:
        """The repository's git folder (its real path), None when git named none."""
        first = self.state.split("\n", 1)[0]
        return real_path(first) if os.path.isabs(first) else None

    @property
    def head_facts(self) -> tuple[str, bool, str | None] | None:
        """HEAD's commit, whether the clone is shallow, and HEAD's branch (None: detached), as the history
        pass asks them (`gitio.open_repository`); None when git gave no such answer (no commit yet)."""
        code, *answer = self.head.split("\n")
        state = self.state.split("\n")
        if code != "0" or len(answer) != 2 or len(state) != 4 or state[3] not in ("true", "false") \
                or not COMMIT_ID.fullmatch(answer[0]):
            return None
        commit, ref = answer
        return commit, state[3] == "true", None if ref == "HEAD" else ref.removeprefix("refs/heads/")

    @property
    def partial_clone(self) -> bool | None:
        """Whether the repository may lack objects (a promisor remote, or extensions.partialClone set),
        as `git config --get-regexp` would find either; None when git did not list its configuration."""
        listing = self.config_listing
        if listing is None:
            return None
        return any(_PROMISOR.match(name) for name in config_entries(listing))

    @property
    def config_listing(self) -> str | None:
        """`git config --list -z --show-origin` as read for this view; None when git did not answer."""
        code, _, listing = self.config.partition("\n")
        return listing if code == "0" else None

    @property
    def history(self) -> list[str]:
        """What decides the history git reports for a given HEAD (not the index or the work tree)."""
        return [self.state, self.config, self.boundary, self.files[-1]]  # the last: the git program

    def as_key(self) -> list[object]:
        return [self.state, self.head, self.config, self.boundary, list(self.files)]


def git_command(*args: str) -> list[str]:
    return ["git", "--no-optional-locks", *args]


def kb_git_environment() -> dict[str, str]:
    """What kb adds to the environment of every git command: GIT_ENVIRONMENT, and GIT_SETTINGS after
    any settings the environment gives already (GIT_CONFIG_PARAMETERS is where `git -c` puts them)."""
    given = os.environ.get("GIT_CONFIG_PARAMETERS", "")
    ours = " ".join("'{}'='{}'".format(*setting.split("=", 1)) for setting in GIT_SETTINGS)
    return {**GIT_ENVIRONMENT, "GIT_CONFIG_PARAMETERS": f"{given} {ours}".strip()}


def git_environment() -> dict[str, str]:
    return {**os.environ, **kb_git_environment()}


def run_git(folder: Path, *args: str) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of a git command run in `folder`; (-1, '', why) when git cannot run."""
    try:
        done = subprocess.run(git_command(*args), cwd=folder, capture_output=True, text=True,
                              errors="surrogateescape", env=git_environment())
    except OSError as exc:
        return -1, "", str(exc)
    return done.returncode, done.stdout, done.stderr


def refuse_dubious_ownership(stderr: str) -> None:
    """Raise KbError with what to set when git refused the repository for its owner."""
    if "dubious ownership" not in stderr:
        return
    where = ""
    for line in stderr.splitlines():
        if "dubious ownership in repository at" in line:
            where = line.split(" at ", 1)[1].strip().strip("'")
    where = where or "the repository"
    raise KbError(f"git refuses to read {where}: it belongs to another user (git's 'dubious ownership'); if you "
                  f"trust it, run `git config --global --add safe.directory {where}` (in a CI container, often "
                  "safe.directory '*'), then run kb again")


def read_git_view(folder: Path, changed_after: int) -> GitView | None:
    """git's view of the repository holding `folder`; files changed after `changed_after` (ns) are
    signed by their content too. None when it cannot be known (git answers in a way kb does not
    know: then nothing may be remembered). Raises KbError when git refuses the repository (its
    owner)."""
    code, out, err = run_git(folder, "rev-parse", "--path-format=absolute", "--git-dir", "--git-common-dir",
                             "--show-toplevel", "--is-shallow-repository", "--git-path", "index", "HEAD",
                             "--symbolic-full-name", "HEAD")
    refuse_dubious_ownership(err)
    lines = out.splitlines()
    state, head = "\n".join(lines[:4]), f"{code}\n" + "\n".join(lines[5:]) + (f"\n{err}" if code else "")
    program = _program()
    if code == -1 or (code != 0 and "not a git repository" in err):  # no git, or no repository: no history
        return GitView(state, head, "", "", (program,))
    if code != 0 and not (len(lines) == 5 and "'HEAD'" in err):  # anything but a HEAD with no commit yet
        return None
    git_dir, common, top, index = Path(lines[0]), Path(lines[1]), Path(lines[2]), Path(lines[4])
    config = run_git(folder, "config", "--list", "-z", "--show-origin")
    looked = [index, git_dir / "HEAD", *ignore_and_attributes_files(common, top, config_entries(config[1]))]
    files = tuple(signature(path, changed_after) for path in looked)
    boundary = hashlib.sha256("\0".join(_content(common / name) for name in ("shallow", "info/grafts"))
                              .encode("utf-8", "surrogateescape")).hexdigest()
    refs = [common / "packed-refs", *(common / ref for ref in lines[6:7] if ref.startswith("refs/"))]
    own = [*looked, common / "shallow", common / "info" / "grafts", common / "config", git_dir / "config.worktree",
           *refs, *(Path(origin) for origin in _config_origins(config[1]))]
    watched = tuple(sorted({str(path) for path in own
                            if any(path.is_relative_to(folder) for folder in (git_dir, common))}))
    return GitView(state, head, f"{config[0]}\n{config[1]}", boundary, (*files, program), watched, str(index))


def ignore_and_attributes_files(common: Path, top: Path, entries: Mapping[str, str]) -> list[Path]:
    """The ignore and attributes files git reads besides the work tree's own: the repository's
    info/exclude and info/attributes (in its common folder), the user's (core.excludesFile and
    core.attributesFile, or their places under $XDG_CONFIG_HOME) and the system's attributes.
    `top`: the top of the work tree, where git runs when it reads them (a relative path is read from
    there, wherever kb runs). `entries`: the effective configuration (`config_entries`)."""
    home = Path(os.path.expanduser("~"))
    xdg = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
    excludes = top / (_expanded(entries.get("core.excludesfile")) or xdg / "git" / "ignore")
    attributes = top / (_expanded(entries.get("core.attributesfile")) or xdg / "git" / "attributes")
    return [common / "info" / "exclude", common / "info" / "attributes", excludes, attributes, *_system_attributes()]


def config_entries(listing: str) -> dict[str, str]:
    """`git config --list -z --show-origin` as name -> its last value (names are lowercase there)."""
    entries: dict[str, str] = {}
    parts = listing.split("\0")
    for i in range(1, len(parts), 2):  # origin, then 'name\nvalue'
        name, _, value = parts[i].partition("\n")
        entries[name] = value
    return entries


def _config_origins(listing: str) -> list[str]:
    """The files `git config --list -z --show-origin` read its values from."""
    parts = listing.split("\0")
    return [origin.removeprefix("file:") for origin in parts[0:len(parts) - 1:2] if origin.startswith("file:")]


def _expanded(value: str | None) -> Path | None:
    return Path(os.path.expanduser(value)) if value else None


def _system_attributes() -> list[Path]:
    """Where the system's attributes file may be ($(prefix)/etc/gitattributes; /etc for /usr)."""
    if os.environ.get("GIT_ATTR_NOSYSTEM", "").lower() in ("1", "true", "yes", "on"):
        return []
    found = shutil.which("git")
    prefix = Path(real_path(found)).parent.parent if found else Path("/usr")
    return sorted({Path("/etc/gitattributes"), prefix / "etc" / "gitattributes"})


def _program() -> str:
    """The git program that runs (a new git may report the same repository otherwise)."""
    found = shutil.which("git")
    return f"{signature(found, 1 << 62)} {found}" if found else "no git"  # by its status: its bytes cost time


def _content(path: Path) -> str:
    try:
        return read_bounded(path, _MAX_BOUNDARY, note=False).decode("utf-8", "surrogateescape")
    except UnreadableFile as exc:
        return f"!{exc}"
