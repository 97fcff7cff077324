"""What a Zensical site needs from `kb render` besides the pages: the theme override that makes a
record page's edit button open its YAML (Zensical reads no plugin, so no page can set its own edit
URL otherwise). Written into the set-up's theme folder (`theme.custom_dir` of zensical.toml).

The override is a copy of Zensical's own partial with one change; tests/website/test_site_adapters.py
diffs it against the installed Zensical's, so an upgrade that changes the partial fails a test.
"""

from __future__ import annotations

from pathlib import Path

THEME = Path(__file__).parent / "zensical_theme"
OVERRIDES = ("partials/actions.html",)


def theme_files() -> dict[str, bytes]:
    return {name: (THEME / name).read_bytes() for name in OVERRIDES}
