"""What the workflow `kb init` writes installs: the incident-kb running now, as CI can install it
(the commit of the repository it came from, the URL of an archive, or the very wheel file, which kb
init copies into the knowledge base). Writes nothing.
"""

from __future__ import annotations

import json
import urllib.parse
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class Install:
    """How the workflow installs the incident-kb running now, so that CI checks with what was tried."""

    requirement: str  # what `pip install` is given in the workflow
    wheel: Path | None = None  # a wheel to copy into the knowledge base (at `requirement`, relative to it)
    note: str | None = None  # what the user must know (a local folder cannot be installed elsewhere)


WHEELS = "wheels"  # where kb init copies the wheel it was installed from, in the knowledge base
MAX_WHEEL = 64 << 20


def pinned_requirement() -> Install:
    """How CI installs the incident-kb running now (PEP 610 says where it came from): the commit of a
    repository it was installed from, the URL of an archive, or the very wheel file it was installed
    from (copied into the knowledge base, since CI cannot reach this machine's files)."""
    from importlib import metadata  # imported by `kb init` alone: it costs every other command its start

    dist = metadata.distribution("incident-kb")
    direct = json.loads(dist.read_text("direct_url.json") or "{}")
    url, vcs = direct.get("url", ""), direct.get("vcs_info")
    if vcs and not url.startswith("file:"):
        return Install(f"incident-kb @ {vcs['vcs']}+{url}@{vcs['commit_id']}")  # a commit id: never moves
    if url.startswith(("https://", "http://")):
        return Install(f"incident-kb @ {url}")
    if url.startswith("file:") and url.endswith(".whl") and "archive_info" in direct:
        wheel = Path(urllib.parse.unquote(urllib.parse.urlsplit(url).path))
        if wheel.is_file():
            return Install(f"./{WHEELS}/{wheel.name}", wheel)
    pinned = f"incident-kb=={dist.version}"
    if url:
        return Install(pinned, None, f"incident-kb {dist.version} runs from {url}, which CI cannot install; the "
                                     f"workflow names {pinned}: install incident-kb from a wheel (make wheel in its "
                                     f"checkout, then pip install the file) and run kb init again after removing "
                                     f".github/workflows/kb-check.yml, or change its install step to where your team "
                                     "installs it from")
    return Install(pinned)
