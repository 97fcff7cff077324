"""Times say their zone, one way everywhere (issue 21): as the record wrote it
(2021-10-30 15:51:00 -07:00), or UTC and labelled so; a review_by deadline counts in the record's own
zone; `kb refute`, `kb confirm` and `kb evidence add` take --date and keep its zone."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta, timezone

import pytest

from incident_kb.records.verdicts import day_of
from incident_kb.wording import day

from ..conftest import SEED_INCIDENT, SEED_KNOB, edit
from ..rules.test_rules import _seed_mid_investigation

KNOB = "sglang-sm120-mma-target-ctas"
INCIDENT = "multi-round-harness-hang"
HYP = "target-ctas-causes-hang"
PROXY = "client-proxy-fault"
PACIFIC = timezone(timedelta(hours=-7))


def found(kb, root, *extra):
    result = kb("check", "--root", root, "--format", "json", *extra)
    return {f["code"]: f for f in json.loads(result.out)["findings"]}


@pytest.mark.parametrize("moment, text", [
    (date(2026, 11, 5), "2026-11-05"),
    (datetime(2021, 10, 30, 15, 51, tzinfo=PACIFIC), "2021-10-30 15:51:00 -07:00"),
    (datetime(2021, 10, 30, 15, 51, tzinfo=timezone(timedelta(hours=5, minutes=30))), "2021-10-30 15:51:00 +05:30"),
    (datetime(2021, 10, 30, 22, 51, tzinfo=UTC), "2021-10-30 22:51:00 UTC"),
    (datetime(2021, 10, 30, 22, 51), "2021-10-30 22:51:00 UTC"),  # no zone written: UTC, labelled
])
def test_one_format_with_its_zone(moment, text):
    assert day(moment) == text


def test_a_revert_written_in_its_zone_is_said_in_that_zone(kb, seed_kb):
    _seed_mid_investigation(seed_kb)
    edit(seed_kb / SEED_KNOB, "  - date: 2026-11-04\n    status: reverted\n",
         "  - date: 2026-11-04T15:51:00-07:00\n    status: reverted\n")
    messages = " ".join(f["message"] for f in found(kb, seed_kb, "--today", "2026-11-30").values())
    assert "reverted on 2026-11-04 15:51:00 -07:00" in messages
    assert "22:51" not in messages and "T15:51" not in messages


def test_review_by_counts_in_the_records_own_zone(kb, seed_kb):
    # 17:00 at -08:00 is 01:00 the next day in UTC: the deadline is still the 10th.
    _seed_mid_investigation(seed_kb)
    edit(seed_kb / SEED_KNOB, "    hypothesis: target-ctas-causes-hang\n",
         "    hypothesis: target-ctas-causes-hang\n    review_by: 2026-11-10T17:00:00-08:00\n")
    assert "revert-overdue" not in found(kb, seed_kb, "--today", "2026-11-10")
    overdue = found(kb, seed_kb, "--today", "2026-11-11")["revert-overdue"]["message"]
    assert "1 day past its review_by date 2026-11-10" in overdue


def test_the_day_of_a_moment_is_its_own_day():
    assert day_of(datetime(2026, 11, 10, 17, 0, tzinfo=timezone(timedelta(hours=-8)))) == date(2026, 11, 10)
    assert day_of(datetime(2026, 11, 10, 23, 30, tzinfo=timezone(timedelta(hours=5)))) == date(2026, 11, 10)


def test_times_in_different_zones_are_ordered_by_their_moment(kb, seed_kb):
    # 23:30 at -05:00 on the 5th is 04:30 UTC on the 6th: after 20:25 UTC on the 5th, before the 7th.
    edit(seed_kb / SEED_INCIDENT, "  - at: 2026-11-05T20:25:00\n", "  - at: 2026-11-05T23:30:00-05:00\n")
    assert "date-order" not in found(kb, seed_kb)
    edit(seed_kb / SEED_INCIDENT, "  - at: 2026-11-05T23:30:00-05:00\n", "  - at: 2026-11-05T23:30:00+05:00\n")
    assert "date-order" not in found(kb, seed_kb)  # 18:30 UTC on the 5th: still after the 5th's midnight
    edit(seed_kb / SEED_INCIDENT, "  - at: 2026-11-05T23:30:00+05:00\n", "  - at: 2026-11-05T01:30:00+05:00\n")
    order = found(kb, seed_kb)["date-order"]["message"]  # 20:30 UTC on the 4th: before the 5th above it
    assert "timeline[4].at is 2026-11-05 01:30:00 +05:00, before 2026-11-05 above it" in order


def test_refute_takes_a_date_and_keeps_its_zone(kb, seed_kb):
    _seed_mid_investigation(seed_kb)
    result = kb("refute", INCIDENT, HYP, "--date", "2026-11-07T09:15:00-07:00", "--root", seed_kb)
    assert result.code == 0, result.err
    assert f"hypothesis '{HYP}' refuted (2026-11-07 09:15:00 -07:00)" in result.out
    text = (seed_kb / SEED_INCIDENT).read_text()
    assert "    status: refuted\n    decided: 2026-11-07T09:15:00-07:00\n" in text


def test_confirm_takes_a_date_without_resolving(kb, seed_kb):
    _seed_mid_investigation(seed_kb)
    result = kb("confirm", INCIDENT, PROXY, "--date", "2026-11-07T10:00:00+02:00", "--root", seed_kb)
    assert result.code == 0, result.err
    assert f"hypothesis '{PROXY}' confirmed (2026-11-07 10:00:00 +02:00)" in result.out
    text = (seed_kb / SEED_INCIDENT).read_text()
    assert "    status: confirmed\n    decided: 2026-11-07T10:00:00+02:00\n" in text
    assert "\nstatus: open\n" in text  # not resolved: --date alone does not resolve it


def test_evidence_takes_a_zoned_date(kb, seed_kb):
    _seed_mid_investigation(seed_kb)
    result = kb("evidence", "add", INCIDENT, HYP, "--kind", "observation", "--stance", "against", "--text",
                "Still hanging.", "--date", "2026-11-05T21:00:00-07:00", "--root", seed_kb)
    assert result.code == 0, result.err
    assert "(2026-11-05 21:00:00 -07:00)" in result.out
    assert "        date: 2026-11-05T21:00:00-07:00\n" in (seed_kb / SEED_INCIDENT).read_text()
    candidate = found(kb, seed_kb)["restore-candidate"]["message"]
    assert "'Still hanging.' (2026-11-05 21:00:00 -07:00, observation)" in candidate


def test_without_a_date_refute_writes_no_decided(kb, seed_kb):
    _seed_mid_investigation(seed_kb)
    assert kb("refute", INCIDENT, HYP, "--root", seed_kb).code == 0
    assert "decided:" not in (seed_kb / SEED_INCIDENT).read_text().split(f"id: {PROXY}")[0]


def test_a_page_shows_the_zone_as_written(seed_kb):
    from incident_kb.check.pipeline import check_knowledge_base
    from incident_kb.website.core.links import SiteSettings
    from incident_kb.website.core.pages import render_site

    edit(seed_kb / SEED_INCIDENT, "  - at: 2026-11-05T20:25:00\n", "  - at: 2026-11-05T13:25:00-07:00\n")
    pages = render_site(check_knowledge_base(seed_kb), SiteSettings(site_name="kb", docs_dir="docs", edit_base=None))
    page = pages.files[f"incidents/{INCIDENT}.md"]
    assert '<span class="kb-nowrap">13:25:00 -07:00</span>' in page
    assert "20:25" not in page
