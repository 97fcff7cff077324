"""How finding doc references scales with the length of a word, against prose of the same size.

The issue's probe: a doc holding one 80 KiB word of '_'-joined parts took 25 s when every
'_'-suffix of every word was tried. Here, in the same run, for each size: a doc of ordinary prose
(the baseline) and a doc of one word of that size, both scanned by `find_doc_references` against
200 knobs. Prints seconds and `one word / prose`; the goal is a ratio near 1 at every size (linear:
a long word costs what the same bytes of prose cost). Usage:
.venv/bin/python bench/doc_references.py [--sizes 20,80,320] (KiB)
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from incident_kb.check.pipeline import load_knowledge_base  # noqa: E402
from incident_kb.rules.references import find_doc_references  # noqa: E402

KNOB = """\
id: knob-{i}
name: SERVICE_{i}_POOL_SIZE
summary: s
value: {i}
status: active
history:
  - date: 2026-11-01
    status: active
"""
PROSE = "The pool of service 7 was raised after the incident; see SERVICE_7_POOL_SIZE and the plan. "


def timed(root: Path, text: str, repeat: int = 3) -> float:
    (root / "docs/doc.md").write_text(text)
    catalog = load_knowledge_base(root).catalog
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        find_doc_references(root, catalog, "docs")
        best = min(best, time.perf_counter() - started)
    return best


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="20,80,320", help="doc sizes in KiB")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        for sub in ("knobs", "incidents", "docs"):
            (root / sub).mkdir()
        for i in range(200):
            (root / f"knobs/knob-{i}.yaml").write_text(KNOB.format(i=i))
        print(f"{'KiB':>6} {'prose s':>9} {'one word s':>11} {'ratio':>6}")
        for kib in (int(s) for s in args.sizes.split(",")):
            size = kib * 1024
            prose = (PROSE * (size // len(PROSE) + 1))[:size]
            word = ("A_" * (size // 2))[: size - len("POOL_SIZE")] + "POOL_SIZE"
            base, long_word = timed(root, prose), timed(root, word)
            print(f"{kib:>6} {base:>9.4f} {long_word:>11.4f} {long_word / base:>6.2f}")


if __name__ == "__main__":
    main()
