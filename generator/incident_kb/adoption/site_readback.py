"""Whether a configuration `kb init --merge` spliced reads back as the team's file plus the knowledge
base: every other setting the same, each plugin keeping its options (the search plugin gaining only
its separator), the plugins in a shape MkDocs reads. A splice that fails this is never written."""

from __future__ import annotations

from typing import Any

from ..settings.config_files import site_yaml


class CannotMerge(Exception):
    """Why kb init --merge cannot add to the file line by line (the caller shows the lines to add)."""


def plugin_name(item: Any) -> str | None:
    if isinstance(item, str):
        return item
    if isinstance(item, dict) and len(item) == 1:
        return str(next(iter(item)))
    return None


def check_reads_back(old: str, new: str, plugin: str, separator: str) -> None:
    """The new file must read as the old one with the additions only (else it is not written)."""
    try:
        before, after = site_yaml(old), site_yaml(new)
    except ValueError as exc:  # pragma: no cover - a splicing bug: never write it
        raise CannotMerge(f"adding to it would not read as YAML (a bug in kb: {exc})") from None
    for key in before:
        if key in ("plugins", "nav"):
            continue
        if before[key] != after.get(key):  # pragma: no cover - a splicing bug: never write it
            raise CannotMerge(f"adding to it would change its {key}: (a bug in kb)")
    if set(after) - set(before) - {"plugins"}:  # pragma: no cover
        raise CannotMerge("adding to it would add other settings (a bug in kb)")
    old_plugins, new_plugins = _plugin_options(before.get("plugins")), _plugin_options(after.get("plugins"))
    if new_plugins is None or plugin not in new_plugins:  # pragma: no cover
        raise CannotMerge("the plugin would not be listed after the addition (a bug in kb)")
    for name, options in (old_plugins or {}).items():  # each plugin keeps its options; search gains one
        gained = {**(options or {}), "separator": separator} if name in ("search", "material/search") else None
        if new_plugins.get(name) != (options or {}) and new_plugins.get(name) != gained:  # pragma: no cover
            raise CannotMerge(f"adding to it would change the {name} plugin's options (a bug in kb)")


def _plugin_options(plugins: Any) -> dict[str, Any] | None:
    """Each plugin's options as MkDocs reads `plugins:` (a list or a mapping); None when it cannot."""
    if plugins is None:
        return {}
    if isinstance(plugins, dict):
        return {str(name): value for name, value in plugins.items()}
    if not isinstance(plugins, list):
        return None
    result: dict[str, Any] = {}
    for item in plugins:
        if isinstance(item, str):
            result[item] = {}
        elif isinstance(item, dict) and len(item) == 1:
            result.update({str(name): value for name, value in item.items()})
        else:
            return None
    return result
