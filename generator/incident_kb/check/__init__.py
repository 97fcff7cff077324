"""The check: the pipeline that loads, validates, reads history once and checks, and its modes."""
