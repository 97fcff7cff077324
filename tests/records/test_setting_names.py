"""Setting names in docs (issue 21): names that are not identifiers (JVM flags, sysctls, command-line
flags, dotted keys) are found as whole tokens with their own punctuation; a name that can never be
found is a `kb validate` warning that suggests `aliases:`; short names come from `aliases:` only, so
whether a doc refers to a knob never flips when an unrelated knob is added or deleted."""

from __future__ import annotations

import json

import pytest

from incident_kb.check.pipeline import load_knowledge_base
from incident_kb.rules.references import find_doc_references

from ..gitrepo import GitRepo


def knob_text(knob_id: str, name: str, value: object = 1, aliases: tuple[str, ...] = ()) -> str:
    alias_line = f"aliases: {json.dumps(list(aliases))}\n" if aliases else ""
    return (f"id: {knob_id}\nname: {json.dumps(name)}\nsummary: A setting.\nvalue: {value}\nstatus: active\n"
            f"{alias_line}history:\n  - date: 2026-11-01\n    status: active\n")


def mentions(root, doc: str, knobs: dict[str, str]) -> list[tuple[str, str, int]]:
    for knob_id, text in knobs.items():
        (root / f"knobs/{knob_id}.yaml").write_text(text)
    (root / "docs/notes.md").write_text(doc)
    kb = load_knowledge_base(root)
    assert not kb.has_errors, kb.findings
    return [(r.record_id, r.word, r.line) for r in find_doc_references(root, kb.catalog, kb.settings.docs.rel_path)
            if r.how == "mention"]


NAMES = {
    "jvm": "-XX:MaxGCPauseMillis",
    "sysctl": "net.ipv4.tcp_congestion_control",
    "flag": "--max-connections",
    "dotted": "spark.sql.shuffle.partitions",
    "env": "SEARCH_TIMEOUT_MS",
}

FOUND = [
    ("jvm", "# GC\n\nWe set `-XX:MaxGCPauseMillis=200` for G1.\n"),
    ("jvm", "# GC\n\nJAVA_OPTS: -Xms1g -XX:MaxGCPauseMillis, then the rest.\n"),
    ("sysctl", "# Net\n\nWe switched net.ipv4.tcp_congestion_control to bbr.\n"),
    ("sysctl", "# Net\n\nSee `sysctl net.ipv4.tcp_congestion_control`.\n"),
    ("flag", "# Proxy\n\nRun it with --max-connections=100.\n"),
    ("flag", "# Proxy\n\nThe flag (`--max-connections`) caps clients.\n"),
    ("dotted", "# Spark\n\nWe raised spark.sql.shuffle.partitions.\n"),
    ("dotted", "# Spark\n\n| spark.sql.shuffle.partitions | 200 |\n"),
    ("env", "# Search\n\nexport SEARCH_TIMEOUT_MS=20\n"),
]


@pytest.mark.parametrize("kind, doc", FOUND)
def test_a_doc_naming_the_setting_with_its_own_punctuation_refers_to_it(empty_kb, kind, doc):
    found = mentions(empty_kb, doc, {"setting": knob_text("setting", NAMES[kind])})
    assert found == [("setting", NAMES[kind], 3)]


NOT_FOUND = [
    ("jvm", "Use MaxGCPauseMillis wisely.\n"),  # without its punctuation: not the flag as written
    ("jvm", "-XX:MaxGCPauseMillisTarget=5\n"),
    ("jvm", "-XX:+MaxGCPauseMillis\n"),
    ("sysctl", "net.ipv4.tcp_congestion_control_extra = 1\n"),
    ("sysctl", "x.net.ipv4.tcp_congestion_control = 1\n"),
    ("sysctl", "tcp_congestion_control is a kernel knob.\n"),
    ("flag", "--max-connections-per-host 10\n"),
    ("flag", "Each max-connections limit is per host.\n"),
    ("dotted", "spark.sql.shuffle.partitions.max = 4\n"),
    ("dotted", "my.spark.sql.shuffle.partitions = 4\n"),
    ("env", "SEARCH_UPSTREAM_SEARCH_TIMEOUT_MS_X=1\n"),
]


@pytest.mark.parametrize("kind, doc", NOT_FOUND)
def test_a_longer_or_shorter_token_is_another_setting(empty_kb, kind, doc):
    assert mentions(empty_kb, doc, {"setting": knob_text("setting", NAMES[kind])}) == []


