"""`kb init` beside a site a team already has: what its MkDocs (or ProperDocs) configuration must
add to show the knowledge base, and, with `kb init --merge`, that addition made in the file.

What is added, only where missing: the search plugin's separator that splits `_` (a short name
finds a setting's page), Material's tags plugin, the `incident-kb` plugin (with `prefix: kb` when the
docs folder already has pages at the paths the knowledge base generates, so none is shadowed), and a
"Knowledge base" section at the end of an explicit `nav:`. The file is read with ruamel.yaml's
round-trip loader, which gives every key's and item's line; the lines are added there, each at the
indentation its neighbours use, and every other byte of the file (comments, order, quoting, tags
such as `!ENV`) is kept as it was. The result is parsed again and must read as the old file plus
exactly the additions; a shape kb cannot add to line by line (a flow list `plugins: [search]`) is
refused with the lines to add by hand. Writes nothing: `init` writes.
"""

from __future__ import annotations

import difflib
import posixpath
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..records.vocabulary import built_path
from ..website.core.links import FEED, GENERATED_PAGES
from ..wording import yaml_quoted
from .site_readback import CannotMerge, check_reads_back, plugin_name as _plugin_name

if TYPE_CHECKING:
    from ..settings.kb_settings import Settings

SEARCH_SEPARATOR = r'[\s\-_,:!=\[\]()"/+%−]+|\.(?!\d)'  # as core.bundle.SEARCH_SEPARATOR (a test holds them equal)
PLUGIN = "incident-kb"
TECHDOCS = "techdocs-core"  # Backstage TechDocs' plugin bundle: it sets Material's theme itself
TECHDOCS_TAGS = "material/tags"
# What the knowledge base generates at the top of its folder (website/core/links.py): a team's page at
# one of these paths would be kept in its place (see website/core/placement.py), so the knowledge base
# goes into PREFIX.
GENERATED_TOP = (*dict.fromkeys(page.split("/")[0] for page in GENERATED_PAGES), FEED)
# ...and where those pages land in the built site: a team's README.md lands where index.md does, its
# knobs.md where knobs/index.md does (records.vocabulary.built_path), so either holds the place too.
_GENERATED_PLACES = frozenset(built_path(page) for page in GENERATED_PAGES)
PREFIXES = ("kb", "knowledge-base", "incident-kb")


@dataclass(frozen=True)
class SiteAdditions:
    new_text: str | None  # the file with the additions; None when it needs none

    def diff(self, name: str, old_text: str) -> list[str]:
        if self.new_text is None:
            return []
        return [line.rstrip("\n") for line in difflib.unified_diff(
            old_text.splitlines(True), self.new_text.splitlines(True), f"{name} (now)",
            f"{name} (with the knowledge base)", n=1)]


def knowledge_base_prefix(docs_folder: Path) -> str:
    """'' when the docs folder's top has no page where the knowledge base generates one; else the
    first of PREFIXES whose folder has none either (`kb`, unless a team's own kb/ has an index.md...)."""
    for prefix in ("", *PREFIXES):
        names = read_docs_names(docs_folder / prefix)
        inside = {f"{name}/{child}" for name in names for child in read_docs_names(docs_folder / prefix / name)}
        if not names & set(GENERATED_TOP) and not {built_path(path) for path in names | inside} & _GENERATED_PLACES:
            return prefix
    return PREFIXES[0]


def configured_prefix(config: Any) -> str | None:
    """The `prefix:` the configuration gives the incident-kb plugin, if it lists the plugin ('' when
    it lists it without one); None when it does not list it."""
    plugins = config.get("plugins") if isinstance(config, dict) else None
    items = plugins if isinstance(plugins, list) else [{name: value} for name, value in plugins.items()] \
        if isinstance(plugins, dict) else []
    for item in items:
        if _plugin_name(item) == PLUGIN:
            options = item.get(PLUGIN) if isinstance(item, dict) else None
            value = options.get("prefix") if isinstance(options, dict) else None
            return value.strip("/") if isinstance(value, str) else ""
    return None


