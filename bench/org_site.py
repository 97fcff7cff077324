"""Benchmark: the organisation's site (issue 35's goal: within 1.3x of one knowledge base holding the
same records), both measured in the same run, best of --rounds.

    .venv/bin/python bench/org_site.py [--bases 50] [--records 200] [--rounds 2]

Generated under bench/out/org_site/ (bench/site_build.py's records, knobs and incidents alike):
  one knowledge base   all bases x records records in one folder, built with the plugin
  org site             --bases knowledge bases of --records records each, in folders an org
                       mkdocs.yml lists under the plugin's knowledge_bases:, built with the plugin
Both cold (an empty cache folder each build) with `mkdocs build --strict`; wall and CPU seconds.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from site_build import CPU, ENV, _children_cpu, incident_yaml, knob_yaml

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "bench" / "out" / "org_site"


def _records(root: Path, first: int, knobs: int, incidents: int, rng: random.Random) -> None:
    """knobs and incidents numbered from `first` (ids unique across the organisation's bases)."""
    for folder in ("knobs", "incidents", "docs"):
        (root / folder).mkdir(parents=True, exist_ok=True)
    for i in range(first, first + knobs):
        (root / "knobs" / f"knob-{i:04d}.yaml").write_text(knob_yaml(i, rng, 0))
    for i in range(first, first + incidents):
        (root / "incidents" / f"incident-{i:04d}.yaml").write_text(incident_yaml(i, rng, 0))


def _config(site_name: str, plugin: str) -> str:
    return (f"site_name: {site_name}\ntheme:\n  name: material\n  font: false\nplugins:\n  - search\n  - tags\n"
            f"{plugin}markdown_extensions:\n  - attr_list\n  - tables\n")


def generate(bases: int, records: int) -> tuple[Path, Path]:
    rng = random.Random(20261205)
    knobs, incidents = records * 3 // 5, records - records * 3 // 5
    one, org = OUT / "one", OUT / "org"
    shutil.rmtree(OUT, ignore_errors=True)
    listed = ""
    for base in range(bases):
        _records(one, base * records, knobs, incidents, rng)
        _records(org / f"team-{base:02d}", base * records, knobs, incidents, rng)
        listed += f"        - {{name: team-{base:02d}, path: team-{base:02d}}}\n"
    (one / "docs" / "about.md").write_text("# About\n")
    (one / "mkdocs.yml").write_text(_config("One knowledge base", "  - incident-kb\n"))
    (org / "docs").mkdir()
    (org / "docs" / "about.md").write_text("# About\n")
    (org / "mkdocs.yml").write_text(_config("The organisation", f"  - incident-kb:\n      knowledge_bases:\n{listed}"))
    return one, org


def build(folder: Path, kind: str) -> float:
    with tempfile.TemporaryDirectory(prefix="kb-bench-cache-") as cache:
        started, cpu = time.perf_counter(), _children_cpu()
        subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-f", str(folder / "mkdocs.yml"),
                        "-d", str(folder / "site")], check=True, cwd=folder, env={**ENV, "XDG_CACHE_HOME": cache})
        CPU.setdefault(kind, []).append(_children_cpu() - cpu)
        return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bases", type=int, default=50)
    parser.add_argument("--records", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    one, org = generate(args.bases, args.records)
    walls: dict[str, list[float]] = {"one": [], "org": []}
    for _ in range(args.rounds):  # alternated: a noisy moment hurts both
        walls["one"].append(build(one, "one"))
        walls["org"].append(build(org, "org"))
    best = {kind: min(times) for kind, times in walls.items()}
    cpu = {kind: min(CPU[kind]) for kind in walls}
    print(f"load average {os.getloadavg()[0]:.1f}; {args.bases} knowledge bases x {args.records} records")
    print(f"one knowledge base: {best['one']:.1f} s wall, {cpu['one']:.1f} s CPU (best of {args.rounds})")
    print(f"org site:           {best['org']:.1f} s wall, {cpu['org']:.1f} s CPU")
    print(f"ratio: {best['org'] / best['one']:.2f}x wall, {cpu['org'] / cpu['one']:.2f}x CPU (goal: <= 1.3x)")


if __name__ == "__main__":
    main()
