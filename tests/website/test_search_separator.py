"""Search splits `_` without a hand-copied regex: the plugin gives Material's search its separator
when the site sets none, keeps a site's own that splits `_`, and, where Material's search answers
(`search: material`), warns (an error under `--strict`) when the site's own cannot, since a short
name would then find nothing. Under the plugin's own search (Pagefind's index, the default) the
separator finds nothing either way: no warning, and the short name is still found."""

from __future__ import annotations

import json
import logging

import pytest

from incident_kb.website.core.bundle import SEARCH_SEPARATOR
from incident_kb.website.mkdocs.plugin import IncidentKbPlugin, splits_underscore

from ..site_support import copy_knowledge_base, serve, try_build_site
from .test_browser import Visit, browser  # noqa: F401

pytestmark = pytest.mark.slow  # real builds


def _with_search(root, search: str) -> None:
    config = root / "mkdocs.yml"
    text = config.read_text()
    start = text.index("  - search:\n")
    end = text.index("  - tags\n")
    config.write_text(text[:start] + search + text[end:])


def _separator(out) -> str:
    return json.loads((out / "search/search_index.json").read_text())["config"]["separator"]


def test_a_bare_search_plugin_gets_a_separator_that_splits_underscores(tmp_path):
    root = copy_knowledge_base(tmp_path / "kb")
    _with_search(root, "  - search\n")
    failure, log = try_build_site(root, tmp_path / "site")
    assert failure is None, log
    assert _separator(tmp_path / "site") == SEARCH_SEPARATOR
    assert splits_underscore(SEARCH_SEPARATOR)


def test_a_sites_own_separator_that_splits_underscores_is_kept(tmp_path):
    root = copy_knowledge_base(tmp_path / "kb")
    _with_search(root, "  - search:\n      separator: '[\\s\\-_.]+'\n")
    failure, log = try_build_site(root, tmp_path / "site")
    assert failure is None, log
    assert _separator(tmp_path / "site") == r"[\s\-_.]+"


def _material_answers(root) -> None:
    config = root / "mkdocs.yml"
    config.write_text(config.read_text().replace("\n  - incident-kb\n", "\n  - incident-kb:\n      search: material\n"))


@pytest.mark.parametrize("separator", [r"[\s\-]+", r"[\s\-.]+"])
def test_a_sites_own_separator_that_cannot_split_underscores_is_a_warning(tmp_path, separator):
    """Where Material's search answers. (Issue 24 made the plugin's search the default, for which the
    next test holds: this one chooses Material's.)"""
    root = copy_knowledge_base(tmp_path / "kb")
    _with_search(root, f"  - search:\n      separator: '{separator}'\n")
    _material_answers(root)
    failure, log = try_build_site(root, tmp_path / "site")
    assert failure is not None and "1 warnings in strict mode" in failure
    # Quoted as mkdocs.yml writes it (the regex's own backslashes), so it can be pasted back.
    assert f"the search plugin's separator '{separator}' does not split '_'" in log
    assert "POOL_SIZE" in log and f"'{SEARCH_SEPARATOR}'" in log
    assert try_build_site(root, tmp_path / "lenient", strict=False)[0] is None
    assert _separator(tmp_path / "lenient") == separator  # the site's own setting stays


def test_under_the_plugins_search_a_sites_own_separator_is_no_warning_and_short_names_are_found(tmp_path, browser):
    """Pagefind's index splits `_` itself: a separator that cannot changes nothing a reader finds, so
    a warning would be a false alarm; the short name finds the knob's page."""
    root = copy_knowledge_base(tmp_path / "kb")
    _with_search(root, "  - search:\n      separator: '[\\s\\-]+'\n")
    failure, log = try_build_site(root, tmp_path / "site")
    assert failure is None, log
    assert "does not split '_'" not in log
    with serve(tmp_path / "site") as base:  # a reader types the short name and a gain's number
        visit = Visit(browser, base)
        visit.open("")
        assert visit.search("TARGET_CTAS")[0] == "/knobs/sglang-sm120-mma-target-ctas/"
        visit.open("")
        assert "/knobs/sglang-sm120-mma-target-ctas/" in visit.search("12.8")
        visit.context.close()
    assert visit.foreign == []