def parsed_config(text: str) -> Any:
    """The configuration as ruamel.yaml's round-trip loader reads it (every key with its line)."""
    from ruamel.yaml import YAML

    try:
        config = YAML(typ="rt").load(text)
    except Exception as exc:  # noqa: BLE001 - ruamel's errors have no common base but Exception
        raise CannotMerge(f"it cannot be read as YAML ({' '.join(str(exc).split())[:160]})") from None
    if not isinstance(config, dict):
        raise CannotMerge("it is not a mapping of settings")
    return config


def site_additions(text: str, prefix: str, about: str | None, inherited: Any = None) -> SiteAdditions:
    """What the configuration `text` must add to show the knowledge base with its pages under
    `prefix` of the docs folder (`about`: the docs-relative page kb init writes about the knowledge
    base, for the nav; `inherited`: the settings its INHERIT: parents give it, merged)."""
    config = parsed_config(text)
    inherited = inherited if isinstance(inherited, dict) else {}
    _refuse_replacing(config, inherited)
    plugins = config.get("plugins")
    if isinstance(plugins, list) and _inline(_commented(plugins)):  # `plugins: [techdocs-core]`: one per line
        one_a_line = _plugins_one_a_line(text, config)
        additions = site_additions(one_a_line, prefix, about, inherited)
        if additions.new_text is not None:
            check_reads_back(text, additions.new_text, PLUGIN, SEARCH_SEPARATOR)
        return additions
    lines = text.splitlines(True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    inserts: list[tuple[int, list[str]]] = []  # (index of the line to insert before, lines)
    replaced: dict[int, list[str]] = {}
    plugin_options = [f"prefix: {prefix}"] if prefix else []
    theme = config.get("theme", inherited.get("theme"))
    material = (theme.get("name") if isinstance(theme, dict) else theme) == "material"
    # Material's tags plugin: `tags` resolves only with `theme: material` written in the file; under
    # TechDocs (techdocs-core puts the Material theme in) its full name does.
    tags = "tags" if material else TECHDOCS_TAGS if _plugin_names(plugins) & {TECHDOCS} else None
    wanted_plugins: list[tuple[str, list[str]]] = []
    separator = f"separator: {yaml_quoted(SEARCH_SEPARATOR)}"
    if plugins is None:  # MkDocs' default is [search]: a plugins: key replaces it, so search is listed
        wanted_plugins = [("search", [separator]), *([(tags, [])] if tags else []), (PLUGIN, plugin_options)]
        if "plugins" in config:  # `plugins:` with nothing under it (MkDocs refuses it): fill it
            inserts.append((_end_of_block(lines, config, "plugins"), _items(wanted_plugins, 2)))
        else:
            inserts.append((_end_of_file(lines), ["plugins:\n", *_items(wanted_plugins, 2)]))
    elif isinstance(plugins, list):
        plugins = _commented(plugins)
        if _inline(plugins):
            raise CannotMerge("its plugins: is a list written inline")
        names = [_plugin_name(item) for item in plugins]
        dash = _dash_indent(lines, plugins, config, "plugins")
        for i, (name, item) in enumerate(zip(names, plugins)):
            if name in ("search", "material/search"):
                line = plugins.lc.item(i)[0]
                under = _content_column(lines[line]) + 2  # the item's options: deeper than its name
                if isinstance(item, str):  # `- search` bare: the separator under it
                    replaced[line] = [_with_colon(lines[line], name), " " * under + separator + "\n"]
                else:
                    _add_separator(item, name, line, under, lines, inserts, replaced)
        if tags and not {"tags", "material/tags"} & set(names):
            wanted_plugins.append((tags, []))
        if PLUGIN not in names:
            wanted_plugins.append((PLUGIN, plugin_options))
        if wanted_plugins:
            inserts.append((_end_of_block(lines, config, "plugins"), _items(wanted_plugins, dash)))
    elif isinstance(plugins, dict):  # `plugins:` as a mapping (`search: {}`), which MkDocs also reads
        plugins = _commented(plugins)
        if _inline(plugins):
            raise CannotMerge("its plugins: is a mapping written inline")
        if not plugins:
            raise CannotMerge("its plugins: is an empty mapping")
        column = plugins.lc.key(_first_written_key(plugins, "plugins:"))[1]
        for name in plugins:
            if name in ("search", "material/search"):
                line = plugins.lc.key(name)[0]
                _add_separator(plugins, name, line, column + 2, lines, inserts, replaced)
        keyed = [(name, [f"{' ' * (column + 2)}{option}" for option in options]) for name, options in
                 ([(tags, [])] if tags and not {"tags", "material/tags"} & set(plugins) else [])
                 + ([(PLUGIN, plugin_options)] if PLUGIN not in plugins else [])]
        if keyed:
            added = [line for name, options in keyed
                     for line in [" " * column + f"{name}:" + ("" if options else " {}") + "\n",
                                  *(option + "\n" for option in options)]]
            inserts.append((_end_of_block(lines, config, "plugins"), added))
    else:
        raise CannotMerge("its plugins: is not a list")
    nav = config.get("nav")
    if isinstance(nav, list) and nav:
        if _inline(_commented(nav)):
            raise CannotMerge("its nav: is a list written inline")
        section = _nav_section(prefix, about)
        if not _nav_mentions(nav, posixpath.join(prefix, "knobs/index.md")):
            dash = _dash_indent(lines, nav, config, "nav")
            added = [" " * dash + "- Knowledge base:\n",
                     *(" " * (dash + 4) + f"- {entry}\n" for entry in section)]
            inserts.append((_end_of_block(lines, config, "nav"), added))
    if not inserts and not replaced:
        return SiteAdditions(None)
    new_lines: list[str] = []
    by_line: dict[int, list[list[str]]] = {}
    for at, block in inserts:
        by_line.setdefault(at, []).append(block)
    for index in range(len(lines) + 1):
        for block in by_line.get(index, []):
            new_lines += block
        if index < len(lines):
            new_lines += replaced.get(index, [lines[index]])
    eol = "\r\n" if lines and lines[0].endswith("\r\n") else "\n"  # the file's own line ending
    new_text = "".join(line if line.endswith("\r\n") or not line.endswith("\n") else line[:-1] + eol
                       for line in new_lines)
    check_reads_back(text, new_text, PLUGIN, SEARCH_SEPARATOR)
    return SiteAdditions(new_text)


def _refuse_replacing(config: Any, inherited: dict[str, Any]) -> None:
    """Refuse where a plugins: or nav: written here would replace one the file takes from elsewhere:
    an INHERIT: parent (MkDocs merges mappings from it, but replaces lists) or a merge key (`<<: *base`)."""
    for key in ("plugins", "nav"):
        if "INHERIT" in config and key in inherited and key not in config:
            raise CannotMerge(f"it inherits its {key}: from {config['INHERIT']} (INHERIT:), which one written "
                              "here would replace")
        if key in config and key not in (config.lc.data or {}):
            raise CannotMerge(f"its {key}: comes from a YAML merge key (<<:), which one written here would replace")


def _plugin_names(plugins: Any) -> set[str]:
    if isinstance(plugins, dict):
        return {str(name) for name in plugins}
    return {name for item in plugins if (name := _plugin_name(item))} if isinstance(plugins, list) else set()


_INLINE_PLUGINS = re.compile(r"^plugins:[ \t]*\[([^\[\]{}#'\"]*)\][ \t]*(#.*)?$")
_PLAIN_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_./-]*")


