"""What PR mode (`kb check --base REF`) costs, and that files the knowledge base does not read cost
it nothing.

Builds two repositories holding the repository's own knowledge base (knobs, incidents, docs,
deploy files), one of them also with `--unrelated-mb` of unrelated files (a vendored SDK, say),
each with two commits; then times, in the same run and as CI runs them (fresh processes):

- `kb check`, the baseline (reading the work tree's state costs more with more files in it);
- `kb check --base HEAD^`, which also checks the knowledge base at HEAD^.

Prints seconds and `--base / check` for each repository; the goal is the same ratio with and
without the unrelated files: only what the knowledge base reads is read from the base. (Before,
the whole tree at the base was written out: 1.7 s -> 9.8 s with 120 MB.)
Then pre-commit mode on a synthetic knowledge base of `--staged-records` records in `--staged-commits`
commits (bench/git_history.py's, 2,000 / 5,000 by default, with one record edited and staged):
`kb check --staged` against a plain `kb check` of the same work tree, cold (INCIDENT_KB_CACHE=off) and
warm, in the same run.
Usage: .venv/bin/python bench/base_check.py [--unrelated-mb 120] [--runs 3] [--staged-records 2000]
[--staged-commits 5000] [--staged-only] [--out bench/out]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
KB = Path(sys.executable).parent / "kb"
ENV = {**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1",
       "GIT_AUTHOR_NAME": "Bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
       "GIT_COMMITTER_NAME": "Bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid"}


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, env=ENV, check=True, capture_output=True)


def build(root: Path, unrelated_mb: int) -> None:
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    for folder in ("knobs", "incidents", "docs", "deploy"):
        shutil.copytree(REPO / folder, root / folder)
    for i in range(unrelated_mb):
        path = root / "vendor" / f"part{i // 20}" / f"blob{i}.bin"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(os.urandom(1 << 20))
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    (root / "deploy" / "decode.sh").write_text((root / "deploy" / "decode.sh").read_text() + "# a change\n")
    git(root, "commit", "-q", "-am", "change")


CPU: dict[tuple[str, ...], float] = {}  # the least CPU seconds (kb and its git processes) each command took


def best_of(runs: int, *args: str | Path, env: dict[str, str] | None = None) -> float:
    times = []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        result = subprocess.run([str(KB), *map(str, args)], env=env or ENV, capture_output=True, text=True)
        times.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        key = (*map(str, args), str(bool(env and env.get("INCIDENT_KB_CACHE") == "off")))
        CPU[key] = min(CPU.get(key, cpu), cpu)
        if result.returncode == 2:
            raise SystemExit(f"kb {' '.join(map(str, args))} could not run: {result.stderr}")
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--unrelated-mb", type=int, default=120)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--staged-records", type=int, default=2000)
    parser.add_argument("--staged-commits", type=int, default=5000)
    parser.add_argument("--staged-only", action="store_true", help="pre-commit mode alone")
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "out")
    args = parser.parse_args()
    if args.staged_records:
        staged(args.out / "staged-kb", args.staged_records, args.staged_commits, args.runs)
    if args.staged_only:
        return
    plain, heavy = args.out / "base-plain", args.out / "base-unrelated"
    build(plain, 0)
    build(heavy, args.unrelated_mb)
    check_plain = best_of(args.runs, "check", "--root", plain)
    check_heavy = best_of(args.runs, "check", "--root", heavy)
    base_plain = best_of(args.runs, "check", "--root", plain, "--base", "HEAD^")
    base_heavy = best_of(args.runs, "check", "--root", heavy, "--base", "HEAD^")
    print(f"{'':34} {'kb check':>9} {'--base HEAD^':>13} {'ratio':>7}")
    print(f"{'the knowledge base alone':34} {check_plain:8.2f}s {base_plain:12.2f}s {base_plain / check_plain:6.2f}x")
    print(f"{f'with {args.unrelated_mb} MB of unrelated files':34} {check_heavy:8.2f}s {base_heavy:12.2f}s "
          f"{base_heavy / check_heavy:6.2f}x")

def staged(root: Path, records: int, commits: int, runs: int) -> None:
    """`kb check --staged` with one staged record edit against `kb check` on the same work tree."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import git_history

    git_history.synthesise(root, records, commits, max(1, records // 10))
    knob = sorted((root / "knobs").iterdir())[len(list((root / "knobs").iterdir())) // 2]
    knob.write_text(knob.read_text().replace("summary: ", "summary: Edited. ", 1))
    git(root, "add", "--", str(knob.relative_to(root)))
    cold_env = {**ENV, "INCIDENT_KB_CACHE": "off"}
    cold = best_of(runs, "check", "--root", root, env=cold_env)
    best_of(1, "check", "--root", root)  # fills the cache
    warm = best_of(runs, "check", "--root", root)
    staged_cold = best_of(runs, "check", "--staged", "--root", root, env=cold_env)
    staged_warm = best_of(runs, "check", "--staged", "--root", root)
    print(f"{records} records / {commits} commits, one staged edit:  kb check cold {cold:.2f}s, warm {warm:.2f}s;  "
          f"--staged cold {staged_cold:.2f}s ({staged_cold / cold:.2f}x the cold check), "
          f"warm {staged_warm:.2f}s ({staged_warm / cold:.2f}x the cold check, {staged_warm / warm:.1f}x the warm one)")
    cpu_cold = CPU[("check", "--root", str(root), "True")]
    cpu_staged = CPU[("check", "--staged", "--root", str(root), "True")]
    print(f"  CPU seconds (kb and its git processes, least of the runs): kb check cold {cpu_cold:.2f}s, "
          f"--staged cold {cpu_staged:.2f}s ({cpu_staged / cpu_cold:.2f}x)")


if __name__ == "__main__":
    main()
