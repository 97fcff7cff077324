"""Benchmark: what `kb measure` adds to each run of the command it measures (the goal: at most 50 ms).

    .venv/bin/python bench/measure_overhead.py [--runs 20] [--rounds 3] [--command 'sleep 0.05']

Both timed in the same run, best of --rounds:
  plain     the command run by the shell as many times as kb measure runs it (warm-ups included),
            one process after another: the floor
  measure   `kb measure` of a copy of this repository's knowledge base with --runs pairs and one
            warm-up per side, as a real process: start, plan, every run, the record written, the check

The overhead per run is (measure - plain) / runs made; it includes kb's start and its one write and
check, spread over the runs, so it shrinks as --runs grows.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
KB = [sys.executable, "-m", "incident_kb.cli"]
KNOB = "sglang-sm120-mma-target-ctas"


def _knowledge_base(folder: Path) -> Path:
    root = folder / "kb"
    root.mkdir()
    for name in ("knobs", "incidents", "docs", "deploy"):
        shutil.copytree(REPO / name, root / name)
    return root


def _plain(command: str, count: int) -> float:
    started = time.perf_counter()
    for _ in range(count):
        subprocess.run(command, shell=True, check=True, stdin=subprocess.DEVNULL, capture_output=True)
    return time.perf_counter() - started


def _measure(command: str, runs: int) -> float:
    with tempfile.TemporaryDirectory(prefix="kb-measure-bench-") as folder:
        root = _knowledge_base(Path(folder))
        started = time.perf_counter()
        subprocess.run([*KB, "measure", KNOB, "--metric", "wall time", "--runs", str(runs), "--seed", "1",
                        "--command", command, "--root", str(root)], check=True, capture_output=True)
        return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--command", default="sleep 0.05")
    args = parser.parse_args()
    made = 2 * args.runs + 2  # the pairs and one warm-up per side
    plain = min(_plain(args.command, made) for _ in range(args.rounds))
    measure = min(_measure(args.command, args.runs) for _ in range(args.rounds))
    per_run = (measure - plain) / made
    print(f"{made} runs of {args.command!r}: plain {plain:.2f} s, kb measure {measure:.2f} s "
          f"({measure / plain:.2f}x); kb measure adds {per_run * 1000:.1f} ms a run (goal: at most 50 ms)")


if __name__ == "__main__":
    main()
