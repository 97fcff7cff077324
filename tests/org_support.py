"""Small knowledge bases of an organisation for the tests: a payments team's knob reverted under a
platform team's incident (`platform:edge-outage`), whose hypothesis suspects it (`payments:db-pool-size`)."""

from __future__ import annotations

from pathlib import Path

from .gitrepo import GitRepo


def knob_text(knob_id: str = "db-pool-size", incident: str = "platform:edge-outage",
              hypothesis: str = "pool-exhaustion") -> str:
    return (f"id: {knob_id}\nname: DB_POOL_SIZE\nsummary: Connections in the database pool.\nvalue: 64\n"
            "status: reverted\ndefault: 16\n"
            "measurements:\n  - metric: checkout throughput\n    setting: 64\n    delta_pct: 9.5\n"
            "    date: 2026-10-01\n"
            "history:\n  - date: 2026-10-01\n    status: active\n"
            f"  - date: 2026-11-02\n    status: reverted\n    incident: {incident}\n    hypothesis: {hypothesis}\n")


def incident_text(status: str = "refuted", suspect: str = "payments:db-pool-size",
                  incident_id: str = "edge-outage") -> str:
    decided = "    decided: 2026-11-04\n" if status != "open" else ""
    return (f"id: {incident_id}\ntitle: Edge proxies time out\nstatus: open\nstarted: 2026-11-01\n"
            "summary: The edge timed out under load.\n"
            "hypotheses:\n  - id: pool-exhaustion\n    statement: The payments database pool runs dry.\n"
            f"    status: {status}\n{decided}    suspect:\n      knob: {suspect}\n")


def write_payments(root: Path, **knob: str) -> Path:
    (root / "knobs").mkdir(parents=True, exist_ok=True)
    (root / "incidents").mkdir(exist_ok=True)
    (root / "knobs/db-pool-size.yaml").write_text(knob_text(**knob))
    return root


def write_platform(root: Path, status: str = "refuted", suspect: str = "payments:db-pool-size") -> Path:
    (root / "knobs").mkdir(parents=True, exist_ok=True)
    (root / "incidents").mkdir(exist_ok=True)
    (root / "incidents/edge-outage.yaml").write_text(incident_text(status, suspect))
    return root


def committed(root: Path, when: str = "2026-11-05T10:00:00Z") -> GitRepo:
    """`root` as a git repository with everything in it committed."""
    repo = GitRepo(root)
    repo.commit("Records", when)
    return repo


ORG_MKDOCS = """site_name: The organisation
theme:
  name: material
  font: false
plugins:
  - search
  - incident-kb:
      knowledge_bases:
{entries}
"""


def write_org(root: Path, entries: list[dict[str, str]]) -> Path:
    """An org site's repository: a mkdocs.yml naming `entries` under knowledge_bases:, and a docs folder."""
    (root / "docs").mkdir(parents=True, exist_ok=True)
    lines = []
    for entry in entries:
        first, *rest = entry.items()
        lines.append(f"        - {first[0]}: {first[1]}")
        lines.extend(f"          {key}: {value}" for key, value in rest)
    (root / "mkdocs.yml").write_text(ORG_MKDOCS.format(entries="\n".join(lines)))
    return root / "mkdocs.yml"
