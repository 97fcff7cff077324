"""Benchmark: `kb measurement import` of 10,000-line files, and the statistics behind every gain.

    .venv/bin/python bench/measurements.py [--rounds 3] [--knobs 1000]

Import (the goal: a 10,000-line file under 2 s), each timed as a real `kb` process in a copy of
this repository's knowledge base, best of --rounds (wall and CPU seconds: on a shared machine the
wall time carries the other tenants' load), next to two baselines from the same run:
  add       `kb measurement add` of one number: what any edit costs (start, check, write, re-check)
  parse     Python reading the same file (json.loads per line, or once): the floor for the file itself
Files: SGLang JSON lines (10,000 runs, 2 labels x 2 concurrencies), a hyperfine export (10,000 lines:
2 commands with their times and exit codes), a CSV of 10,000 samples, and the shapes whose result lines
were looked up from the file's start (quadratic: 5,000 results took 46 s): a hyperfine export of 5,000
results (10,000 runs) and a pytest-benchmark file of 10,000 benchmarks (one run each).

Record size: the bytes one import of pytest-benchmark output of 2 benchmarks x 2,000 rounds adds to
the knob's record (the goal: under 5 KB; it wrote every round, 102 KB).

Statistics: the exact bootstrap interval (gains/estimates.py) for n runs a side, next to a sampled
bootstrap of 2,000 resamples (random.choices and statistics.median: what the exact one replaces).
Check: `kb check` of --knobs knobs whose two measurements have 5 runs a side, against the same
knobs with single numbers (what intervals add to a whole check), best of --rounds.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "bench" / "out" / "measurements"
KB = [sys.executable, "-m", "incident_kb.cli"]
KNOB = "sglang-sm120-mma-target-ctas"

sys.path.insert(0, str(REPO))
from incident_kb.gains import estimates  # noqa: E402


def timed(args: list[str], cwd: Path, rounds: int, setup=None) -> float:
    """The best wall time of `rounds` runs (see `timed_cpu` for the CPU time of the same runs)."""
    return timed_cpu(args, cwd, rounds, setup)[0]


def timed_cpu(args: list[str], cwd: Path, rounds: int, setup=None) -> tuple[float, float]:
    """(best wall seconds, best CPU seconds: user + system) of `rounds` runs of a process. On a shared
    machine the wall time carries the other tenants' load; the CPU time is what the command costs."""
    best, best_cpu = float("inf"), float("inf")
    for _ in range(rounds):
        if setup:
            setup()
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        result = subprocess.run(args, cwd=cwd, capture_output=True, text=True)
        elapsed = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if result.returncode != 0:
            raise SystemExit(f"{' '.join(args)} failed: {result.stderr}")
        best = min(best, elapsed)
        best_cpu = min(best_cpu, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return best, best_cpu


def fresh_kb() -> Path:
    root = OUT / "kb"
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    for folder in ("knobs", "incidents", "docs", "deploy", "schemas"):
        shutil.copytree(REPO / folder, root / folder)
    return root


def write_files(rng: random.Random) -> dict[str, tuple[Path, list[str]]]:
    """The three 10,000-line files and the import arguments for each."""
    fixture = REPO / "tests" / "fixtures" / "benchmarks"
    template = json.loads((fixture / "sglang-ctas.jsonl").read_text().splitlines()[0])
    lines = []
    for i in range(10_000):
        run = dict(template, tag="ctas-256" if i % 2 else "ctas-512", max_concurrency=64 if (i // 2) % 2 else 96)
        run["output_throughput"] = (2400 if i % 2 else 2700) * (1 + rng.gauss(0, 0.01))
        lines.append(json.dumps(run))
    sglang = OUT / "sglang-10k.jsonl"
    sglang.write_text("\n".join(lines) + "\n")
    per_command = (10_000 - 6) // 2 // 2  # each run is a line of times and a line of exit codes
    results = [{"command": command, "mean": mean, "stddev": 0.01, "median": mean, "user": mean, "system": 0.01,
                "min": mean, "max": mean, "times": [mean * (1 + rng.gauss(0, 0.01)) for _ in range(per_command)],
                "exit_codes": [0] * per_command}
               for command, mean in (("CTAS=256 ./bench", 1.84), ("CTAS=512 ./bench", 1.64))]
    hyperfine = OUT / "hyperfine-10k.json"
    hyperfine.write_text(json.dumps({"results": results}, indent=2) + "\n")
    rows = ["label,concurrency,tps"] + [f"{'a' if i % 2 else 'b'},{64 if (i // 2) % 2 else 96},"
                                        f"{(2400 if i % 2 else 2700) * (1 + rng.gauss(0, 0.01)):.2f}"
                                        for i in range(9_999)]
    csv = OUT / "samples-10k.csv"
    csv.write_text("\n".join(rows) + "\n")
    many = [{"command": command, "mean": mean, "times": [mean * (1 + rng.gauss(0, 0.01)) for _ in range(2)],
             "exit_codes": [0, 0]}
            for _ in range(2_500) for command, mean in (("CTAS=256 ./bench", 1.84), ("CTAS=512 ./bench", 1.64))]
    hyperfine_many = OUT / "hyperfine-5k-results.json"
    hyperfine_many.write_text(json.dumps({"results": many}, indent=2) + "\n")
    benchmarks = [{"name": name, "fullname": f"tests/test_decode.py::{name}", "params": {},
                   "stats": {"median": mean * (1 + rng.gauss(0, 0.01)), "rounds": 20}}
                  for _ in range(5_000) for name, mean in (("test_ctas_256", 0.0184), ("test_ctas_512", 0.0164))]
    pytest_many = OUT / "pytest-benchmark-10k.json"
    pytest_many.write_text(json.dumps({"machine_info": {"node": "bench"}, "benchmarks": benchmarks}, indent=4) + "\n")
    return {
        "SGLang JSON lines": (sglang, ["--metric", "output_throughput", "--baseline", "ctas-256", "--candidate",
                                       "ctas-512", "--condition", "concurrency=max_concurrency"]),
        "hyperfine export": (hyperfine, ["--metric", "wall time", "--baseline", "CTAS=256 ./bench", "--candidate",
                                         "CTAS=512 ./bench"]),
        "CSV of samples": (csv, ["--metric", "tps", "--baseline", "a", "--candidate", "b", "--condition",
                                 "concurrency=concurrency"]),
        "hyperfine, 5,000 results": (hyperfine_many, ["--metric", "wall time", "--baseline", "CTAS=256 ./bench",
                                                      "--candidate", "CTAS=512 ./bench"]),
        "pytest-benchmark, 10,000 benchmarks": (pytest_many, ["--metric", "step time", "--baseline", "test_ctas_256",
                                                              "--candidate", "test_ctas_512"]),
    }


def parse_floor(path: Path, rounds: int) -> float:
    """The CPU seconds of a Python process that only reads the file."""
    code = ("import json,sys\np=sys.argv[1]\nt=open(p).read()\n"
            "if p.endswith('.jsonl'): [json.loads(l) for l in t.splitlines()]\n"
            "elif p.endswith('.json'): json.loads(t)\nelse: [l.split(',') for l in t.splitlines()]\n")
    return timed_cpu([sys.executable, "-c", code, str(path)], REPO, rounds)[1]


def bench_import(rounds: int) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    rng = random.Random(20)
    files = write_files(rng)
    root = fresh_kb()
    original = (root / "knobs" / f"{KNOB}.yaml").read_text()

    def reset() -> None:
        (root / "knobs" / f"{KNOB}.yaml").write_text(original)

    add, add_cpu = timed_cpu([*KB, "measurement", "add", KNOB, "--metric", "x", "--delta-pct", "3", "--root",
                              str(root)], root, rounds, reset)
    print(f"{'':62} {'wall s':>7} {'CPU s':>6} {'vs add':>7} {'vs parse':>9}  (ratios of CPU time)")
    print(f"{'kb measurement add (1 number)':62} {add:7.2f} {add_cpu:6.2f}")
    for name, (path, args) in files.items():
        seconds, cpu = timed_cpu([*KB, "measurement", "import", KNOB, str(path), *args, "--date", "2026-11-09",
                                  "--root", str(root)], root, rounds, reset)
        floor = parse_floor(path, rounds)
        lines = path.read_text().count("\n")
        size = path.stat().st_size / (1 << 20)
        print(f"{name + f' ({lines:,} lines, {size:.1f} MiB)':62} {seconds:7.2f} {cpu:6.2f} {cpu / add_cpu:6.2f}x "
              f"{cpu / floor:8.1f}x   {'under 2 s' if seconds < 2 else 'OVER 2 s'} wall")


def bench_record_size() -> None:
    """The bytes an import of 2 benchmarks x 2,000 rounds adds to the record."""
    rng = random.Random(3)
    document = json.loads((REPO / "tests" / "fixtures" / "benchmarks" / "pytest-benchmark.json").read_text())
    document["benchmarks"] = document["benchmarks"][:1] + document["benchmarks"][2:3]
    for benchmark, mean in zip(document["benchmarks"], (0.0184, 0.0164)):
        data = [mean * (1 + rng.gauss(0, 0.01)) for _ in range(2000)]
        benchmark["stats"].update(data=data, rounds=2000, median=statistics.median(data))
    path = OUT / "pytest-benchmark-2x2000.json"
    path.write_text(json.dumps(document, indent=4) + "\n")
    root = fresh_kb()
    record = root / "knobs" / f"{KNOB}.yaml"
    before = record.stat().st_size
    result = subprocess.run([*KB, "measurement", "import", KNOB, str(path), "--metric", "step time", "--baseline",
                             "test_decode_ctas_256", "--candidate", "test_decode_ctas_512", "--root", str(root)],
                            capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"the import failed: {result.stderr}")
    added = record.stat().st_size - before
    size = path.stat().st_size / 1024
    print(f"\nrecord: importing pytest-benchmark output of 2 benchmarks x 2,000 rounds ({size:.0f} KiB) added "
          f"{added:,} bytes to the knob's record ({'under' if added < 5000 else 'OVER'} 5 KB)")


def bench_statistics(rounds: int) -> None:
    rng = random.Random(5)
    print(f"\n{'runs a side':>11} {'exact (ms)':>11} {'sampled 2,000 (ms)':>19} {'ratio':>7}")
    for n in (3, 5, 10, 30, 100, 1000, 5000):
        base = [100 + rng.gauss(0, 2) for _ in range(n)]
        tuned = [112 + rng.gauss(0, 2) for _ in range(n)]
        exact = sampled = float("inf")
        for _ in range(rounds):
            estimates._interval.cache_clear()
            start = time.perf_counter()
            estimates.change_interval(base, tuned)
            exact = min(exact, time.perf_counter() - start)
            if n <= 1000:
                start = time.perf_counter()
                sampler = random.Random(0)
                changes = sorted(statistics.median(sampler.choices(tuned, k=n)) /
                                 statistics.median(sampler.choices(base, k=n)) for _ in range(2000))
                _ = changes[50], changes[1949]
                sampled = min(sampled, time.perf_counter() - start)
        shown = f"{sampled * 1000:19.1f} {sampled / exact:6.0f}x" if n <= 1000 else f"{'(minutes)':>19} {'':>7}"
        print(f"{n:11} {exact * 1000:11.2f} {shown}")


def knob_file(i: int, rng: random.Random, runs: bool) -> str:
    measurements = ""
    for concurrency in (64, 96):
        if runs:
            base = ", ".join(f"{2400 * (1 + rng.gauss(0, 0.01)):.1f}" for _ in range(5))
            tuned = ", ".join(f"{2700 * (1 + rng.gauss(0, 0.01)):.1f}" for _ in range(5))
            sides = f"    baseline_runs: [{base}]\n    runs: [{tuned}]\n"
        else:
            sides = (f"    baseline: {2400 * (1 + rng.gauss(0, 0.01)):.1f}\n"
                     f"    value: {2700 * (1 + rng.gauss(0, 0.01)):.1f}\n")
        measurements += (f"  - metric: output throughput\n    conditions: {{concurrency: {concurrency}}}\n"
                         f"    date: 2026-10-02\n{sides}")
    return (f"id: knob-{i:04d}\nname: SETTING_{i:04d}\nsummary: A setting.\nvalue: 512\nstatus: active\n"
            f"measurements:\n{measurements}history:\n  - date: 2026-10-01\n    status: active\n")


def bench_check(rounds: int, knobs: int) -> None:
    times = {}
    for runs in (False, True):
        root = OUT / ("check-runs" if runs else "check-single")
        shutil.rmtree(root, ignore_errors=True)
        (root / "knobs").mkdir(parents=True)
        (root / "incidents").mkdir()
        rng = random.Random(7)
        for i in range(knobs):
            (root / "knobs" / f"knob-{i:04d}.yaml").write_text(knob_file(i, rng, runs))
        shutil.rmtree(root / ".cache", ignore_errors=True)
        times[runs] = timed_cpu([*KB, "check", "--root", str(root), "--today", "2026-11-08"], root, rounds,
                                lambda r=root: shutil.rmtree(r / ".cache", ignore_errors=True))[1]
    print(f"\nkb check, {knobs:,} knobs x 2 measurements (cold, no cache), CPU: single numbers {times[False]:.2f} s, "
          f"5 runs a side {times[True]:.2f} s ({times[True] / times[False]:.2f}x)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--knobs", type=int, default=1000)
    args = parser.parse_args()
    bench_import(args.rounds)
    bench_record_size()
    bench_statistics(args.rounds)
    bench_check(args.rounds, args.knobs)


if __name__ == "__main__":
    main()