def _plugins_one_a_line(text: str, config: Any) -> str:
    """`text` with its inline `plugins: [a, b]` (on one line, plain names) written one item a line."""
    lines = text.splitlines(True)
    line = config.lc.key("plugins")[0]
    written = lines[line].rstrip("\r\n")
    match = _INLINE_PLUGINS.match(written)
    names = [name.strip() for name in match.group(1).split(",")] if match else []
    if not match or not names or not all(_PLAIN_NAME.fullmatch(name) for name in names) \
            or names != list(config["plugins"]):
        raise CannotMerge("its plugins: is a list written inline in a way kb cannot write one item a line")
    eol = lines[line][len(written):] or "\n"
    comment = f"   {match.group(2)}" if match.group(2) else ""
    lines[line] = "plugins:" + comment + eol + "".join(f"  - {name}{eol}" for name in names)
    return "".join(lines)


def _add_separator(options_of: Any, name: str, line: int, under: int, lines: list[str],
                   inserts: list[tuple[int, list[str]]], replaced: dict[int, list[str]]) -> None:
    """Add the separator to the search plugin `name` whose options are `options_of[name]`, written at
    `line` (`under`: the column its options take when it has none yet)."""
    separator = f"separator: {yaml_quoted(SEARCH_SEPARATOR)}"
    options = options_of.get(name)
    if isinstance(options, dict) and "separator" in options:
        return
    if options is None:  # `search:` with nothing under it
        replaced[line] = [lines[line], " " * under + separator + "\n"]
    elif isinstance(options, dict) and not options:  # `search: {}`
        match = re.match(r"^(.*?:)[ \t]*\{[ \t]*\}[ \t]*(#.*)?$", lines[line].rstrip("\r\n"))
        if match is None:
            raise CannotMerge(f"its {name} plugin's options are written inline")
        replaced[line] = [match.group(1) + (f"   {match.group(2)}" if match.group(2) else "") + "\n",
                          " " * under + separator + "\n"]
    elif isinstance(options, dict) and not _inline(options):
        first = _commented(options).lc.key(_first_written_key(options, f"{name} plugin's options"))
        inserts.append((first[0], [" " * first[1] + separator + "\n"]))
    else:
        raise CannotMerge(f"its {name} plugin's options are written inline")


