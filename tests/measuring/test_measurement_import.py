"""`kb measurement import`: each tool's real output format in, measurements with runs, setting and
provenance out, through the editing machinery (comments and key order kept, checked, atomic); a
malformed or foreign file is one line naming the file and line, exit 2, nothing written."""

from __future__ import annotations

import difflib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from incident_kb.records.yaml_source import read_yaml_file

from ..conftest import SEED_KNOB
from ..authoring.test_authoring import commented_kb  # noqa: F401 - a fixture

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "benchmarks"
KNOB = "sglang-sm120-mma-target-ctas"


@pytest.fixture
def bench(seed_kb: Path) -> Path:
    """The benchmark outputs, inside the knowledge base's repository (as a team keeps them)."""
    shutil.copytree(FIXTURES, seed_kb / "bench")
    return seed_kb / "bench"


def imported(kb, root: Path, *args: str | Path) -> list[dict]:
    """The measurements an import added (it must succeed)."""
    before = len(read_yaml_file(root / SEED_KNOB).value["measurements"])
    result = kb("measurement", "import", KNOB, *args, "--root", root)
    assert result.code == 0, result.err
    return read_yaml_file(root / SEED_KNOB).value["measurements"][before:]


def refused(kb, root: Path, *args: str | Path) -> str:
    """The one line an import that must fail prints; nothing in the knowledge base changed."""
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    result = kb("measurement", "import", KNOB, *args, "--root", root)
    assert (result.code, result.out) == (2, ""), (result.code, result.out, result.err)
    assert result.err.count("\n") == 1 and result.err.startswith("kb: "), result.err
    assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file()} == before
    return result.err[len("kb: "):].rstrip("\n")


def _runs(path: Path, field: str, **where: object) -> list[float]:
    runs = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [run[field] for run in runs if all(run.get(k) == v for k, v in where.items())]


# ---- each format ---------------------------------------------------------------------------------

def test_sglang_runs_by_tag_and_concurrency(kb, seed_kb, bench):
    new = imported(kb, seed_kb, bench / "sglang-ctas.jsonl", "--metric", "output_throughput", "--baseline", "ctas-256",
                   "--candidate", "ctas-512", "--condition", "concurrency=max_concurrency", "--baseline-setting", "256")
    assert [m["conditions"] for m in new] == [{"concurrency": 64}, {"concurrency": 80}, {"concurrency": 96}]
    first = new[0]
    assert first["runs"] == _runs(bench / "sglang-ctas.jsonl", "output_throughput", tag="ctas-512", max_concurrency=64)
    assert first["baseline_runs"] == _runs(bench / "sglang-ctas.jsonl", "output_throughput", tag="ctas-256",
                                           max_concurrency=64)
    assert len(first["runs"]) == 5
    assert {k: first[k] for k in ("metric", "setting", "baseline_setting", "unit", "software", "source")} == {
        "metric": "output_throughput", "setting": 512, "baseline_setting": 256, "unit": "tok/s",
        "software": "sglang 0.5.4.post1", "source": "bench/sglang-ctas.jsonl"}
    assert "higher_is_better" not in first and "delta_pct" not in first and "value" not in first


def test_sglang_one_file_per_side_and_a_latency(kb, seed_kb, bench):
    new = imported(kb, seed_kb, "--baseline-file", bench / "sglang-256.jsonl", "--candidate-file",
                   bench / "sglang-512.jsonl", "--metric", "median_ttft_ms", "--condition", "concurrency=max_concurrency")
    assert [m["conditions"]["concurrency"] for m in new] == [64, 96]
    assert new[0]["higher_is_better"] is False and new[0]["unit"] == "ms"
    assert new[0]["source"] == "bench/sglang-256.jsonl, bench/sglang-512.jsonl"
    assert new[0]["runs"] == _runs(bench / "sglang-512.jsonl", "median_ttft_ms", max_concurrency=64)


def test_the_unlimited_request_rate_is_a_condition_like_any_other(kb, seed_kb, bench):
    new = imported(kb, seed_kb, bench / "sglang-ctas.jsonl", "--metric", "output_throughput", "--baseline", "ctas-256",
                   "--candidate", "ctas-512", "--condition", "rate=request_rate", "--condition",
                   "concurrency=max_concurrency")
    assert new[0]["conditions"] == {"rate": "inf", "concurrency": 64}  # SGLang's `Infinity`


