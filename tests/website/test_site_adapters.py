"""What the site's adapters rely on, checked against the installed versions: the private attributes
the MkDocs adapter uses exist on MkDocs, Material, mkdocs-gen-files and watchdog, and the theme
partials copied from Material and Zensical still match the installed originals but for the
declared changes. An upgrade that moves any of it fails here, not in a user's preview."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

from incident_kb.website.core.bundle import THEME_OVERRIDES
from incident_kb.website.folder import zensical
from incident_kb.website.mkdocs import plugin

MATERIAL_THEME = Path(__import__("material").__file__).parent / "templates"
OURS = Path(plugin.THEME_OVERRIDES)

# Each copied partial: how it differs from the original (old -> new, applied in order to the
# original's body, the comment on top aside).
MATERIAL_EDITS = {
    "partials/content.html": [
        ('{% include "partials/tags.html" %}\n{% include "partials/actions.html" %}',
         '{% include "partials/actions.html" %}'),
        ('{{ page.content }}\n',
         '{{ page.content }}\n{% if tags %}\n  <div class="kb-page-tags">\n    {% include "partials/tags.html" %}\n'
         '  </div>\n{% endif %}\n'),
    ],
    "partials/search.html": [
        ('<div class="md-search" data-md-component="search" role="dialog">',
         '<div class="md-search" data-md-component="search" role="dialog" aria-label="{{ lang.t(\'search\') }}">'),
    ],
}
ZENSICAL_EDITS = {
    "partials/actions.html": [
        ("page.edit_url", "edit_url"),
        ("", "{% set edit_url = page.meta.kb_edit_url if page.meta and page.meta.kb_edit_url else page.edit_url %}\n"),
    ],
}


def _body(text: str) -> str:
    """A partial without its leading `{#- ... -#}` comment."""
    return re.sub(r"\A\{#-.*?-#\}\n", "", text, flags=re.DOTALL)


def _edited(original: str, edits: list[tuple[str, str]]) -> str:
    body = _body(original)
    for old, new in edits:
        if old:
            assert old in body, f"the original no longer has {old!r}: copy the partial again"
            body = body.replace(old, new)
        else:
            body = new + body
    return body


def test_the_mkdocs_theme_overrides_are_those_the_bundle_names():
    assert sorted(p.relative_to(OURS).as_posix() for p in OURS.rglob("*.html")) == sorted(THEME_OVERRIDES)
    assert sorted(MATERIAL_EDITS) == sorted(THEME_OVERRIDES)


@pytest.mark.parametrize("name", sorted(MATERIAL_EDITS))
def test_copied_material_partials_match_the_installed_material_but_for_our_changes(name):
    original = (MATERIAL_THEME / name).read_text(encoding="utf-8")
    assert _body((OURS / name).read_text(encoding="utf-8")) == _edited(original, MATERIAL_EDITS[name]), (
        f"Material's {name} changed since it was copied into {OURS}: copy it again and redo the changes")


@pytest.mark.parametrize("name", sorted(ZENSICAL_EDITS))
def test_copied_zensical_partials_match_the_installed_zensical_but_for_our_changes(name):
    theme = Path(__import__("zensical").__file__).parent / "templates"
    assert zensical.OVERRIDES == tuple(sorted(ZENSICAL_EDITS))
    ours = (zensical.THEME / name).read_text(encoding="utf-8")
    assert _body(ours) == _edited((theme / name).read_text(encoding="utf-8"), ZENSICAL_EDITS[name])


def test_a_changed_original_fails_the_diff():
    """The diff can fail: an original without the line an edit expects is reported."""
    with pytest.raises(AssertionError, match="no longer has"):
        _edited("{#-\n x\n-#}\n<div>", MATERIAL_EDITS["partials/search.html"])


# The private state the MkDocs adapter's shortcuts read or write, by owner. Each shortcut's module
# names these in its docstring; a shortcut whose owner lacks one falls back with a log line.
def test_mkdocs_page_and_file_have_what_the_live_preview_restores():
    from mkdocs.structure.files import File, InclusionLevel
    from mkdocs.structure.pages import Page

    file = File("a.md", "/docs", "/site", True)
    page = Page(None, file, _config())
    for name in ("_title_from_render", "present_anchor_ids", "links_to_anchors", "markdown", "content", "toc", "meta"):
        assert hasattr(page, name), f"mkdocs Page has no {name}"
    for name in ("generated_by", "edit_uri", "inclusion", "abs_dest_path", "abs_src_path", "src_uri", "page"):
        assert hasattr(file, name), f"mkdocs File has no {name}"
    assert callable(InclusionLevel.is_in_serve) and InclusionLevel.NOT_IN_NAV


def _config():
    from mkdocs.config.defaults import MkDocsConfig

    config = MkDocsConfig()
    config.load_dict({"site_name": "t", "docs_dir": "/docs", "site_dir": "/site"})
    config.validate()
    return config


def test_mkdocs_gen_files_editor_and_its_sort_key():
    from mkdocs_gen_files.editor import FilesEditor, file_sort_key

    assert callable(file_sort_key) and hasattr(FilesEditor, "open") and "files" in inspect.getsource(FilesEditor)


def test_mkdocs_live_reload_server_has_what_save_watch_wakes(tmp_path):
    from mkdocs.livereload import LiveReloadServer

    server = LiveReloadServer(builder=lambda: None, host="127.0.0.1", port=0, root=str(tmp_path))
    try:
        for name in ("_rebuild_cond", "_want_rebuild", "observer"):
            assert hasattr(server, name), f"LiveReloadServer has no {name}"
        assert hasattr(server.observer, "emitters")
        # quick_save: the plugin's builder in the server's place, called without arguments by its build loop
        assert callable(server.builder) and "self.builder()" in inspect.getsource(LiveReloadServer._build_loop)
    finally:
        server.server_close()


def test_mkdocs_build_has_the_page_machinery_quick_save_runs():
    """A save built without MkDocs' build goes through MkDocs' own functions for one page (reading and
    converting it, then its template), with the last build's objects, as MkDocs' build calls them."""
    from mkdocs.commands import build

    assert list(inspect.signature(build._populate_page).parameters)[:3] == ["page", "config", "files"]
    assert list(inspect.signature(build._build_page).parameters)[:5] == ["page", "config", "doc_files", "nav", "env"]
    source = inspect.getsource(build.build)
    for call in ("_populate_page(file.page, config, files, dirty)", "config.plugins.on_env(",
                 "_build_page(\n", "validate_anchor_links(", "config.plugins.on_post_build(config=config)"):
        assert call in source, f"MkDocs' build no longer has {call!r}"


def test_watchdogs_polling_emitter_has_what_save_watch_resets(tmp_path):
    from watchdog.events import FileSystemEventHandler
    from watchdog.observers.polling import PollingObserver

    observer = PollingObserver()
    observer.schedule(FileSystemEventHandler(), str(tmp_path), recursive=True)
    emitter = next(iter(observer.emitters))
    for name in ("_lock", "_snapshot", "_take_snapshot", "_timeout", "watch"):
        assert hasattr(emitter, name), f"watchdog's polling emitter has no {name}"
    assert emitter.watch.path == str(tmp_path)
    # save_watch tells MkDocs' own watch of a file (its configuration) from one of a folder
    assert emitter.watch.is_file is False and emitter.watch.is_recursive is True
    (tmp_path / "mkdocs.yml").write_text("site_name: t\n")
    of_file = observer.schedule(FileSystemEventHandler(), str(tmp_path / "mkdocs.yml"), recursive=True)
    assert of_file.is_file is True and of_file.path == str(tmp_path)


def test_materials_tags_and_search_plugins_have_what_material_reuse_reads():
    from material.plugins.search.plugin import SearchIndex, SearchPlugin
    from material.plugins.tags.plugin import TagsPlugin

    tags = inspect.getsource(TagsPlugin)
    for name in ("self.mappings", "self.listings", "def on_page_markdown", "def on_env"):
        assert name in tags, f"Material's tags plugin no longer has {name}"
    search = inspect.getsource(SearchPlugin)
    for name in ("self.search_index_prev", "self.search_index", "def on_post_build"):
        assert name in search, f"Material's search plugin no longer has {name}"
    index = SearchIndex(lang=["en"], separator=" ", pipeline=[], fields={})
    assert hasattr(index, "entries") and callable(index.generate_search_index)
    assert index.generate_search_index(None).endswith(',"docs":[]}')  # the framing merge_search_index writes
    from material.plugins.tags.structure.listing import Listing
    from material.plugins.tags.structure.mapping import Mapping
    from material.plugins.tags.structure.tag import Tag

    assert {"page", "id"} <= set(inspect.signature(Listing.__init__).parameters)
    assert {"item", "tags"} <= set(inspect.signature(Mapping.__init__).parameters)
    assert {"name", "hidden"} <= set(inspect.signature(Tag.__init__).parameters)


def test_a_preview_shortcut_that_falls_back_says_so_in_one_line(caplog):
    import logging
    from types import SimpleNamespace

    from incident_kb.website.mkdocs import material_reuse
    from incident_kb.website.mkdocs.save_watch import SaveWatch

    def stranger(module: str, **attributes: object) -> object:
        return type("Plugin", (), {"__module__": module, **attributes})()

    material_reuse._said.clear()
    with caplog.at_level(logging.INFO, logger="mkdocs.plugins.incident-kb"):
        assert SaveWatch(object(), []).start() is False
        enabled = SimpleNamespace(enabled=True)
        assert material_reuse.tags_plugins([stranger("material.plugins.tags.plugin", config=enabled)]) == ()
        assert material_reuse.tags_plugins([stranger("material.plugins.tags.plugin", config=enabled)]) == ()
        assert material_reuse.search_plugin([stranger("material.plugins.search.plugin")]) is None
    lines = [record.getMessage() for record in caplog.records]
    assert any("saves are seen by MkDocs' polling only" in line for line in lines)
    assert sum("tags plugin is not in the shape" in line for line in lines) == 1  # once, not on every build
    assert sum("search plugin is not in the shape" in line for line in lines) == 1


def test_mkdocs_theme_has_what_the_preview_lists_once():
    """plugin.list_theme_once wraps Theme.get_env and its environment's list_templates."""
    from jinja2 import Environment
    from mkdocs.theme import Theme

    theme = Theme(name="material")
    assert callable(theme.get_env) and isinstance(theme.dirs, list) and hasattr(theme, "static_templates")
    assert {"extensions", "filter_func"} <= set(inspect.signature(Environment.list_templates).parameters)
    assert isinstance(theme.get_env(), Environment)


