"""How `kb check` scales with git history, against the least any history-aware check must do.

Synthesises knowledge-base repositories with `git fast-import` (records added over time, prose
edits, material changes, doc edits and renames; a few hundred docs that mention records), then
times, in the same run:

- the floor: one plain `git log --raw` over the whole history, plus one parse of every record at
  HEAD with ruamel.yaml's C loader;
- `kb check` (a fresh process, as CI runs it: load, validate, rules, the stale-doc history pass);
- for reference, `kb validate` (no git) and `material_changes` for every record (the site's
  timelines).

Prints seconds and `kb check / floor`; the goal is a ratio within 3x at both sizes, so the cost
grows linearly. Usage: .venv/bin/python bench/git_history.py [--sizes 2000:5000,10000:20000]
[--docs 300] [--out bench/out]
"""

from __future__ import annotations

import argparse
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

from ruamel.yaml import YAML

REPO = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
EPOCH = 1_790_000_000  # 2026-09-21
ENV = {"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1", "PATH": "/usr/bin:/bin:/usr/local/bin"}

KNOB_STATUSES = ("active", "reverted")
PROSE = ("Tuned after a sweep of the decode batch sizes.", "Measured on the staging cluster.",
         "Keeps tail latency flat under bursty load.", "Chosen for the new hardware generation.")


class Knob:
    def __init__(self, n: int, day: int) -> None:
        self.id = f"bench-knob-{n:05d}"
        self.name = f"BENCH_KNOB_{n:05d}_TARGET_BLOCKS"
        self.value = 256 + n % 7 * 64
        self.history = [(day, "active")]
        self.prose = PROSE[n % len(PROSE)]

    @property
    def path(self) -> str:
        return f"knobs/{self.id}.yaml"

    def flip(self, day: int) -> None:
        status = "reverted" if self.history[-1][1] == "active" else "restored"
        self.history.append((max(day, self.history[-1][0]), status))

    def text(self) -> str:
        status = "active" if self.history[-1][1] in ("active", "restored") else "reverted"
        lines = [
            "# yaml-language-server: $schema=../schemas/knob.schema.json",
            f"id: {self.id}", f"name: {self.name}",
            "summary: Target thread-block count for a synthetic kernel.",
            f"value: {self.value}", f"status: {status}", "kind: env", "component: decode", "default: 256",
            "description: |", f"  {self.prose}", "  A synthetic knob for the history benchmark; the",
            "  numbers below are made up but shaped like real ones.",
            "tags: [bench, decode]", "scope:", "  hardware: synthetic", "  model: synthetic",
            "measurements:", "  - metric: output throughput", "    conditions: {concurrency: 64}",
            "    delta_pct: 4.5", f"    date: {_day(self.history[0][0])}",
            "  - metric: output throughput", "    conditions: {concurrency: 96}", "    delta_pct: 2.5",
            f"    date: {_day(self.history[0][0])}", "history:"]
        for day, entry in self.history:
            lines += [f"  - date: {_day(day)}", f"    status: {entry}"]
            if entry == "reverted":
                lines.append("    note: Suspected during an investigation.")
        if status == "reverted":
            lines.append("keep_reverted: waiting for the vendor's fix")
        return "\n".join(lines) + "\n"


