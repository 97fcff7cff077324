"""The site's record pages rendered on two cores (a forked child renders the last of them,
`forked.split_map`): the same files and pages, in the same order, as one core renders them; and on one
core while the looks at files are written down (`mkdocs serve` watches what the build looked at)."""

from __future__ import annotations

import os

from incident_kb.check.pipeline import SITE, check_knowledge_base
from incident_kb.repository.files import probes_recorded
from incident_kb.website.core import pages
from incident_kb.website.core.pages import render_site
from incident_kb.website.core.site_config import read_site_settings

from ..conftest import SEED_INCIDENT, SEED_KNOB, break_seed_story, copy_seed


def _many_records(root):
    copy_seed(root)
    break_seed_story(root)  # findings on the pages too
    knob, incident = (root / SEED_KNOB).read_text(), (root / SEED_INCIDENT).read_text()
    for index in range(180):
        (root / "knobs" / f"knob-{index:03d}.yaml").write_text(
            knob.replace("id: sglang-sm120-mma-target-ctas", f"id: knob-{index:03d}", 1)
            .replace("name: SGLANG_SM120_MMA_TARGET_CTAS", f"name: SETTING_{index:03d}", 1))
    for index in range(60):
        (root / "incidents" / f"incident-{index:03d}.yaml").write_text(
            incident.replace("id: multi-round-harness-hang", f"id: incident-{index:03d}", 1))
    return root


def _forks(monkeypatch):
    forks = []
    fork = os.fork
    monkeypatch.setattr(os, "fork", lambda: forks.append(1) or fork())
    return forks


def test_pages_rendered_on_two_cores_are_those_of_one(tmp_path, monkeypatch):
    root = _many_records(tmp_path / "kb")
    kb, settings = check_knowledge_base(root, SITE), read_site_settings(root)
    forks = _forks(monkeypatch)
    both = render_site(kb, settings)
    assert forks, "the pages were rendered in one process"
    with monkeypatch.context() as one:
        one.setattr(pages, "split_map", lambda function, items, **_: [function(item) for item in items])
        alone = render_site(kb, settings)
    assert list(both.files.items()) == list(alone.files.items())
    assert list(both.pages.items()) == list(alone.pages.items())
    assert both.needs == alone.needs
    assert sum(1 for meta in both.pages.values() if meta.search_names) == 1 + 180 + 1 + 60


def test_pages_render_on_one_core_while_looks_are_written_down(tmp_path, monkeypatch):
    root = _many_records(tmp_path / "kb")
    kb, settings = check_knowledge_base(root, SITE), read_site_settings(root)
    forks = _forks(monkeypatch)
    with probes_recorded(0) as probes:
        render_site(kb, settings)
    assert not forks
    assert probes.files  # what the pages looked at (the docs they link to)
