"""A knob's gain is ranked one way everywhere (records.gain_verdicts.best_told_gain): the home page's
reclaimable ledger, its knobs overview and the knobs index's Best gain column. A gain within noise
is no knob's best: the ledger calls it noise, so the index must not rank it first."""

from __future__ import annotations

import html
import re

from incident_kb.check.pipeline import check_knowledge_base
from incident_kb.website.core.links import SiteSettings
from incident_kb.website.core.pages import render_site

from .test_incident_loop import INCIDENT_A, REVERT_A


def knob(knob_id: str, measurements: str) -> str:
    return f"""\
id: {knob_id}
name: {knob_id.upper()}
summary: Knob {knob_id}.
value: 4
default: 1
status: reverted
measurements:
{measurements}history:
  - date: 2026-09-20
    status: active
    value: 4
{REVERT_A}"""


NOISY = """\
  - metric: throughput
    setting: 4
    baseline_runs: [100, 60, 140, 95, 105]
    runs: [130, 70, 190, 100, 160]
    date: 2026-09-20
"""
CLEAR = """\
  - metric: throughput
    setting: 4
    delta_pct: 10
    date: 2026-09-20
"""
LATENCY = """\
  - metric: p99 latency
    unit: ms
    higher_is_better: false
    setting: 4
    baseline: 420
    value: 310
    date: 2026-09-20
"""


def text(markup: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", markup))


def test_a_gain_within_noise_ranks_below_a_clear_one_on_the_home_page_and_in_the_index(empty_kb):
    (empty_kb / "incidents/inc-a.yaml").write_text(INCIDENT_A)
    (empty_kb / "knobs/noisy.yaml").write_text(knob("noisy", NOISY))
    (empty_kb / "knobs/clear.yaml").write_text(knob("clear", CLEAR))
    (empty_kb / "knobs/latency.yaml").write_text(knob("latency", LATENCY))
    files = render_site(check_knowledge_base(empty_kb), SiteSettings()).markdown
    home = files["index.md"]
    ledger = home[home.index("| Knob | Gains at stake"):]
    overview = home[home.index("| Knob | Status"):]
    order = ["LATENCY", "CLEAR", "NOISY"]  # a 26.2% latency cut (lower is better), +10%, then noise
    for table in (ledger, overview):
        rows = table.split("\n\n")[0].splitlines()[2:]
        assert [re.match(r"\| \[(\w+)\]", row).group(1) for row in rows] == order
    index = {re.search(r"\[(\w+)\]", line).group(1): line for line in files["knobs/index.md"].splitlines()
             if "data-kb-facets" in line}
    best = {name: line.split(" | ")[5] for name, line in index.items()}
    assert text(best["NOISY"]).startswith("within noise: +30.0% throughput")
    assert 'data-sort="0"' in best["NOISY"]  # sorts as no improvement, below +10%
    assert 'data-sort="10.000"' in best["CLEAR"] and 'data-sort="26.190"' in best["LATENCY"]
