"""How much `kb validate` adds to merely parsing the records.

Generates a knowledge base of N records (default 10,000: 70% knobs, 30% incidents, ~40 lines
each, cross-referenced), then times in one run:
  parse     read + parse every file with ruamel.yaml's C safe loader (the floor: no validation)
  events    read + only scan libyaml's event stream (what any libyaml-based reader must do)
  validate  `kb validate`'s pipeline in-process (load, schema, consistency checks, findings)
and prints validate / parse (aim: under 1.5, validation adds under 50% to the parse) and, for
scale, validate / events.

    .venv/bin/python bench/validate_bench.py [--records 10000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from ruamel.yaml import YAML

from incident_kb.check.pipeline import load_knowledge_base


def knob_text(i: int, incidents: int) -> str:
    incident = f"incident-{i % incidents:05d}"
    return f"""# yaml-language-server: $schema=../schemas/knob.schema.json
id: knob-{i:05d}
name: SERVICE_{i:05d}_TARGET_CTAS
summary: Synthetic knob {i} for the validation benchmark.
value: {256 + i % 512}
status: active
kind: env
component: decode-{i % 17}
default: 256
description: |
  A synthetic setting. It tunes thread-block scheduling of kernel family {i % 31}.
tags: [synthetic, bench, group-{i % 9}]
owners: [team-{i % 5}]
scope:
  hardware: gpu-{i % 4}
  model: model-{i % 6}
measurements:
  - metric: output throughput
    conditions: {{concurrency: 64}}
    baseline: {1000 + i % 100}
    value: {1100 + i % 100}
    date: 2026-01-{1 + i % 28:02d}
  - metric: output throughput
    conditions: {{concurrency: 96}}
    delta_pct: {i % 13}.5
    date: 2026-01-{1 + i % 28:02d}
history:
  - date: 2026-02-01
    status: active
    note: Deployed after benchmarking.
  - date: 2026-02-05
    status: reverted
    incident: {incident}
    hypothesis: knob-suspected
    note: Suspected during the incident.
  - date: 2026-02-09
    status: restored
    incident: {incident}
    hypothesis: knob-suspected
    note: Restored once the real cause was found.
"""


def incident_text(i: int) -> str:
    return f"""# yaml-language-server: $schema=../schemas/incident.schema.json
id: incident-{i:05d}
title: Synthetic incident {i}
status: resolved
started: 2026-02-03
resolved: 2026-02-09
severity: sev{1 + i % 3}
summary: |
  Requests hung after several rounds. A knob was suspected; the proxy was at fault.
systems: [router, decode]
symptoms:
  - Clients wedge after several rounds.
hypotheses:
  - id: knob-suspected
    statement: A tuned knob causes the hang.
    status: refuted
    evidence:
      - kind: correlation
        stance: for
        text: The hang appeared around the deploy.
        date: 2026-02-04
      - kind: experiment
        stance: against
        text: The hang persisted after the revert.
        date: 2026-02-06
  - id: proxy-fault
    statement: A client proxy drops requests.
    status: confirmed
    evidence:
      - kind: report
        stance: for
        text: The proxy was found acting up.
        date: 2026-02-09
root_cause:
  hypothesis: proxy-fault
  summary: A client proxy dropped requests.
timeline:
  - at: 2026-02-03
    event: Hang first seen.
  - at: 2026-02-09
    event: Proxy fixed.
follow_ups:
  - action: Restore the knob.
    status: done
lessons:
  - A revert is a hypothesis test, not a fix.
"""


def generate(root: Path, records: int) -> None:
    incidents = max(1, records * 3 // 10)
    (root / "knobs").mkdir(parents=True)
    (root / "incidents").mkdir()
    for i in range(incidents):
        (root / "incidents" / f"incident-{i:05d}.yaml").write_text(incident_text(i))
    for i in range(records - incidents):
        (root / "knobs" / f"knob-{i:05d}.yaml").write_text(knob_text(i, incidents))


def parse_only(root: Path) -> None:
    yaml = YAML(typ="safe", pure=False)
    assert yaml.Parser.__name__ == "CParser", "ruamel.yaml.clib is missing: the floor would be the slow parser"
    for folder in ("knobs", "incidents"):
        for path in sorted((root / folder).iterdir()):
            yaml.load(path.read_text(encoding="utf-8"))


def events_only(root: Path) -> None:
    from _ruamel_yaml import CParser

    for folder in ("knobs", "incidents"):
        for path in sorted((root / folder).iterdir()):
            parser = CParser(path.read_text(encoding="utf-8"))
            while parser.get_event().__class__.__name__ != "StreamEndEvent":
                pass


def validate(root: Path) -> None:
    findings = load_knowledge_base(root).findings  # severities applied and sorted by the pipeline
    assert not findings, findings[:3]


def timed(fn, root: Path, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn(root)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        generate(root, args.records)
        validate(root)  # warm the file cache and imports for both
        parse = timed(parse_only, root, args.repeat)
        events = timed(events_only, root, args.repeat)
        checked = timed(validate, root, args.repeat)
    print(f"records:  {args.records}")
    print(f"parse:    {parse:.2f} s  (ruamel.yaml C safe loader, read + parse)")
    print(f"events:   {events:.2f} s  (libyaml event stream only, no values built)")
    print(f"validate: {checked:.2f} s  (kb validate pipeline, in-process)")
    print(f"ratio:    {checked / parse:.2f} of parse (aim: under 1.50); {checked / events:.2f} of the event scan")


if __name__ == "__main__":
    main()