def test_vllm_appended_results_and_one_result_per_file(kb, seed_kb, bench):
    [one] = imported(kb, seed_kb, bench / "vllm-append.jsonl", "--metric", "output_throughput", "--baseline",
                     "ctas-256", "--candidate", "ctas-512", "--baseline-setting", "256")
    assert one["runs"] == _runs(bench / "vllm-append.jsonl", "output_throughput", label="ctas-512")
    assert len(one["runs"]) == len(one["baseline_runs"]) == 4
    assert one["setting"] == 512 and one["unit"] == "tok/s"
    assert one["date"].isoformat() == "2026-11-30T17:07:12"  # the latest run's 'date' (20261130-170712)
    [again] = imported(kb, seed_kb, "--baseline-file", bench / "vllm-256.json", "--candidate-file",
                       bench / "vllm-512.json", "--metric", "median_ttft_ms", "--condition",
                       "concurrency=max_concurrency")
    assert again["runs"] == [json.loads((bench / "vllm-512.json").read_text())["median_ttft_ms"]]
    assert (again["conditions"], again["higher_is_better"], again["unit"]) == ({"concurrency": 64}, False, "ms")


def test_hyperfine_commands_are_the_labels(kb, seed_kb, bench):
    export = json.loads((bench / "hyperfine.json").read_text())
    [new] = imported(kb, seed_kb, bench / "hyperfine.json", "--metric", "wall time", "--baseline",
                     "CTAS=256 ./decode-bench --batch 64", "--candidate", "CTAS=512 ./decode-bench --batch 64")
    assert new["runs"] == export["results"][1]["times"] and new["baseline_runs"] == export["results"][0]["times"]
    assert (new["unit"], new["higher_is_better"]) == ("s", False)
    assert new["command"] == "CTAS=512 ./decode-bench --batch 64 (baseline: CTAS=256 ./decode-bench --batch 64)"


def test_hyperfine_parameter_scans_by_template_and_condition(kb, seed_kb, bench):
    new = imported(kb, seed_kb, bench / "hyperfine-scan.json", "--metric", "wall time", "--baseline",
                   "CTAS=256 ./decode-bench --batch {batch}", "--candidate", "CTAS=512 ./decode-bench --batch {batch}",
                   "--condition", "batch=parameters.batch")
    assert [m["conditions"] for m in new] == [{"batch": 32}, {"batch": 64}]
    export = json.loads((bench / "hyperfine-scan.json").read_text())["results"]
    assert new[0]["runs"] == export[2]["times"] and new[1]["baseline_runs"] == export[1]["times"]


def test_pytest_benchmark_names_rounds_and_provenance(kb, seed_kb, bench):
    document = json.loads((bench / "pytest-benchmark.json").read_text())
    new = imported(kb, seed_kb, bench / "pytest-benchmark.json", "--metric", "decode step time", "--baseline",
                   "test_decode_ctas_256", "--candidate", "test_decode_ctas_512", "--condition", "batch=params.batch")
    assert [m["conditions"] for m in new] == [{"batch": 64}, {"batch": 128}]
    assert new[0]["runs"] == document["benchmarks"][2]["stats"]["data"]
    assert new[0]["host"] == "bench-07 (AMD EPYC 9354 32-Core Processor)"
    assert new[0]["software"] == "commit 3f1c2b9a7d4e (decode-kernels, main)"
    assert new[0]["command"] == ("pytest tests/test_decode.py::test_decode_ctas_512[64] (baseline: pytest "
                                 "tests/test_decode.py::test_decode_ctas_256[64])")
    assert new[0]["date"].isoformat() == "2026-11-30T13:05:44" and new[0]["higher_is_better"] is False


