"""Records grouped in subfolders of knobs/ and incidents/ (by team, by service) are read like the
others: ids stay unique across the whole kind, the file name is still the id, git history follows
them, and the authoring commands find them."""

from __future__ import annotations

import json
import shutil

import pytest

from ..conftest import SEED_INCIDENT, SEED_KNOB, break_seed_story
from ..gitrepo import GitRepo

pytestmark = pytest.mark.usefixtures("git_env")

NESTED_KNOB = "knobs/decode-team/sglang-sm120-mma-target-ctas.yaml"


def _nest(root, rel, nested):
    (root / nested).parent.mkdir(parents=True, exist_ok=True)
    shutil.move(root / rel, root / nested)


def _findings(kb, root, *extra):
    result = kb("check", "--root", root, "--format", "json", *extra)
    return result.code, [(f["code"], f["path"], f["subject"]) for f in json.loads(result.out)["findings"]]


def test_a_record_in_a_subfolder_is_checked_like_any_other(kb, seed_kb):
    _nest(seed_kb, SEED_INCIDENT, "incidents/2026/11/multi-round-harness-hang.yaml")
    _nest(seed_kb, SEED_KNOB, NESTED_KNOB)
    result = kb("check", "--root", seed_kb)
    assert (result.code, result.out) == (0, "all good: 1 knob, 1 incident checked\n")
    _nest(seed_kb, NESTED_KNOB, SEED_KNOB)
    break_seed_story(seed_kb)
    _nest(seed_kb, SEED_KNOB, NESTED_KNOB)
    code, found = _findings(kb, seed_kb)
    assert code == 1 and ("reclaimable-knob", NESTED_KNOB, "sglang-sm120-mma-target-ctas") in found


def test_ids_are_unique_across_subfolders(kb, seed_kb):
    (seed_kb / "knobs/team-b").mkdir()
    shutil.copy(seed_kb / SEED_KNOB, seed_kb / "knobs/team-b/sglang-sm120-mma-target-ctas.yaml")
    code, found = _findings(kb, seed_kb)
    assert code == 1
    assert ("duplicate-id", "knobs/team-b/sglang-sm120-mma-target-ctas.yaml", "sglang-sm120-mma-target-ctas") in found


def test_hidden_folders_and_other_files_are_not_records(kb, seed_kb):
    (seed_kb / "knobs/.drafts").mkdir()
    (seed_kb / "knobs/.drafts/broken.yaml").write_text("id: [not a slug\n")
    (seed_kb / "knobs/team-a").mkdir()
    (seed_kb / "knobs/team-a/README.md").write_text("# Team A's knobs\n")
    assert kb("check", "--root", seed_kb).out == "all good: 1 knob, 1 incident checked\n"


def test_git_history_follows_a_nested_record(kb, seed_kb):
    repo = GitRepo(seed_kb)
    repo.commit("Seed", "2026-11-01T00:00:00Z")
    repo.git("mv", SEED_KNOB, "knobs/sglang-sm120-mma-target-ctas.tmp")  # git mv needs the folder first
    (seed_kb / "knobs/decode-team").mkdir()
    repo.git("mv", "knobs/sglang-sm120-mma-target-ctas.tmp", NESTED_KNOB)
    repo.commit("Group the decode team's knobs", "2026-11-10T00:00:00Z")
    assert kb("check", "--root", seed_kb).code == 0
    # A material change of the nested knob, with the docs that mention it left as they were: stale.
    knob = seed_kb / NESTED_KNOB
    knob.write_text(knob.read_text().replace("\nvalue: 512\n", "\nvalue: 256\n"))
    repo.commit("Tune the knob again", "2026-11-12T00:00:00Z")
    code, found = _findings(kb, seed_kb)
    assert code == 1
    assert ("stale-doc", "docs/design/DSV4_DECODE_PERF_PLAN.md", "sglang-sm120-mma-target-ctas") in found


def test_authoring_commands_find_a_nested_record_and_fmt_points_its_modeline_up(kb, seed_kb):
    break_seed_story(seed_kb)
    _nest(seed_kb, SEED_KNOB, NESTED_KNOB)
    result = kb("restore", "sglang-sm120-mma-target-ctas", "--root", seed_kb, "--date", "2026-11-20")
    assert result.code == 0, result.err
    assert "  - date: 2026-11-20\n    status: restored" in (seed_kb / NESTED_KNOB).read_text()
    assert not (seed_kb / SEED_KNOB).exists()
    nested = seed_kb / NESTED_KNOB
    nested.write_text("\n".join(line for line in nested.read_text().splitlines()
                                if "yaml-language-server" not in line) + "\n")
    assert kb("fmt", "--root", seed_kb).code == 0
    assert nested.read_text().startswith("# yaml-language-server: $schema=../../schemas/knob.schema.json\n")
    assert kb("fmt", nested, "--check", "--root", seed_kb).code == 0


@pytest.mark.parametrize("check", [True, False], ids=["fmt --check", "fmt"])
def test_kb_fmt_says_which_records_it_cannot_reach_never_all_formatted(kb, seed_kb, tmp_path, check):
    """A record folder linked out of the repository, or a record named x.YAML: `kb fmt --check` said
    "0 records would be reformatted" and passed, as if every record had been looked at."""
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    shutil.copy(seed_kb / SEED_KNOB, outside / "other.yaml")
    (seed_kb / "knobs/team").symlink_to(outside)
    (seed_kb / "incidents/loud.YAML").write_text((seed_kb / SEED_INCIDENT).read_text())
    result = kb("fmt", *(["--check"] if check else []), "--root", seed_kb)
    assert result.code == 1
    assert "knobs/team:1:1: error unreadable-file" in result.err and "incidents/loud.YAML:1:1: error unreadable-file" \
        in result.err
    assert (outside / "other.yaml").read_bytes() == (seed_kb / SEED_KNOB).read_bytes()  # nothing written there
    named = kb("fmt", "--check", str(seed_kb / SEED_KNOB), "--root", seed_kb)  # files named: only those
    assert named.code == 0, named.err


@pytest.mark.parametrize(("path", "kind"), [
    ("knobs/a.yaml", "knob"), ("incidents/b.yml", "incident"), ("knobs/team/deep/a.yaml", "knob"),
    ("knobs/.a.yaml", None), ("knobs/.team/a.yaml", None), ("knobs/team/.deep/a.yaml", None),
    ("knobs/te.am/a.yaml", "knob"), ("knobs/a.yaml.md", None), ("knobs/", None), ("knobs", None),
    ("knobs.yaml", None), ("docs/a.yaml", None), ("knobsx/a.yaml", None), ("knob/a.yaml", None),
    ("sub/knobs/a.yaml", None), ("knobs//a.yaml", "knob"), ("incidents/a/", None),
])
def test_which_paths_are_records(path, kind):
    """What the history walk asks of every path of every commit: a YAML file under its kind's folder,
    at any depth, nothing hidden on the way."""
    from incident_kb.records.vocabulary import record_kind_of

    found = record_kind_of(path)
    assert (found.value if found is not None else None) == kind
