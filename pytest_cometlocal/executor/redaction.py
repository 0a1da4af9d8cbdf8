"""Keep secret values out of everything the run writes.

A secret can surface in many encodings (typed into a field, echoed in HTML,
escaped inside JSON, percent-encoded in a URL), so each value is replaced in
all of them. Replacement happens before bytes are written: trace lines, DOM
snapshots, HTML, error messages and pytest output all pass through here.
"""

from __future__ import annotations

import html
import json
from typing import Iterable
from urllib.parse import quote, quote_plus

MASK = "***"


class Redactor:
    """Replaces known secret values (in their common encodings) with ``***``."""

    def __init__(self, values: Iterable[str] = ()):
        self.count = 0
        self._values: set[str] = set()
        self._forms: list[str] = []
        self.add(values)

    def add(self, values: Iterable[str]) -> None:
        """Mask these values too from now on (a storage state's session tokens, say)."""
        new = [v for v in values if v and v not in self._values]
        if not new:
            return
        self._values.update(new)
        self.count = len(self._values)
        forms: set[str] = set(self._forms)
        for value in new:
            forms.update({
                value,
                json.dumps(value)[1:-1],
                json.dumps(value, ensure_ascii=False)[1:-1],  # how the trace and evidence are written
                html.escape(value, quote=True),
                html.escape(value, quote=False),
                quote(value, safe=""),
                quote_plus(value, safe=""),
            })
        # Longest first, so a secret containing another is masked whole.
        self._forms = sorted((f for f in forms if f), key=len, reverse=True)

    def __bool__(self) -> bool:
        return bool(self._forms)

    def text(self, value: str) -> str:
        for form in self._forms:
            if form in value:
                value = value.replace(form, MASK)
        return value

    def data(self, value: bytes) -> bytes:
        if not self._forms:
            return value
        for form in self._forms:
            raw = form.encode("utf-8")
            if raw in value:
                value = value.replace(raw, MASK.encode())
        return value

    def describe(self) -> dict:
        """What goes into run_manifest.json's redaction_policy (never the values)."""
        return {
            "enabled": True,
            "mask": MASK,
            "secret_count": self.count,
            "rules": [
                "plan secrets (raw, JSON-, HTML- and URL-encoded) are masked in every artifact",
                "values of password inputs are never recorded",
            ],
        }
