"""A seeded fuzzer for the remembered `kb check` result: random sequences of edits, commits and git
set-ups (an alternate index, files kb does not read, relative attributes and excludes files, and every
operation of tests/differential.py), each step compared cached against cold (INCIDENT_KB_CACHE=off),
byte for byte on stdout and stderr with the exit code.

    PYTHONPATH=generator python bench/cache_fuzz.py --steps 1000 --seed 0

Prints the number of comparisons made and each divergence (its seed and the operations before it)."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.check.test_differential import run_sequences  # noqa: E402
from tests.differential import OPERATIONS  # noqa: E402

ISSUE_29 = ("alternate_index", "unread_file", "relative_attributes")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--seconds", type=float, default=3600)
    args = parser.parse_args()
    operations = (*ISSUE_29, *ISSUE_29, *sorted(OPERATIONS))  # issue 29's set-ups drawn more often
    started, compared, seed, divergences = time.monotonic(), 0, args.seed, []
    with tempfile.TemporaryDirectory(prefix="kb-fuzz-") as folder:
        os.environ["XDG_CACHE_HOME"] = str(Path(folder) / "cache")  # never the user's cache
        while compared < args.steps and time.monotonic() - started < args.seconds:
            difference, done = run_sequences(Path(folder) / f"run-{seed}", args.seconds, operations=operations,
                                             first_seed=seed, max_steps=min(40, args.steps - compared))
            compared += done
            seed += 1
            if difference is not None:
                divergences.append(difference)
                print(difference, flush=True)
    print(f"{compared} comparisons, {len(divergences)} divergences, {time.monotonic() - started:.0f} s")
    return 1 if divergences else 0


if __name__ == "__main__":
    raise SystemExit(main())
