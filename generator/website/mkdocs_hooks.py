"""The MkDocs hooks named in mkdocs.yml: a shim into the package (see mkdocs_glue)."""
import importlib


def on_page_content(html, page, **kwargs):  # type: ignore[no-untyped-def]
    # Looked up on each call: under `mkdocs serve` the glue module may have been imported anew.
    return importlib.import_module("generator.website.mkdocs_glue").inject_banner(html, page.file.src_uri)
