"""`NAME:ID` references to another knowledge base's records: accepted by the schema, and inside their
own repository reported as unresolved-here (info), never as an error or a dangling reference."""

from __future__ import annotations

import json

from ..org_support import knob_text, write_payments, write_platform


def check_json(kb, root):
    result = kb("check", "--root", root, "--format", "json")
    return result, json.loads(result.out)


def test_a_reference_to_another_knowledge_base_is_info_alone(kb, tmp_path):
    root = write_payments(tmp_path / "payments")
    result, document = check_json(kb, root)
    assert result.code == 0, result.out
    codes = [(f["code"], f["severity"], f["line"]) for f in document["findings"]]
    assert codes == [("unresolved-here", "info", 17)]
    assert document["info"] == 1 and document["errors"] == 0
    assert "knowledge base 'platform', which is not read here" in document["findings"][0]["message"]


def test_text_output_says_info_and_counts_it(kb, tmp_path):
    root = write_payments(tmp_path / "payments")
    result = kb("check", "--root", root)
    assert result.code == 0
    assert ("knobs/db-pool-size.yaml:17:5: info unresolved-here: history[1].incident names incident "
            "'platform:edge-outage' of knowledge base 'platform'") in result.out
    assert result.out.endswith("0 errors, 0 warnings, 1 info in 1 file (1 knob, 0 incidents checked)\n")


def test_github_output_is_a_notice(kb, tmp_path):
    root = write_platform(tmp_path / "platform")
    result = kb("check", "--root", root, "--format", "github")
    assert result.code == 0
    assert result.out.startswith("::notice file=incidents/edge-outage.yaml,line=")


def test_a_reverted_knob_under_an_unresolved_hypothesis_is_not_reclaimable_alone(kb, tmp_path):
    # The platform hypothesis is refuted, but payments alone cannot know it: no false alarm.
    root = write_payments(tmp_path / "payments")
    _, document = check_json(kb, root)
    assert "reclaimable-knob" not in [f["code"] for f in document["findings"]]


def test_a_plain_dangling_reference_is_still_an_error(kb, tmp_path):
    root = write_payments(tmp_path / "payments", incident="edge-outage")
    result, document = check_json(kb, root)
    assert result.code == 1
    assert [f["code"] for f in document["findings"]] == ["dangling-ref"]


def test_a_malformed_reference_says_both_forms(kb, tmp_path):
    root = tmp_path / "payments"
    write_payments(root)
    (root / "knobs/db-pool-size.yaml").write_text(knob_text(incident="Platform:edge outage"))
    result, document = check_json(kb, root)
    assert result.code == 1
    (found,) = document["findings"]
    assert found["code"] == "bad-value"
    assert "NAME:ID, e.g. 'payments:db-pool-size'" in found["message"]


def test_two_colons_are_refused(kb, tmp_path):
    root = tmp_path / "payments"
    write_payments(root)
    (root / "knobs/db-pool-size.yaml").write_text(knob_text(incident="a:b:c"))
    result, document = check_json(kb, root)
    assert [f["code"] for f in document["findings"]] == ["bad-value"]


def test_validate_reports_the_same_info(kb, tmp_path):
    root = write_platform(tmp_path / "platform")
    result = kb("validate", "--root", root, "--format", "json")
    assert result.code == 0
    assert [f["code"] for f in json.loads(result.out)["findings"]] == ["unresolved-here"]


def test_a_reference_in_braces_unquoted_says_to_quote_it(kb, tmp_path):
    root = write_platform(tmp_path / "platform")
    path = root / "incidents/edge-outage.yaml"
    path.write_text(path.read_text().replace("    suspect:\n      knob: payments:db-pool-size\n",
                                             "    suspect: {knob: payments:db-pool-size}\n"))
    result, document = check_json(kb, root)
    (found,) = document["findings"]
    assert found["code"] == "yaml-syntax"
    assert "needs quotes, e.g. {knob: 'payments:db-pool-size'}" in found["message"]
    path.write_text(path.read_text().replace("{knob: payments:db-pool-size}", "{knob: 'payments:db-pool-size'}"))
    result, document = check_json(kb, root)
    assert [f["code"] for f in document["findings"]] == ["unresolved-here"]
