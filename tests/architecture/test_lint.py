"""The code passes ruff's lint rules (configured in pyproject.toml's [tool.ruff]; `make lint`)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from ..conftest import REPO

pytestmark = pytest.mark.slow  # with mypy (tests/architecture/test_types.py): left out of `make test-fast`

# tests/ joins the gate once its move into folders has landed.
LINTED = ("generator", "bench")


def test_code_passes_ruff():
    proc = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", *LINTED], cwd=REPO,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
