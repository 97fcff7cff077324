"""Benchmark: build the site for 2,000 generated records, next to a plain MkDocs build of the same
pages written as static markdown, and print the ratio (the goal is under 1.1: issue 33).

    .venv/bin/python bench/site_build.py [--knobs 1200] [--incidents 800] [--docs 60]

Three kinds of build of one generated knowledge base (under bench/out/):
  generated, cold   mkdocs build --strict with the incident-kb plugin, kb's cache empty (every record
                    parsed, history walked, the cache written)
  generated, warm   the same, with kb's cache filled by the build before (charts are never cached)
  static baseline   the pages `kb render` writes, plus the hand-written docs, built by plain
                    MkDocs (no plugin): what MkDocs alone costs for this site
kb's cache is a folder of the bench's own (XDG_CACHE_HOME, outside the repository), emptied before each
cold build, so a cold build is cold whatever earlier runs left. The first build of the run is a cold
one that also pays the disk's and Python's first reads; it is printed, and not compared. Then the
three kinds alternate, --rounds times each, and the best of each counts.
Then Pagefind alone, run over the built site as `pagefind --site` (the index the plugin's build
makes while MkDocs writes the pages), --rounds times: what the site's search costs on its own.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "bench" / "out" / "site_build"
ENV = {**os.environ, "DISABLE_MKDOCS_2_WARNING": "true", "NO_MKDOCS_2_WARNING": "1"}
COMPONENTS = ["decode", "prefill", "router", "scheduler", "kv-cache", "attention", "sampler", "tokenizer"]
HARDWARE = ["8x RTX PRO 6000 Blackwell (sm_120)", "8x H100 SXM", "4x L40S", "8x MI300X"]
MODELS = ["DeepSeek-V4-Flash", "Llama-4-Maverick", "Qwen3-235B", "Mixtral-8x22B"]
WORDS = ("queue stall proxy timeout watchdog kernel batch shard spill eviction retry socket backlog "
         "latency throughput fragmentation overflow deadlock livelock jitter contention").split()


def sentence(rng: random.Random, n: int = 12) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


def knob_yaml(i: int, rng: random.Random, incidents: int) -> str:
    name = f"SGLANG_{rng.choice(COMPONENTS).upper().replace('-', '_')}_SETTING_{i:04d}"
    measurements = []
    for c in rng.sample([16, 32, 64, 96, 128], rng.randint(1, 4)):
        if rng.random() < 0.5:
            measurements.append(f"  - metric: output throughput\n    conditions: {{concurrency: {c}}}\n"
                                f"    delta_pct: {rng.uniform(-3, 15):.1f}\n"
                                f"    date: 2026-10-{rng.randint(1, 28):02d}\n")
        else:
            base = rng.randint(800, 2000)
            measurements.append(f"  - metric: p99 latency\n    conditions: {{concurrency: {c}}}\n    baseline: {base}\n"
                                f"    value: {base - rng.randint(-50, 200)}\n"
                                "    unit: ms\n    higher_is_better: false\n")
    history = ["  - date: 2026-10-01\n    status: active\n    note: Deployed after benchmarking.\n"]
    status = "active"
    if rng.random() < 0.3 and incidents:
        incident = rng.randrange(incidents)
        history.append(f"  - date: 2026-10-15\n    status: reverted\n    incident: incident-{incident:04d}\n"
                       f"    hypothesis: incident-{incident:04d}-h0\n    note: {sentence(rng)}\n")
        status = "reverted"
        if rng.random() < 0.6:
            history.append(f"  - date: 2026-10-20\n    status: restored\n    incident: incident-{incident:04d}\n"
                           f"    hypothesis: incident-{incident:04d}-h0\n    note: {sentence(rng)}\n")
            status = "active"
    return (f"id: knob-{i:04d}\nname: {name}\nsummary: {sentence(rng, 10)}\nvalue: {rng.randint(1, 1024)}\n"
            f"status: {status}\nkind: env\ncomponent: {rng.choice(COMPONENTS)}\ndefault: {rng.randint(1, 512)}\n"
            f"description: |\n  {sentence(rng, 30)}\n\n  {sentence(rng, 25)}\n"
            f"tags: [{', '.join(rng.sample(WORDS, 3))}]\n"
            f"scope:\n  hardware: {rng.choice(HARDWARE)}\n  model: {rng.choice(MODELS)}\n"
            f"measurements:\n{''.join(measurements)}history:\n{''.join(history)}")


def incident_yaml(i: int, rng: random.Random, knobs: int) -> str:
    hypotheses = []
    count = rng.randint(2, 3)
    confirmed = rng.randrange(1, count)
    for h in range(count):
        status = "confirmed" if h == confirmed else "refuted"
        suspect = f"    suspect: {{knob: knob-{rng.randrange(knobs):04d}}}\n" if h == 0 and knobs else ""
        evidence = "".join(f"      - kind: {rng.choice(['correlation', 'experiment', 'observation', 'report'])}\n"
                           f"        stance: {rng.choice(['for', 'against'])}\n        date: 2026-10-1{e}\n"
                           f"        text: {sentence(rng)}\n" for e in range(rng.randint(1, 4)))
        hypotheses.append(f"  - id: incident-{i:04d}-h{h}\n    statement: {sentence(rng, 14)}\n    status: {status}\n"
                          f"{suspect}    evidence:\n{evidence}")
    timeline = "".join(f"  - at: 2026-10-{10 + t:02d}\n    event: {sentence(rng)}\n" for t in range(rng.randint(2, 6)))
    return (f"id: incident-{i:04d}\ntitle: {sentence(rng, 7)[:-1]}\nstatus: resolved\nstarted: 2026-10-10\n"
            f"resolved: 2026-10-25\nseverity: sev{rng.randint(1, 3)}\nsummary: |\n  {sentence(rng, 40)}\n"
            f"symptoms:\n  - {sentence(rng)}\n  - {sentence(rng)}\nhypotheses:\n{''.join(hypotheses)}"
            f"root_cause:\n  hypothesis: incident-{i:04d}-h{confirmed}\n  summary: {sentence(rng, 20)}\n"
            f"timeline:\n{timeline}follow_ups:\n  - action: {sentence(rng, 8)}\n    status: open\n"
            f"lessons:\n  - {sentence(rng, 15)}\n")


def generate(root: Path, knobs: int, incidents: int, docs: int) -> None:
    rng = random.Random(20261130)
    for folder in ("knobs", "incidents", "docs/design"):
        (root / folder).mkdir(parents=True)
    for i in range(knobs):
        (root / "knobs" / f"knob-{i:04d}.yaml").write_text(knob_yaml(i, rng, incidents))
    for i in range(incidents):
        (root / "incidents" / f"incident-{i:04d}.yaml").write_text(incident_yaml(i, rng, knobs))
    for d in range(docs):
        mentioned = " ".join(f"`knob-{rng.randrange(knobs):04d}`" for _ in range(5))
        (root / "docs/design" / f"doc-{d:03d}.md").write_text(
            f"# Design note {d}\n\n{sentence(rng, 60)}\n\nTouches {mentioned}.\n\n## Details\n\n{sentence(rng, 80)}\n")
    config = (REPO / "mkdocs.yml").read_text()
    config = config[:config.index("\nnav:")] + "\nnav:\n  - Home: index.md\n  - Knobs: knobs/index.md\n" \
        "  - Incidents: incidents/index.md\n  - Tags: tags.md\n  - Design: design\n"
    (root / "mkdocs.yml").write_text(config)


def static_copy(root: Path, static: Path) -> None:
    """The same site as plain markdown: the generated files plus the hand-written docs."""
    shutil.copytree(root / "docs", static / "docs")
    subprocess.run([sys.executable, "-m", "incident_kb.cli", "render", "--root", str(root),
                    "--out", str(static / "generated")],
                   check=True, cwd=REPO, stdout=subprocess.DEVNULL, env=ENV)
    for path in (static / "generated").rglob("*"):
        if path.is_file() and path.name != ".incident-kb-render":
            target = static / "docs" / path.relative_to(static / "generated")
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
    config = (root / "mkdocs.yml").read_text()
    start = config.index("  # Record pages (reached")
    end = config.index("  - incident-kb\n") + len("  - incident-kb\n")
    # No plugin: what it adds to the configuration (the pages' style sheet and script, record pages
    # out of the nav) is written out instead.
    config = config[:start] + config[end:] + (
        "extra_css: [assets/incident-kb/kb.css]\nextra_javascript: [assets/incident-kb/kb.js]\n"
        "not_in_nav: |\n  /knobs/*.md\n  /incidents/*.md\n")
    (static / "mkdocs.yml").write_text(config)


CPU: dict[str, list[float]] = {}  # CPU seconds of each build, by kind (the machine is shared: CPU is steadier)


def build(folder: Path, site: Path, kind: str = "", cache: Path | None = None) -> float:
    """One `mkdocs build --strict`: wall seconds (CPU seconds kept in CPU[kind]); `cache`: kb's cache
    folder, emptied first (a cold build)."""
    if cache is not None:
        shutil.rmtree(cache / "incident-kb", ignore_errors=True)
    started, cpu = time.perf_counter(), _children_cpu()
    subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-f", str(folder / "mkdocs.yml"),
                    "-d", str(site)], check=True, cwd=folder, env=ENV)
    CPU.setdefault(kind, []).append(_children_cpu() - cpu)
    return time.perf_counter() - started


def pagefind_alone(site: Path) -> tuple[float, float]:
    """Pagefind run over a built site on its own, as `mkdocs serve` runs it: wall and CPU seconds."""
    from incident_kb.website.mkdocs.site_search import EXCLUDED, pagefind_program

    program = pagefind_program()
    assert program is not None, "Pagefind (pagefind-bin) is not installed"
    out = site.parent / "pagefind-alone"
    shutil.rmtree(out, ignore_errors=True)
    started, cpu = time.perf_counter(), _children_cpu()
    subprocess.run([str(program), "--site", str(site), "--output-path", str(out), "--exclude-selectors", EXCLUDED,
                    "--silent"], check=True)
    return time.perf_counter() - started, _children_cpu() - cpu


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--knobs", type=int, default=1200)
    parser.add_argument("--incidents", type=int, default=800)
    parser.add_argument("--docs", type=int, default=60)
    parser.add_argument("--rounds", type=int, default=2, help="runs of each kind of build (the best counts)")
    args = parser.parse_args()
    shutil.rmtree(OUT, ignore_errors=True)
    root, static = OUT / "kb", OUT / "static"
    generate(root, args.knobs, args.incidents, args.docs)
    print(f"{args.knobs} knobs, {args.incidents} incidents, {args.docs} docs under {root}; "
          f"load average {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory(prefix="site-build-cache-") as cache:
        ENV["XDG_CACHE_HOME"] = cache
        first = build(root, OUT / "site-cold", "first", cache=Path(cache))
        static_copy(root, static)
        # Alternate the three builds and keep the best of each: on a shared machine the load
        # changes from one minute to the next, and the minimum is the least disturbed run.
        runs: dict[str, list[float]] = {"plain": [], "cold": [], "warm": []}
        for _ in range(args.rounds):
            runs["plain"].append(build(static, OUT / "site-static", "plain"))
            runs["cold"].append(build(root, OUT / "site-cold", "cold", cache=Path(cache)))
            runs["warm"].append(build(root, OUT / "site-warm", "warm"))
    plain, cold, warm = (min(runs[kind]) for kind in ("plain", "cold", "warm"))
    pages = sum(1 for _ in (OUT / "site-static").rglob("index.html"))
    listed = lambda times: ", ".join(f"{t:.1f}" for t in times)  # noqa: E731
    print(f"first build of the run (cold, not compared):     {first:6.1f} s, {CPU['first'][0]:.1f} s CPU")
    print(f"static baseline (plain mkdocs build, {pages} pages): {plain:6.1f} s   (runs: {listed(runs['plain'])})")
    for kind, label in (("cold", "generated, cold kb cache:  "), ("warm", "generated, warm kb cache:  ")):
        best = min(runs[kind])
        print(f"{label}                      {best:6.1f} s   ratio {best / plain:.2f}   (runs: {listed(runs[kind])})")
    plain_cpu = min(CPU["plain"])
    print(f"CPU seconds (best): plain {plain_cpu:.1f}, cold {min(CPU['cold']):.1f} "
          f"(ratio {min(CPU['cold']) / plain_cpu:.2f}), warm {min(CPU['warm']):.1f} "
          f"(ratio {min(CPU['warm']) / plain_cpu:.2f}); cold {cold / plain:.2f}x, warm {warm / plain:.2f}x wall; "
          f"load average {os.getloadavg()[0]:.1f}")
    # Every run's CPU, not only the best: a build's CPU swings by seconds with the load (Pagefind's
    # threads and the kernel's share grow when the cores are shared), one kind's best can meet a calm minute.
    print("CPU seconds of each run: " + "; ".join(f"{kind} {listed(CPU[kind])}" for kind in ("plain", "cold", "warm")))
    alone = [pagefind_alone(OUT / "site-warm") for _ in range(args.rounds)]
    wall, cpu = min(alone)
    print(f"Pagefind alone over the built site: {wall:.1f} s wall, {cpu:.1f} s CPU "
          f"(runs: {listed([run[0] for run in alone])}); {wall / plain:.2f}x plain MkDocs' wall, "
          f"{cpu / plain_cpu:.2f}x its CPU")


if __name__ == "__main__":
    main()
