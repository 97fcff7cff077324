"""`kb measurement import`: each tool's real output format in, measurements with runs, setting and
provenance out, through the editing machinery (comments and key order kept, checked, atomic); a
malformed or foreign file is one line naming the file and line, exit 2, nothing written."""

from __future__ import annotations

import difflib
import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from incident_kb.records.yaml_source import read_yaml_file

from ..authoring.test_authoring import commented_kb  # noqa: F401 - a fixture
from ..conftest import SEED_KNOB

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
                   bench / "sglang-512.jsonl", "--metric", "median_ttft_ms",
                   "--condition", "concurrency=max_concurrency")
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
    # The latest run's 'date' (20261130-170712) is the benchmark machine's local time, in no zone: its day alone.
    assert one["date"].isoformat() == "2026-11-30"
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
    """A benchmark in one file is one run, its median: its rounds are iterations inside one process."""
    document = json.loads((bench / "pytest-benchmark.json").read_text())
    new = imported(kb, seed_kb, bench / "pytest-benchmark.json", "--metric", "decode step time", "--baseline",
                   "test_decode_ctas_256", "--candidate", "test_decode_ctas_512", "--condition", "batch=params.batch")
    assert [m["conditions"] for m in new] == [{"batch": 64}, {"batch": 128}]
    assert new[0]["runs"] == [document["benchmarks"][2]["stats"]["median"]]
    assert new[0]["baseline_runs"] == [document["benchmarks"][0]["stats"]["median"]]
    assert new[0]["note"] == ("each run is one benchmark's median over its 12 rounds in one process (rounds are not "
                              "independent runs)")
    assert new[0]["host"] == "bench-07 (AMD EPYC 9354 32-Core Processor)"
    assert new[0]["software"] == "commit 3f1c2b9a7d4e (decode-kernels, main)"
    assert new[0]["command"] == ("pytest tests/test_decode.py::test_decode_ctas_512[64] (baseline: pytest "
                                 "tests/test_decode.py::test_decode_ctas_256[64])")
    assert new[0]["date"].isoformat() == "2026-11-30T13:05:44" and new[0]["higher_is_better"] is False


def test_pytest_benchmark_without_per_round_data_is_the_same_run(kb, seed_kb, bench):
    document = json.loads((bench / "pytest-benchmark-no-data.json").read_text())
    new = imported(kb, seed_kb, bench / "pytest-benchmark-no-data.json", "--metric", "decode step time",
                   "--baseline", "test_decode_ctas_256[64]", "--candidate", "test_decode_ctas_512[64]")
    assert new[0]["runs"] == [document["benchmarks"][2]["stats"]["median"]]
    assert "median over its 12 rounds in one process" in new[0]["note"]


def test_pytest_benchmark_files_are_runs(kb, seed_kb, bench):
    """The benchmark run three times, three files: three runs a side, and an interval."""
    files = [bench / name for name in ("pytest-benchmark.json", "pytest-benchmark-2.json", "pytest-benchmark-3.json")]
    result = kb("measurement", "import", KNOB, *files, "--metric", "decode step time", "--baseline",
                "test_decode_ctas_256", "--candidate", "test_decode_ctas_512", "--condition", "batch=params.batch",
                "--root", seed_kb)
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    assert lines[1].startswith("  batch 64: −") and "(3 runs vs 3 runs, 95% interval −" in lines[1], lines
    assert lines[-1] == ("  a run (pytest-benchmark): one benchmark in one file: the median of its rounds (rounds are "
                         "iterations inside one process, not independent runs; import several files for several runs)")
    first = read_yaml_file(seed_kb / SEED_KNOB).value["measurements"][-2]
    medians = [json.loads(f.read_text())["benchmarks"][2]["stats"]["median"] for f in files]
    assert medians[1] == 0.016332529999999998  # a mean of two rounds: float noise
    assert first["runs"] == [medians[0], 0.01633253, medians[2]]  # the noise gone, the digits of a measurement kept
    assert first["date"].isoformat() == "2026-11-30T13:36:52"  # the latest file's