def test_the_search_box_uses_what_the_installed_material_has():
    """The plugin's search box (site_search.THEME's partials/search.html) is not a copy of Material's:
    it borrows Material's look and behaviour, which must still be there: the `__search` toggle that
    opens it, the header including the partial when the search plugin is on, the classes it styles
    itself with, and Material's script finding its own search component by an attribute ours lacks
    (so that Material loads no index of its own)."""
    from incident_kb.website.mkdocs import site_search

    ours = (site_search.THEME / "partials/search.html").read_text(encoding="utf-8")
    assert 'data-md-component="search"' not in _body(ours)
    assert re.search(r'<input class="md-toggle" data-md-toggle="search" type="checkbox" id="__search"',
                     (MATERIAL_THEME / "base.html").read_text(encoding="utf-8"))
    header = (MATERIAL_THEME / "partials/header.html").read_text(encoding="utf-8")
    assert '"material/search" in config.plugins' in header and '{% include "partials/search.html" %}' in header
    styles = "".join(p.read_text(encoding="utf-8")
                     for p in (MATERIAL_THEME / "assets/stylesheets").glob("main.*.min.css"))
    used = set(re.findall(r'class="([^"{]+)"', ours)) | {"md-search-result__item", "md-search-result__link",
                                                          "md-search-result__article"}  # made by kb-search.js
    for name in {c for classes in used for c in classes.split() if c.startswith("md-")}:
        assert f".{name}" in styles, f"Material's styles no longer have .{name}"
    bundle = "".join(p.read_text(encoding="utf-8")
                     for p in (MATERIAL_THEME / "assets/javascripts").glob("bundle.*.min.js"))
    assert '"search"' in bundle and "data-md-component" in bundle
