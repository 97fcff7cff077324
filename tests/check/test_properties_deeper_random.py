"""The deeper run of tests/check/test_properties.py's random records (slow): a file of its own, so the
full suite (--dist loadfile) runs it beside the other deep property instead of after it."""

from __future__ import annotations

import pytest
from hypothesis import given

from .test_properties import DEEPER, RECORDS, _random_records_end_in_findings

test_random_records_end_in_findings_deeper = pytest.mark.slow(
    DEEPER(given(RECORDS, RECORDS)(_random_records_end_in_findings)))