def _first_written_key(mapping: Any, what: str) -> Any:
    """The first key written in a mapping (one merged in with `<<:` has no line of its own)."""
    written = list(_commented(mapping).lc.data or {})
    if not written or len(written) != len(mapping):
        raise CannotMerge(f"its {what} take keys from a YAML merge key (<<:)")
    return written[0]


def _content_column(line: str) -> int:
    """The column where a block list item's content starts (`  -   search`: 6)."""
    body = line.lstrip(" ")
    return len(line) - len(body[1:].lstrip(" ")) if body.startswith("-") else len(line) - len(body)


def _with_colon(line: str, name: str) -> str:
    """A `- search` item line made a key (`- search:`), its comment kept after it."""
    match = re.match(r"^(\s*-\s+)(['\"]?)" + re.escape(name) + r"\2", line)
    if match is None:
        raise CannotMerge(f"its {name} plugin is written in a way kb cannot add options to")
    rest = line[match.end():].rstrip("\r\n")
    return line[:match.end()] + ":" + rest + "\n"


def _commented(value: Any) -> Any:
    """A value of ruamel's round-trip loader (it carries its lines and style), typed loosely."""
    return value


def _inline(value: Any) -> bool:
    """Whether a list or mapping is written inline (`[a, b]`, `{a: 1}`)."""
    return getattr(value, "fa", None) is not None and bool(value.fa.flow_style())


def _nav_section(prefix: str, about: str | None) -> list[str]:
    """The nav entries of the knowledge base's pages (docs-relative)."""
    at = (lambda path: posixpath.join(prefix, path)) if prefix else (lambda path: path)
    return [at("index.md"), f"Knobs: {at('knobs/index.md')}",
            f"Incidents: {at('incidents/index.md')}", f"Tags: {at('tags.md')}",
            *([f"About: {about}"] if about else [])]


def _nav_mentions(nav: Any, page: str) -> bool:
    if isinstance(nav, str):
        return nav == page
    if isinstance(nav, dict):
        return any(_nav_mentions(value, page) for value in nav.values())
    if isinstance(nav, list):
        return any(_nav_mentions(item, page) for item in nav)
    return False


