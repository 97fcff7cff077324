"""The website: the checked knowledge base rendered as a site.

`core` renders (view data, templates, charts, links, the live preview's incremental render) and
returns a bundle: the files, each page's metadata, and what the site needs around them. Adapters
hand the bundle to a site generator: `mkdocs` (the MkDocs/ProperDocs plugin, its live preview and
its reuse of Material's work) and `folder` (`kb render`, for Zensical or any generator that reads
markdown). Only the `mkdocs` adapter imports MkDocs, Material, mkdocs-gen-files, watchdog or
livereload; the core imports no adapter (tests/architecture/test_layering.py).
"""
