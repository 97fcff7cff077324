"""The sites several of this folder's test files read, declared once for the folder: a fixture imported
into a test module is that module's own, made again for each module that imports it (a session scope
notwithstanding), so a site imported by six files was built six times per worker."""

from ..site_support import hostile_site, long_index_site, many_knobs_site, seed_site  # noqa: F401 - fixtures
