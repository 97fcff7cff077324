"""A world for the differential test: a knowledge base in a real git repository (a clone of an origin,
so that it can be made shallow and deepened again), the user's, the system's and the environment's
git configuration in files and variables of its own, and the operations random sequences draw from:
edits of records, docs, deploy files and pyproject.toml, git operations, configuration at every
level, attributes, linked folders, modes, same-size edits within a second and times moved back.

`World.compare()` runs `kb check` (in-process) with the cache and cold, in a random format and mode
(plain, --staged, --base), and returns the difference, if any; `run_sequences` runs seeded random
sequences of operations, each followed by a comparison (test_differential.py and its mutation check,
test_differential_mutations.py).
"""

from __future__ import annotations

import contextlib
import io
import os
import random
import re
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from incident_kb.cli import main

from .gitrepo import GIT_ENV

FORMATS = ("text", "json", "github", "gitlab")
CONFIG_KEYS = {  # what changes what git reports about history and uncommitted changes
    "diff.renameLimit": ("1", "1000"),
    "diff.renames": ("false", "true"),
    "core.fileMode": ("false", "true"),
    "core.autocrlf": ("true", "input", "false"),
    "core.trustctime": ("false", "true"),
    "core.excludesFile": ("~/ignored-by-me",),
}
ATTRIBUTES = ("*.md text eol=crlf\n", "*.md -text\n", "docs/** binary\n", "*.yaml text eol=crlf\n")


# Set by the tests' other fixtures or CI, not by the world: the world sets every level itself.
_NOT_THE_WORLDS = ("GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM", "GIT_CONFIG_COUNT", "GIT_CONFIG_PARAMETERS",
                   "GITHUB_STEP_SUMMARY")


class Skip(Exception):
    """The operation does not apply to the world as it is."""


def _knob(n: int, rng: random.Random, deployed: str | None) -> str:
    status = rng.choice(("active", "reverted"))
    history = "history:\n  - date: 2026-10-01\n    status: active\n"
    if status == "reverted":
        history += (f"  - date: 2026-10-05\n    status: reverted\n    incident: incident-{n % 3}\n"
                    f"    hypothesis: h{n % 2}\n")
    return (f"id: knob-{n}\nname: TEAM_KNOB_{n}_BLOCKS\nsummary: Knob {n}.\nvalue: {rng.choice((256, 512))}\n"
            f"status: {status}\nkind: env\ndefault: 256\n"
            + (f"applies_to:\n  - path: {deployed}\n" if deployed else "") + history)


def _incident(n: int, rng: random.Random) -> str:
    hypotheses = "".join(
        f"  - id: h{h}\n    statement: Trouble {h}.\n    status: {rng.choice(('open', 'refuted', 'confirmed'))}\n"
        f"    suspect: {{knob: knob-{(n + h) % 6}}}\n"
        "    evidence:\n      - kind: correlation\n        stance: for\n        text: Seen.\n" for h in range(2))
    return (f"id: incident-{n}\ntitle: Incident {n}\nstatus: open\nstarted: 2026-10-03\n"
            f"hypotheses:\n{hypotheses}")


