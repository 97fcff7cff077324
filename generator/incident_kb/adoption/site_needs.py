"""What the team's own site build needs installed beside incident-kb, for the workflow `kb init`
writes: what the repository declares (a docs requirements file, a pyproject extra or dependency
group named for docs), or, where it declares nothing, the distributions installed here that provide
the plugins and markdown extensions mkdocs.yml names, pinned to their versions. What cannot be
resolved is said, and so is a declared Material pin incident-kb cannot install beside (with the
change to make). Reads files; writes nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

# Where teams declare their docs' dependencies, relative to the knowledge base's folder.
REQUIREMENT_FILES = ("docs/requirements.txt", "docs/requirements-docs.txt", "requirements-docs.txt",
                     "requirements/docs.txt", "docs-requirements.txt", "doc-requirements.txt")
DOCS_NAMES = ("docs", "doc", "documentation", "mkdocs")  # extras and dependency groups
BUILT_IN_PLUGINS = frozenset({"search"})  # MkDocs' own
_OWN = "incident-kb"
_PROBE_VERSIONS = ("9.7.6", "9.7.7", "9.8.0", "9.8.1", "9.8.2", "9.8.3")  # Material versions kb may get


@dataclass(frozen=True, slots=True)
class SiteNeeds:
    """What the workflow installs beside incident-kb, and what kb init says about it."""

    install: tuple[str, ...] = ()  # pip arguments (`-r docs/requirements.txt`, `mkdocs-glightbox==0.5.3`)
    found: tuple[str, ...] = ()  # lines: where each came from
    unresolved: tuple[str, ...] = ()  # lines: what could not be resolved, and what to do
    conflicts: tuple[str, ...] = ()  # lines: `file:line: a pin kb cannot install beside; the change`


def site_needs(read_text: Callable[[str], str | None], site: dict[str, Any] | None) -> SiteNeeds:
    """`read_text(rel_path)`: a file of the knowledge base's folder (None when missing); `site`: the
    site configuration as MkDocs reads it (None without one)."""
    floor = _own_material_requirement()
    for rel in REQUIREMENT_FILES:
        text = read_text(rel)
        if text is not None:
            conflicts = tuple(f"{rel}:{line}: {why}" for line, why in _conflicts(text.splitlines(), floor))
            return SiteNeeds((f"-r {rel}",), (f"the site's dependencies from {rel}",), (), conflicts)
    pyproject = read_text("pyproject.toml")
    if pyproject is not None:
        needs = _from_pyproject(pyproject, floor)
        if needs is not None:
            return needs
    return _from_installed(site or {})


def _from_pyproject(text: str, floor: Any) -> SiteNeeds | None:
    import tomllib

    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError):
        return None
    lines = text.splitlines()
    extras = data.get("project", {}).get("optional-dependencies", {})
    groups = data.get("dependency-groups", {})
    for kind, table in (("extra", extras), ("dependency group", groups)):
        if not isinstance(table, dict):
            continue
        name = next((key for key in table if isinstance(key, str) and key.lower() in DOCS_NAMES), None)
        if name is None or not isinstance(table[name], list):
            continue
        wanted = [item for item in table[name] if isinstance(item, str)]
        conflicts = tuple(f"pyproject.toml:{_line_of(lines, item)}: {why}"
                          for item in wanted for _, why in _conflicts([item], floor))
        skipped = tuple(f"pyproject.toml: the {kind} '{name}' includes another group ({item}), which the workflow "
                        "does not install: add its requirements to the workflow's install step"
                        for item in table[name] if not isinstance(item, str))
        install = (f".[{name}]",) if kind == "extra" else tuple(wanted)
        return SiteNeeds(install, (f"the site's dependencies from pyproject.toml's {kind} '{name}'",), skipped,
                         conflicts)
    return None


def _from_installed(site: dict[str, Any]) -> SiteNeeds:
    """The distributions installed here that provide what mkdocs.yml names, pinned; those kb itself
    brings (Material, pymdown-extensions...) left to its own requirements."""
    from importlib import metadata

    plugins = site.get("plugins")
    plugin_names = [str(next(iter(item))) if isinstance(item, dict) and item else str(item)
                    for item in (plugins if isinstance(plugins, list) else list(plugins or {}))]
    extensions = site.get("markdown_extensions")
    extension_names = [str(next(iter(item))) if isinstance(item, dict) and item else str(item)
                       for item in (extensions if isinstance(extensions, list) else list(extensions or {}))]
    providers = {ep.name: ep.dist for ep in metadata.entry_points(group="mkdocs.plugins") if ep.dist is not None}
    modules = metadata.packages_distributions()
    own = _requirement_closure(_OWN)
    pins: dict[str, str] = {}
    unresolved: list[str] = []
    for name in plugin_names:
        if name in BUILT_IN_PLUGINS or name == _OWN:
            continue
        dist = providers.get(name) or providers.get(f"{_theme_name(site)}/{name}")  # `tags`: the theme's own
        if dist is None:
            unresolved.append(f"mkdocs.yml names the plugin '{name}', which no distribution installed here provides: "
                              "add the distribution to the workflow's install step")
        elif _normal(dist.metadata["Name"]) not in own:
            pins[dist.metadata["Name"]] = dist.version
    extension_providers = {ep.name: ep.dist.metadata["Name"]
                           for ep in metadata.entry_points(group="markdown.extensions") if ep.dist is not None}
    for name in extension_names:  # by its entry point's name (`toc`), or its module's (`pymdownx.superfences`)
        dist_name = extension_providers.get(name) or next(iter(modules.get(name.split(".")[0], [])), None) \
            if "." in name or name in extension_providers else None
        if dist_name is None:
            unresolved.append(f"mkdocs.yml names the markdown extension '{name}', which no distribution "
                              "installed here provides: add the distribution to the workflow's install step")
        elif _normal(dist_name) not in own:
            pins[dist_name] = metadata.version(dist_name)
    install = tuple(f"{name}=={version}" for name, version in sorted(pins.items()))
    found_lines = (f"mkdocs.yml's plugins and extensions, as installed here: {', '.join(install)}",) if install else ()
    return SiteNeeds(install, found_lines, tuple(unresolved))


def _theme_name(site: dict[str, Any]) -> str:
    theme = site.get("theme")
    return str(theme.get("name") if isinstance(theme, dict) else theme)


def _requirement_closure(name: str) -> set[str]:
    """`name` and every distribution it requires, as installed (extras and markers aside)."""
    from importlib import metadata

    seen: set[str] = set()
    waiting = [name]
    while waiting:
        current = _normal(waiting.pop())
        if current in seen:
            continue
        seen.add(current)
        try:
            requires = metadata.requires(current) or []
        except metadata.PackageNotFoundError:
            continue
        waiting += [match.group(0) for line in requires if "extra ==" not in line
                    if (match := re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", line))]
    return seen


def _own_material_requirement() -> Any:
    """incident-kb's own requirement on mkdocs-material (a packaging Requirement), if it has one."""
    from importlib import metadata

    from packaging.requirements import InvalidRequirement, Requirement

    for line in metadata.requires(_OWN) or []:
        try:
            requirement = Requirement(line)
        except InvalidRequirement:
            continue
        if _normal(requirement.name) == "mkdocs-material" and requirement.marker is None:
            return requirement
    return None


