"""Golden files: expected output kept under tests/golden/ (command output, rendered pages),
compared with a readable diff. The one way to accept new output everywhere, the guide's examples
included: run `UPDATE_GOLDEN=1 make test`, then review the diff (`git diff tests/ docs/`) before
committing it.
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

GOLDEN = Path(__file__).resolve().parent / "golden"


def updating() -> bool:
    """Whether this run rewrites expected output instead of comparing with it."""
    return bool(os.environ.get("UPDATE_GOLDEN"))


def assert_golden(name: str, actual: str) -> None:
    path = GOLDEN / name
    if updating():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(actual)
        return
    assert path.is_file(), f"no golden file {path}; run with UPDATE_GOLDEN=1 to create it"
    expected = path.read_text()
    if actual != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), actual.splitlines(True),
                                            f"golden/{name}", "actual"))
        raise AssertionError(f"output differs from tests/golden/{name} (UPDATE_GOLDEN=1 to accept):\n{diff}")


def file_diff(before: dict[str, str], after: dict[str, str]) -> str:
    """Unified diffs of the files that changed between two snapshots (path -> text)."""
    parts = []
    for rel in sorted(set(before) | set(after)):
        old, new = before.get(rel), after.get(rel)
        if old != new:
            parts.append("".join(difflib.unified_diff(
                (old or "").splitlines(True), (new or "").splitlines(True),
                rel if old is not None else "/dev/null", rel if new is not None else "/dev/null", n=2)))
    return "".join(parts)


def snapshot(root: Path, folders: tuple[str, ...] = ("knobs", "incidents", "deploy")) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): p.read_text() for folder in folders
            for p in sorted((root / folder).rglob("*")) if p.is_file()}