def test_a_gateways_own_timeout_is_not_another_knobs_short_name(empty_kb):
    doc = "# Gateway\n\nThe gateway's own TIMEOUT_MS is 500.\n"
    upstream = knob_text("search-upstream-timeout", "SEARCH_UPSTREAM_TIMEOUT_MS")
    assert mentions(empty_kb, doc, {"search-upstream-timeout": upstream}) == []
    # The other direction: a short name the knob lists under aliases is a reference.
    aliased = knob_text("search-upstream-timeout", "SEARCH_UPSTREAM_TIMEOUT_MS", aliases=("TIMEOUT_MS",))
    assert mentions(empty_kb, doc, {"search-upstream-timeout": aliased}) == [
        ("search-upstream-timeout", "TIMEOUT_MS", 3)]


def test_an_alias_with_punctuation_is_found_the_same_way(empty_kb):
    knob = knob_text("gc-pause", "JAVA_GC_PAUSE", aliases=("-XX:MaxGCPauseMillis",))
    assert mentions(empty_kb, "x\n-XX:MaxGCPauseMillis=200\n", {"gc-pause": knob}) == [
        ("gc-pause", "-XX:MaxGCPauseMillis", 2)]


DOCS = {
    "a.md": "POOL_SIZE for the gateway; see --max-connections.\n",
    "b.md": "DB_POOL_SIZE and PAYMENTS_DB_POOL_SIZE.\n",
    "c.md": "TIMEOUT_MS and SEARCH_UPSTREAM_TIMEOUT_MS, net.core.somaxconn.\n",
}
KNOBS = {
    "payments-db-pool-size": knob_text("payments-db-pool-size", "PAYMENTS_DB_POOL_SIZE"),
    "redis-pool-size": knob_text("redis-pool-size", "REDIS_POOL_SIZE"),
    "search-upstream-timeout": knob_text("search-upstream-timeout", "SEARCH_UPSTREAM_TIMEOUT_MS"),
    "gateway-timeout": knob_text("gateway-timeout", "GATEWAY_TIMEOUT_MS", aliases=("TIMEOUT_MS",)),
    "somaxconn": knob_text("somaxconn", "net.core.somaxconn"),
    "proxy-conns": knob_text("proxy-conns", "--max-connections"),
    "also-timeout": knob_text("also-timeout", "OTHER_TIMEOUT_MS", aliases=("TIMEOUT_MS",)),
}


def _references(root, knobs: dict[str, str]) -> set[tuple[str, str]]:
    for path in (root / "knobs").glob("*.yaml"):
        path.unlink()
    for knob_id, text in knobs.items():
        (root / f"knobs/{knob_id}.yaml").write_text(text)
    for name, text in DOCS.items():
        (root / "docs" / name).write_text(text)
    kb = load_knowledge_base(root)
    return {(r.doc, r.record_id) for r in find_doc_references(root, kb.catalog, kb.settings.docs.rel_path)}


@pytest.mark.parametrize("left_out", sorted(KNOBS))
def test_references_never_flip_when_an_unrelated_knob_is_added_or_deleted(empty_kb, left_out):
    everything = _references(empty_kb, KNOBS)
    without = _references(empty_kb, {k: v for k, v in KNOBS.items() if k != left_out})
    assert without == {item for item in everything if item[1] != left_out}
    # A word two knobs list refers to both, whatever order they load in.
    assert {("docs/c.md", "gateway-timeout"), ("docs/c.md", "also-timeout")} <= everything


def test_a_name_no_doc_can_ever_name_is_a_validate_warning_suggesting_aliases(kb, empty_kb):
    (empty_kb / "knobs/pool.yaml").write_text(knob_text("pool", "Max Pool Size"))
    result = kb("validate", "--root", empty_kb, "--format", "json")
    found = json.loads(result.out)["findings"]
    assert result.code == 0  # a warning
    assert [(f["code"], f["severity"], f["line"]) for f in found] == [("unmatchable-name", "warning", 2)]
    assert "'Max Pool Size'" in found[0]["message"] and "aliases: [Max_Pool_Size]" in found[0]["message"]
    # With an alias docs can name, nothing to say; an alias that cannot be found is said too.
    (empty_kb / "knobs/pool.yaml").write_text(knob_text("pool", "Max Pool Size", aliases=("max_pool_size",)))
    assert json.loads(kb("validate", "--root", empty_kb, "--format", "json").out)["findings"] == []
    (empty_kb / "knobs/pool.yaml").write_text(knob_text("pool", "MAX_POOL_SIZE", aliases=("max pool",)))
    found = json.loads(kb("validate", "--root", empty_kb, "--format", "json").out)["findings"]
    assert [(f["code"], f["line"]) for f in found] == [("unmatchable-name", 6)]