def test_a_pytest_benchmark_record_stays_small(kb, seed_kb, bench):
    """2 benchmarks x 2,000 rounds once wrote 3,900 floats (102 KB): now one run a side."""
    document = json.loads((bench / "pytest-benchmark.json").read_text())
    document["benchmarks"] = document["benchmarks"][::2]
    for benchmark in document["benchmarks"]:
        benchmark["params"] = {}
        benchmark["stats"]["data"] = [0.0001269 + i * 1e-10 + 2e-20 for i in range(2000)]
        benchmark["stats"]["rounds"] = 2000
    (bench / "big.json").write_text(json.dumps(document, indent=4))
    before = (seed_kb / SEED_KNOB).stat().st_size
    [new] = imported(kb, seed_kb, bench / "big.json", "--metric", "step time", "--baseline", "test_decode_ctas_256",
                     "--candidate", "test_decode_ctas_512")
    assert (seed_kb / SEED_KNOB).stat().st_size - before < 1000
    assert "2,000 rounds" in new["note"]


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
    assert lines[0] == (f"{SEED_KNOB}: imported 3 measurements of output_throughput at "
                        f"SGLANG_SM120_MMA_TARGET_CTAS=512 from {bench / 'sglang-ctas.jsonl'} (sglang)")
    assert lines[1].startswith("  concurrency 64: +1") and "% (5 runs vs 5 runs, 95% interval +" in lines[1]
    assert lines[1].endswith(", dated 2026-11-08 (--date)")
    # A second import of the same runs adds nothing.
    assert "already has these runs from bench/sglang-ctas.jsonl: its measurement of output_throughput at " \
           "concurrency 64, dated 2026-11-08 (imported before?)" in refused(
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


# ---- hostile numbers: refused in one line naming the file and line, or kept as text ----------------

HUGE = "9" * 5001  # past Python's 4,300-digit limit for int(): json.loads raises ValueError on it


def _hyperfine_with(bench: Path, written: str) -> Path:
    """The hyperfine fixture with its candidate's fourth time written as `written`."""
    text = (bench / "hyperfine.json").read_text()
    (bench / "odd.json").write_text(text.replace("1.641137986", written, 1))
    return bench / "odd.json"


@pytest.mark.parametrize("written, shown", [
    ("1" + "0" * 400, "1" + "0" * 29 + "... (401 characters), beyond 1e+15 in size"),
    (HUGE, "999999999999999999999999999999... (5,001 characters), beyond 1e+15 in size"),
    ("1e400", "1e400, beyond 1e+15 in size"),
    ("-1e400", "-1e400, beyond 1e+15 in size"),
    ("2e15", "2000000000000000.0, beyond 1e+15 in size"),
    ("1234567890123456789", "1234567890123456789, beyond 1e+15 in size"),
])
def test_a_run_no_record_holds_is_one_line(kb, seed_kb, bench, written, shown):
    path = _hyperfine_with(bench, written)
    message = refused(kb, seed_kb, path, "--metric", "wall time", "--baseline", "CTAS=256 ./decode-bench --batch 64",
                      "--candidate", "CTAS=512 ./decode-bench --batch 64")
    line = path.read_text().splitlines().index(f"        {written},") + 1
    assert message == (f"{path}:{line}: times[3] is {shown}, which no measurement is; check the number and its unit; "
                       "nothing was written")


@pytest.mark.parametrize("value", ["1" + "0" * 400, HUGE, "1e400", "3e15"])
def test_a_serving_run_no_record_holds_is_one_line(kb, seed_kb, bench, value):
    lines = (bench / "sglang-ctas.jsonl").read_text().splitlines()
    run = json.loads(lines[3])
    lines[3] = json.dumps(run).replace(f'"output_throughput": {json.dumps(run["output_throughput"])}',
                                       f'"output_throughput": {value}')
    (bench / "odd.jsonl").write_text("\n".join(lines) + "\n")
    message = refused(kb, seed_kb, bench / "odd.jsonl", "--metric", "output_throughput", *LABELS, "--condition",
                      "concurrency=max_concurrency")
    assert message.startswith(f"{bench / 'odd.jsonl'}:4: 'output_throughput' is ") and "beyond 1e+15" in message


@pytest.mark.parametrize("field, value", [("median", HUGE), ("median", "1e400"), ("median", "5e15"), ("data", HUGE)])
def test_a_pytest_benchmark_number_no_record_holds_is_one_line(kb, seed_kb, bench, field, value):
    text = (bench / "pytest-benchmark.json").read_text()
    document = json.loads(text)
    if field == "median":
        old = json.dumps(document["benchmarks"][2]["stats"]["median"])
        text = text.replace(f'"median": {old}', f'"median": {value}', 1)
    else:
        del document["benchmarks"][2]["stats"]["median"]
        text = json.dumps(document, indent=4).replace(json.dumps(document["benchmarks"][2]["stats"]["data"][0]),
                                                      value, 1)
    (bench / "odd.json").write_text(text)
    message = refused(kb, seed_kb, bench / "odd.json", "--metric", "step time", "--baseline", "test_decode_ctas_256",
                      "--candidate", "test_decode_ctas_512", "--condition", "batch=params.batch")
    assert re.match(rf"{re.escape(str(bench / 'odd.json'))}:\d+: stats\.(median|data\[0\]) is .*beyond 1e\+15", message)


@pytest.mark.parametrize("cell, shown", [("1e16", "1e16, beyond 1e+15"), (HUGE, "999999999999999999999999999999... "
                                                                               "(5,001 characters), beyond 1e+15"),
                                         ("nan", "'nan', not a measured number"), ("1_000", "'1_000', not a measured")])
def test_a_csv_run_no_record_holds_is_one_line(kb, seed_kb, bench, cell, shown):
    (bench / "odd.csv").write_text(f"label,tps\nold,1\nold,2\nnew,3\nnew,{cell}\n")
    message = refused(kb, seed_kb, bench / "odd.csv", "--metric", "tps", "--baseline", "old", "--candidate", "new")
    assert message.startswith(f"{bench / 'odd.csv'}:5: 'tps' is {shown}"), message


@pytest.mark.parametrize("cell, condition", [("nan", "nan"), ("NaN", "NaN"), ("inf", "inf"), ("-Infinity", "-Infinity"),
                                             (HUGE, HUGE), ("1e400", "1e400"), ("1_000", "1_000"), ("64", 64),
                                             ("2.5", 2.5)])
def test_a_csv_condition_is_a_number_only_when_it_writes_one(kb, seed_kb, bench, cell, condition):
    """'nan' read as a float NaN made every row its own group ('no candidate runs'); a number no float
    holds crashed the import. Anything but a number is the condition's text."""
    (bench / "odd.csv").write_text(f"label,c,tps\nold,{cell},1\nold,{cell},2\nnew,{cell},3\nnew,{cell},4\n")
    [new] = imported(kb, seed_kb, bench / "odd.csv", "--metric", "tps", "--baseline", "old", "--candidate", "new",
                     "--condition", "c=c")
    assert new["conditions"] == {"c": condition} and new["runs"] == [3, 4]


@pytest.mark.parametrize("value", ["1" + "0" * 400, HUGE, "1e400", "NaN", "Infinity"])
def test_a_number_no_float_holds_elsewhere_in_a_run_is_no_matter(kb, seed_kb, bench, value):
    """Outside the metric, such a number is text: as a field nobody asked for, and as a condition."""
    lines = [json.dumps(json.loads(line)).replace('"backend": ', f'"seed": {value}, "backend": ', 1)
             for line in (bench / "sglang-ctas.jsonl").read_text().splitlines()]
    (bench / "odd.jsonl").write_text("\n".join(lines) + "\n")
    args = (bench / "odd.jsonl", "--metric", "output_throughput", *LABELS, "--condition", "concurrency=max_concurrency")
    if value == "NaN":
        assert "'seed' is NaN, so it is no condition" in refused(kb, seed_kb, *args, "--condition", "seed=seed")
        assert len(imported(kb, seed_kb, *args)) == 3
    else:
        new = imported(kb, seed_kb, *args, "--condition", "seed=seed")
        assert new[0]["conditions"]["seed"] == {"Infinity": "inf"}.get(value, value)


# ---- large inputs: linear work --------------------------------------------------------------------

def test_each_results_line_is_found_in_one_walk():
    """5,000 hyperfine results took 46 s: each result's line was looked up from the file's start."""
    from incident_kb.measuring.benchmarks.hyperfine import read_hyperfine
    from incident_kb.measuring.benchmarks.pytest_benchmark import read_pytest_benchmark

    results = [{"command": f"CTAS={i} ./bench", "parameters": {"ctas": str(i)}, "times": [1.5, 1.25, 1.75]}
               for i in range(8000)]
    text = json.dumps({"results": results}, indent=2)
    start = time.perf_counter()
    samples = read_hyperfine(text, "big.json", "wall time").samples
    assert time.perf_counter() - start < 5  # about 0.3 s; from the start each time, minutes
    starts = [number for number, line in enumerate(text.splitlines(), 1) if line == "    {"]
    assert [s.line for s in samples] == starts
    benchmarks = [{"name": f"test_{i}", "stats": {"median": 0.5, "rounds": 3}} for i in range(8000)]
    text = json.dumps({"benchmarks": benchmarks, "machine_info": {}}, indent=1)
    start = time.perf_counter()
    samples = read_pytest_benchmark(text, "big.json", "step time").samples
    assert time.perf_counter() - start < 5
    assert [s.line for s in samples] == [n for n, line in enumerate(text.splitlines(), 1) if line == "  {"]


@pytest.mark.parametrize("text", [
    '{"results":[{"command":"a","times":[1]},{"command":"b","times":[2]},\n{"command":"c","times":[3]}]}',
    '{"other": [1, {"x": [2]}],\n "results": [\n\n  {"command": "a",\n "times": [1]} ,\n '
    '{"command": "b", "times": [2]},\n\n\n{"command": "c", "times": [3]}\n ]\n}',
    '{\r\n"results":\r\n[\r\n{"command":"a","times":[1]},\r\n{"command":"b","times":[2]},\r\n'
    '{"command":"c","times":[3]}]}',
])
def test_the_lines_found_in_one_walk_are_those_found_one_at_a_time(text):
    from incident_kb.measuring.benchmarks.samples import item_lines, line_of

    assert item_lines(text, ("results",), 3) == [line_of(text, ("results", i)) for i in range(3)]
    assert item_lines(text, ("results",), 3) == [text[:text.index(f'"{c}"')].count("\n") + 1 for c in "abc"]


# ---- the same file twice ----------------------------------------------------------------------------

@pytest.mark.parametrize("how", ["symlink", "hardlink", "dots"])
def test_a_file_named_twice_is_read_once(kb, seed_kb, bench, how):
    """Named twice (through a link, or another spelling of its path), a file's runs counted twice
    narrowed the interval."""
    path = bench / "samples.csv"
    other = {"dots": bench / ".." / "bench" / "." / "samples.csv"}.get(how, bench / "again.csv")
    if how == "symlink":
        other.symlink_to(path)
    elif how == "hardlink":
        other.hardlink_to(path)
    new = imported(kb, seed_kb, path, other, "--metric", "tokens_per_s", "--baseline", "ctas-256", "--candidate",
                   "ctas-512", "--condition", "concurrency=concurrency", "--unit", "tok/s")
    assert [len(m["runs"]) for m in new] == [4, 4] and new[0]["source"] == "bench/samples.csv"
    assert "the same file" in refused(kb, seed_kb, "--baseline-file", path, "--candidate-file", other, "--metric",
                                      "tokens_per_s")


# ---- the duplicate check compares the runs -------------------------------------------------------------

SGLANG = ("--metric", "output_throughput", *LABELS, "--condition", "concurrency=max_concurrency")


@pytest.mark.parametrize("again", [
    ("--condition", "rate=request_rate"),  # another condition: the same runs
    ("--condition", "model=dataset_name", "--setting", "384", "--note", "again"),
    ("--date", "2026-11-20", "--host", "elsewhere"),
])
def test_the_same_runs_are_refused_whatever_the_options(kb, seed_kb, bench, again):
    imported(kb, seed_kb, bench / "sglang-ctas.jsonl", *SGLANG, "--date", "2026-11-09")
    message = refused(kb, seed_kb, bench / "sglang-ctas.jsonl", *SGLANG, *again)
    assert message.startswith(f"knob '{KNOB}' already has these runs from bench/sglang-ctas.jsonl: its measurement "
                              "of output_throughput at concurrency 64, dated 2026-11-09 (imported before?)")


def test_the_same_runs_under_other_labels_and_names_are_refused(kb, seed_kb, bench):
    files = [bench / "pytest-benchmark.json", bench / "pytest-benchmark-2.json"]
    imported(kb, seed_kb, *files, "--metric", "decode step time", "--baseline", "test_decode_ctas_256",
             "--candidate", "test_decode_ctas_512", "--condition", "batch=params.batch")
    # One benchmark named in full, the files in the other order, the metric called something else, sides swapped.
    assert "already has these runs from bench/pytest-benchmark-2.json, bench/pytest-benchmark.json" in refused(
        kb, seed_kb, *files[::-1], "--metric", "step", "--baseline", "test_decode_ctas_512[64]", "--candidate",
        "test_decode_ctas_256[64]")
    # A link to the file is the file.
    (bench / "latest.json").symlink_to(files[0])
    assert "already has these runs" in refused(kb, seed_kb, bench / "latest.json", files[1], "--metric", "step",
                                               "--baseline", "test_decode_ctas_256[128]", "--candidate",
                                               "test_decode_ctas_512[128]")


def test_other_runs_are_not_duplicates(kb, seed_kb, bench):
    """The same values from another file, and the same file with one side changed, are new evidence."""
    (bench / "a.csv").write_text("label,tps\nold,1\nold,2\nnew,3\nnew,4\nnewer,5\nnewer,6\n")
    (bench / "b.csv").write_text("label,tps\nold,1\nold,2\nnew,3\nnew,4\n")
    imported(kb, seed_kb, bench / "a.csv", "--metric", "tps", "--baseline", "old", "--candidate", "new")
    imported(kb, seed_kb, bench / "b.csv", "--metric", "tps", "--baseline", "old", "--candidate", "new")
    imported(kb, seed_kb, bench / "a.csv", "--metric", "tps", "--baseline", "old", "--candidate", "newer")


# ---- numbers as the tool wrote them ------------------------------------------------------------------

def test_runs_keep_the_tools_digits_without_float_noise(kb, seed_kb, bench):
    text = (bench / "hyperfine.json").read_text()
    (bench / "noisy.json").write_text(text.replace("1.641137986", "0.026567357200000002").replace(
        "1.847388716", "2"))
    [new] = imported(kb, seed_kb, bench / "noisy.json", "--metric", "wall time", "--baseline",
                     "CTAS=256 ./decode-bench --batch 64", "--candidate", "CTAS=512 ./decode-bench --batch 64")
    record = (seed_kb / SEED_KNOB).read_text()
    assert "0.0265673572," in record and "0.026567357200000002" not in record
    assert new["baseline_runs"][0] == 2 and type(new["baseline_runs"][0]) is int  # an integer stays one
    (bench / "ints.csv").write_text("label,tps\nold,2400\nold,2401\nnew,2700\nnew,2714.2837593066183\n")
    [new] = imported(kb, seed_kb, bench / "ints.csv", "--metric", "tps", "--baseline", "old", "--candidate", "new")
    assert "baseline_runs: [2400, 2401]" in (seed_kb / SEED_KNOB).read_text()
    assert new["runs"] == [2700, 2714.2837593066183]  # all 17 digits a tool wrote are its own


# ---- vLLM's date is local time --------------------------------------------------------------------------

def test_vllms_local_time_is_recorded_as_its_day(kb, seed_kb, bench):
    result = kb("measurement", "import", KNOB, "--baseline-file", bench / "vllm-256.json", "--candidate-file",
                bench / "vllm-512.json", "--metric", "median_ttft_ms", "--root", seed_kb)
    assert result.code == 0, result.err
    assert "dated 2026-11-30 (from the file: the benchmark machine's local day, as vLLM writes no time zone)" in \
        result.out and "UTC" not in result.out
    assert read_yaml_file(seed_kb / SEED_KNOB).value["measurements"][-1]["date"].isoformat() == "2026-11-30"


def test_a_day_and_a_moment_make_the_latest_day():
    from datetime import date, datetime

    from incident_kb.measuring.measurements import _latest

    assert _latest([datetime(2026, 11, 30, 23, 0), date(2026, 11, 29), None]) == date(2026, 11, 30)
    assert _latest([datetime(2026, 11, 30, 23, 0), datetime(2026, 11, 30, 1, 0)]) == datetime(2026, 11, 30, 23, 0)
    assert _latest([None]) is None
