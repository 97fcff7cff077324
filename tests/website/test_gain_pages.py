"""What the pages say about gains, from the same verdicts the check uses: runs, spread, the interval
and its method, provenance; gains measured at another value shown as history and never claimed;
noise said as noise; and the home page's ledger of restores, verified or not."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from incident_kb.check.pipeline import CheckMode, check_knowledge_base
from incident_kb.website.core.pages import render_site

from ..conftest import REPO, SEED_KNOB, break_seed_story, edit
from .test_render import KNOB_PAGE, SETTINGS

KNOB = "sglang-sm120-mma-target-ctas"
FIXTURES = REPO / "tests" / "fixtures" / "benchmarks"


def pages(root: Path, today: str = "2026-11-08") -> dict[str, str]:
    from datetime import date

    return render_site(check_knowledge_base(root, CheckMode(today=date.fromisoformat(today))), SETTINGS).files


def gains_section(page: str) -> str:
    return page[page.index("## Gains"):page.index("## Suspected in incidents")]


def import_runs(kb, root: Path, *extra: str) -> None:
    shutil.copy(FIXTURES / "sglang-ctas.jsonl", root / "runs.jsonl")
    result = kb("measurement", "import", KNOB, root / "runs.jsonl", "--metric", "output_throughput", "--baseline",
                "ctas-256", "--candidate", "ctas-512", "--condition", "concurrency=max_concurrency", "--date",
                "2026-11-09", *extra, "--root", root)
    assert result.code == 0, result.err


def test_the_story_page_says_its_gains_are_single_figures(seed_kb):
    section = gains_section(pages(seed_kb)[KNOB_PAGE])
    assert section.count("</span><br>too few runs for an interval<br>1 run, no spread |") == 2
    assert "**95% interval:** exact bootstrap" in section  # the method, named
    assert "A single figure from the account; its runs, spread, host and build were not recorded." in section
    assert "| <code>512</code> vs <code>256</code><br>concurrency 64 |" in section  # the value measured, against


def test_imported_runs_show_medians_spread_interval_runs_and_provenance(kb, seed_kb):
    import_runs(kb, seed_kb, "--host", "8x RTX PRO 6000 (decode on GPU4-7)")
    section = gains_section(pages(seed_kb)[KNOB_PAGE])
    row = next(line for line in section.splitlines() if line.startswith("| output\\_throughput |")
               and "<br>concurrency 80 |" in line)
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    assert cells[1] == "<code>512</code> vs <code>256</code><br>concurrency 80"
    # each side's median, then their ranges
    assert cells[2].startswith("2660 \u2192 2911 tok/s<br>"
                               "<span class=\"kb-spread\">2630\u20132682 \u2192 2895\u20132916")
    assert cells[3] == '<span class="kb-badge kb-gain-better">+9.5%</span><br>+8.5% to +10.7%<br>5 runs vs 5 runs'
    assert ("**output\\_throughput, concurrency 80:** host 8x RTX PRO 6000 (decode on GPU4-7); software sglang "
            "0.5.4.post1; imported from <code>runs.jsonl</code>") in section


def test_gains_measured_at_another_value_are_history_never_claimed(kb, seed_kb):
    edit(seed_kb / "deploy/decode.sh", "=512\n", "=768\n")
    assert kb("set", KNOB, "768", "--date", "2026-11-08", "--root", seed_kb).code == 0
    site = pages(seed_kb)
    page, home, index = site[KNOB_PAGE], site["index.md"], site["knobs/index.md"]
    assert "**Gains:** none measured at 768 (2 measured at other values: history, not claimed)" in page
    assert gains_section(page).count('<code>512</code> vs <code>256</code> '
                                     '<span class="kb-badge kb-gain-history">history</span>') == 2
    assert "measured at 512, not at the current 768: history, never claimed for the current value" in page
    assert "+12.8%" not in home and "+12.8%" not in index  # neither the ledger nor the best gain claims them
    assert "no measured gain on record" in home


def test_noise_is_said_as_noise_on_the_page_and_in_the_ledger(kb, seed_kb):
    break_seed_story(seed_kb)
    text = (seed_kb / SEED_KNOB).read_text()
    start, end = text.index("measurements:\n"), text.index("history:\n")
    (seed_kb / SEED_KNOB).write_text(
        text[:start] + "measurements:\n  - metric: output throughput\n    conditions: {concurrency: 64}\n"
        "    baseline_runs: [100, 103, 98, 101, 99]\n    runs: [101, 97, 102, 100, 104]\n" + text[end:])
    site = pages(seed_kb)
    assert "+1.0%</span><br>not distinguishable from noise" in site[KNOB_PAGE]
    assert "not distinguishable from noise: its 95% interval, \u22123.0% to +4.1%, includes zero" in site[KNOB_PAGE]
    home = site["index.md"]
    ledger = home[home.index("### Reclaimable performance"):home.index("### Findings")]
    assert "nothing distinguishable from noise (+1.0% output throughput at concurrency 64" in ledger
    assert "reclaims +1.0%" not in home


@pytest.mark.parametrize("today, measured, state", [
    ("2026-11-08", None, "restored, not yet verified (due 2026-11-14)"),
    ("2026-12-01", None, "restored, not yet verified (due 2026-11-14)"),
    ("2026-12-01", "runs", "reclaimed, verified on 2026-11-09"),
    ("2026-12-01", "noise", "restored; measured on 2026-11-09: not distinguishable from noise"),
])
def test_the_ledger_separates_verified_restores_from_the_others(kb, seed_kb, today, measured, state):
    if measured == "runs":
        import_runs(kb, seed_kb)
    if measured == "noise":
        (seed_kb / "noise.csv").write_text("label,tps\na,100\na,103\na,98\nb,101\nb,97\nb,102\n")
        assert kb("measurement", "import", KNOB, seed_kb / "noise.csv", "--metric", "tps", "--baseline", "a",
                  "--candidate", "b", "--date", "2026-11-09", "--root", seed_kb).code == 0
    home = pages(seed_kb, today)["index.md"]
    ledger = home[home.index("## Restored knobs"):home.index("## Knobs")]
    css = {None: "unverified", "runs": "verified", "noise": "not-reproduced"}[measured]
    assert f'<span class="kb-badge kb-restore-{css}">{state}</span>' in ledger


def _separator(path: Path) -> str:
    import re

    found = re.search(r"^\s*separator: '(.*)'$", path.read_text(encoding="utf-8"), re.MULTILINE)
    assert found, f"no search separator in {path}"
    return found.group(1)


def test_the_knob_is_found_by_a_gains_number(seed_kb):
    """Search splits on the sign and percent around a gain: '12.8' is a word of the knob's page
    (the browser's own search: tests/website/test_gain_search.py)."""
    import re

    separator = _separator(REPO / "mkdocs.yml")
    # kb init writes the same
    assert _separator(REPO / "generator/incident_kb/adoption/starter/mkdocs.yml") == separator
    page = pages(seed_kb)[KNOB_PAGE]
    words = re.split(separator, re.sub(r"<[^>]+>", " ", page))
    assert "12.8" in words and "5.7" in words
    assert "+12.8%" not in words


@pytest.mark.parametrize("unit, baseline_runs, runs, shown", [
    ("s", "0.018391, 0.018142, 0.018744", "0.016381, 0.016174, 0.016625", "18.39 \u2192 16.38 ms"),
    ("s", "1.84, 1.803, 1.877", "1.643, 1.616, 1.663", "1.84 \u2192 1.643 s"),
    ("ms", "0.0021, 0.0022, 0.0023", "0.0019, 0.0018, 0.002", "2.2 \u2192 1.9 \u00b5s"),
    ("us", "950, 960, 970", "1200, 1210, 1190", "960 \u2192 1200 \u00b5s"),
    ("s", "0.000000020, 0.000000021, 0.000000022", "0.000000018, 0.000000017, 0.000000019", "21 \u2192 18 ns"),
    ("tok/s", "0.5, 0.6, 0.7", "0.8, 0.9, 1.0", "0.6 \u2192 0.9 tok/s"),  # not a time: as recorded
])
def test_times_are_said_in_a_unit_that_reads(seed_kb, unit, baseline_runs, runs, shown):
    text = (seed_kb / SEED_KNOB).read_text()
    start, end = text.index("measurements:\n"), text.index("history:\n")
    (seed_kb / SEED_KNOB).write_text(
        text[:start] + f"measurements:\n  - metric: decode step time\n    higher_is_better: false\n    unit: {unit}\n"
        f"    baseline_runs: [{baseline_runs}]\n    runs: [{runs}]\n" + text[end:])
    assert f"| {shown}<br>" in gains_section(pages(seed_kb)[KNOB_PAGE])