def test_pytest_benchmark_without_per_round_data_says_so(kb, seed_kb, bench):
    document = json.loads((bench / "pytest-benchmark-no-data.json").read_text())
    new = imported(kb, seed_kb, bench / "pytest-benchmark-no-data.json", "--metric", "decode step time",
                   "--baseline", "test_decode_ctas_256[64]", "--candidate", "test_decode_ctas_512[64]")
    assert new[0]["runs"] == [document["benchmarks"][2]["stats"]["median"]]  # the median, not invented rounds
    assert "the file keeps no per-round data, so each side is the median of its rounds (baseline 12 rounds, " \
           "tuned 12 rounds) and has no interval" in new[0]["note"]


def test_a_csv_of_samples(kb, seed_kb, bench):
    new = imported(kb, seed_kb, bench / "samples.csv", "--metric", "tokens_per_s", "--baseline", "ctas-256",
                   "--candidate", "ctas-512", "--condition", "concurrency=concurrency", "--unit", "tok/s")
    assert [m["conditions"] for m in new] == [{"concurrency": 64}, {"concurrency": 96}]
    assert new[0]["runs"] == [float(line.split(",")[2]) for line in (bench / "samples.csv").read_text().splitlines()
                              if line.startswith("ctas-512,64,")]
    (bench / "variants.csv").write_text("variant,batch,ms\nold,8,12.5\nold,8,12.7\nnew,8,11.1\nnew,8,11.0\n")
    [other] = imported(kb, seed_kb, bench / "variants.csv", "--metric", "ms", "--baseline", "old", "--candidate", "new",
                       "--lower-is-better")
    assert other["baseline_runs"] == [12.5, 12.7] and other["runs"] == [11.1, 11.0]


def test_labels_may_be_field_equals_value(kb, seed_kb, bench):
    new = imported(kb, seed_kb, bench / "hyperfine-scan.json", "--metric", "wall time", "--baseline",
                   "parameters.ctas=256", "--candidate", "parameters.ctas=512", "--condition", "batch=parameters.batch")
    assert len(new) == 2


@pytest.mark.parametrize("name, shape", [
    ("sglang-ctas.jsonl", "sglang"), ("vllm-append.jsonl", "vllm"), ("vllm-512.json", "vllm"),
    ("hyperfine.json", "hyperfine"), ("pytest-benchmark.json", "pytest-benchmark"), ("samples.csv", "csv")])
def test_each_format_is_recognised_and_named(kb, seed_kb, bench, name, shape):
    from incident_kb.measuring.benchmarks.samples import detect_format

    assert detect_format((bench / name).read_text(), name) == shape


# ---- the record, as every edit keeps it ----------------------------------------------------------

def test_comments_key_order_and_the_rest_of_the_file_are_kept(kb, commented_kb, bench):
    path = commented_kb / SEED_KNOB
    before = path.read_text()
    formatting = kb("fmt", "--check", "--root", commented_kb).out
    imported(kb, commented_kb, bench / "samples.csv", "--metric", "tokens_per_s", "--baseline", "ctas-256",
             "--candidate", "ctas-512", "--condition", "concurrency=concurrency", "--date", "2026-11-09")
    after = path.read_text()
    changes = difflib.SequenceMatcher(a=before.splitlines(), b=after.splitlines(), autojunk=False).get_opcodes()
    assert {tag for tag, *_ in changes} == {"equal", "insert"}  # lines added; not one line of the file touched
    added = [line for tag, _, _, start, end in changes if tag == "insert" for line in after.splitlines()[start:end]]
    assert all(len(line) <= 100 for line in added), added  # long lists of runs wrap
    assert kb("fmt", "--check", "--root", commented_kb).out == formatting  # the new entries in schema key order


def test_the_import_is_checked_like_any_edit(kb, seed_kb, bench):
    result = kb("measurement", "import", KNOB, bench / "sglang-ctas.jsonl", "--metric", "output_throughput",
                "--baseline", "ctas-256", "--candidate", "ctas-512", "--condition", "concurrency=max_concurrency",
                "--date", "2026-11-08", "--root", seed_kb)
    assert result.code == 0
    lines = result.out.splitlines()
    assert lines[0] == (f"{SEED_KNOB}: imported 3 measurements of output_throughput at SGLANG_SM120_MMA_TARGET_CTAS=512 "
                        f"from {bench / 'sglang-ctas.jsonl'} (sglang)")
    assert lines[1].startswith("  concurrency 64: +1") and "% (5 runs vs 5 runs, 95% interval +" in lines[1]
    assert lines[1].endswith(", dated 2026-11-08 (--date)")
    # A second import of the same runs adds nothing.
    assert "already has these runs of output_throughput at concurrency 64 (imported before?)" in refused(
        kb, seed_kb, bench / "sglang-ctas.jsonl", "--metric", "output_throughput", "--baseline", "ctas-256",
        "--candidate", "ctas-512", "--condition", "concurrency=max_concurrency", "--date", "2026-11-08")