class World:
    def __init__(self, folder: Path, seed: int) -> None:
        self.rng = random.Random(seed)
        self.folder = folder
        self.home = folder / "home"
        self.xdg = folder / "xdg-config"
        self.system = folder / "system-gitconfig"
        for made in (self.home, self.xdg / "git"):
            made.mkdir(parents=True)
        self.system.write_text("")
        self.environment = {  # what kb and git see: every level of configuration in files of the world's
            "HOME": str(self.home), "XDG_CONFIG_HOME": str(self.xdg), "GIT_CONFIG_SYSTEM": str(self.system),
            **{k: v for k, v in GIT_ENV.items() if k not in ("GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM")},
        }
        self.origin = folder / "origin"
        self.main = folder / "work"
        self.root = self.main
        self.worktrees: list[Path] = []
        self.cwd: Path | None = None  # where kb runs (None: here, with --root absolute)
        self.clock = 0
        self.modes = True  # --staged and --base too, not only plain `kb check`
        self.config_keys = tuple(CONFIG_KEYS)  # what op_config draws from
        # The repository's own level and the environment override the others (and `git init` sets
        # core.fileMode in the repository's): they get as many draws as the others together.
        self.config_levels = ("local", "local", "environment", "environment", "global-home", "global-xdg",
                              "system", "unset")
        self._make_origin()
        self.git(self.folder, "clone", "-q", f"file://{self.origin}", str(self.main))

    # ---- git and files --------------------------------------------------------------------------

    def git(self, where: Path, *args: str, check: bool = True) -> str:
        self.clock += 1
        when = f"2026-11-{1 + self.clock // 50:02d}T{self.clock % 24:02d}:{self.clock % 60:02d}:00Z"
        environment = {name: value for name, value in os.environ.items() if name not in _NOT_THE_WORLDS}
        done = subprocess.run(["git", *args], cwd=where, capture_output=True, text=True,
                              env={**environment, **self.environment, "GIT_AUTHOR_DATE": when,
                                   "GIT_COMMITTER_DATE": when})
        if check and done.returncode != 0:
            raise Skip(f"git {' '.join(args)}: {done.stderr.strip()}")
        return done.stdout

    def write(self, rel: str, text: str, root: Path | None = None) -> None:
        path = (root or self.root) / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.is_symlink():
            path.unlink()
        path.write_text(text)

    def files(self, folder: str, suffix: str) -> list[Path]:
        base = self.root / folder
        found = sorted(p for p in base.rglob(f"*{suffix}") if p.is_file() and not p.is_symlink()) \
            if base.is_dir() else []
        if not found:
            raise Skip(f"no {suffix} under {folder}")
        return found

    def _make_origin(self) -> None:
        rng, root = self.rng, self.origin
        self.root = root
        self.git(self.folder, "init", "-q", "-b", "main", str(root))
        for n in range(6):
            self.write(f"knobs/knob-{n}.yaml", _knob(n, rng, "deploy/svc.sh" if n < 2 else
                                                          "docs/ops/svc.sh" if n == 2 else None))
        for n in range(3):
            self.write(f"incidents/incident-{n}.yaml", _incident(n, rng))
        self.write("deploy/svc.sh", "".join(f"export TEAM_KNOB_{n}_BLOCKS=256\n" for n in range(3)))
        (root / "docs").mkdir()
        (root / "docs/ops").symlink_to("../deploy")  # a folder reached through a link
        for n in range(3):
            self.write(f"docs/doc-{n}.md", f"# Doc {n}\n\nTEAM_KNOB_{n}_BLOCKS and knob-{n + 3} matter; see "
                                           f"incident-{n}.\n")
        self.write("pyproject.toml", "[tool.incident-kb]\n")
        self.git(root, "add", "-A")
        self.git(root, "commit", "-q", "-m", "the knowledge base")
        for step in range(4):  # a history deep enough for a shallow clone to see less of it
            self.op_material_edit()
            if step % 2:
                self.op_doc_edit()
            self.git(root, "add", "-A")
            self.git(root, "commit", "-q", "--allow-empty", "-m", f"step {step}")
        self.root = self.main

    # ---- running kb ------------------------------------------------------------------------------

    @contextlib.contextmanager
    def environment_set(self, cache: bool) -> Iterator[None]:
        saved = dict(os.environ)
        for name in _NOT_THE_WORLDS:
            os.environ.pop(name, None)
        os.environ.update(self.environment)
        os.environ["INCIDENT_KB_CACHE"] = "on" if cache else "off"
        try:
            yield
        finally:
            os.environ.clear()
            os.environ.update(saved)

    def kb(self, args: list[str], cache: bool) -> tuple[int, str, str]:
        out, err = io.StringIO(), io.StringIO()
        here = os.getcwd()
        try:
            if self.cwd is not None and self.cwd.is_dir():
                os.chdir(self.cwd)  # kb run from elsewhere, --root relative
            root = os.path.relpath(self.root) if self.cwd is not None else str(self.root)
            with self.environment_set(cache), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = main(["check", "--root", root, *args])
        finally:
            os.chdir(here)
        return code, out.getvalue(), err.getvalue()

    def arguments(self) -> list[str]:
        rng = self.rng
        args = ["--format", rng.choice(FORMATS)]
        if rng.random() < 0.5:
            args.append("--allow-shallow")
        mode = rng.random() if self.modes else 1
        if mode < 0.12:
            args.append("--staged")
        elif mode < 0.2:
            args += ["--base", rng.choice(("HEAD", "HEAD~1", "main@{1}"))]
        return args

    def compare(self) -> str | None:
        """Run kb check cached (once or twice) and cold; the difference, or None."""
        args = self.arguments()
        cold = self.kb(args, cache=False)
        for _ in range(1 + (self.rng.random() < 0.3)):
            cached = self.kb(args, cache=True)
            if cached != cold:
                return f"kb check {' '.join(args)}\n--- cached ---\n{_shown(cached)}\n--- cold ---\n{_shown(cold)}"
        return None

    # ---- operations ------------------------------------------------------------------------------

    def op_material_edit(self) -> str:
        rng = self.rng
        path = rng.choice(self.files("knobs", ".yaml") + self.files("incidents", ".yaml"))
        text = path.read_text()
        if "knobs" in path.parts:
            pattern, new = rng.choice(((r"^status: \w+$", f"status: {rng.choice(('active', 'reverted'))}"),
                                       (r"^value: \d+$", f"value: {rng.choice((128, 256, 512, 1024))}")))
        else:
            pattern, new = r"^    status: \w+$", f"    status: {rng.choice(('open', 'refuted', 'confirmed'))}"
        path.write_text(re.sub(pattern, new, text, count=1, flags=re.MULTILINE))
        return f"material edit of {path.name}"

    def op_same_size_edit(self) -> str:
        """A digit changed for another (the same size) within the second, its times put back."""
        path = self.rng.choice(self.files("knobs", ".yaml") + self.files("docs", ".md"))
        status = path.stat()
        text = path.read_text()
        digits = [m.start() for m in re.finditer(r"\d", text)]
        if not digits:
            raise Skip("no digit")
        at = self.rng.choice(digits)
        path.write_text(text[:at] + str((int(text[at]) + 1) % 10) + text[at + 1:])
        if self.rng.random() < 0.7:
            os.utime(path, ns=(status.st_atime_ns, status.st_mtime_ns))
        return f"same-size edit of {path.name}"

    def op_time_moved_back(self) -> str:
        path = self.rng.choice(self.files("knobs", ".yaml") + self.files("docs", ".md"))
        status = path.stat()
        os.utime(path, ns=(status.st_atime_ns, status.st_mtime_ns - 86_400_000_000_000))
        return f"times of {path.name} moved back"

    def op_prose_edit(self) -> str:
        path = self.rng.choice(self.files("knobs", ".yaml"))
        path.write_text(re.sub(r"^summary: .*$", f"summary: Edited {self.rng.randrange(100)}.", path.read_text(),
                               count=1, flags=re.MULTILINE))
        return f"prose edit of {path.name}"

    def op_hypothesis_added(self) -> str:
        path = self.rng.choice(self.files("incidents", ".yaml"))
        n = self.rng.randrange(100)
        text = path.read_text().replace("hypotheses:\n", f"hypotheses:\n  - id: extra-{n}\n    statement: Extra.\n"
                                                         f"    status: {self.rng.choice(('open', 'refuted'))}\n", 1)
        path.write_text(text)
        return f"hypothesis added to {path.name}"

    def op_record_added(self) -> str:
        n = self.rng.randrange(6, 12)
        self.write(f"knobs/knob-{n}.yaml", _knob(n, self.rng, None))
        return f"knob-{n} added"

    def op_record_removed(self) -> str:
        path = self.rng.choice(self.files("knobs", ".yaml"))
        path.unlink()
        return f"{path.name} removed"

    def op_record_renamed(self) -> str:
        path = self.rng.choice(self.files("knobs", ".yaml"))
        target = path.with_name(f"moved-{self.rng.randrange(100)}.yaml")
        if self.rng.random() < 0.5:
            self.git(self.root, "mv", str(path), str(target))
        else:
            path.rename(target)
        return f"{path.name} renamed to {target.name}"

    def op_doc_edit(self) -> str:
        rng = self.rng
        choice = rng.random()
        if choice < 0.5:
            path = rng.choice(self.files("docs", ".md"))
            path.write_text(path.read_text() + f"\nAlso TEAM_KNOB_{rng.randrange(6)}_BLOCKS.\n")
            return f"doc {path.name} edited"
        if choice < 0.8:
            n = rng.randrange(10)
            self.write(f"docs/more/doc-{n}.md",
                       f"# More {n}\n\nknob-{rng.randrange(6)} and incident-{rng.randrange(3)}.\n")
            return f"doc more/doc-{n}.md written"
        path = rng.choice(self.files("docs", ".md"))
        path.unlink()
        return f"doc {path.name} removed"

    def op_outside_doc(self) -> str:
        """A doc outside docs/ that a record lists under `docs`: listed, edited, or removed."""
        guide = self.root / "runbooks/guide.md"
        choice = self.rng.random()
        if choice < 0.4 or not guide.exists():
            self.write("runbooks/guide.md", f"# Guide\n\nknob-{self.rng.randrange(6)} matters.\n"
                                            f"{self.rng.randrange(100)}\n")
        elif choice < 0.8:
            path = self.rng.choice(self.files("knobs", ".yaml"))
            if "\ndocs:" not in path.read_text():
                path.write_text(path.read_text().replace("\nhistory:", "\ndocs: [runbooks/guide.md]\nhistory:", 1))
        else:
            guide.unlink()
        return "runbooks/guide.md"

    def op_linked_record(self) -> str:
        """A record file that is a link to a file elsewhere in the repository, made or its target edited."""
        link, target = self.root / "knobs/linked.yaml", self.root / "shared/linked.yaml"
        if not target.exists():
            self.write("shared/linked.yaml", _knob(20, self.rng, None).replace("knob-20", "linked"))
        elif self.rng.random() < 0.5:
            target.write_text(re.sub(r"^value: \d+$", f"value: {self.rng.choice((1, 2, 3))}", target.read_text(),
                                     count=1, flags=re.MULTILINE))
        if not link.is_symlink() and not link.exists():
            link.symlink_to("../shared/linked.yaml")
        return "knobs/linked.yaml"

    def op_linked_folder(self) -> str:
        """A folder of records reached through a link (followed inside the repository; a finding when
        it leads out, nowhere or back), made, pointed elsewhere, or a record behind it edited."""
        link, target = self.root / "knobs/team", self.root / "shared/team/team-knob.yaml"
        if not target.exists() or self.rng.random() < 0.4:
            value = self.rng.choice(("1", "2", "[3]"))  # [3]: an invalid record behind the link
            self.write("shared/team/team-knob.yaml", re.sub(r"^value: \d+$", f"value: {value}", _knob(
                21, self.rng, None).replace("knob-21", "team-knob"), count=1, flags=re.MULTILINE))
        if link.is_symlink() or self.rng.random() < 0.5:
            link.unlink(missing_ok=True)
            link.symlink_to(self.rng.choice(("../shared/team", "../shared/team", str(self.folder), "gone", ".")))
        return "knobs/team linked"

    def op_deploy_edit(self) -> str:
        path = self.root / "deploy/svc.sh"
        if not path.is_file():
            raise Skip("no deploy file")
        n = self.rng.randrange(3)
        text = re.sub(rf"TEAM_KNOB_{n}_BLOCKS=\d+", f"TEAM_KNOB_{n}_BLOCKS={self.rng.choice((256, 512))}",
                      path.read_text())
        path.write_text(text)
        return "deploy file edited"

    def op_link(self) -> str:
        link = self.root / "docs/ops"
        if link.is_symlink() or link.exists():
            if link.is_symlink():
                link.unlink()
            else:
                shutil.rmtree(link)
        if self.rng.random() < 0.7:
            link.symlink_to(self.rng.choice(("../deploy", "../knobs", "../nowhere")))
        return "docs/ops relinked"

    def op_today(self) -> str:
        """The date rules count from moves (a revert becomes overdue, a review date passes)."""
        day = f"2026-{self.rng.choice(('10-20', '11-08', '12-30'))}"
        self.environment["KB_TODAY"] = day
        return f"today is {day}"

    def op_pyproject(self) -> str:
        rng = self.rng
        self.write("pyproject.toml", "[tool.incident-kb]\n"
                   f"revert-overdue-days = {rng.choice((1, 14, 400))}\n[tool.incident-kb.severity]\n"
                   f"stale-doc = \"{rng.choice(('error', 'warning', 'off'))}\"\n")
        return "pyproject.toml written"

    def op_chmod(self) -> str:
        """Every doc made executable, or not (a mode change is a change to git, unless core.fileMode is off)."""
        mode = self.rng.choice((0o644, 0o755))
        for path in self.files("docs", ".md"):
            path.chmod(mode)
        return f"docs' mode {mode:o}"

    def op_touch(self) -> str:
        path = self.rng.choice(self.files("docs", ".md") + self.files("knobs", ".yaml"))
        os.utime(path)
        return f"{path.name} touched"

    def op_commit(self) -> str:
        self.git(self.root, "add", "-A")
        self.git(self.root, "commit", "-q", "--allow-empty", "-m", "work")
        return "commit"

    def op_stage_some(self) -> str:
        path = self.rng.choice(self.files("knobs", ".yaml") + self.files("docs", ".md"))
        self.git(self.root, "add", str(path))
        return f"{path.name} staged"

    def op_amend(self) -> str:
        self.git(self.root, "add", "-A")
        self.git(self.root, "commit", "-q", "--amend", "-m", "amended")
        return "amend"

    def op_reset(self) -> str:
        mode = self.rng.choice(("--soft", "--mixed", "--hard"))
        self.git(self.root, "reset", "-q", mode, "HEAD~1")
        return f"reset {mode} HEAD~1"

    def op_branch(self) -> str:
        """Switch to another branch (made at an earlier commit), or back."""
        current = self.git(self.root, "symbolic-ref", "-q", "--short", "HEAD", check=False).strip()
        self.git(self.root, "stash", "-q", "-u", check=False)
        if current == "side":
            self.git(self.root, "checkout", "-q", "main" if self.root == self.main else f"wt-{self.root.name}")
        else:
            self.git(self.root, "checkout", "-q", "-B", "side", self.rng.choice(("HEAD~1", "HEAD~2", "HEAD")))
        return "checkout"

    def op_rebase(self) -> str:
        self.op_commit()
        base = self.rng.choice(("HEAD~2", "HEAD~3"))
        self.git(self.root, "rebase", "-q", "--onto", base, "HEAD~1", check=False)
        self.git(self.root, "rebase", "--abort", check=False)  # a conflict: as it was
        return f"rebase onto {base}"

    def op_merge(self) -> str:
        self.op_commit()
        self.git(self.root, "branch", "-f", "other", "HEAD~2")
        self.git(self.root, "checkout", "-q", "other")
        self.op_material_edit()
        self.op_commit()
        self.git(self.root, "checkout", "-q", "-")
        self.git(self.root, "merge", "-q", "--no-edit", "-X", "theirs", "other", check=False)
        self.git(self.root, "merge", "--abort", check=False)
        return "merge"

    def op_stash(self) -> str:
        if self.rng.random() < 0.5:
            self.git(self.root, "stash", "-q", "-u")
            return "stash"
        self.git(self.root, "stash", "pop", "-q")
        return "stash pop"

    def op_shallow(self) -> str:
        depth = self.rng.choice(("1", "2", "3"))
        self.git(self.root, "fetch", "-q", "--depth", depth, "origin")
        return f"shallow, depth {depth}"

    def op_unshallow(self) -> str:
        if self.git(self.root, "rev-parse", "--is-shallow-repository").strip() != "true":
            raise Skip("not shallow")
        self.git(self.root, "fetch", "-q", "--unshallow", "origin")
        return "unshallow"

    def op_worktree(self) -> str:
        """Check another worktree of the same repository (made on first use), or the main one again."""
        if self.root != self.main or self.rng.random() < 0.3:
            self.root = self.main
            return "back to the main worktree"
        if not self.worktrees:
            where = self.folder / f"wt{len(self.worktrees)}"
            self.git(self.main, "worktree", "add", "-q", "-b", f"wt-{where.name}", str(where), "HEAD")
            self.worktrees.append(where)
        self.root = self.rng.choice(self.worktrees)
        return f"worktree {self.root.name}"

    def op_config(self) -> str:
        """A setting at one of git's levels: the repository's (its common folder), the user's (two
        files), the system's, or the environment's."""
        key = self.rng.choice([*self.config_keys, *(k for k in ("core.fileMode", "core.autocrlf")
                                                    if k in self.config_keys)])  # those two change most
        now = self.git(self.root, "config", "--get", key, check=False).strip()
        value = self.rng.choice([v for v in CONFIG_KEYS[key] if v != now] or CONFIG_KEYS[key])  # a change
        level = self.rng.choice(self.config_levels)
        files = {"global-home": self.home / ".gitconfig", "global-xdg": self.xdg / "git/config", "system": self.system}
        if level == "local":
            self.git(self.root, "config", key, value)
        elif level in files:
            self.git(self.root, "config", "--file", str(files[level]), key, value)
        elif level == "environment":
            self.environment.update({"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": key, "GIT_CONFIG_VALUE_0": value})
        else:
            self.environment.pop("GIT_CONFIG_COUNT", None)
            for where in (*files.values(), None):
                self.git(self.root, "config", *(("--file", str(where)) if where else ()), "--unset-all", key,
                         check=False)
            return f"{key} unset everywhere"
        if key == "core.excludesFile":
            (self.home / "ignored-by-me").write_text(self.rng.choice(("doc-1.md\n", "knob-4.yaml\n", "")))
        return f"{key}={value} ({level})"

    def op_attributes(self) -> str:
        where = self.rng.choice((".gitattributes", "docs/.gitattributes", ".git/info/attributes",
                                 "xdg-config/git/attributes"))
        path = self.folder / where if where.startswith("xdg") else self.root / where
        if where.startswith(".git/"):
            common = self.git(self.root, "rev-parse", "--git-common-dir").strip()
            path = (self.root / common / "info/attributes").resolve()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.rng.choice((*ATTRIBUTES, "")))
        return f"attributes in {where}"

    def op_crlf(self) -> str:
        """Every doc's line ends made CRLF, or LF (a change to git, unless autocrlf or attributes say not)."""
        crlf = self.rng.random() < 0.5
        for path in self.files("docs", ".md"):
            text = path.read_bytes().replace(b"\r\n", b"\n")
            path.write_bytes(text.replace(b"\n", b"\r\n") if crlf else text)
        return f"docs' line ends {'CRLF' if crlf else 'LF'}"


    # ---- issue 29: what git reads that kb does not -----------------------------------------------------

    def op_alternate_index(self) -> str:
        """git (and kb) use another index (GIT_INDEX_FILE, as hooks set it): a record staged in it, or back."""
        if "GIT_INDEX_FILE" in self.environment and self.rng.random() < 0.3:
            del self.environment["GIT_INDEX_FILE"]
            return "the repository's index again"
        index = self.folder / "alternate-index"
        if "GIT_INDEX_FILE" not in self.environment:
            common = self.git(self.root, "rev-parse", "--path-format=absolute", "--git-path", "index").strip()
            if Path(common).exists():
                shutil.copy(common, index)
            self.environment["GIT_INDEX_FILE"] = str(index)
        path = self.rng.choice(self.files("knobs", ".yaml"))
        self.git(self.root, "add", "-A", str(path.parent))
        return f"{path.parent.name}/ staged in an alternate index"

    def op_unread_file(self) -> str:
        """A file kb does not read, beside the records or docs, given a record's content (git pairs a
        deleted record with it) or other text."""
        where = self.rng.choice(("knobs/notes.txt", "docs/twin.txt"))
        source = self.rng.choice(self.files("knobs", ".yaml"))
        self.write(where, source.read_text() if self.rng.random() < 0.6 else f"notes {self.rng.randrange(9)}\n")
        if self.rng.random() < 0.3:
            source.unlink()
        return f"{where} written"

    def op_relative_attributes(self) -> str:
        """core.attributesFile or core.excludesFile as a relative path (read from the top of the work tree),
        the file edited, and kb run from a subfolder or from the top."""
        key, name = self.rng.choice((("core.attributesFile", "my-attributes"), ("core.excludesFile", "my-excludes")))
        self.git(self.root, "config", key, name)
        text = self.rng.choice(ATTRIBUTES) if "attributes" in key else self.rng.choice(("doc-1.md\n", "*.txt\n", ""))
        (self.root / name).write_text(text)
        self.cwd = self.rng.choice((None, self.root / "docs", self.folder))
        return f"{key}={name}"


