"""The mkdocs-gen-files script named in mkdocs.yml: a shim into the package (see mkdocs_glue)."""
from generator.website.live_reload import fresh_module

fresh_module("generator.website.mkdocs_glue").generate_site()
