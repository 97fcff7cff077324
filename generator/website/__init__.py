"""The website: pages rendered from the checked knowledge base (view data, templates, charts,
links), written into an MkDocs build by the glue or into a folder by `kb render`.

Only `mkdocs_glue` imports MkDocs; the rest is tested without it.
"""
