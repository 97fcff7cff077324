"""The cold `kb check` against its floor, alternated in rounds (issue 33's goal: within 1.2x).

    .venv/bin/python bench/cold_check.py [--sizes 2000:5000,10000:20000] [--rounds 2] [--out bench/out]

For each records:commits size (repositories from bench/git_history.py, reused when present), each
round times the floor (one `git log --raw` plus one C-parse of every record: `git_history.floor_seconds`)
and then `kb check` with INCIDENT_KB_CACHE=off in a fresh process, and prints both, their ratio and
the CPU seconds of each (the check's: its own and its git processes'; the floor's: this process and
its git). The machine is shared: only ratios of one round mean much, and CPU seconds say how much of
a wall-time difference is the load. The check runs this checkout's code (PYTHONPATH), whatever
package the interpreter has installed. `--compare FOLDER` also times, in each round, the check of the
`incident_kb` package in FOLDER (e.g. an earlier commit's `generator/`, from `git archive`).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import git_history  # noqa: E402

ENV = {**git_history.ENV, "HOME": "/nonexistent", "INCIDENT_KB_CACHE": "off",
       "PYTHONPATH": str(git_history.REPO / "generator")}


def _cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def cold_check(folder: Path, code: Path | None = None) -> tuple[float, float, str]:
    """Wall seconds, CPU seconds and output of one cold `kb check` (of the package in `code`, else this
    checkout's)."""
    start, cpu = time.perf_counter(), _cpu(resource.RUSAGE_CHILDREN)
    result = subprocess.run([sys.executable, "-m", "incident_kb.cli", "check", "--root", str(folder)],
                            capture_output=True, text=True,
                            env={**ENV, "PYTHONPATH": str(code)} if code is not None else ENV)
    seconds, used = time.perf_counter() - start, _cpu(resource.RUSAGE_CHILDREN) - cpu
    if result.returncode not in (0, 1):
        raise SystemExit(result.stderr)
    return seconds, used, result.stdout


def floor(folder: Path) -> tuple[float, float]:
    """Wall and CPU seconds of the floor (its git process and this process's parsing)."""
    cpu = _cpu(resource.RUSAGE_CHILDREN) + _cpu(resource.RUSAGE_SELF)
    seconds = git_history.floor_seconds(folder)
    return seconds, _cpu(resource.RUSAGE_CHILDREN) + _cpu(resource.RUSAGE_SELF) - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="2000:5000,10000:20000", help="records:commits, comma-separated")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--docs", type=int, default=300)
    parser.add_argument("--out", type=Path, default=git_history.REPO / "bench" / "out")
    parser.add_argument("--compare", type=Path, default=None, metavar="FOLDER",
                        help="also time the incident_kb package in FOLDER (its output must be the same)")
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at start")
    print(f"{'records':>8} {'commits':>8} {'round':>5} {'floor s':>8} {'check s':>8} {'ratio':>6} "
          f"{'floor CPU':>9} {'check CPU':>9} {'CPU ratio':>9} {'load':>5}"
          + (f" {'compared s':>10} {'ratio':>6} {'CPU':>6}" if args.compare else ""))
    for size in args.sizes.split(","):
        records, commits = map(int, size.split(":"))
        folder = args.out / f"kb-{records}-{commits}"
        if not (folder / ".git").is_dir():
            git_history.synthesise(folder, records, commits, args.docs)
        subprocess.run(["git", "checkout", "-q", "-f", "main"], cwd=folder, check=True, env=git_history.ENV)
        subprocess.run(["git", "clean", "-q", "-fdx"], cwd=folder, check=True, env=git_history.ENV)
        for n in range(args.rounds):
            floor_s, floor_cpu = floor(folder)
            check_s, check_cpu, out = cold_check(folder)
            compared = ""
            if args.compare is not None:
                other_s, other_cpu, other_out = cold_check(folder, args.compare)
                compared = (f" {other_s:>10.2f} {other_s / floor_s:>5.2f}x {other_cpu:>6.2f}"
                            f"{'' if other_out == out else '  OUTPUT DIFFERS'}")
            print(f"{records:>8} {commits:>8} {n + 1:>5} {floor_s:>8.2f} {check_s:>8.2f} {check_s / floor_s:>5.2f}x "
                  f"{floor_cpu:>9.2f} {check_cpu:>9.2f} {check_cpu / floor_cpu:>8.2f}x {os.getloadavg()[0]:>5.1f}"
                  f"{compared}", flush=True)
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
