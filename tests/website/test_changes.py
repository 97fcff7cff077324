"""What the site calls the last change of a record, and the home page's recent changes."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime

from incident_kb.check.pipeline import check_knowledge_base
from incident_kb.website.core.changes import record_changes

from ..conftest import SEED_INCIDENT, edit


def test_last_change_comes_from_the_records_own_dates(seed_kb):
    log = record_changes(check_knowledge_base(seed_kb).catalog)
    knob = log.last_change("knob", "sglang-sm120-mma-target-ctas")
    # what changed, not only the new status
    assert (knob.when, knob.what) == (date(2026, 11, 7), "reverted -> restored")
    incident = log.last_change("incident", "multi-round-harness-hang")
    assert (incident.when, incident.what) == (date(2026, 11, 7), "Incident resolved.")
    assert log.last_change("knob", "no-such-knob") is None


def test_a_later_timeline_entry_is_the_incidents_last_change(seed_kb):
    edit(seed_kb / SEED_INCIDENT, "follow_ups:",
         "  - at: 2026-11-09T08:30:00Z\n    event: Post-mortem held.\nfollow_ups:")
    log = record_changes(check_knowledge_base(seed_kb).catalog)
    last = log.last_change("incident", "multi-round-harness-hang")
    assert (last.when, last.what) == (datetime(2026, 11, 9, 8, 30, tzinfo=UTC), "Post-mortem held.")
    assert log.recent(1)[0] == last


def test_recent_changes_are_newest_first(seed_kb):
    changes = record_changes(check_knowledge_base(seed_kb).catalog).recent(100)
    keys = [c.sort_key[0] for c in changes]
    assert keys == sorted(keys, reverse=True)
    assert len(changes) == 3 + 1 + 7 + 1  # knob history, started, timeline, resolved


VALUE_CHANGES = """\
id: pool-size
name: POOL_SIZE
summary: Connections kept open.
value: true
default: false
status: active
history:
  - date: 2026-09-01
    status: active
    value: 512
  - date: 2026-09-10T10:00:00+05:00
    status: active
    value: 1024
  - date: 2026-09-10T12:00:00+05:00
    status: active
    value: 1024
    note: Stays at 1024 after the review.
  - date: 2026-09-12
    status: reverted
  - date: 2026-09-14
    status: restored
    value: true
"""


def test_a_knobs_change_says_what_it_changed_its_status_its_value_or_neither(seed_kb):
    """A `kb set` entry keeps the status: it says the value it changed, never 'active -> active';
    an entry that changed neither says the status stays; a value shows as a deploy file writes it."""
    (seed_kb / "knobs/pool-size.yaml").write_text(VALUE_CHANGES)
    log = record_changes(check_knowledge_base(seed_kb).catalog)
    said = [c.what for c in log.changes if c.record_id == "pool-size"][::-1]
    assert said == ["active", "active, value 512 -> 1024", "still active", "active -> reverted",
                    "reverted -> restored, value 1024 -> true"]
    assert log.last_change("knob", "pool-size").what == "reverted -> restored, value 1024 -> true"


def test_the_knob_pages_history_says_the_value_each_entry_changed(seed_kb):
    from incident_kb.website.core.links import SiteSettings
    from incident_kb.website.core.pages import render_site

    (seed_kb / "knobs/pool-size.yaml").write_text(VALUE_CHANGES)
    page = render_site(check_knowledge_base(seed_kb), SiteSettings()).files["knobs/pool-size.md"]
    history = [re.sub(r"<[^>]+>", "", line)
               for line in page.split("## Status history")[1].split("\n## ")[0].splitlines()
               if line.startswith("- ")]
    assert history == ["- **2026-09-14** restored, value 1024 -&gt; true",
                       "- **2026-09-12** reverted",
                       "- **2026-09-10 12:00:00 +05:00** active: Stays at 1024 after the review.",
                       "- **2026-09-10 10:00:00 +05:00** active, value 512 -&gt; 1024",
                       "- **2026-09-01** active"]
