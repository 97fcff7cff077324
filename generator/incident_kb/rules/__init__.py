"""Stage 3, the rules: the knob and gain rules, doc references and stale docs (the settings they
read are in settings/; PR mode and the output formats of `kb check` in check/).

Model and history in, findings out; renders no page and writes no file.
"""
