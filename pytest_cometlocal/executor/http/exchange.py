"""(v1.2) One request step's exchange as data: the response the conditions read, and the masked record written.

Pure: no Playwright here. ``HttpResponse`` is what the client (client.py) made
of the last response; its JSON body is parsed once, when a condition or a
``save`` first asks. What leaves the run (an evidence file, a failure's
``observed``) goes through ``shown_headers`` / ``shown_body``: credentials'
headers are always masked, every secret value too, and bodies are cut.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable

from pytest_cometlocal.contract.json_values import MISSING
from pytest_cometlocal.executor.runfolder.redactor import MASK

# Headers whose values are credentials: masked in every record, whatever they hold.
CREDENTIAL_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie", "set-cookie"})
# The most of a body an evidence file keeps, and a failure's ``observed`` (UTF-8 bytes, after masking).
EVIDENCE_BODY_LIMIT = 64 * 1024
OBSERVED_BODY_LIMIT = 4 * 1024
# Redirects one request step follows at most (each hop held to the allowlist).
MAX_REDIRECTS = 20

Mask = Callable[[str], str]


@dataclass
class HttpResponse:
    """The last response of a request step: status, headers (names in lower case, as received), body."""

    url: str
    status: int
    headers: list[tuple[str, str]]
    body: bytes
    _json: Any = field(default=None, repr=False)
    _parsed: bool = field(default=False, repr=False)

    def header(self, name: str) -> str | None:
        """The header's value (several of one name joined with ``, ``); None when it was not sent."""
        values = [v for k, v in self.headers if k.lower() == name.lower()]
        return ", ".join(values) if values else None

    def json(self) -> Any:
        """The body as JSON, or ``MISSING`` when it is not JSON (read once)."""
        if not self._parsed:
            self._parsed = True
            try:
                self._json = json.loads(self.body.decode("utf-8"))
            except (UnicodeDecodeError, ValueError):
                self._json = MISSING
        return self._json


def shown_headers(headers: list[tuple[str, str]] | dict[str, str], mask: Mask) -> dict[str, str]:
    """Headers as a record shows them: credentials' values masked always, every secret masked."""
    items = headers.items() if isinstance(headers, dict) else headers
    shown: dict[str, str] = {}
    for name, value in items:
        value = MASK if name.lower() in CREDENTIAL_HEADERS else mask(value)
        shown[name] = f"{shown[name]}, {value}" if name in shown else value
    return shown


def shown_body(body: bytes | str | None, limit: int, mask: Mask) -> dict[str, Any]:
    """``{"body": text}`` masked then cut to ``limit`` UTF-8 bytes (``truncated``, ``size_bytes`` when cut);
    a body that is not UTF-8 text is described, not shown."""
    if body is None:
        return {}
    data = body.encode("utf-8") if isinstance(body, str) else body
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return {"body": None, "body_binary": True, "size_bytes": len(data)}
    masked = mask(text).encode("utf-8")
    if len(masked) <= limit:
        return {"body": masked.decode("utf-8")}
    return {"body": masked[:limit].decode("utf-8", errors="ignore"), "truncated": True, "size_bytes": len(data)}


def observed(response: HttpResponse | None, mask: Mask, **more: Any) -> dict[str, Any]:
    """What a failed response_* condition saw: the status, headers and body (cut at 4 KB), masked."""
    if response is None:
        return {"problem": "no response: the step made no request", **more}
    return {"status": response.status, "headers": shown_headers(response.headers, mask),
            **shown_body(response.body, OBSERVED_BODY_LIMIT, mask), **more}


def evidence_document(request: dict[str, Any], response: HttpResponse | None, hops: list[dict[str, Any]],
                      mask: Mask) -> dict[str, Any]:
    """``evidence/http/step_<n>.json``: the request (method, URL, headers, body) and the response (status,
    headers, body cut at 64 KB), every part masked; ``redirects``: the hops followed before it."""
    doc: dict[str, Any] = {
        "schema_version": "v1",
        "request": {"method": request["method"], "url": mask(request["url"]),
                    "headers": shown_headers(request["headers"], mask),
                    **shown_body(request.get("body"), EVIDENCE_BODY_LIMIT, mask)},
        "response": None,
    }
    if hops:
        doc["redirects"] = [{"status": h["status"], "url": mask(h["url"]), "location": mask(h["location"])}
                            for h in hops]
    if response is not None:
        doc["response"] = {"url": mask(response.url), "status": response.status,
                           "headers": shown_headers(response.headers, mask),
                           **shown_body(response.body, EVIDENCE_BODY_LIMIT, mask)}
    return doc
