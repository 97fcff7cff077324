"""Small untruths the issue found: a tab not named as a tab, a dangling-ref for a file that
exists, a plural for one finding."""

from __future__ import annotations

import json

from ..conftest import SEED_INCIDENT, edit


def findings(kb, root):
    return json.loads(kb("check", "--root", root, "--format", "json").out)["findings"]


def test_a_tab_is_named_as_a_tab_at_its_line(kb, seed_kb):
    (seed_kb / "knobs/k.yaml").write_text("id: k\nname: K\nsummary: s\nvalue: 1\nstatus: active\nhistory:\n"
                                          "\t- date: 2026-01-01\n")
    (found,) = [f for f in findings(kb, seed_kb) if f["path"] == "knobs/k.yaml"]
    assert (found["code"], found["line"]) == ("yaml-syntax", 7)
    assert "a tab character indents this line; YAML indents with spaces only" in found["message"]


def test_a_reference_by_a_file_name_whose_id_differs_is_only_an_id_mismatch(kb, seed_kb):
    knob = seed_kb / "knobs/sglang-sm120-mma-target-ctas.yaml"
    knob.write_text(knob.read_text().replace("id: sglang-sm120-mma-target-ctas", "id: target-ctas"))
    found = findings(kb, seed_kb)
    assert "id-mismatch" in [f["code"] for f in found]
    assert not [f for f in found if f["code"] == "dangling-ref" and "does not exist" in f["message"]
                and f["path"] == SEED_INCIDENT]


def test_one_pre_existing_finding_does_not_fail_the_run(kb, tmp_path, git_env):
    from ..story import story_until

    root = tmp_path / "kb"
    repo, ids = story_until(root, 2)
    edit(root / "docs/index.md", "# Knowledge base", "# The knowledge base")
    repo.commit("Reword", "2026-11-05T10:00:00Z")
    result = kb("check", "--root", root, "--base", ids[2])
    assert result.out.endswith(f"1 finding pre-existing at {ids[2]} does not fail the run)\n"), result.out