def _items(plugins: list[tuple[str, list[str]]], dash: int) -> list[str]:
    lines = []
    for name, options in plugins:
        lines.append(" " * dash + f"- {name}" + (":" if options else "") + "\n")
        lines += [" " * (dash + 4) + option + "\n" for option in options]
    return lines


def _dash_indent(lines: list[str], seq: Any, config: Any, key: str) -> int:
    """The column of the dashes of a block list (from its first item's line)."""
    if not seq:
        return 2
    line = lines[seq.lc.item(0)[0]]
    if line.lstrip().startswith("-"):
        return len(line) - len(line.lstrip())
    raise CannotMerge(f"its {key}: list is not written one item a line")


def _top_keys(config: Any, lines: list[str]) -> list[tuple[int, str]]:
    """The top-level keys written in the file, by line: a key merged in from `<<: *base` has no line
    of its own, and the merge key itself (which ruamel.yaml lists with no line) ends a block too."""
    written = [(config.lc.key(key)[0], str(key)) for key in config.lc.data or {}]
    merges = [(index, "<<") for index, line in enumerate(lines) if re.match(r"<<[ \t]*:", line)]
    return sorted(written + merges)


def _end_of_block(lines: list[str], config: Any, key: str) -> int:
    """The index of the line after the last line of `key`'s block (its trailing comments and blank
    lines stay after what is added: they may be about the next key)."""
    keys = _top_keys(config, lines)
    start = config.lc.key(key)[0]
    following = [line for line, _ in keys if line > start]
    end = following[0] if following else len(lines)
    while end > start + 1 and (not lines[end - 1].strip() or lines[end - 1].lstrip().startswith("#")):
        end -= 1
    return end


def _end_of_file(lines: list[str]) -> int:
    return len(lines)


def read_docs_names(docs_folder: Path) -> set[str]:
    """The names at the top of the docs folder (nothing when it does not exist)."""
    try:
        return {entry.name for entry in docs_folder.iterdir()}
    except OSError:
        return set()


@dataclass(frozen=True)
class SiteSetup:
    """The site kb init sets up, or finds: its configuration file, docs folder and where it builds."""

    generator: str  # "mkdocs" (MkDocs or ProperDocs, with the plugin) or "zensical"
    config_name: str  # mkdocs.yml, properdocs.yml... or zensical.toml
    existing: bool  # the configuration was there before: kept, or added to with --merge
    docs: str  # the docs folder, root-relative (settings/docs_folder.py decides it)
    prefix: str  # where the generated pages go in the docs folder ('' its top)
    site_dir: str | None  # where the site is built, root-relative ('site'), None when outside the root
    old_text: str | None = None  # the existing configuration's text
    additions: SiteAdditions | None = None  # what it must add to show the knowledge base
    cannot_merge: str | None = None  # why kb init --merge cannot add it line by line
    # Where the configuration INHERITs the lists that need the additions: the parent that sets them,
    # and the change it needs (printed to add by hand: kb init --merge writes only the site's own file).
    parent_name: str | None = None
    parent_text: str | None = None
    parent_additions: SiteAdditions | None = None
    # The configuration as the site's build reads it: its INHERIT: parents (and theirs) merged in as
    # MkDocs merges them (None when there is none, or it cannot be read): what the build needs installed.
    built: Any = None

    @property
    def builder(self) -> str:
        """The command that builds and serves the site."""
        return "properdocs" if self.config_name.startswith("properdocs.") else self.generator

    @property
    def about_page(self) -> str:
        """The hand-written page kb init writes about the knowledge base, docs-relative."""
        return posixpath.join(self.prefix, "about.md") if self.prefix else "about.md"


def read_site_setup(root: Path, generator: str, read_text: Any) -> SiteSetup:
    """The site of the knowledge base at `root` for `generator` (`read_text(path)` reads a file of
    the repository, bounded)."""
    from ..settings.kb_settings import read_settings

    settings = read_settings(root)
    setup = _site_setup(root, generator, read_text, settings)
    if setup.generator == "mkdocs" and setup.existing and settings.files.site is not None:
        return replace(setup, built=settings.files.site.parsed)
    return setup


