"""The kb command: output formats, exit codes, arguments."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from .conftest import REPO, SEED_KNOB, break_seed_story, edit


def test_text_format_is_path_line_column_severity_code_message(kb, seed_kb):
    edit(seed_kb / SEED_KNOB, "summary:", "sumary:")
    result = kb("validate", "--root", seed_kb)
    assert result.code == 1
    assert (f"{SEED_KNOB}:6:1: error unknown-field: 'sumary' is not a field of the record; "
            "did you mean 'summary'?") in result.out
    assert f"{SEED_KNOB}:4:1: error missing-field: 'summary' is required" in result.out
    assert result.out.rstrip().endswith("2 errors, 0 warnings in 1 file (1 knob, 1 incident checked)")


def test_text_format_groups_findings_by_file(kb, seed_kb):
    edit(seed_kb / SEED_KNOB, "summary:", "sumary:")
    (seed_kb / "incidents/b.yaml").write_text("id: [\n")
    (seed_kb / "knobs/a.yaml").write_text("- 1\n")
    lines = kb("validate", "--root", seed_kb).out.splitlines()
    paths = [line.split(":")[0] for line in lines if line.startswith(("knobs/", "incidents/"))]
    assert paths == sorted(paths)
    assert lines.count("") == 3  # a blank line between the three files and before the summary


def test_json_format(kb, seed_kb):
    break_seed_story(seed_kb)
    result = kb("check", "--root", seed_kb, "--format", "json")
    assert result.code == 1
    document = json.loads(result.out)
    assert document["errors"] == 1 and document["warnings"] == 0
    assert set(document["findings"][0]) == {"code", "severity", "path", "line", "column", "subject", "message"}
    assert document["findings"][0]["column"] == 1


def test_github_format_escapes_and_annotates(kb, seed_kb):
    break_seed_story(seed_kb)
    result = kb("check", "--root", seed_kb, "--format", "github")
    first = result.out.splitlines()[0]
    assert first.startswith(f"::error file={SEED_KNOB},line=8,col=1,title=reclaimable-knob::knob ")
    assert "+12.8%25 output throughput" in first  # '%' escaped as GitHub requires
    assert "\n" not in first


def test_warnings_alone_exit_zero(kb, seed_kb):
    break_seed_story(seed_kb)
    (seed_kb / "pyproject.toml").write_text('[tool.incident-kb.severity]\nreclaimable-knob = "warning"\n')
    result = kb("check", "--root", seed_kb)
    assert result.code == 0
    assert "warning reclaimable-knob" in result.out


def test_validate_does_not_apply_the_rules(kb, seed_kb):
    break_seed_story(seed_kb)
    assert kb("validate", "--root", seed_kb).code == 0
    assert kb("check", "--root", seed_kb).code == 1


def test_tool_errors_exit_two_with_one_line(kb, tmp_path):
    for args in (("check", "--root", tmp_path / "missing"), ("check", "--root", tmp_path),
                 ("check", "--format", "xml"), ("frobnicate",), ()):
        result = kb(*args)
        assert result.code == 2, args
        assert result.out == ""
        assert len(result.err.strip().splitlines()) == 1 and result.err.startswith("kb: "), result.err


def test_schema_command_prints_json_schema(kb):
    result = kb("schema", "knob")
    schema = json.loads(result.out)
    assert result.code == 0
    assert schema["$schema"].endswith("2020-12/schema")
    assert {"id", "name", "summary", "value", "status", "history"} <= set(schema["required"])
    assert schema["additionalProperties"] is False


def test_codes_lists_every_code_with_its_default(kb):
    out = kb("codes").out
    assert "reclaimable-knob" in out and "restore-candidate          warning" in out


def test_root_defaults_to_the_repository_containing_the_current_folder(seed_kb):
    subprocess.run(["git", "init", "-q", str(seed_kb)], check=True)
    break_seed_story(seed_kb)
    proc = subprocess.run([sys.executable, "-m", "generator.cli", "check"], cwd=seed_kb / "docs" / "design",
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert proc.returncode == 1
    assert "reclaimable-knob" in proc.stdout


def test_installed_console_script_runs():
    kb_script = os.path.join(os.path.dirname(sys.executable), "kb")
    proc = subprocess.run([kb_script, "check", "--root", str(REPO)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.startswith("all good")
