"""Material's search in headless Chromium finds a knob by the number of one of its gains: '12.8'
finds the page that says '+12.8%' (the search separator splits on the sign and the percent)."""

from __future__ import annotations

import pytest

from .test_browser import browser, visit  # noqa: F401 - fixtures

pytestmark = pytest.mark.slow  # a real browser on a real build: left out of `make test-fast`


@pytest.mark.parametrize("query", ["12.8", "5.7", "+12.8%"])
def test_a_gains_number_finds_the_knob_page(visit, query):
    visit.open("")
    assert visit.search(query)[0] == "/knobs/sglang-sm120-mma-target-ctas/"
