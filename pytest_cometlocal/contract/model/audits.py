"""The arguments of the conditions that audit the page against a reference (v1.2 extension).

A picture against a reviewed baseline (``screenshot_matches``) and the page against
accessibility rules (``accessibility_clean``): their condition classes join the union
in ``conditions.py``; their arguments, closed sets and limits live here, so the
audits' contract reads in one place.
"""

from __future__ import annotations
