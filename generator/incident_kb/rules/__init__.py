"""Stage 3, checking: the rules, doc references, stale docs, severities, PR mode and the output
formats of `kb check`.

Model and history in, findings out; renders no page and writes no file.
"""
