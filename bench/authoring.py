"""How much an editing command costs on a large knowledge base, against `kb validate` on the same
knowledge base (measured in the same run). Each edit validates the whole knowledge base with the
changed record in place before writing, so it costs about one validation plus its own work.

    .venv/bin/python bench/authoring.py [--knobs 2000] [--incidents 500] [--repeat 3]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from incident_kb.cli import main  # noqa: E402

KNOB = (REPO / "knobs" / "sglang-sm120-mma-target-ctas.yaml").read_text()
INCIDENT = (REPO / "incidents" / "multi-round-harness-hang.yaml").read_text()


def build(root: Path, knobs: int, incidents: int) -> None:
    for folder in ("docs", "deploy", "schemas"):
        shutil.copytree(REPO / folder, root / folder)
    (root / "knobs").mkdir()
    (root / "incidents").mkdir()
    for i in range(knobs):
        text = KNOB.replace("sglang-sm120-mma-target-ctas", f"knob-{i:05}").replace(
            "SGLANG_SM120_MMA_TARGET_CTAS", f"SETTING_{i:05}").replace(
            "multi-round-harness-hang", f"incident-{i % incidents:05}")
        (root / "knobs" / f"knob-{i:05}.yaml").write_text(text)
    with (root / "deploy" / "decode.sh").open("a") as deploy:
        deploy.writelines(f"export SETTING_{i:05}=512\n" for i in range(knobs))
    for i in range(incidents):
        text = INCIDENT.replace("multi-round-harness-hang", f"incident-{i:05}").replace(
            "sglang-sm120-mma-target-ctas", f"knob-{i % knobs:05}")
        (root / "incidents" / f"incident-{i:05}.yaml").write_text(text)


def timed(*args: str) -> float:
    start = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code = main(list(args))
    elapsed = time.perf_counter() - start
    if code != 0:
        raise SystemExit(f"kb {' '.join(args)} exited {code}")
    return elapsed


def main_bench() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--knobs", type=int, default=2000)
    parser.add_argument("--incidents", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        build(root, options.knobs, options.incidents)
        r = str(root)
        cases = {
            "kb validate (baseline)": lambda i: timed("validate", "--root", r),
            "kb check": lambda i: timed("check", "--root", r),
            "kb evidence add": lambda i: timed("evidence", "add", "incident-00000", "target-ctas-causes-hang", "--kind",
                                               "report", "--stance", "against", "--text", f"run {i}", "--date",
                                               "2026-11-08", "--root", r),
            "kb revert + kb restore": lambda i: timed("revert", "knob-00001", "--incident", "incident-00001",
                                                      "--hypothesis", "client-proxy-fault", "--date", "2026-11-08",
                                                      "--root", r)
                                                + timed("restore", "knob-00001", "--date", "2026-11-08", "--root", r),
            "kb fmt --check (all records)": lambda i: timed("fmt", "--check", "--root", r),
        }
        results = {name: statistics.median(case(i) for i in range(options.repeat)) for name, case in cases.items()}
    base = results["kb validate (baseline)"]
    print(f"{options.knobs} knobs, {options.incidents} incidents; median of {options.repeat} runs")
    for name, seconds in results.items():
        print(f"  {name:32} {seconds:7.2f} s  {seconds / base:5.2f}x validate")


if __name__ == "__main__":
    main_bench()
