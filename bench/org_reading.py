"""Benchmark: reading the organisation's site in headless Chromium (issue 35's goals: search ready
< 1 s and one tab < 300 MB, as for one knowledge base), beside the one knowledge base holding the same
records, both measured in the same run with bench/reading.py's search measurement.

    .venv/bin/python bench/org_site.py --bases 50 --records 200     # builds the two sites first
    .venv/bin/python bench/org_reading.py [--out bench/out/org_site] [--rounds 2] [--only org]

The probes are records of the middle knowledge base (team-25 of 50): a knob found by its id and its
setting name, an incident by its id and its root cause's words (reading.probes_for), at
/team-25/knobs/ID/ on the org site and /knobs/ID/ on the one knowledge base's. For the figures' meaning
(ready, first, later, kept, tab MB, dl MB, ranks) see bench/reading.py; each round opens each site in a
fresh browser, alternated.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import reading  # noqa: E402

REPO = Path(__file__).resolve().parent.parent


def org_probes(out: Path) -> tuple[str, dict[str, str], list[tuple[str, str]]]:
    """The middle knowledge base's name, and reading's probes for its records (paths as on one site)."""
    members = sorted(p.name for p in (out / "org").iterdir() if p.name.startswith("team-"))
    member = members[len(members) // 2]
    probes, queries = reading.probes_for(out / "org" / member)
    return member, probes, queries


def under(member: str, probes: dict[str, str], queries: list[tuple[str, str]]) -> tuple[dict[str, str],
                                                                                       list[tuple[str, str]]]:
    """The probes with their pages under the member's folder, as the org site has them."""
    return ({key: f"/{member}{value}" if key.endswith("path") else value for key, value in probes.items()},
            [(query, f"/{member}{path}") for query, path in queries])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "out" / "org_site")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--only", choices=("one", "org"), help="read one of the two sites (the other's wait "
                        "can time out on a loaded machine)")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    sites = {"one knowledge base": args.out / "one" / "site", "org site": args.out / "org" / "site"}
    if args.only is not None:
        sites = {name: site for name, site in sites.items() if site.parent.name == args.only}
    for name, site in sites.items():
        if not (site / "index.html").is_file():
            raise SystemExit(f"no {name} at {site}: run bench/org_site.py first")
    member, probes, queries = org_probes(args.out)
    asked = {"one knowledge base": (probes, queries), "org site": under(member, probes, queries)}
    bases = sum(1 for p in (args.out / "org").iterdir() if p.name.startswith("team-"))
    records = sum(1 for kind in ("knobs", "incidents") for _ in (args.out / "one" / kind).glob("*.yaml"))
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at start; {bases} knowledge "
          f"bases, {records:,} records; probes in {member}: {'; '.join(q for q, _ in queries)}", flush=True)
    print(f"{'site':<20} {'ready':>7} {'first':>7} {'(load)':>7} {'later':>7} {'kept':>5} {'tab MB':>7} "
          f"{'dl MB':>6}  ranks")
    with sync_playwright() as playwright:
        for _ in range(args.rounds):  # alternated: a noisy moment hurts both
            for name, site in sites.items():
                f = reading.measure_search(playwright, reading.Variant(name, site, search="kb"), *asked[name])
                print(f"{name:<20} {f.ready_ms:>5.0f}ms {f.first_ms:>5.0f}ms {f.first_from_load_ms:>5.0f}ms "
                      f"{f.later_ms:>5.0f}ms {'yes' if f.kept else 'no':>5} {f.tab_mb:>7.0f} {f.search_mb:>6.1f}  "
                      f"{' '.join(f.ranks)}", flush=True)
    print(f"goals: ready < 1000 ms, tab < 300 MB; load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
