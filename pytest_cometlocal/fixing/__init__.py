"""``cometlocal fix``: the suggested targets of failed runs as one patch to review, never applied.

Reads finished runs through ``runs.reader`` only, finds where each failed value is
written (plan or step-group line), edits it byte-exactly in a copy of the text and
writes one unified diff; ``--verify`` reruns the plans under pytest in a scratch copy
of the suite first. Nothing here writes a plan file.
"""
