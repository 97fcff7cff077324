"""Console blocks in docs, run as shown: each `$ command` is run in a shell and its output compared
with the lines under it. The guide and the README's adoption section are tested this way
(`UPDATE_GOLDEN=1` rewrites the shown output instead; review the diff)."""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

BLOCK = re.compile(r"^```console\n(.*?)^```$", re.DOTALL | re.MULTILINE)


@dataclass
class Step:
    command: str  # as a shell reads it (continuation lines joined)
    source: list[str]  # the lines as written in the guide
    output: list[str]
    line: int  # where the command starts in the guide


def steps_of(block: str, first_line: int) -> list[Step]:
    steps: list[Step] = []
    lines = block.splitlines()
    i = 0
    while i < len(lines):
        assert lines[i].startswith("$ "), f"line {first_line + i}: console blocks alternate '$ command' and output"
        start = i
        while lines[i].endswith("\\"):
            i += 1
        source = lines[start:i + 1]
        i += 1
        output = []
        while i < len(lines) and not lines[i].startswith("$ "):
            output.append(lines[i])
            i += 1
        steps.append(Step("\n".join(source)[2:], source, output, first_line + start))
    return steps


def run_block(block: str, first_line: int, where: str, root: Path, env: dict[str, str],
              timeout: float) -> tuple[list[str], list[str]]:
    """Run a console block's commands in `root`; returns its lines with the actual output (what
    UPDATE_GOLDEN writes back) and one message per command whose output differs from the shown."""
    rewritten: list[str] = []
    failures: list[str] = []
    for step in steps_of(block, first_line):
        result = subprocess.run(["bash", "-c", step.command], cwd=root, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, timeout=timeout)
        actual = result.stdout.rstrip("\n").split("\n") if result.stdout.strip() else []
        if actual != step.output:
            failures.append(f"{where} line {step.line}: $ {step.command}\n  shown:  {step.output}\n  actual: {actual}")
        rewritten += [*step.source, *actual]
    return rewritten, failures
