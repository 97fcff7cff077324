"""Authoring: the commands that write records (`kb new`, `kb revert`, `kb fmt`...), the edits they
make, and the line-level YAML splicing that keeps every comment.

Every edit is checked by the pipeline before it is written.
"""
