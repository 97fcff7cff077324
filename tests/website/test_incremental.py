"""The live preview's render (`render_site_again`, which reuses every page whose inputs did not
change) is byte for byte the full `render_site` of the same knowledge base, after any series of
edits: records changed, added, deleted and broken, docs changed, added and deleted, files a record
names created and removed, commits."""

from __future__ import annotations

import difflib
import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from incident_kb.check.pipeline import CheckMode, check_knowledge_base
from incident_kb.website.core import incremental
from incident_kb.website.core.incremental import SiteRender, render_site_again
from incident_kb.website.core.links import SiteSettings
from incident_kb.website.core.pages import TEMPLATES, render_site

from ..conftest import SEED_INCIDENT, SEED_KNOB
from ..gitrepo import GitRepo

SETTINGS = SiteSettings(site_name="incident-kb", docs_dir="docs",
                        edit_base="https://example.invalid/incident-kb/edit/main/docs/")
KNOB_PAGE = "knobs/sglang-sm120-mma-target-ctas.md"
INCIDENT_PAGE = "incidents/multi-round-harness-hang.md"

EXTRA_KNOB = """\
id: extra-knob
name: EXTRA_QUEUE_DEPTH
summary: Queue depth of the extra worker.
value: 8
status: reverted
default: 4
measurements:
  - metric: output throughput
    conditions: {concurrency: 64}
    delta_pct: 3.5
    evidence: docs/bench/extra.md
history:
  - date: 2026-11-02
    status: active
  - date: 2026-11-05
    status: reverted
    incident: extra-incident
    hypothesis: extra-queue
"""
EXTRA_INCIDENT = """\
id: extra-incident
title: Extra worker stalls
status: open
started: 2026-11-05
hypotheses:
  - id: extra-queue
    statement: The queue depth of EXTRA_QUEUE_DEPTH stalls the worker.
    status: open
    suspect: {knob: extra-knob}
    evidence:
      - kind: correlation
        stance: for
        text: Stalls began with the change.
  - id: extra-target
    statement: TARGET_CTAS again.
    status: open
    suspect: {knob: sglang-sm120-mma-target-ctas}
follow_ups:
  - action: Look at the queue again.
    status: open
    knob: extra-knob
"""
# Records no edit touches: their pages must be reused, not rendered again.
BYSTANDER_KNOB = """\
id: bystander-knob
name: BYSTANDER_THREADS
summary: Threads of a service no edit touches.
value: 16
status: active
history:
  - date: 2026-10-01
    status: active
"""
BYSTANDER_INCIDENT = """\
id: bystander-incident
title: A quiet incident
status: resolved
started: 2026-10-02
resolved: 2026-10-03
hypotheses:
  - id: bystander-cause
    statement: A disk filled up.
    status: confirmed
root_cause:
  hypothesis: bystander-cause
"""


def _toggle(rel: str, text: str) -> Callable[[Path], None]:
    def step(root: Path) -> None:
        path = root / rel
        if path.exists():
            path.unlink()
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    return step


def _swap(rel: str, old: str, new: str) -> Callable[[Path], None]:
    def step(root: Path) -> None:
        path = root / rel
        if not path.exists():
            return
        text = path.read_text()
        path.write_text(text.replace(old, new, 1) if old in text else text.replace(new, old, 1))
    return step


def _commit(root: Path) -> None:
    repo = GitRepo(root, init=False)
    count = int(repo.git("rev-list", "--count", "HEAD"))
    repo.commit(f"edit {count}", when=f"2026-11-{10 + count % 18:02d}T12:00:00Z")


def _rename_doc(root: Path) -> None:
    plan, moved = root / "docs/design/DSV4_DECODE_PERF_PLAN.md", root / "docs/design/DSV4_DECODE_PERF_PLAN.md.bak"
    if plan.exists():
        plan.rename(moved)
    elif moved.exists():
        moved.rename(plan)



