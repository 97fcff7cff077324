"""What reading deploy files in their common forms costs, against the regular expression the drift
check ran before (one `NAME=VALUE` pattern per knob and file), on the same files in the same run.

A knowledge base of N knobs, each deployed in five shared files that set all N settings (a shell
script, a Kubernetes env list, helm values, terraform, a systemd unit): every knob asks every file,
as `kb check` does. Prints the seconds of each and `readers / one regex`. Usage:
.venv/bin/python bench/deploy_files.py [--knobs 2000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from incident_kb.deploy.safe_regex import compile_pattern  # noqa: E402
from incident_kb.deploy.verdict import deployment_verdict  # noqa: E402
from incident_kb.records.schema import Knob  # noqa: E402


def files(count: int) -> dict[str, str]:
    names = [f"SERVICE_{i:05}_POOL_SIZE" for i in range(count)]
    return {
        "deploy/app.sh": "#!/bin/sh\n" + "".join(f"export {n}={i}\n" for i, n in enumerate(names)),
        "deploy/k8s.yaml": "env:\n" + "".join(f"  - name: {n}\n    value: \"{i}\"\n" for i, n in enumerate(names)),
        "deploy/values.yaml": "app:\n  env:\n" + "".join(f"    {n}: \"{i}\"\n" for i, n in enumerate(names)),
        "deploy/main.tf": "environment = {\n" + "".join(f"  {n} = \"{i}\"\n" for i, n in enumerate(names)) + "}\n",
        "deploy/app.service": "[Service]\n" + "".join(f"Environment={n}={i}\n" for i, n in enumerate(names)),
    }


def knobs(count: int, paths: list[str]) -> list[Knob]:
    return [Knob.model_validate({
        "id": f"k{i}", "name": f"SERVICE_{i:05}_POOL_SIZE", "summary": "s", "value": i, "status": "active",
        "applies_to": [{"path": p} for p in paths], "history": [{"date": "2026-11-01", "status": "active"}]})
        for i in range(count)]


def old_regex(all_knobs: list[Knob], texts: dict[str, str]) -> int:
    hits = 0
    for knob in all_knobs:
        for path in texts:
            pattern = compile_pattern(rf"^\s*(export\s+)?{knob.name}={knob.value}\b")
            hits += pattern.search(texts[path]) is not None
    return hits


def readers(all_knobs: list[Knob], texts: dict[str, str]) -> int:
    hits = 0
    for knob in all_knobs:
        for deployment in knob.applies_to:
            verdict = deployment_verdict(knob, deployment, texts[deployment.path])
            hits += verdict is not None and verdict.state.value == "agrees"
    return hits


def best(function, *args, repeat: int) -> tuple[float, int]:
    times, result = [], 0
    for _ in range(repeat):
        started = time.perf_counter()
        result = function(*args)
        times.append(time.perf_counter() - started)
    return min(times), result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--knobs", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    texts = files(args.knobs)
    all_knobs = knobs(args.knobs, list(texts))
    size = sum(len(t) for t in texts.values())
    print(f"{args.knobs} knobs x {len(texts)} files of {size / len(texts) / 1024:.0f} KiB each (best of {args.repeat})")
    base, base_hits = best(old_regex, all_knobs, texts, repeat=args.repeat)
    ours, our_hits = best(readers, all_knobs, texts, repeat=args.repeat)
    print(f"  one NAME=VALUE regex per knob and file (before): {base:.2f} s, {base_hits} of "
          f"{args.knobs * len(texts)} found set")
    print(f"  the common forms' readers (now):                 {ours:.2f} s, {our_hits} of "
          f"{args.knobs * len(texts)} found set")
    print(f"  readers / one regex: {ours / base:.2f}x  "
          f"(load {' '.join(f'{x:.1f}' for x in __import__('os').getloadavg())})")


if __name__ == "__main__":
    main()
