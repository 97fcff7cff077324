"""Stage 1, the records: YAML files read with a source map, validated against the schema, checked
for consistency with each other, and turned into the frozen model every later stage reads.

Reads record files only; knows nothing of git, rules or the site.
"""
