"""Keep secret values out of everything the run writes.

A secret can surface in many encodings (typed into a field, echoed in HTML,
escaped inside JSON, percent-encoded in a URL, base64-encoded in a file), so
each value is replaced in all of them. Replacement happens before bytes are
written: trace lines, manifests, DOM snapshots, HTML, downloads, error
messages and pytest output all pass through here.
"""

from __future__ import annotations

import base64
import html
import json
import re
from typing import Any, Iterable
from urllib.parse import quote, quote_plus

MASK = "***"

# What a browser percent-encodes in each part of a URL (the WHATWG URL standard's
# percent-encode sets, plus the narrower sets Chromium uses in paths). A secret
# put into a URL comes back from the browser encoded with one of these, which is
# neither the raw value nor Python's quote(): "a:<b" in a query reads "a:%3Cb".
_C0_AND_UP = lambda c: ord(c) < 0x21 or ord(c) > 0x7E  # noqa: E731 - controls, space, non-ASCII
_QUERY = frozenset(' "#<>')
_PATH = _QUERY | frozenset("?`{}")
_USERINFO = _PATH | frozenset("/:;=@[\\]^|")
_COMPONENT = _USERINFO | frozenset("$%&+,")
_URL_SETS = (
    (_QUERY, False), (_QUERY | {"'"}, False), (_QUERY - {"#"}, False), (_PATH, False), (_QUERY | {"?", "`"}, False),
    (_USERINFO, False), (_COMPONENT, False), (_COMPONENT | frozenset("!'()~"), True),  # the last: form posts
)


def _percent(value: str, encode: frozenset[str], plus: bool) -> str:
    out = []
    for c in value:
        if c == " " and plus:
            out.append("+")
        elif _C0_AND_UP(c) or c in encode:
            out.append("".join(f"%{b:02X}" for b in c.encode("utf-8")))
        else:
            out.append(c)
    return "".join(out)


def _html_forms(text: str) -> set[str]:
    """``text`` as HTML can carry it: Python's escapes, and the DOM serializer's
    (``page.content()``), which escapes ``&``, ``"`` and no-break space in attributes,
    ``&``, ``<``, ``>`` and no-break space in text, and leaves ``'`` alone."""
    nbsp = text.replace("&", "&amp;").replace("\u00a0", "&nbsp;")
    return {
        html.escape(text, quote=True),
        html.escape(text, quote=False),
        nbsp.replace('"', "&quot;"),
        nbsp.replace('"', "&quot;").replace("<", "&lt;").replace(">", "&gt;"),
        nbsp.replace("<", "&lt;").replace(">", "&gt;"),
    }


def _base64_forms(value: str) -> set[str]:
    """``value``'s UTF-8 bytes base64-encoded on their own (standard and URL-safe alphabets,
    with and without padding), and as a URL component. Forms shorter than 6 characters
    (secrets of 1-3 bytes) are left out: they would mask unrelated text."""
    raw = value.encode("utf-8")
    forms = set()
    for encoded in (base64.b64encode(raw).decode(), base64.urlsafe_b64encode(raw).decode()):
        for form in (encoded, encoded.rstrip("=")):
            forms |= {form, quote(form, safe="")}
    return {f for f in forms if len(f) >= 6}


def encoded_forms(value: str) -> set[str]:
    """Every form in which ``value`` can reach an artifact: raw, HTML-escaped, percent-encoded
    as any part of a URL, those URL forms inside HTML, base64-encoded, and all of them JSON-escaped."""
    urls = {quote(value, safe=""), quote_plus(value, safe="")}
    urls.update(_percent(value, encode, plus) for encode, plus in _URL_SETS)
    forms = {value} | _html_forms(value) | urls | _base64_forms(value)
    for url in urls:
        forms |= _html_forms(url)
    # Each of them as a JSON string holds it (the trace and the evidence are JSON).
    forms |= {json.dumps(f)[1:-1] for f in forms} | {json.dumps(f, ensure_ascii=False)[1:-1] for f in forms}
    return {f for f in forms if f}


def _skeleton(text: str) -> str:
    """``text``'s ASCII letters and digits, every other run of characters one ``_``."""
    return re.sub(r"[^A-Za-z0-9]+", "_", text)


class Redactor:
    """Replaces known secret values (in their common encodings) with ``***``."""

    def __init__(self, values: Iterable[str] = ()):
        self.count = 0
        self._values: set[str] = set()
        self._forms: list[str] = []
        self._raw_forms: list[bytes] = []
        self._skeletons: list[str] = []
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
            forms.update(encoded_forms(value))
        # Longest first, so a secret containing another is masked whole.
        self._forms = sorted((f for f in forms if f), key=len, reverse=True)
        self._raw_forms = [f.encode("utf-8") for f in self._forms]
        skeletons = {_skeleton(v) for v in self._values}
        self._skeletons = [s for s in skeletons if sum(c.isalnum() for c in s) >= 3]

    def __bool__(self) -> bool:
        return bool(self._forms)

    def text(self, value: str) -> str:
        for form in self._forms:
            if form in value:
                value = value.replace(form, MASK)
        return value

    def tree(self, value: Any) -> Any:
        """``value`` (JSON-like: dicts, lists, strings) with every string masked, at any depth."""
        if not self._forms:
            return value
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {k: self.tree(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.tree(v) for v in value]
        return value

    def data(self, value: bytes) -> bytes:
        return self.counted(value)[0]

    def counted(self, value: bytes) -> tuple[bytes, int]:
        """``value`` masked, and how many occurrences were masked (0: it holds no secret in any form)."""
        count = 0
        for form in self._raw_forms:
            if form in value:
                count += value.count(form)
                value = value.replace(form, MASK.encode())
        return value, count

    def file_name(self, name: str) -> str:
        """``name`` masked, also where the browser made the secret in it safe for a file name.

        Chromium replaces characters a file name cannot hold (``/ : < " * ? |``...)
        when it suggests a download's name, which leaves a secret in no form
        ``text`` knows. Compared on their ASCII letters and digits alone (every
        other run of characters one ``_``), such a name still shows the secret:
        then the whole name is masked, keeping only an extension that holds none.
        """
        masked = self.text(name)
        skeleton = _skeleton(masked)
        if not any(s in skeleton for s in self._skeletons):
            return masked
        suffix = re.search(r"\.[A-Za-z0-9]{1,10}$", masked)
        return MASK + (suffix.group() if suffix and suffix.group() == self.text(suffix.group()) else "")

    def describe(self) -> dict:
        """What goes into run_manifest.json's redaction_policy (never the values)."""
        return {
            "enabled": True,
            "mask": MASK,
            "secret_count": self.count,
            "rules": [
                "plan secrets (raw, JSON-, HTML-, URL- and base64-encoded) are masked in every artifact",
                "values of password inputs are never recorded",
            ],
        }