OPERATIONS: dict[str, Callable[[World], str]] = {
    name.removeprefix("op_"): function for name, function in vars(World).items() if name.startswith("op_")}


def _shown(found: tuple[int, str, str]) -> str:
    code, out, err = found
    return f"exit {code}\nstdout:\n{out}stderr:\n{err}"


# ---- random sequences of operations, each followed by a comparison -------------------------------------

STEPS = 40  # a world's sequence; then a new world with the next seed
PALETTE = 4  # each world draws from a few kinds of operation (swarm testing: interactions come up more often)
ALWAYS = ("material_edit", "doc_edit", "commit")  # what makes findings for the others to move


def run_sequences(folder, seconds: float, operations: tuple[str, ...] | None = None, first_seed: int = 0,
                  max_steps: int | None = None, modes: bool = True,
                  config: tuple[tuple[str, ...], tuple[str, ...]] | None = None) -> tuple[str | None, int]:
    """Random sequences until the budget is spent (or `max_steps`): the first difference found, with
    its seed and the operations before it, and how many comparisons were made. Each world draws from
    `operations`, or else from a palette of its own: a few kinds of operation and the edits."""
    deadline = time.monotonic() + seconds
    compared, seed = 0, first_seed
    while time.monotonic() < deadline and (max_steps is None or compared < max_steps):
        world = World(folder / f"seed-{seed}", seed)
        world.modes = modes
        if config is not None:  # the keys and levels op_config draws from
            world.config_keys, world.config_levels = config
        palette = operations or (*world.rng.sample(sorted(OPERATIONS), PALETTE), *ALWAYS)
        done: list[str] = []
        for _ in range(STEPS):
            name = world.rng.choice(palette)
            try:
                done.append(OPERATIONS[name](world))
            except Skip:
                continue
            difference = world.compare()
            compared += 1
            if difference is not None:
                return f"seed {seed}, after: {'; '.join(done)}\n{difference}", compared
            if time.monotonic() > deadline or (max_steps is not None and compared >= max_steps):
                break
        seed += 1
    return None, compared
