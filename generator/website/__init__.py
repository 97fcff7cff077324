"""The website: pages rendered from the checked knowledge base (view data, templates, charts,
links), written into an MkDocs build by the plugin or into a folder by `kb render`.

Only the MkDocs glue (`mkdocs_plugin`, `mkdocs_glue`) imports MkDocs; the rest is tested without it.
"""
