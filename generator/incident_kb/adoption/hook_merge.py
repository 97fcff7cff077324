"""`kb init` beside a `.pre-commit-config.yaml` the repository already has: the kb-check hook added
at the end of its `repos:` list (with `--merge`), every other byte kept, or the exact lines to add
printed where it cannot be added line by line (an inline list, no `repos:` list). The result is
parsed again and must read as the old file plus exactly one more repo; else it is not offered.
Writes nothing: `init` writes.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any

HOOK_ID = "kb-check"


@dataclass(frozen=True, slots=True)
class HookAddition:
    """What an existing pre-commit configuration needs to run kb check."""

    new_text: str | None  # the file with the hook added; None when it runs the hook already or cannot
    lines: tuple[str, ...]  # the repo entry to add, as lines (for adding by hand)
    cannot: str | None = None  # why it cannot be added line by line
    old_text: str | None = None  # the file as it is

    def diff(self, name: str) -> list[str]:
        if self.new_text is None:
            return []
        return [line.rstrip("\n") for line in difflib.unified_diff(
            (self.old_text or "").splitlines(True), self.new_text.splitlines(True), f"{name} (now)",
            f"{name} (with kb check)", n=1)]


def hook_addition(text: str, starter: str) -> HookAddition:
    """What `text` (an existing .pre-commit-config.yaml) must add to run the hook of `starter` (the
    configuration kb init would write: `repos:` then one local repo)."""
    from ruamel.yaml import YAML

    entry = starter[starter.index("repos:\n") + len("repos:\n"):].splitlines(True)  # '  - repo: local' ...
    try:
        config = YAML(typ="rt").load(text)
    except Exception:  # noqa: BLE001 - ruamel's errors have no common base but Exception
        return HookAddition(None, tuple(entry), "it cannot be read as YAML")
    repos: Any = config.get("repos") if isinstance(config, dict) else None
    if _has_hook(repos):
        return HookAddition(None, tuple(entry), None, text)
    style = getattr(repos, "fa", None)  # ruamel's: how the list is written
    if not isinstance(repos, list) or not repos or (style is not None and style.flow_style()):
        return HookAddition(None, tuple(entry), "its repos: is not a list written one item a line", text)
    lines = text.splitlines(True)
    commented: Any = repos  # ruamel's list, which carries its items' lines
    first = lines[commented.lc.item(0)[0]]
    dash = len(first) - len(first.lstrip(" "))
    if not first.lstrip(" ").startswith("-"):
        return HookAddition(None, tuple(entry), "its repos: is not a list written one item a line", text)
    indented = [" " * dash + line[2:] if line.startswith("  ") else line for line in entry]
    end = _end_of_top_block(lines, config, "repos")
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    eol = "\r\n" if lines[0].endswith("\r\n") else "\n"
    new_text = "".join([*lines[:end], *(line[:-1] + eol for line in indented), *lines[end:]])
    after = YAML(typ="safe").load(new_text)
    before = YAML(typ="safe").load(text)
    if {k: v for k, v in after.items() if k != "repos"} != {k: v for k, v in before.items() if k != "repos"} \
            or after["repos"][:-1] != before["repos"] or not _has_hook(after["repos"][-1:]):  # pragma: no cover
        return HookAddition(None, tuple(entry), "adding to it would change other settings (a bug in kb)", text)
    return HookAddition(new_text, tuple(entry), None, text)


def _has_hook(repos: Any) -> bool:
    return isinstance(repos, list) and any(
        isinstance(repo, dict) and isinstance(repo.get("hooks"), list)
        and any(isinstance(hook, dict) and hook.get("id") == HOOK_ID for hook in repo["hooks"]) for repo in repos)


def _end_of_top_block(lines: list[str], config: Any, key: str) -> int:
    """The index of the line after `key`'s block (trailing blank and comment lines stay after it)."""
    start = config.lc.key(key)[0]
    following = sorted(config.lc.key(other)[0] for other in (config.lc.data or {}) if config.lc.key(other)[0] > start)
    end = following[0] if following else len(lines)
    while end > start + 1 and (not lines[end - 1].strip() or lines[end - 1].lstrip().startswith("#")):
        end -= 1
    return end
