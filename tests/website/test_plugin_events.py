"""The plugin's events run where its comments say they do, relative to Material's own plugins, on the
installed MkDocs and Material: MkDocs orders an event's handlers by priority, then by the order of
`plugins:` in mkdocs.yml. Each ordering the plugin relies on is asserted in both listing orders."""

from __future__ import annotations

import pytest
from mkdocs.plugins import PluginCollection, get_plugins

OURS = "incident-kb"


def _collection(names: list[str]) -> PluginCollection:
    plugins = PluginCollection()
    installed = get_plugins()
    for name in names:
        plugins[name] = installed[name].load()()
    return plugins


def _order(plugins: PluginCollection, event: str) -> list[str]:
    """`event`'s handlers in the order MkDocs runs them: 'incident-kb._restore_pages', 'material/tags'..."""
    owners = {id(plugin): name for name, plugin in plugins.items()}
    return [f"{OURS}.{method.__name__}" if owners[id(method.__self__)] == OURS else owners[id(method.__self__)]
            for method in plugins.events[event]]


@pytest.mark.parametrize("listed", [["material/search", "material/tags", OURS],
                                    [OURS, "material/search", "material/tags"]],
                         ids=["listed-last", "listed-first"])
def test_the_plugins_events_run_where_it_relies_on_them_running(listed):
    plugins = _collection(listed)

    def before(event: str, first: str, then: str) -> None:
        order = _order(plugins, event)
        assert order.index(first) < order.index(then), f"{event}: {first} must run before {then}: {order}"

    # Material's search settles its separator in on_config: ours sets it first when none is configured.
    before("config", f"{OURS}._before_others", "material/search")
    # The live preview restores the pages before the tags plugin reads their tags (on_env), takes back
    # its listings right after it, and marks what changed once every other plugin changed the pages.
    before("env", f"{OURS}._restore_pages", "material/tags")
    before("env", "material/tags", f"{OURS}._give_back_pages")
    assert _order(plugins, "env")[-1] == f"{OURS}._mark_changed_outputs"
    # The markdown as read, before the tags plugin collects its listings from it.
    before("page_markdown", f"{OURS}.on_page_markdown", "material/tags")
    # The preview's search JSON is merged before Material's search writes its index; the build's inputs
    # are watched and the Pagefind index written after every other plugin is done.
    before("post_build", f"{OURS}._merge_search_index", "material/search")
    before("post_build", "material/search", f"{OURS}._write_search_index")
    before("post_build", "material/search", f"{OURS}._finish_build")


def test_a_plugin_whose_priority_moves_is_seen_in_the_order():
    """Were Material's tags plugin to read the pages earlier (priority 300), the order read here says so."""
    from mkdocs.plugins import BasePlugin, event_priority

    class Earlier(BasePlugin):  # type: ignore[type-arg]
        @event_priority(300)
        def on_env(self, env, config, files):  # noqa: ANN001, ANN201
            return env

    plugins = _collection([OURS])
    plugins["material/tags"] = Earlier()
    order = _order(plugins, "env")
    assert order.index("material/tags") < order.index(f"{OURS}._restore_pages")
