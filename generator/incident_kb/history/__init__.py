"""Stage 2, history: git plumbing and each record's material changes over time.

Reads git and the work tree; judges nothing (the rules, stage 3, decide what a change means).
"""