# ---- what is refused, in one line ------------------------------------------------------------------

LABELS = ("--baseline", "ctas-256", "--candidate", "ctas-512")


def test_a_foreign_file_names_itself_and_line_one(kb, seed_kb, bench):
    message = refused(kb, seed_kb, seed_kb / SEED_KNOB, "--metric", "x", *LABELS)
    assert message.startswith(f"{seed_kb / SEED_KNOB}:1: not a benchmark output kb reads: expected SGLang or vLLM")
    (bench / "other.json").write_text('{"name": "something else", "value": 3}\n')
    assert ":1: not a benchmark output kb reads" in refused(kb, seed_kb, bench / "other.json", "--metric", "value",
                                                            *LABELS)


@pytest.mark.parametrize("text, line, words", [
    ('{"tag": "ctas-256", "output_throughput": 1.5, "dataset_name": "random"}\n{"tag": "ctas-512", "output_thr\n',
     2, "not a JSON object"),
    ('{"tag": "ctas-256", "output_throughput": 1.5, "dataset_name": "random"}\n\n'
     '{"tag": "ctas-512", "dataset_name": "random", "request_throughput": 2}\n', 3,
     "this run has no 'output_throughput' (--metric); its numbers are: request_throughput"),
    ('{"tag": "ctas-256", "output_throughput": Infinity, "dataset_name": "random"}\n', 1,
     "'output_throughput' is Infinity, not a measured number"),
    ('{"tag": "ctas-256", "output_throughput": NaN, "dataset_name": "random"}\n', 1,
     "'output_throughput' is nan, not a measured number"),
    ('["not", "a", "run"]\n', 1, "not a benchmark output kb reads"),
])
def test_a_malformed_serving_file_names_the_line(kb, seed_kb, bench, text, line, words):
    (bench / "bad.jsonl").write_text(text)
    message = refused(kb, seed_kb, bench / "bad.jsonl", "--metric", "output_throughput", *LABELS)
    assert message.startswith(f"{bench / 'bad.jsonl'}:{line}: ") and words in message, message
    assert message.endswith("; nothing was written")


def test_runs_that_differ_in_what_they_measure_are_not_pooled(kb, seed_kb, bench):
    message = refused(kb, seed_kb, bench / "sglang-ctas.jsonl", "--metric", "output_throughput", *LABELS)
    assert message == (f"{bench / 'sglang-ctas.jsonl'}:11: these baseline runs differ in max_concurrency (64 at "
                       f"{bench / 'sglang-ctas.jsonl'}:1, 80 here), so they measure different things; make it a "
                       "condition: --condition concurrency=max_concurrency; nothing was written")
    message = refused(kb, seed_kb, bench / "hyperfine-scan.json", "--metric", "wall time", "--baseline",
                      "parameters.ctas=256", "--candidate", "parameters.ctas=512")
    second = [i for i, line in enumerate((bench / "hyperfine-scan.json").read_text().splitlines(), 1)
              if line == "    {"][1]
    assert f":{second}: these baseline runs differ in parameters.batch" in message  # the second result's line
    assert message.endswith("--condition batch=parameters.batch; nothing was written")