def _conflicts(lines: list[str], floor: Any) -> list[tuple[int, str]]:
    """(line, why) for each requirement line that admits no mkdocs-material incident-kb can install with."""
    from packaging.requirements import InvalidRequirement, Requirement

    if floor is None:
        return []
    found = []
    for number, line in enumerate(lines, 1):
        text = line.split("#", 1)[0].strip()
        try:
            requirement = Requirement(text) if text and not text.startswith("-") else None
        except InvalidRequirement:
            continue
        if requirement is None or _normal(requirement.name) != "mkdocs-material" or not requirement.specifier:
            continue
        if not any(requirement.specifier.contains(v) and floor.specifier.contains(v) for v in _PROBE_VERSIONS):
            admitted = ",".join(sorted((str(part) for part in floor.specifier), key=lambda part: part[0] != ">"))
            found.append((number, f"error: '{text}' pins Material where incident-kb cannot install (it needs "
                                  f"mkdocs-material{admitted}); change it to 'mkdocs-material{admitted}' (or "
                                  "==9.7.7, as TechDocs pins it), or the workflow's install step fails"))
    return found


def _line_of(lines: list[str], item: str) -> int:
    return next((number for number, line in enumerate(lines, 1) if item in line), 1)


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def install_words(needs: SiteNeeds) -> str:
    """The pip arguments, as words of the workflow's install command."""
    from .first_files import shell_quoted

    words = []
    for argument in needs.install:
        if argument.startswith("-r "):
            words += ["-r", shell_quoted(argument[3:])]
        else:
            words.append(shell_quoted(argument))
    return " ".join(words)
