"""`kb org check`: the knowledge bases an org site's mkdocs.yml names, checked together; NAME:ID
references resolved (dangling ones are errors), verdicts across knowledge bases, an unreadable
knowledge base named and the rest checked. Real folders and real local git repositories."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time

import pytest

from ..org_support import committed, incident_text, knob_text, write_org, write_payments, write_platform


@pytest.fixture
def org(tmp_path, user_cache):
    """payments (a folder) and platform (a folder), with the org site beside them."""
    write_payments(tmp_path / "payments")
    write_platform(tmp_path / "platform")
    return write_org(tmp_path / "org", [{"name": "payments", "path": "../payments"},
                                        {"name": "platform", "path": "../platform"}])


def org_check(kb, config, *more):
    return kb("org", "check", "--config", config, *more)


def codes(result):
    return [(f["path"], f["code"], f["severity"]) for f in json.loads(result.out)["findings"]]


def test_a_knob_reverted_under_another_teams_refuted_hypothesis_is_reclaimable(kb, org):
    result = org_check(kb, org)
    assert result.code == 1, result.out
    assert ("payments/knobs/db-pool-size.yaml:5:1: error reclaimable-knob: knob 'db-pool-size' (DB_POOL_SIZE=64) is "
            "still reverted, but hypothesis 'pool-exhaustion' of incident 'platform:edge-outage' was refuted on "
            "2026-11-04. Restoring it reclaims +9.5% checkout throughput.") in result.out
    assert "unresolved-here" not in result.out
    assert result.out.endswith("(2 knowledge bases: 1 knob, 1 incident checked)\n")


def test_while_the_hypothesis_is_open_nothing_is_reclaimable(kb, org, tmp_path):
    write_platform(tmp_path / "platform", status="open")
    result = org_check(kb, org, "--format", "json")
    assert result.code == 0, result.out
    assert ("payments/knobs/db-pool-size.yaml", "reclaimable-knob", "error") not in codes(result)


def test_a_dangling_reference_across_is_an_error_at_its_line(kb, org, tmp_path):
    write_platform(tmp_path / "platform", suspect="payments:no-such-knob")
    result = org_check(kb, org)
    assert result.code == 1
    assert ("platform/incidents/edge-outage.yaml:12:7: error dangling-ref: hypotheses[0] suspects knob "
            "'payments:no-such-knob', but knowledge base 'payments' has no knobs/no-such-knob.yaml") in result.out


def test_a_reference_to_a_knowledge_base_the_org_lacks_is_an_error(kb, org, tmp_path):
    write_platform(tmp_path / "platform", suspect="billing:db-pool-size")
    result = org_check(kb, org)
    assert result.code == 1
    assert "the organisation has no knowledge base named 'billing' (it has: payments, platform)" in result.out


def test_a_missing_hypothesis_of_another_knowledge_base_is_dangling(kb, org, tmp_path):
    write_payments(tmp_path / "payments", hypothesis="no-such-hypothesis")
    result = org_check(kb, org)
    assert "incident 'platform:edge-outage' has no hypothesis 'no-such-hypothesis' (it has: pool-exhaustion)" \
        in result.out


def test_a_missing_folder_is_a_finding_naming_it_and_the_rest_is_checked(kb, org, tmp_path):
    write_org(tmp_path / "org", [{"name": "payments", "path": "../payments"},
                                 {"name": "platform", "path": "../platform"},
                                 {"name": "search", "path": "../search"}])
    result = org_check(kb, org)
    assert result.code == 1
    assert "mkdocs.yml:13:11: error unreadable-kb: knowledge base 'search' (path ../search) cannot be read" \
        in result.out
    assert "payments/knobs/db-pool-size.yaml:5:1: error reclaimable-knob" in result.out
    assert "(3 knowledge bases (1 not read): 1 knob, 1 incident checked)" in result.out


def test_a_folder_with_no_records_is_named(kb, org, tmp_path):
    (tmp_path / "empty").mkdir()
    write_org(tmp_path / "org", [{"name": "payments", "path": "../payments"}, {"name": "empty", "path": "../empty"}])
    result = org_check(kb, org)
    assert "knowledge base 'empty' (path ../empty) cannot be read: " in result.out
    assert "has no knobs/ or incidents/ folder, so it is not a knowledge base" in result.out
    assert "--root" not in result.out


def test_records_that_fail_validation_are_that_knowledge_bases_findings(kb, org, tmp_path):
    (tmp_path / "platform/incidents/broken.yaml").write_text("id: broken\ntitle: [\n")
    result = org_check(kb, org)
    assert "platform/incidents/broken.yaml:" in result.out and "yaml-syntax" in result.out
    assert "payments/knobs/db-pool-size.yaml:5:1: error reclaimable-knob" in result.out


def test_the_github_format_names_the_knowledge_base_in_the_file(kb, org):
    result = org_check(kb, org, "--format", "github")
    assert "::error file=payments/knobs/db-pool-size.yaml,line=5,col=1,title=reclaimable-knob::" in result.out


def test_no_configuration_is_exit_2_in_one_line(kb, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = kb("org", "check")
    assert result.code == 2
    assert result.err.startswith("kb: no properdocs.yml or mkdocs.yml in ") and result.err.count("\n") == 1


def test_a_site_without_knowledge_bases_is_exit_2(kb, tmp_path):
    (tmp_path / "mkdocs.yml").write_text("site_name: x\nplugins:\n  - search\n  - incident-kb\n")
    result = kb("org", "check", "--config", tmp_path / "mkdocs.yml")
    assert result.code == 2
    assert "configures no knowledge bases" in result.err


@pytest.mark.parametrize(("entries", "message", "line"), [
    ([{"name": "payments", "path": "../p"}, {"name": "payments", "path": "../q"}],
     "the name 'payments' is used twice (also at line 9)", 11),
    ([{"name": "Payments", "path": "../p"}], "has the name 'Payments'; a name is a slug", 9),
    ([{"name": "payments", "path": "../p", "git": "file:///x"}], "needs one of 'path' (a folder) and 'git'", 9),
    ([{"name": "payments"}], "not neither", 9),
    ([{"name": "payments", "pth": "../p"}], "'pth' is not a field of a knowledge base entry; did you mean 'path'?", 10),
    ([{"name": "payments", "path": "../p", "ref": "main"}], "a ref belongs to a 'git' entry", 9),
])
def test_a_malformed_entry_is_a_finding_at_its_line(kb, tmp_path, user_cache, entries, message, line):
    config = write_org(tmp_path / "org", entries)
    result = org_check(kb, config, "--format", "json")
    found = [f for f in json.loads(result.out)["findings"] if f["code"] == "bad-config"]
    assert [(f["path"], f["line"]) for f in found] == [("mkdocs.yml", line)], result.out
    assert message in found[0]["message"]
    assert result.code == 1


def test_properdocs_yml_is_found_by_default(kb, org, monkeypatch):
    org.rename(org.with_name("properdocs.yml"))
    monkeypatch.chdir(org.parent)
    assert kb("org", "check").code == 1


def test_a_git_knowledge_base_is_cloned_into_the_cache_at_its_ref(kb, tmp_path, user_cache):
    payments = write_payments(tmp_path / "payments")
    committed(payments)
    platform = write_platform(tmp_path / "platform-src", status="open")
    repo = committed(platform)
    repo.git("checkout", "-q", "-b", "refuted")
    write_platform(platform, status="refuted")
    repo.commit("Refute", "2026-11-06T10:00:00Z")
    config = write_org(tmp_path / "org", [{"name": "payments", "path": "../payments"},
                                          {"name": "platform", "git": f"file://{platform}", "ref": "main"}])
    result = org_check(kb, config, "--format", "json")
    assert result.code == 0, result.out
    clones = list((user_cache / "clones").iterdir())
    assert len(clones) == 1 and not clones[0].is_relative_to(tmp_path / "org")
    # the same ref again: fetched into the same clone
    assert org_check(kb, config).code == 0
    assert list((user_cache / "clones").iterdir()) == clones
    # another ref: a clone of its own
    write_org(tmp_path / "org", [{"name": "payments", "path": "../payments"},
                                 {"name": "platform", "git": f"file://{platform}", "ref": "refuted"}])
    result = org_check(kb, config)
    assert result.code == 1
    assert "payments/knobs/db-pool-size.yaml:5:1: error reclaimable-knob" in result.out
    assert len(list((user_cache / "clones").iterdir())) == 2


def test_two_knowledge_bases_of_one_repository_at_two_refs_each_read_their_own(kb, tmp_path, user_cache):
    """One git URL listed twice, at two refs holding different records: each knowledge base is its
    ref's records (one clone folder for both would leave both at the last ref checked out)."""
    from incident_kb.org.configuration import read_org_config
    from incident_kb.org.organisation import check_organisation

    source = write_payments(tmp_path / "teams")
    (source / "knobs/db-pool-size.yaml").write_text(knob_text() + "docs:\n  - docs/pool.md\n")
    (source / "docs").mkdir()
    (source / "docs/pool.md").write_text("# The pool\n")  # main's alone: its knob names it
    repo = committed(source)
    repo.git("checkout", "-q", "-b", "billing")
    (source / "knobs/db-pool-size.yaml").unlink()
    (source / "docs/pool.md").unlink()
    (source / "knobs/card-retries.yaml").write_text(knob_text("card-retries"))
    repo.commit("Billing's knob", "2026-11-06T10:00:00Z")
    repo.git("checkout", "-q", "main")
    url = f"file://{source}"
    config = write_org(tmp_path / "org", [{"name": "payments", "git": url, "ref": "main"},
                                          {"name": "billing", "git": url, "ref": "billing"},
                                          {"name": "platform", "path": "../platform"}])
    write_platform(tmp_path / "platform")
    organisation = check_organisation(read_org_config(config))
    assert {m.name: sorted(m.kb.catalog.knobs) for m in organisation.members if m.kb is not None} == {
        "payments": ["db-pool-size"], "billing": ["card-retries"], "platform": []}
    result = org_check(kb, config)
    assert "payments/knobs/db-pool-size.yaml:5:1: error reclaimable-knob" in result.out
    assert "billing/knobs/card-retries.yaml:5:1: error reclaimable-knob" in result.out
    assert "unreadable-kb" not in result.out and "missing-path" not in result.out, result.out


