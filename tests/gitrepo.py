"""Real temporary git repositories for tests: pinned names, dates, default branch and no global or
system configuration, so every commit id is the same on every machine."""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

GIT_ENV = {
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "Ada Tester",
    "GIT_AUTHOR_EMAIL": "ada@example.invalid",
    "GIT_COMMITTER_NAME": "Ada Tester",
    "GIT_COMMITTER_EMAIL": "ada@example.invalid",
    "GIT_TERMINAL_PROMPT": "0",
}


def git_environment(when: str = "2026-11-01T00:00:00Z", name: str = "Ada Tester",
                    email: str = "ada@example.invalid") -> dict[str, str]:
    """The environment every git command of the tests runs in: this process's, with the identity and
    both dates pinned and no global or system configuration."""
    return {**os.environ, **GIT_ENV, "GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": email, "GIT_COMMITTER_NAME": name,
            "GIT_COMMITTER_EMAIL": email, "GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when}


class GitRepo:
    def __init__(self, root: Path, init: bool = True) -> None:
        self.root = root
        if init:
            root.mkdir(parents=True, exist_ok=True)
            self.git("init", "-q", "-b", "main", f"--template={_template()}")

    def git(self, *args: str, when: str = "2026-11-01T00:00:00Z", check: bool = True,
            input_text: str | None = None) -> str:
        result = subprocess.run(["git", *args], cwd=self.root, env=git_environment(when), capture_output=True,
                                text=True, input=input_text)
        if check and result.returncode != 0:
            raise AssertionError(f"git {' '.join(args)} failed: {result.stderr}")
        return result.stdout.strip()

    def commit(self, message: str, when: str) -> str:
        """Commit everything in the work tree at `when` (ISO 8601); returns the short commit id."""
        self.git("add", "-A")
        # without the `git maintenance run --auto` a commit starts (a process that finds a test's few
        # objects need nothing: a tenth of the git processes of `make test-fast`); the id from what
        # `git commit` says ("[main (root-commit) 1a2b3c4] ..."), abbreviated as `rev-parse --short=7` would
        said = self.git("-c", "maintenance.auto=false", "-c", "core.abbrev=7", "commit", "--allow-empty",
                        "--no-status", "-m", message, when=when)
        header = said.split("\n", 1)[0]
        assert header.startswith("[") and "] " in header, f"git commit said {said!r}"
        return header[1:header.index("] ")].split()[-1]

    def write(self, rel: str, text: str) -> None:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


_TEMPLATES: list[str] = []


def _template() -> str:
    """`git init`'s template without the sample hooks (a dozen files no test runs, over half an init's
    time): git's own info/exclude and description, copied once a process from a repository it made."""
    if not _TEMPLATES:
        made = Path(tempfile.mkdtemp(prefix="git-template-"))
        atexit.register(shutil.rmtree, made, True)
        subprocess.run(["git", "init", "-q", str(made / "repo")], env=git_environment(), capture_output=True,
                       check=True)
        for name in ("info/exclude", "description"):
            (made / "template" / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(made / "repo/.git" / name, made / "template" / name)
        _TEMPLATES.append(str(made / "template"))
    return _TEMPLATES[0]