@pytest.mark.parametrize("args, words", [
    (("--baseline", "ctas-25", "--candidate", "ctas-512"),
     "no runs labelled 'ctas-25' (--baseline) in {f}; the labels there (tag) are 'ctas-256', 'ctas-512'"),
    (("--baseline", "ctas-256"), "give both --baseline LABEL and --candidate LABEL"),
    (("--baseline", "ctas-256", "--candidate", "ctas-256"), "--baseline and --candidate are both 'ctas-256'"),
    (("--baseline", "ctas-256", "--candidate", "ctas-512", "--baseline-file", "x.json", "--candidate-file", "y.json"),
     "give the sides either as labels"),
    ((), "say which runs are the baseline and which the candidate"),
    (("--condition", "concurrency=max_concurency", *LABELS),
     "{f}:1: no field 'max_concurency' for --condition concurrency=max_concurency; the fields here: tag, backend"),
    (("--condition", "concurrency", *LABELS), "argument --condition: 'concurrency' is not KEY=FIELD"),
    (("--format", "hyperfine", *LABELS), "{f}:2: not a hyperfine export: more than one JSON value (JSON lines"),
    (("--format", "pytest-benchmark", "--baseline", "a", "--candidate", "b"),
     "{f}:2: not a pytest-benchmark file: more than one JSON value"),
    (("--format", "csv", *LABELS), "{f}:1: no column 'output_throughput' (--metric); the columns are: "),
])
def test_wrong_arguments_are_one_line(kb, seed_kb, bench, args, words):
    message = refused(kb, seed_kb, bench / "sglang-ctas.jsonl", "--metric", "output_throughput", *args)
    assert words.format(f=bench / "sglang-ctas.jsonl") in message, message


def test_csv_rows_that_differ_in_an_undeclared_condition_are_not_pooled(kb, seed_kb, bench):
    """A CSV says nothing of what its columns are: a column whose values each repeat over several rows of
    one side (two hosts, a concurrency scan) is a condition; one that changes row by row (a run number, a
    time) is not, and a second metric is not either."""
    scan = "label,host,run,tps\nold,a,1,10\nold,a,2,11\nold,b,3,20\nold,b,4,21\nnew,a,5,12\nnew,a,6,13\n"
    (bench / "hosts.csv").write_text(scan + "new,b,7,22\nnew,b,8,23\n")
    message = refused(kb, seed_kb, bench / "hosts.csv", "--metric", "tps", "--baseline", "old", "--candidate", "new")
    assert message == (f"{bench / 'hosts.csv'}:4: these baseline runs differ in column 'host' (a at "
                       f"{bench / 'hosts.csv'}:2, b here, each on several rows), so they measure different things; "
                       "make it a condition: --condition host=host (or leave the column out of the file if it "
                       "changes nothing); nothing was written")
    split = imported(kb, seed_kb, bench / "hosts.csv", "--metric", "tps", "--baseline", "old", "--candidate", "new",
                     "--condition", "host=host")
    assert [(m["conditions"], m["baseline_runs"]) for m in split] == [({"host": "a"}, [10.0, 11.0]),
                                                                        ({"host": "b"}, [20.0, 21.0])]
    (bench / "runs.csv").write_text("label,run,at,tps,p99\nold,1,09:00,10,5\nold,2,09:01,11,5\nold,3,09:02,10,6\n"
                                    "new,4,09:03,12,5\nnew,5,09:04,13,6\nnew,6,09:05,12,5\n")
    [pooled] = imported(kb, seed_kb, bench / "runs.csv", "--metric", "tps", "--baseline", "old", "--candidate", "new")
    assert pooled["baseline_runs"] == [10.0, 11.0, 10.0]


def test_a_side_missing_at_a_condition_is_refused(kb, seed_kb, bench):
    (bench / "one-sided.csv").write_text("label,concurrency,tps\nold,64,1\nold,64,2\nnew,64,3\nold,96,1\n")
    message = refused(kb, seed_kb, bench / "one-sided.csv", "--metric", "tps", "--baseline", "old", "--candidate",
                      "new", "--condition", "concurrency=concurrency")
    assert message == "no candidate runs at concurrency 96 to compare the baseline's 1 sample with; nothing was written"


@pytest.mark.parametrize("content, line, words", [
    ("label,tps\nold,1\nold,2,3\n", 3, "3 cells where the header names 2"),
    ("label,tps\nold,fast\n", 2, "'tps' is 'fast', not a measured number"),
    ("label,latency\nold,1\n", 1, "no column 'tps' (--metric); the columns are: label, latency"),
    ("label,tps\n", 1, "no rows of samples under the header"),
])
def test_a_malformed_csv_names_the_line(kb, seed_kb, bench, content, line, words):
    (bench / "bad.csv").write_text(content)
    message = refused(kb, seed_kb, bench / "bad.csv", "--metric", "tps", "--baseline", "old", "--candidate", "new")
    assert message.startswith(f"{bench / 'bad.csv'}:{line}: {words}"), message