@pytest.mark.parametrize(("url", "ref", "said"), [
    ("file:///nowhere/at/all", "main", "cannot fetch git file:///nowhere/at/all at main: "),
    (None, "no-such-branch", "the ref 'no-such-branch' is no branch, tag or commit of the repository"),
    ("--upload-pack=touch /tmp/x", "main", "starts with '-'"),
])
def test_an_unreachable_git_knowledge_base_is_a_finding(kb, tmp_path, user_cache, url, ref, said):
    payments = write_payments(tmp_path / "payments")
    committed(payments)
    config = write_org(tmp_path / "org", [{"name": "payments", "git": url or f"file://{payments}", "ref": ref}])
    result = org_check(kb, config, "--format", "json")
    (found,) = [f for f in json.loads(result.out)["findings"] if f["code"] == "unreadable-kb"]
    assert said in found["message"] and found["subject"] == "payments"
    assert result.code == 1


def test_each_record_file_is_read_once(kb, org, monkeypatch):
    """The organisation reads each knowledge base's records once: for the others' references, then its check."""
    from incident_kb.records.record_cache import RecordCache

    read: list[str] = []
    load_all = RecordCache.load_all

    def counted(self, files):
        read.extend(rel_path for _, rel_path, *_ in files)
        return load_all(self, files)

    monkeypatch.setattr(RecordCache, "load_all", counted)
    assert org_check(kb, org).code == 1
    assert sorted(read) == ["incidents/edge-outage.yaml", "knobs/db-pool-size.yaml"]


