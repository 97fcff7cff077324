"""Shared fixtures: a copy of the seed knowledge base (tests/fixtures/seed: the seed story's records,
docs and deploy files, its own files, apart from this repository's demo records) in a temporary
folder, a cache folder of its own for every test, and an in-process runner for the `kb` command."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

from incident_kb.cli import main


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto` (`make test`, `make test-fast`): one worker more than cores. The tests wait on the
    git, kb, MkDocs and browser processes they start for a fifth of the time or more, and one more
    worker fills that: on two cores test-fast 65.6 s to 59.4 s, the whole suite 402.8 s to 343.8 s
    (the same CPU, the same hour)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return cores + 1


REPO = Path(__file__).resolve().parent.parent
SEED = REPO / "tests" / "fixtures" / "seed"  # the seed story: records, docs, deploy files, mkdocs.yml
SEED_FOLDERS = ("knobs", "incidents", "docs", "deploy")
KB_FOLDERS = (*SEED_FOLDERS, "schemas")  # the schemas are generated: this repository's own
SEED_KNOB = "knobs/sglang-sm120-mma-target-ctas.yaml"
SEED_INCIDENT = "incidents/multi-round-harness-hang.yaml"


STORY_TODAY = "2026-11-08"  # the day after the seed story ends


def one_fast(values, fast=None) -> list:
    """A heavy matrix's cases for `pytest.mark.parametrize`: one (the first, or `fast`) runs in
    `make test-fast`, the rest are marked slow and run in the full suite. Ids are the plain values'."""
    values = list(values)
    keep = values[0] if fast is None else fast
    assert keep in values, f"{keep!r} is not one of the cases"
    return [pytest.param(*(value if isinstance(value, tuple) else (value,)),
                         marks=() if value == keep else pytest.mark.slow) for value in values]


def copy_seed(root: Path) -> Path:
    """The seed knowledge base copied into `root` (created), with this repository's JSON Schemas."""
    root.mkdir(parents=True, exist_ok=True)
    for folder in SEED_FOLDERS:
        shutil.copytree(SEED / folder, root / folder)
    shutil.copytree(REPO / "schemas", root / "schemas")
    return root


@pytest.fixture(scope="session", autouse=True)
def session_cache_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Builds made once for the session (and the processes they start) use a cache folder of their
    own, never the user's."""
    folder = tmp_path_factory.mktemp("xdg-cache-session")
    saved = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(folder)
    yield folder
    if saved is None:
        os.environ.pop("XDG_CACHE_HOME", None)
    else:
        os.environ["XDG_CACHE_HOME"] = saved


def installed_modules_read_once(scan: Callable[[], dict[str, list[str]]]) -> Callable[[], dict[str, list[str]]]:
    """`importlib.metadata.packages_distributions`, answered once per `sys.path`: it reads every installed
    distribution's RECORD (a third of an in-process `kb init` on a team's own site went there, scanned
    again by every test), and no test installs into the environment it runs in (a test that adds a
    distribution puts it on a new `sys.path` entry, which is scanned afresh). Each call gets its own
    copy, so a caller that changes the answer changes no other's."""
    read = read_once_per_path(scan)

    def packages_distributions() -> dict[str, list[str]]:
        return {module: list(names) for module, names in read().items()}

    packages_distributions.__wrapped__ = scan  # type: ignore[attr-defined]
    return packages_distributions


def read_once_per_path(read: Callable[..., Any]) -> Callable[..., Any]:
    """`read(*args)` answered once per `sys.path` and arguments (see installed_modules_read_once); the
    caller copies a mutable answer. An error is not kept: it is raised again by a fresh read."""
    answers: dict[tuple[object, ...], Any] = {}

    def read_once(*args: Any, **kwargs: Any) -> Any:
        key = (tuple(sys.path), args, tuple(sorted(kwargs.items())))
        if key not in answers:
            answers[key] = read(*args, **kwargs)
        return answers[key]

    read_once.__wrapped__ = read  # type: ignore[attr-defined]
    return read_once


def requirements_read_once(requires: Callable[[str], list[str] | None]) -> Callable[[str], list[str] | None]:
    """`importlib.metadata.requires`, once per `sys.path` and name: `kb init` follows incident-kb's whole
    requirement closure, parsing each distribution's METADATA again in every test (a fifth of an
    in-process `kb init`). Each call gets its own list."""
    read = read_once_per_path(requires)

    def requires_once(name: str) -> list[str] | None:
        found = read(name)
        return None if found is None else list(found)

    requires_once.__wrapped__ = requires  # type: ignore[attr-defined]
    return requires_once


@pytest.fixture(scope="session", autouse=True)
def installed_modules() -> Iterator[None]:
    """The installed distributions scanned once per session (see installed_modules_read_once): the
    modules they provide, their entry points (immutable) and their requirements; the processes tests
    start scan for themselves."""
    saved = metadata.packages_distributions, metadata.entry_points, metadata.requires
    metadata.packages_distributions = installed_modules_read_once(saved[0])
    metadata.entry_points = read_once_per_path(saved[1])  # type: ignore[assignment]
    metadata.requires = requirements_read_once(saved[2])
    yield
    metadata.packages_distributions, metadata.entry_points, metadata.requires = saved


@pytest.fixture(autouse=True)
def cache_home(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every test has its own XDG_CACHE_HOME, outside every repository it makes, like a fresh machine:
    no test reads what another, or the user, cached. The cache is on."""
    folder = tmp_path_factory.mktemp("xdg-cache")
    monkeypatch.setenv("XDG_CACHE_HOME", str(folder))
    monkeypatch.delenv("INCIDENT_KB_CACHE", raising=False)
    return folder


@pytest.fixture(autouse=True)
def fixed_today(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rules that count days (revert-overdue) count from a fixed date, not the clock: a test's
    outcome must not depend on when it runs. Tests about the date itself set their own."""
    monkeypatch.setenv("KB_TODAY", STORY_TODAY)


@pytest.fixture
def user_cache(cache_home: Path) -> Path:
    """kb's folder in this test's user cache folder (its store and crash log go there)."""
    return cache_home / "incident-kb"


@dataclass
class Result:
    code: int
    out: str
    err: str


@pytest.fixture
def seed_kb(tmp_path: Path) -> Path:
    """The seed story's records, docs and deploy files, copied to a fresh folder."""
    return copy_seed(tmp_path / "kb")


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


def interruptible() -> None:
    """`preexec_fn` for a child a test interrupts as Ctrl-C would: SIGINT handled as from a terminal.
    A suite started in the background (`make test &`, some CI runners) ignores SIGINT, children
    inherit that, and Python then never raises KeyboardInterrupt: the interrupt would do nothing."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


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