class Incident:
    def __init__(self, n: int, day: int, knob: Knob) -> None:
        self.id = f"bench-incident-{n:05d}"
        self.day = day
        self.knob = knob
        self.status = "open"
        self.statuses = ["open", "open"]
        self.prose = PROSE[n % len(PROSE)]

    @property
    def path(self) -> str:
        return f"incidents/{self.id}.yaml"

    def advance(self, day: int) -> None:
        if self.status == "open":
            self.status, self.statuses = "mitigated", ["refuted", "open"]
        elif self.status == "mitigated":
            self.status, self.statuses, self.resolved = "resolved", ["refuted", "confirmed"], max(day, self.day)
        else:
            self.status, self.statuses = "open", ["open", "open"]

    def text(self) -> str:
        lines = [
            "# yaml-language-server: $schema=../schemas/incident.schema.json",
            f"id: {self.id}", "title: A synthetic incident", f"status: {self.status}",
            f"started: {_day(self.day)}"]
        if self.status == "resolved":
            lines.append(f"resolved: {_day(self.resolved)}")
        lines += ["summary: |", f"  {self.prose}", "symptoms:", "  - Requests stall after several rounds.",
                  "hypotheses:",
                  "  - id: knob-causes-it", f"    statement: {self.knob.name} causes the stall.",
                  f"    status: {self.statuses[0]}", f"    suspect: {{knob: {self.knob.id}}}", "    evidence:",
                  "      - kind: correlation", "        stance: for", f"        date: {_day(self.day)}",
                  "        text: It appeared around when the knob was deployed.",
                  "  - id: proxy-fault", "    statement: A client proxy drops requests.",
                  f"    status: {self.statuses[1]}", "    evidence:",
                  "      - kind: observation", "        stance: for", f"        date: {_day(self.day)}",
                  "        text: Direct connections did not stall."]
        if self.status == "resolved":
            lines += ["root_cause:", "  hypothesis: proxy-fault", "  summary: A client proxy."]
        lines += ["timeline:", f"  - at: {_day(self.day)}", "    event: Stalls begin.",
                  "lessons:", "  - A revert is a hypothesis test."]
        return "\n".join(lines) + "\n"


def _day(day: int) -> str:
    return time.strftime("%Y-%m-%d", time.gmtime(EPOCH + day * 86400))


def _doc(n: int, mentions: list[Knob | Incident], edit: int) -> str:
    ids = [m.id for m in mentions]
    body = "\n".join(f"- {m.name if isinstance(m, Knob) else m.id}: see the record." for m in mentions)
    return (f"---\nreviewed: edit {edit}\nrecords: [{ids[0]}]\n---\n# Design note {n}\n\n"
            f"Notes on a few settings and incidents.\n\n{body}\n")


