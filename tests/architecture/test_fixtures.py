"""The suite's shared fixtures are made as often as their scope says: a session fixture imported into a
test module is that module's own (pytest reads each module's names as its fixtures), made again for
every module that imports it, so a site built "once for the session" was built once per importing file.
Shared fixtures are declared in a conftest.py, which makes them once."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

from ..conftest import REPO

TESTS = REPO / "tests"


@functools.cache
def _session_fixtures(module: Path) -> set[str]:
    """The names of the functions `module` declares as session fixtures."""
    names = set()
    for node in ast.parse(module.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef):
            for decorator in node.decorator_list:
                if isinstance(decorator, ast.Call) and ast.unparse(decorator.func) == "pytest.fixture" and any(
                        k.arg == "scope" and ast.unparse(k.value) == "'session'" for k in decorator.keywords):
                    names.add(node.name)
    return names


def _imported_from(path: Path, node: ast.ImportFrom) -> Path | None:
    """The file a relative `from ..x import y` in `path` reads, if it is one of the tests' own."""
    if not node.level or not node.module:
        return None
    folder = path.parent
    for _ in range(node.level - 1):
        folder = folder.parent
    found = folder.joinpath(*node.module.split(".")).with_suffix(".py")
    return found if found.is_file() else None


def session_fixtures_imported_into_test_modules(tests: Path = TESTS) -> list[str]:
    """Each `from M import F` in a test module (not a conftest.py) where F is a session fixture of M."""
    found = []
    for path in sorted(tests.rglob("*.py")):
        if path.name == "conftest.py":
            continue
        for node in ast.parse(path.read_text(encoding="utf-8")).body:  # a module's names: its fixtures
            if isinstance(node, ast.ImportFrom) and (source := _imported_from(path, node)):
                fixtures = _session_fixtures(source)
                found += [f"{path.relative_to(tests.parent)}:{node.lineno}: {alias.name}"
                          for alias in node.names if alias.name in fixtures]
    return found


def test_no_test_module_imports_a_session_fixture():
    assert session_fixtures_imported_into_test_modules() == [], "declare it in a conftest.py instead"


def test_an_imported_session_fixture_is_found(tmp_path):
    tests = tmp_path / "tests"
    (tests / "pkg").mkdir(parents=True)
    (tests / "pkg/support.py").write_text("import pytest\n\n\n@pytest.fixture(scope='session')\n"
                                             "def built(tmp_path_factory):\n    return 1\n")
    (tests / "pkg/conftest.py").write_text("from .support import built  # noqa: F401\n")
    (tests / "pkg/test_a.py").write_text("from .support import built as site  # noqa: F401\n")
    assert session_fixtures_imported_into_test_modules(tests) == ["tests/pkg/test_a.py:1: built"]