def test_a_malformed_hyperfine_export_names_the_line(kb, seed_kb, bench):
    export = json.loads((bench / "hyperfine.json").read_text())
    export["results"][1]["times"][3] = "fast"
    (bench / "bad.json").write_text(json.dumps(export, indent=2))
    message = refused(kb, seed_kb, bench / "bad.json", "--metric", "wall time", "--baseline", "a", "--candidate", "b")
    line = (bench / "bad.json").read_text().splitlines().index('        "fast",') + 1
    assert message.startswith(f"{bench / 'bad.json'}:{line}: times[3] is 'fast', not a measured number")
    message = refused(kb, seed_kb, bench / "hyperfine.json", "--metric", "mean", "--baseline", "a", "--candidate", "b")
    assert "'mean' is one number per command, not one per run" in message and ":5: " in message


def test_unreadable_files_are_one_line(kb, seed_kb, bench):
    assert "cannot read it (it does not exist)" in refused(kb, seed_kb, bench / "nowhere.jsonl", "--metric", "x",
                                                            *LABELS)
    (bench / "latin1.csv").write_bytes("label,tps\nd\xe9j\xe0,1\n".encode("latin-1"))
    assert refused(kb, seed_kb, bench / "latin1.csv", "--metric", "tps", *LABELS).endswith(
        ":2: not UTF-8 text, so not a benchmark output kb reads; nothing was written")
    (bench / "empty.jsonl").write_text("")
    assert ":1: not a benchmark output kb reads" in refused(kb, seed_kb, bench / "empty.jsonl", "--metric", "x",
                                                            *LABELS)


def test_an_unknown_knob_is_one_line(kb, seed_kb, bench):
    result = kb("measurement", "import", "no-such-knob", bench / "samples.csv", "--metric", "tokens_per_s",
                "--baseline", "ctas-256", "--candidate", "ctas-512", "--root", seed_kb)
    assert (result.code, result.err) == (2, "kb: there is no knob 'no-such-knob' (knobs/no-such-knob.yaml does not "
                                            "exist); `kb new knob no-such-knob` creates it\n")


# ---- real processes ----------------------------------------------------------------------------------

@pytest.mark.slow
def test_concurrent_imports_and_edits_all_land(seed_kb, bench):
    """Imports racing a `kb measurement add`: each waits for the edit lock, none is lost."""
    conditions = [("samples.csv", "tokens_per_s", "ctas-256", "ctas-512", "concurrency=concurrency"),
                  ("sglang-ctas.jsonl", "output_throughput", "ctas-256", "ctas-512", "concurrency=max_concurrency"),
                  ("hyperfine.json", "wall time", "CTAS=256 ./decode-bench --batch 64",
                   "CTAS=512 ./decode-bench --batch 64", None)]
    processes = []
    for name, metric, base, tuned, condition in conditions:
        args = [sys.executable, "-m", "incident_kb.cli", "measurement", "import", KNOB, str(bench / name), "--metric",
                metric, "--baseline", base, "--candidate", tuned, "--root", str(seed_kb)]
        processes.append(subprocess.Popen(args + (["--condition", condition] if condition else []),
                                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    processes.append(subprocess.Popen([sys.executable, "-m", "incident_kb.cli", "measurement", "add", KNOB, "--metric",
                                       "p99 latency", "--delta-pct", "-3", "--lower-is-better", "--root", str(seed_kb)],
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    for process in processes:
        _, err = process.communicate(timeout=300)
        assert process.returncode == 0, err
    metrics = [m["metric"] for m in read_yaml_file(seed_kb / SEED_KNOB).value["measurements"]]
    assert sorted(metrics[2:]) == sorted(["tokens_per_s"] * 2 + ["output_throughput"] * 3 + ["wall time",
                                                                                           "p99 latency"])