def synthesise(folder: Path, n_records: int, n_commits: int, n_docs: int, seed: int = 7) -> None:
    """A repository of `n_records` records (3/4 knobs) and `n_docs` docs in `n_commits` commits."""
    rng = random.Random(seed)
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(folder)], check=True, env=ENV)
    knobs: list[Knob] = []
    incidents: list[Incident] = []
    docs: dict[str, list[Knob | Incident]] = {}
    doc_edits: dict[str, int] = {}
    adding_until = max(1, int(n_commits * 0.4))
    per_commit = -(-n_records // adding_until)
    chunks: list[bytes] = []
    for c in range(n_commits):
        day = c * 60 // n_commits  # two months of history
        ops: list[tuple[str, str]] = []  # (path, new text), or ("R old", new path) for a rename
        if c < adding_until:
            for _ in range(per_commit):
                total = len(knobs) + len(incidents)
                if total >= n_records:
                    break
                if total % 4 == 3 and knobs:
                    incident = Incident(len(incidents), day, rng.choice(knobs))
                    incidents.append(incident)
                    ops.append((incident.path, incident.text()))
                else:
                    knob = Knob(len(knobs), day)
                    knobs.append(knob)
                    ops.append((knob.path, knob.text()))
            if len(docs) < n_docs and c % max(1, adding_until // n_docs) == 0 and knobs:
                path = f"docs/design/note-{len(docs):04d}.md"
                docs[path] = rng.sample([*knobs[-50:], *incidents[-10:]], k=min(3, len(knobs)))
                doc_edits[path] = 0
                ops.append((path, _doc(len(docs), docs[path], 0)))
        else:
            roll = rng.random()
            if roll < 0.55:  # prose edit
                record = rng.choice([*knobs, *incidents]) if incidents else rng.choice(knobs)
                record.prose = rng.choice(PROSE) + f" Revision {c}."
                ops.append((record.path, record.text()))
            elif roll < 0.80:  # material change
                if rng.random() < 0.7 or not incidents:
                    knob = rng.choice(knobs)
                    knob.flip(day)
                    ops.append((knob.path, knob.text()))
                else:
                    incident = rng.choice(incidents)
                    incident.advance(day)
                    ops.append((incident.path, incident.text()))
            elif roll < 0.98 and docs:  # doc edit
                path = rng.choice(list(docs))
                doc_edits[path] += 1
                ops.append((path, _doc(int(path[-7:-3]), docs[path], doc_edits[path])))
            elif docs:  # doc rename
                old = rng.choice(list(docs))
                new = old.replace("note-", "moved-note-", 1) if "moved-" not in old else old.replace("moved-", "", 1)
                if new not in docs:
                    docs[new] = docs.pop(old)
                    doc_edits[new] = doc_edits.pop(old)
                    ops.append((f"R {old}", new))
        message = f"change {c}".encode()
        chunks.append(b"commit refs/heads/main\ncommitter Bench <bench@example.invalid> %d +0000\ndata %d\n%s\n"
                      % (EPOCH + c * 60, len(message), message))
        for path, text in ops:
            if path.startswith("R "):
                chunks.append(b"R %s %s\n" % (path[2:].encode(), text.encode()))
            else:
                data = text.encode()
                chunks.append(b"M 100644 inline %s\ndata %d\n%s\n" % (path.encode(), len(data), data))
        chunks.append(b"\n")
    process = subprocess.run(["git", "fast-import", "--quiet"], cwd=folder, env=ENV, input=b"".join(chunks),
                             capture_output=True)
    if process.returncode != 0:
        raise SystemExit(process.stderr.decode())
    subprocess.run(["git", "checkout", "-q", "-f", "main"], cwd=folder, check=True, env=ENV)


def floor_seconds(folder: Path) -> float:
    yaml = YAML(typ="safe", pure=False)
    assert yaml.Parser.__name__ == "CParser", "ruamel.yaml's C loader is not installed"
    start = time.perf_counter()
    subprocess.run(["git", "log", "--raw"], cwd=folder, env=ENV, check=True, stdout=subprocess.DEVNULL)
    for sub in ("knobs", "incidents"):
        for path in sorted((folder / sub).iterdir()):
            yaml.load(path.read_bytes())
    return time.perf_counter() - start


def command_seconds(*args: str) -> tuple[float, subprocess.CompletedProcess[str]]:
    start = time.perf_counter()
    result = subprocess.run(args, capture_output=True, text=True, env={**ENV, "HOME": "/nonexistent"})
    return time.perf_counter() - start, result


def timelines_seconds(folder: Path) -> float:
    code = ("import sys, time; from pathlib import Path; "
            "from incident_kb.check.pipeline import load_knowledge_base, material_changes; "
            " root = Path(sys.argv[1]); "
            "catalog = load_knowledge_base(root).catalog; t = time.perf_counter(); "
            "changes = material_changes(root, catalog); "
            "print(time.perf_counter() - t, sum(map(len, changes.values())))")
    out = subprocess.run([sys.executable, "-c", code, str(folder)], capture_output=True, text=True, check=True,
                         env=ENV, cwd=REPO).stdout.split()
    return float(out[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="2000:5000,10000:20000", help="records:commits, comma-separated")
    parser.add_argument("--docs", type=int, default=300)
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "out")
    args = parser.parse_args()
    print(f"{'records':>8} {'commits':>8} {'docs':>5} {'floor s':>8} {'check s':>8} {'ratio':>6} "
          f"{'validate s':>10} {'timelines s':>11}  findings")
    for size in args.sizes.split(","):
        records, commits = map(int, size.split(":"))
        folder = args.out / f"kb-{records}-{commits}"
        synthesise(folder, records, commits, args.docs)
        floor = min(floor_seconds(folder) for _ in range(2))
        check, result = min((command_seconds(str(BIN / "kb"), "check", "--root", str(folder)) for _ in range(2)),
                            key=lambda pair: pair[0])
        if result.returncode not in (0, 1):
            raise SystemExit(result.stderr)
        validate, _ = command_seconds(str(BIN / "kb"), "validate", "--root", str(folder))
        timelines = timelines_seconds(folder)
        tail = result.stdout.strip().splitlines()[-1]
        print(f"{records:>8} {commits:>8} {args.docs:>5} {floor:>8.2f} {check:>8.2f} {check / floor:>5.2f}x "
              f"{validate:>10.2f} {timelines:>11.2f}  {tail}", flush=True)


if __name__ == "__main__":
    main()
