"""The code passes ruff's lint rules (configured in pyproject.toml's [tool.ruff]; `make lint`)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from ..conftest import REPO

pytestmark = pytest.mark.slow  # with mypy (tests/architecture/test_types.py): left out of `make test-fast`

# All the Python in the repository: the package, the bench scripts and the tests (F811 is off for tests/
# in pyproject.toml: a fixture imported from another test module is used as a parameter of its name).
LINTED = ("generator", "bench", "tests")


def test_code_passes_ruff():
    proc = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", *LINTED], cwd=REPO,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