def _site_setup(root: Path, generator: str, read_text: Any, settings: Settings) -> SiteSetup:
    from ..settings.config_files import ZENSICAL_TOML

    docs = settings.docs
    if docs.problem is not None:
        raise CannotMerge(docs.problem)
    if generator == "zensical":  # a team's own zensical.toml: see adoption/toml_merge.py
        return SiteSetup("zensical", ZENSICAL_TOML, (root / ZENSICAL_TOML).exists(), docs.rel_path, "", "site")
    name = settings.files.site.name if settings.files.site is not None else None
    if name is None:
        return SiteSetup("mkdocs", "mkdocs.yml", False, docs.rel_path, "", "site")
    text = read_text(root / name)
    site_dir = _site_dir(root, text)
    try:
        configured = configured_prefix(parsed_config(text))
    except CannotMerge as exc:
        return SiteSetup("mkdocs", name, True, docs.rel_path, knowledge_base_prefix(root / docs.rel_path), site_dir,
                         text, None, str(exc))
    prefix = configured if configured is not None else knowledge_base_prefix(root / docs.rel_path)
    about = posixpath.join(prefix, "about.md") if prefix else "about.md"
    merged = settings.files.site.parsed if settings.files.site is not None else None
    if merged is not None and "INHERIT" in parsed_config(text) and configured_prefix(merged) is not None:
        # A parent lists the plugin (its change made): the site shows the knowledge base as MkDocs reads it.
        return SiteSetup("mkdocs", name, True, docs.rel_path, configured_prefix(merged) or "", site_dir, text,
                         SiteAdditions(None))
    try:
        additions = site_additions(text, prefix, about, merged)
    except CannotMerge as exc:
        setup = SiteSetup("mkdocs", name, True, docs.rel_path, prefix, site_dir, text, None, str(exc))
        return _with_parent_change(setup, root, read_text, about)
    return SiteSetup("mkdocs", name, True, docs.rel_path, prefix, site_dir, text, additions)


def _with_parent_change(setup: SiteSetup, root: Path, read_text: Any, about: str) -> SiteSetup:
    """`setup` with the change its INHERIT: parent needs, when that parent (itself inheriting from
    nothing) sets the plugins: or nav: the site's own file cannot add to; else as it is."""
    from ..repository.files import UnreadableFile

    try:
        config = parsed_config(setup.old_text or "")
        parent = config.get("INHERIT")
        if not isinstance(parent, str) or not parent.strip():
            return setup
        rel = posixpath.normpath(posixpath.join(posixpath.dirname(setup.config_name), parent))
        if rel.startswith("../") or rel == ".." or posixpath.isabs(rel):
            return setup
        text = read_text(root / rel)
        if "INHERIT" in parsed_config(text):
            return setup
        additions = site_additions(text, setup.prefix, about)
    except (CannotMerge, UnreadableFile, OSError, UnicodeDecodeError, ValueError):
        return setup
    return replace(setup, parent_name=rel, parent_text=text, parent_additions=additions)


def _site_dir(root: Path, text: str) -> str | None:
    """The configuration's site_dir relative to root ('site' by default), None when outside it."""
    from ruamel.yaml import YAML

    try:
        config = YAML(typ="rt").load(text)
    except Exception:  # noqa: BLE001 - read again by site_additions, which says what is wrong
        return "site"
    return site_dir_of(root, config.get("site_dir", "site") if isinstance(config, dict) else "site")


def site_dir_of(root: Path, value: Any) -> str | None:
    """A configured site_dir relative to root ('site' when not a folder's name), None when outside it."""
    if not isinstance(value, str) or not value.strip():
        return "site"
    path = Path(value) if Path(value).is_absolute() else root / value
    try:
        rel = Path(posixpath.normpath(path.as_posix())).relative_to(Path(posixpath.normpath(root.as_posix())))
    except ValueError:
        return None
    return rel.as_posix() if rel.as_posix() not in ("", ".") else None
