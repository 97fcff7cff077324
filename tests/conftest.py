"""Shared fixtures: a copy of the repository's own knowledge base in a temporary folder, and an
in-process runner for the `kb` command."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from generator.cli import main

REPO = Path(__file__).resolve().parent.parent
KB_FOLDERS = ("knobs", "incidents", "docs", "deploy", "schemas")
SEED_KNOB = "knobs/sglang-sm120-mma-target-ctas.yaml"
SEED_INCIDENT = "incidents/multi-round-harness-hang.yaml"


STORY_TODAY = "2026-11-08"  # the day after the seed story ends


@pytest.fixture(autouse=True)
def fixed_today(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rules that count days (revert-overdue) count from a fixed date, not the clock: a test's
    outcome must not depend on when it runs. Tests about the date itself set their own."""
    monkeypatch.setenv("KB_TODAY", STORY_TODAY)


@pytest.fixture(autouse=True)
def user_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test has its own user cache folder, outside every repository it makes, like a fresh
    machine (kb keeps its cache there, never in the repository), with the cache on."""
    folder = tmp_path_factory.mktemp("user-cache")
    monkeypatch.setenv("XDG_CACHE_HOME", str(folder))
    monkeypatch.delenv("INCIDENT_KB_CACHE", raising=False)
    return folder / "incident-kb"


@dataclass
class Result:
    code: int
    out: str
    err: str


@pytest.fixture
def seed_kb(tmp_path: Path) -> Path:
    """The repository's own records, docs and deploy files, copied to a fresh folder."""
    root = tmp_path / "kb"
    root.mkdir()
    for folder in KB_FOLDERS:
        shutil.copytree(REPO / folder, root / folder)
    return root


@pytest.fixture
def empty_kb(tmp_path: Path) -> Path:
    root = tmp_path / "kb"
    for folder in ("knobs", "incidents", "docs"):
        (root / folder).mkdir(parents=True)
    return root


@pytest.fixture
def kb(capsys: pytest.CaptureFixture[str]) -> Callable[..., Result]:
    """Run `kb` in-process: kb("check", "--root", path) -> Result(code, out, err)."""

    def run(*args: str | Path) -> Result:
        code = main([str(a) for a in args])
        captured = capsys.readouterr()
        return Result(code, captured.out, captured.err)

    return run


def edit(path: Path, old: str, new: str, count: int = 1) -> None:
    """Replace text in a file, failing loudly when the text is not there (so tests cannot rot)."""
    text = path.read_text()
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, count))


def break_seed_story(root: Path) -> None:
    """The state the product exists to catch: the proxy is confirmed, but the knob is still reverted."""
    knob = root / SEED_KNOB
    text = knob.read_text()
    assert "  - date: 2026-11-07\n    status: restored" in text
    text = text[: text.index("  - date: 2026-11-07\n    status: restored")]
    knob.write_text(text.replace("\nstatus: active\n", "\nstatus: reverted\n"))
    edit(root / "deploy/decode.sh", "export SGLANG_SM120_MMA_TARGET_CTAS=512\n", "")


@pytest.fixture
def git_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Git run in-process (through gitpython) sees no global or system configuration."""
    from .gitrepo import GIT_ENV

    for name, value in GIT_ENV.items():
        monkeypatch.setenv(name, value)