def test_the_live_preview_leaves_out_mkdocs_warning_about_dirty_builds_only(caplog):
    plugin = IncidentKbPlugin()
    build_log = logging.getLogger("mkdocs.commands.build")
    plugin.on_startup(command="serve", dirty=True)
    try:
        with caplog.at_level(logging.INFO, logger="mkdocs"):
            build_log.warning("A 'dirty' build is being performed, this will likely lead to inaccurate navigation")
            build_log.warning("Another warning")
    finally:
        plugin.on_shutdown()
    assert [r.getMessage() for r in caplog.records] == ["Another warning"]
    caplog.clear()
    plugin = IncidentKbPlugin()
    plugin.on_startup(command="build", dirty=True)  # `mkdocs build --dirty`: no preview, the warning stands
    try:
        build_log.warning("A 'dirty' build is being performed, this will likely lead to inaccurate navigation")
    finally:
        plugin.on_shutdown()
    assert len(caplog.records) == 1


@pytest.mark.parametrize("separator, splits", [
    (r"([\s\-_])+", True), (r"[\s\-]+|(_)", True), (r"[^\w]+|_", True), (r"[\s\-_]+", True),
    (r"[\s\-]+", False), (r"\W+", False), (r"[\s\-,:!=\[\]()`/]+|\.(?!\d)|(?!\b)(?=[A-Z][a-z])", False),
    (r"(?<name>_)", None),  # JavaScript's named group: Python cannot read it, nobody is warned on a guess
])
def test_whether_a_separator_splits_underscores_is_judged_by_where_it_matches(separator, splits):
    """A separator with a group (`([\\s\\-_])+`) splits POOL_SIZE, but re.split also returns the group's
    text, so it was said not to (a false warning that --strict made an error)."""
    assert splits_underscore(separator) is splits


def test_a_search_plugin_another_plugin_swaps_in_gets_the_separator_too(tmp_path):
    """Backstage's techdocs-core replaces the search plugin with MkDocs' own in its on_config, after the
    plugin's first look: MkDocs' separator ('[\\s\\-]+', its default, no choice of the site's) split no
    '_'. Here a hook does the same swap."""
    root = copy_knowledge_base(tmp_path / "kb")
    (root / "swap_search.py").write_text(
        "from mkdocs.contrib.search import SearchPlugin\n\n\ndef on_config(config):\n"
        "    plugin = SearchPlugin()\n    plugin.load_config({})\n    config.plugins['search'] = plugin\n")
    config = root / "mkdocs.yml"
    config.write_text(config.read_text() + "hooks:\n  - swap_search.py\n")
    failure, log = try_build_site(root, tmp_path / "site")
    assert failure is None, log
    assert _separator(tmp_path / "site") == SEARCH_SEPARATOR


def test_mkdocs_own_search_keeps_a_separator_the_site_gives_and_warns_when_it_cannot_split(tmp_path):
    root = copy_knowledge_base(tmp_path / "kb")
    (root / "swap_search.py").write_text(
        "from mkdocs.contrib.search import SearchPlugin\n\n\ndef on_config(config):\n"
        "    plugin = SearchPlugin()\n    plugin.load_config({'separator': '[\\\\s\\\\-]+'})\n"
        "    config.plugins['search'] = plugin\n")
    config = root / "mkdocs.yml"
    config.write_text(config.read_text() + "hooks:\n  - swap_search.py\n")
    _material_answers(root)
    failure, log = try_build_site(root, tmp_path / "site", strict=False)
    assert failure is None, log
    assert _separator(tmp_path / "site") == r"[\s\-]+"
    assert "does not split '_'" in log

