"""`feed.xml`: an Atom 1.0 feed (RFC 4287) of the records' changes, for people who follow the
knowledge base from a feed reader: a knob reverted, restored, set to a new value or retired; a
hypothesis refuted or confirmed; an incident opened or resolved. Newest first, each entry dated as
the record says and linking its page, with an id made from the record and the change alone, so
that it stays the same from build to build. Pure: the records in, the text out; no build timestamp.
An org site has one feed over every knowledge base (`render_org_feed`), each entry named and linked
under its knowledge base's name.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, time
from xml.sax.saxutils import escape, quoteattr

from ...records.by_record import by_record
from ...records.model import when_key
from ...records.schema import Hypothesis, Incident, Knob
from ...records.vocabulary import HypothesisStatus, RecordKind, Stance, built_path
from .changes import knob_changes
from .links import FEED, hypothesis_anchor

MAX_ENTRIES = 200  # a feed reader wants what is new, not the whole history
# Entry ids are UUIDs derived from what the entry is (RFC 4122 name-based): stable, and valid IRIs.
_NAMESPACE = uuid.UUID("5a0c2b1e-7a4f-4d0e-9c3e-6b1f2d8e4a17")


@dataclass(frozen=True, slots=True)
class Entry:
    when: date | datetime
    title: str
    page: str  # the record's page's address, relative to the feed ('knobs/ID/', or 'knobs/ID.html')
    key: str  # what the entry is, for its id

    @property
    def id(self) -> str:
        return f"urn:uuid:{uuid.uuid5(_NAMESPACE, self.key)}"


def page_address(page: str, directory_urls: bool = True) -> str:
    """A docs-relative page's address as MkDocs serves it: 'knobs/ID/' with directory URLs (MkDocs'
    default), else the file itself ('knobs/ID.html')."""
    built = built_path(page, directory_urls)
    return built.removesuffix("index.html") if directory_urls else built


def feed_entries(knobs: Iterable[Knob], incidents: Iterable[Incident], directory_urls: bool = True) -> list[Entry]:
    """Every change the feed tells of, newest first (at most MAX_ENTRIES)."""
    entries = [entry for knob in knobs for entry in _knob_entries(knob, directory_urls)]
    entries.extend(entry for incident in incidents for entry in _incident_entries(incident, directory_urls))
    return _newest(entries)


@by_record  # the feed is written again after each save of a live preview: each record's entries once
def _knob_entries(knob: Knob, directory_urls: bool) -> tuple[Entry, ...]:
    page = page_address(RecordKind.KNOB.page_path(knob.id), directory_urls)
    return tuple(Entry(change.when, f"{knob.name}: {change.what}", page,
                       f"knob/{knob.id}/history/{index}/{change.when}")
                 for index, change in enumerate(knob_changes(knob))
                 if change.status_moved or change.value_change is not None)


@by_record
def _incident_entries(incident: Incident, directory_urls: bool) -> tuple[Entry, ...]:
    page = page_address(RecordKind.INCIDENT.page_path(incident.id), directory_urls)
    entries = [Entry(incident.started, f"Incident opened: {incident.title}", page, f"incident/{incident.id}/started")]
    if incident.resolved is not None:
        entries.append(Entry(incident.resolved, f"Incident resolved: {incident.title}", page,
                             f"incident/{incident.id}/resolved"))
    for hypothesis in incident.hypotheses:
        decided = _decided_on(hypothesis)
        if decided is not None:
            entries.append(Entry(decided, f"Hypothesis {hypothesis.status.value}: "
                                 f"{hypothesis.statement} ({incident.title})",
                                 f"{page}#{hypothesis_anchor(hypothesis.id)}",
                                 f"incident/{incident.id}/hypothesis/{hypothesis.id}/{hypothesis.status.value}"))
    return tuple(entries)


def _newest(entries: list[Entry]) -> list[Entry]:
    entries.sort(key=lambda entry: (when_key(entry.when), entry.key), reverse=True)
    return entries[:MAX_ENTRIES]


def _decided_on(hypothesis: Hypothesis) -> date | datetime | None:
    """When a refuted or confirmed hypothesis was decided, as the record says: its `decided` date, else
    the newest dated evidence that took its side (against a refuted one, for a confirmed one); None
    when the record says neither (the entry is left out rather than dated by a guess)."""
    stance = {HypothesisStatus.REFUTED: Stance.AGAINST, HypothesisStatus.CONFIRMED: Stance.FOR}.get(hypothesis.status)
    if stance is None:
        return None
    if hypothesis.decided is not None:
        return hypothesis.decided
    dated = [item.date for item in hypothesis.evidence if item.stance is stance and item.date is not None]
    return max(dated, key=when_key) if dated else None


def render_feed(knobs: Iterable[Knob], incidents: Iterable[Incident], site_name: str, site_url: str | None,
                directory_urls: bool = True) -> str:
    """The feed's text. Links are absolute under `site_url` when the site says where it is served,
    else relative to the feed (Atom resolves them against its own address)."""
    return _feed_text(feed_entries(knobs, incidents, directory_urls), site_name, site_url)


def render_org_feed(members: Iterable[tuple[str, Iterable[Knob], Iterable[Incident]]], site_name: str,
                    site_url: str | None, directory_urls: bool = True) -> str:
    """An org site's one feed: every knowledge base's changes (`members`: its name, knobs and
    incidents), each entry's title led by the knowledge base's name and its link under it
    ('payments/knobs/ID/'); ids differ from the knowledge base's own feed's, as the entries do."""
    entries = [replace(entry, title=f"{name}: {entry.title}", page=f"{name}/{entry.page}", key=f"{name}/{entry.key}")
               for name, knobs, incidents in members
               for entry in feed_entries(knobs, incidents, directory_urls)]
    return _feed_text(_newest(entries), site_name, site_url)


def _feed_text(entries: list[Entry], site_name: str, site_url: str | None) -> str:
    base = site_url if site_url is None or site_url.endswith("/") else site_url + "/"
    updated = _timestamp(entries[0].when) if entries else "1970-01-01T00:00:00Z"
    lines = ['<?xml version="1.0" encoding="utf-8"?>',
             '<feed xmlns="http://www.w3.org/2005/Atom">',
             f"  <id>urn:uuid:{uuid.uuid5(_NAMESPACE, 'feed/' + site_name)}</id>",
             f"  <title>{escape(site_name)}: record changes</title>",
             f"  <updated>{updated}</updated>",
             f"  <link rel=\"self\" href={quoteattr((base or '') + FEED)}/>",
             f"  <link rel=\"alternate\" href={quoteattr(base or './')}/>",
             f"  <author><name>{escape(site_name)}</name></author>"]
    lines += _entries(entries, base)
    lines.append("</feed>")
    return "\n".join(lines) + "\n"


def _entries(entries: Iterable[Entry], base: str | None) -> list[str]:
    lines: list[str] = []
    for entry in entries:
        lines += ["  <entry>",
                  f"    <id>{entry.id}</id>",
                  f"    <title>{escape(entry.title)}</title>",
                  f"    <updated>{_timestamp(entry.when)}</updated>",
                  f"    <link rel=\"alternate\" href={quoteattr((base or '') + entry.page)}/>",
                  "  </entry>"]
    return lines


def _timestamp(moment: date | datetime) -> str:
    """RFC 3339, in UTC: a date alone is its midnight in UTC."""
    if not isinstance(moment, datetime):
        moment = datetime.combine(moment, time(), UTC)
    elif moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