@pytest.mark.parametrize("name", list(NAMES.values()))
def test_names_with_punctuation_are_no_validate_warning(kb, empty_kb, name):
    (empty_kb / "knobs/setting.yaml").write_text(knob_text("setting", name))
    assert json.loads(kb("validate", "--root", empty_kb, "--format", "json").out)["findings"] == []


def test_a_doc_about_a_jvm_flag_goes_stale_and_a_gateway_doc_does_not(kb, tmp_path, git_env):
    repo = GitRepo(tmp_path / "kb")
    repo.write("knobs/gc-pause.yaml", knob_text("gc-pause", "-XX:MaxGCPauseMillis", 200))
    repo.write("knobs/search-upstream-timeout.yaml",
               knob_text("search-upstream-timeout", "SEARCH_UPSTREAM_TIMEOUT_MS", 20))
    repo.write("docs/gc.md", "# GC\n\nWe run with -XX:MaxGCPauseMillis=200.\n")
    repo.write("docs/gateway.md", "# Gateway\n\nThe gateway's own TIMEOUT_MS is 500.\n")
    repo.write("incidents/.gitkeep", "")
    repo.commit("Records and docs", "2026-11-01T10:00:00Z")
    for path, old, new in (("knobs/gc-pause.yaml", "value: 200", "value: 100"),
                           ("knobs/search-upstream-timeout.yaml", "value: 20", "value: 30")):
        text = (repo.root / path).read_text()
        repo.write(path, text.replace(old, new))
    repo.commit("New values", "2026-11-02T10:00:00Z")
    found = json.loads(kb("check", "--root", repo.root, "--format", "json").out)["findings"]
    stale = [(f["path"], f["line"], f["subject"]) for f in found if f["code"] == "stale-doc"]
    assert stale == [("docs/gc.md", 3, "gc-pause")]
    assert "'-XX:MaxGCPauseMillis' on line 3" in next(f["message"] for f in found if f["code"] == "stale-doc")


UNICODE = [
    # (name, doc, found): letters of any script are letters of the name; a word of a doc that continues
    # it is another word
    ("日本_POOL", "# Pool\n\nWe set 日本_POOL to 8.\n", True),
    ("日本", "# Pool\n\nWe set 日本 to 8.\n", True),
    ("日本", "# Pool\n\n日本語 is a language.\n", False),
    ("größe", "# Pool\n\nDie größe ist 8.\n", True),
    ("größe", "# Pool\n\nDie größer ist 8.\n", False),
    ("MAX_ÜBER", "# Pool\n\nSee éMAX_ÜBER.\n", False),
]


@pytest.mark.parametrize("name, doc, found", UNICODE)
def test_names_in_any_script_are_found_whole_and_never_crash_the_check(kb, empty_kb, name, doc, found):
    assert mentions(empty_kb, doc, {"setting": knob_text("setting", name)}) == ([("setting", name, 3)] if found else [])
    result = kb("check", "--root", empty_kb, "--format", "json")
    assert result.code == 0, result.err


def test_a_name_with_no_letter_is_not_suggested_as_its_own_alias(kb, empty_kb):
    (empty_kb / "knobs/pool.yaml").write_text(knob_text("pool", "---"))
    found = json.loads(kb("validate", "--root", empty_kb, "--format", "json").out)["findings"]
    assert [f["code"] for f in found] == ["unmatchable-name"]
    assert "aliases: [---]" not in found[0]["message"] and "aliases: [the_name_docs_use]" in found[0]["message"]


@pytest.mark.parametrize("doc, found", [
    ("# Heap\n\nWe run with -Xmx4g now.\n", True),
    ("# Heap\n\n`java -Xms1g -Xmx512m -jar app.jar`\n", True),
    ("# Heap\n\nThe -Xmx flag caps the heap.\n", True),
    ("# Heap\n\n-Xmxfoo is no option.\n", False),
    ("# Heap\n\nABC-Xmx4g is a part number.\n", False),
])
def test_a_jvm_option_is_named_with_its_value_glued_on(empty_kb, doc, found):
    """`-Xmx4g` names `-Xmx` as `-XX:MaxGCPauseMillis=200` names its flag (deploy files read it so too)."""
    assert mentions(empty_kb, doc, {"heap": knob_text("heap", "-Xmx", "4g")}) == \
        ([("heap", "-Xmx", 3)] if found else [])
