"""The package type-checks (STYLE.md: type everything; run mypy on generator/)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from ..conftest import REPO

pytestmark = pytest.mark.slow  # mypy over the package: left out of `make test-fast`


def test_generator_type_checks():
    proc = subprocess.run([sys.executable, "-m", "mypy", "--no-error-summary", "generator"], cwd=REPO,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
