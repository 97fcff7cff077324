"""The modules the plugin imports afresh for each build (`glue`, `preview`, `quick_save`: see live_reload), as
the protocols the plugin calls them through. mypy checks both sides: the plugin's calls against the
protocols, and the modules against them (the assignments at the end), so a changed signature fails
the type check rather than a build. Imports neither module when it runs: reloading stays the
plugin's."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from collections.abc import Callable, Collection
    from pathlib import Path

    from jinja2 import Environment
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.files import Files
    from mkdocs.structure.nav import Navigation
    from mkdocs.structure.pages import Page

    # Aliased: inside the protocols the modules' own names are the attributes.
    from ..core.bundle import PageMeta
    from .glue import Generated, InputsLooked as _InputsLooked, SiteOptions as _SiteOptions
    from .preview import Preview as _Preview
    from .quick_save import OwnInputs as _OwnInputs


class GlueModule(Protocol):
    """One build's work (glue.py)."""

    SiteOptions: type[_SiteOptions]
    InputsLooked: type[_InputsLooked]

    def start_check(self, root: Path) -> None: ...

    def generate_files(self, files: Files, config: MkDocsConfig, options: _SiteOptions) -> Generated: ...

    def generate_org_files(self, files: Files, config: MkDocsConfig, options: _SiteOptions) -> Generated: ...

    def org_navigation(self, nav: Navigation, homes: Collection[str]) -> Navigation: ...


class PreviewModule(Protocol):
    """The live preview of `mkdocs serve --dirty` (preview.py)."""

    Preview: type[_Preview]

    def empty_folder(self, folder: str) -> None: ...

    def preview_files(self, preview: _Preview, files: Files, config: MkDocsConfig,
                      options: _SiteOptions) -> Generated: ...

    def note_read(self, preview: _Preview, page: Page) -> None: ...

    def note_markdown(self, preview: _Preview, page: Page, markdown: str) -> None: ...

    def restore_pages(self, preview: _Preview, env: Environment, config: MkDocsConfig, files: Files) -> None: ...

    def give_back_pages(self, preview: _Preview, config: MkDocsConfig) -> None: ...

    def mark_changed_outputs(self, preview: _Preview, env: Environment, files: Files) -> None: ...

    def note_built(self, preview: _Preview, page: Page) -> None: ...

    def merge_search_index(self, preview: _Preview, config: MkDocsConfig) -> None: ...


class QuickSaveModule(Protocol):
    """A save built without MkDocs' build (quick_save.py)."""

    OwnInputs: type[_OwnInputs]

    def save_quickly(self, preview: _Preview, config: MkDocsConfig, options: _SiteOptions, own: _OwnInputs | None,
                     edited: Callable[[], list[str] | None],
                     adopt: Callable[[dict[str, str], dict[str, PageMeta]], None]) -> str | None: ...


if TYPE_CHECKING:  # the modules fit their protocols (mypy checks a module against a protocol)
    from . import glue as _glue, preview as _preview, quick_save as _quick_save

    _GLUE: GlueModule = _glue
    _PREVIEW: PreviewModule = _preview
    _QUICK_SAVE: QuickSaveModule = _quick_save