EDITS: dict[str, Callable[[Path], None]] = {
    "knob prose": _swap(SEED_KNOB, "summary: Target thread-block", "summary: Edited target thread-block"),
    "knob value": _swap(SEED_KNOB, "value: 512\n", "value: 384\n"),
    "incident title": _swap(SEED_INCIDENT, "title: Multi-round agent harness hangs",
                            "title: Multi-round agent harness stalls"),
    "hypothesis verdict": _swap(SEED_INCIDENT, "    status: refuted\n", "    status: open\n"),
    "extra knob": _toggle("knobs/extra-knob.yaml", EXTRA_KNOB),
    "extra incident": _toggle("incidents/extra-incident.yaml", EXTRA_INCIDENT),
    "extra knob refuted": _swap("incidents/extra-incident.yaml", "    status: open\n    suspect: {knob: extra-knob}",
                                "    status: refuted\n    suspect: {knob: extra-knob}"),
    "evidence file": _toggle("docs/bench/extra.md", "# Extra\n\nMeasured at concurrency 64.\n"),
    "doc mentions": _swap("docs/design/DSV4_PD_DEADLOCK_ISSUE.md", "# ", "# EXTRA_QUEUE_DEPTH and extra-incident: "),
    "new doc": _toggle("docs/notes.md", "# Notes\n\nEXTRA_QUEUE_DEPTH stays at 8, and extra-incident is open.\n"),
    "doc moved away": _rename_doc,
    "deploy file": _swap("deploy/decode.sh", "SGLANG_SM120_MMA_TARGET_CTAS=512", "SGLANG_SM120_MMA_TARGET_CTAS=256"),
    "broken knob": _swap("knobs/extra-knob.yaml", "value: 8\n", "value: [8\n"),
    "commit": _commit,
}


def _knowledge_base(root: Path) -> Path:
    (root / "knobs/bystander-knob.yaml").write_text(BYSTANDER_KNOB)
    (root / "incidents/bystander-incident.yaml").write_text(BYSTANDER_INCIDENT)
    repo = GitRepo(root)
    repo.commit("the seed story", when="2026-11-08T12:00:00Z")
    return root


def _diff(full: dict[str, str], again: dict[str, str]) -> str:
    lines = [f"only in the full render: {sorted(full.keys() - again.keys())}",
             f"only in the incremental one: {sorted(again.keys() - full.keys())}"]
    for path in sorted(full.keys() & again.keys()):
        if full[path] != again[path]:
            lines += [f"--- {path}", *difflib.unified_diff(full[path].splitlines(), again[path].splitlines(),
                                                          "full", "incremental", lineterm="", n=1)]
    return "\n".join(lines)


def _render_again(root: Path, previous: SiteRender | None, site_settings: SiteSettings = SETTINGS) -> SiteRender:
    kb = check_knowledge_base(root, CheckMode(timelines=True, allow_shallow=True))
    full = render_site(kb, site_settings)
    again = render_site_again(kb, site_settings, previous)
    assert again.site.files == full.files, _diff(full.files, again.site.files)
    assert list(again.site.files) == list(full.files)  # the same order too
    assert again.site.pages == full.pages  # every page's metadata: edit path, nav, tags, banner...
    assert list(again.site.pages) == list(full.pages)
    assert again.site.needs == full.needs
    return again