def _org_with_a_git_knowledge_base(tmp_path):
    """payments a folder, platform a git repository the org clones (file://), its hypothesis refuted."""
    committed(write_payments(tmp_path / "payments"))
    platform = write_platform(tmp_path / "platform-src")
    committed(platform)
    url = f"file://{platform}"
    return write_org(tmp_path / "org", [{"name": "payments", "path": "../payments"},
                                        {"name": "platform", "git": url, "ref": "main"}]), url


def _kb_org_check(config, cache_home):
    return subprocess.Popen([sys.executable, "-m", "incident_kb.cli", "org", "check", "--config", str(config)],
                            env={**os.environ, "XDG_CACHE_HOME": str(cache_home)}, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


@pytest.mark.slow  # a kb process, held 3 s past its notice
def test_a_build_waits_while_another_holds_the_clone(tmp_path, cache_home, user_cache):
    """Another kb holding the clone (cloning, fetching or checking it): this one says it waits, clones
    nothing meanwhile, then checks as usual."""
    from incident_kb.history.clones import clone_folder
    from incident_kb.org.sources import LOCK_TIMEOUT, clone_locked

    config, url = _org_with_a_git_knowledge_base(tmp_path)
    folder = clone_folder(user_cache, url, "main")
    with clone_locked(folder):
        process = _kb_org_check(config, cache_home)
        said: queue.Queue[str] = queue.Queue()
        printed: list[str] = []
        readers = [threading.Thread(target=lambda: [said.put(line) for line in process.stderr], daemon=True),
                   threading.Thread(target=lambda: printed.extend(process.stdout), daemon=True)]
        for reader in readers:
            reader.start()
        notice = said.get(timeout=120)
        assert notice == (f"kb: another kb holds the clone in {folder} (cloning, fetching or checking it); "
                          f"waiting for it, up to {LOCK_TIMEOUT // 60} min\n")
        time.sleep(3)  # still waiting, past the notice
        assert process.poll() is None and not folder.exists()
    assert process.wait(timeout=180) == 1
    for reader in readers:
        reader.join(timeout=30)
    out = "".join(printed)
    assert not any("holds the clone" in line for line in said.queue), list(said.queue)  # said once
    assert "payments/knobs/db-pool-size.yaml:5:1: error reclaimable-knob" in out and "unreadable-kb" not in out


def test_a_lock_held_by_nobody_is_taken_without_a_notice(tmp_path, capfd):
    from incident_kb.org.sources import clone_locked

    with clone_locked(tmp_path / "clones" / "a"):
        pass
    assert capfd.readouterr() == ("", "")


@pytest.mark.slow  # two kb processes
def test_two_checks_at_once_share_one_clone(tmp_path, cache_home, user_cache):
    config, _ = _org_with_a_git_knowledge_base(tmp_path)
    processes = [_kb_org_check(config, cache_home) for _ in range(2)]
    outputs = [process.communicate(timeout=180) for process in processes]
    assert [process.returncode for process in processes] == [1, 1], outputs
    assert outputs[0][0] == outputs[1][0] and "unreadable-kb" not in outputs[0][0], outputs
    assert len(list((user_cache / "clones").iterdir())) == 1


def _open_suspicion_elsewhere(platform, incident_id: str = "checkout-latency") -> None:
    """Another platform incident, open, whose hypothesis suspects the payments knob (the knob's history
    does not name it)."""
    (platform / f"incidents/{incident_id}.yaml").write_text(
        incident_text("open", incident_id=incident_id).replace("Edge proxies time out", "Checkout is slow"))


def test_a_reclaimable_knob_says_another_teams_open_suspicion_of_it(kb, org, tmp_path):
    _open_suspicion_elsewhere(tmp_path / "platform")
    result = org_check(kb, org)
    assert result.code == 1, result.out
    assert ("Restoring it reclaims +9.5% checkout throughput. Incident 'platform:checkout-latency' is still open and "
            "suspects it too (hypothesis 'pool-exhaustion', open): settle that before restoring, or restore it "
            "knowing so. Restore it with `kb restore db-pool-size`") in result.out


def test_an_open_suspicion_in_the_knobs_own_knowledge_base_of_the_same_id_is_not_confused(kb, org, tmp_path):
    """payments has an incident 'checkout-latency' of its own, resolved; platform's open one suspects the knob."""
    _open_suspicion_elsewhere(tmp_path / "platform")
    (tmp_path / "payments/incidents/checkout-latency.yaml").write_text(
        "id: checkout-latency\ntitle: Our own checkout incident\nstatus: resolved\nstarted: 2026-10-01\n"
        "resolved: 2026-10-02\nsummary: Something else.\n")
    result = org_check(kb, org)
    assert "Incident 'platform:checkout-latency' is still open and suspects it too" in result.out
    assert "Incident 'checkout-latency' is still" not in result.out
