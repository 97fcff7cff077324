"""Benchmark: a knowledge base of 1,000 knobs and 200 incidents set up by `kb init --site zensical`,
rendered by `kb render` and built by Zensical (which fails a build on a page past about 128 KiB of
search text: the knobs index at this size, unless kb keeps it out of search).

    .venv/bin/python bench/zensical_build.py [--knobs 1000] [--incidents 200] [--docs 20]

Prints the seconds of `kb render` and of `zensical build`, whether the build passed, and which
pages were kept out of search.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from site_build import generate  # noqa: E402 - the same synthetic records as the site build bench

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "bench" / "out" / "zensical_build"
BIN = Path(sys.executable).parent
GIT = {**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "bench",
       "GIT_AUTHOR_EMAIL": "bench@example.invalid", "GIT_COMMITTER_NAME": "bench",
       "GIT_COMMITTER_EMAIL": "bench@example.invalid"}


def timed(*args: str, cwd: Path) -> tuple[float, subprocess.CompletedProcess[str]]:
    start = time.perf_counter()
    proc = subprocess.run(args, cwd=cwd, env=GIT, capture_output=True, text=True)
    return time.perf_counter() - start, proc


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--knobs", type=int, default=1000)
    parser.add_argument("--incidents", type=int, default=200)
    parser.add_argument("--docs", type=int, default=20)
    args = parser.parse_args()
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True)
    root = OUT / "kb"
    generate(root, args.knobs, args.incidents, args.docs)
    for command in (("git", "init", "-q", "-b", "main"), (str(BIN / "kb"), "init", "--site", "zensical"),
                    ("git", "add", "-A"), ("git", "commit", "-q", "-m", "records")):
        subprocess.run(command, cwd=root, env=GIT, check=True, capture_output=True)
    render_s, render = timed(str(BIN / "kb"), "render", cwd=root)
    print(f"kb render       {render_s:6.1f} s  exit {render.returncode}: "
          f"{render.stdout.splitlines()[0] if render.stdout else render.stderr}")
    build_s, build = timed(str(BIN / "zensical"), "build", cwd=root)
    tail = (build.stdout + build.stderr).strip().splitlines()[-1:]
    print(f"zensical build  {build_s:6.1f} s  exit {build.returncode}: {' '.join(tail)}")
    excluded = sorted(str(p.relative_to(root / "kb-site/docs")) for p in (root / "kb-site/docs").rglob("*.md")
                      if "\nsearch:\n  exclude: true" in p.read_text(encoding="utf-8").split("\n---\n", 1)[0])
    print(f"kept out of search: {', '.join(excluded) or 'none'}")
    print(f"load average: {os.getloadavg()[0]:.1f}")
    sys.exit(0 if render.returncode == 0 and build.returncode == 0 else 1)


if __name__ == "__main__":
    main()