@pytest.fixture
def kb_root(seed_kb, git_env, monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    return _knowledge_base(seed_kb)


def test_every_edit_in_turn_renders_what_a_full_render_does(kb_root):
    render = _render_again(kb_root, None)
    for name, step in [*EDITS.items(), *EDITS.items()]:  # each edit, then each undone
        step(kb_root)
        render = _render_again(kb_root, render)
        assert "knobs/bystander-knob.md" not in render.rendered, f"{name}: an untouched page rendered again"


def test_only_the_pages_that_show_a_change_are_rendered_again(kb_root):
    render = _render_again(kb_root, None)
    assert len(render.rendered) == len(render.pages)
    assert _render_again(kb_root, render).rendered == ()  # nothing changed: nothing rendered
    EDITS["knob prose"](kb_root)
    rendered = _render_again(kb_root, render).rendered
    assert KNOB_PAGE in rendered
    assert "knobs/bystander-knob.md" not in rendered and "incidents/bystander-incident.md" not in rendered


def test_new_templates_or_settings_render_everything_again(kb_root, tmp_path, monkeypatch):
    # The templates' stamp is read from a copy: touching the package's own templates would change
    # the stamp under tests running beside this one (and the source tree).
    templates = tmp_path / "templates"
    shutil.copytree(TEMPLATES, templates)
    monkeypatch.setattr(incremental, "TEMPLATES", templates)
    render = _render_again(kb_root, None)
    again = _render_again(kb_root, render, SiteSettings(site_name="another name", docs_dir="docs"))
    assert len(again.rendered) == len(again.pages)
    template = templates / "knob.md.j2"
    stat = template.stat()
    os.utime(template, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    assert len(_render_again(kb_root, render).rendered) == len(render.pages)


# Random series in the full suite; `make test-fast` runs every edit in turn and undone (above).
@pytest.mark.slow
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(st.sampled_from(sorted(EDITS)), min_size=1, max_size=8))
def test_any_series_of_edits_renders_what_a_full_render_does(kb_root, steps):
    # One knowledge base for every example: each starts where the last one left it.
    render = _render_again(kb_root, None)
    for name in steps:
        EDITS[name](kb_root)
        render = _render_again(kb_root, render)


def test_a_pages_inputs_are_the_questions_its_view_asked(kb_root):
    render = _render_again(kb_root, None)
    asked = {name for name, _, _ in render.pages[KNOB_PAGE].reads}
    assert {"knob", "suspicions", "last_change", "findings_of", "docs_of", "follow_ups_of", "source_path",
            "has_file", "incident", "hypothesis"} <= asked
    home = {name for name, _, _ in render.pages["index.md"].reads}
    assert {"knobs", "incidents", "findings", "reclaimable", "recent_changes"} <= home


def test_views_read_the_context_only_through_its_questions():
    """Nothing a view reads escapes the recording: the context's data is private, and no view or
    link touches it."""
    import inspect

    from incident_kb.website.core import incident_pages, knob_pages, links, overview_pages, page_parts, pages

    for module in (knob_pages, incident_pages, overview_pages, links, page_parts, pages):
        source = inspect.getsource(module)
        assert not re.search(r"context\._|\b_kb\b|\b_places\b|\b_changes\b|\b_docs_of\b|\b_follow_ups_of\b|\b_charts\b",
                             source), module


def test_a_question_asked_again_is_compared_with_each_pages_own_answer(kb_root):
    """answers_again answers each question once a render; pages that recorded different answers to
    it (rendered at different times) are each compared with the answer now, however they alternate."""
    from incident_kb.website.core.context import gather_site_context

    kb = check_knowledge_base(kb_root, CheckMode(timelines=True, allow_shallow=True))
    context = gather_site_context(kb, SETTINGS)
    knob = context.knob("bystander-knob")
    assert knob is not None
    now = [("knob", ("bystander-knob",), knob)]
    equal = [("knob", ("bystander-knob",), knob.model_copy())]
    before = [("knob", ("bystander-knob",), knob.model_copy(update={"summary": "Threads before the edit."}))]
    for reads, same in [(now, True), (before, False), (equal, True), (before, False), (now, True)]:
        assert context.answers_again(reads) is same


def test_a_hypothesis_verdict_edit_renders_the_knob_pages_that_show_it_again(kb_root):
    render = _render_again(kb_root, None)
    EDITS["hypothesis verdict"](kb_root)
    rendered = _render_again(kb_root, render).rendered
    assert KNOB_PAGE in rendered and INCIDENT_PAGE in rendered
    assert "knobs/bystander-knob.md" not in rendered
