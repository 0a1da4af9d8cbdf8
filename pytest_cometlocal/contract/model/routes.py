"""(v1.2) ``routes:``: requests a plan (or its suite config) answers itself, never sent.

A route names the requests it takes (``url``: Playwright's glob, or
``{pattern: REGEX}``; optional ``method``) and what they get: ``respond``
(``status``, one of ``json`` / ``body`` / ``file``, ``headers``) or
``abort: true``. The models hold the shape; what needs more than one key
(respond or abort, one body kind) and what needs the disk (``file``) are
rule ROUTE / PATH_CONFINEMENT in contract/validate/route_rules.py, located at
the key. A plan's routes come first, then its suite config's; the first that
matches wins.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import Field

from pytest_cometlocal.contract.model.base import ContractModel

NonEmpty = Annotated[str, Field(min_length=1)]
RouteMethod = Literal["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]
# A route's file is read at load time: a stub is a small fixture, not a download.
MAX_ROUTE_FILE_BYTES = 1_048_576
# The body kinds of ``respond``: at most one (rule ROUTE).
BODY_KINDS: tuple[str, ...] = ("json", "body", "file")


class UrlPattern(ContractModel):
    """``url: {pattern: REGEX}``: a Python regular expression searched in the request's full URL (rule REGEX)."""

    pattern: NonEmpty


class RouteResponse(ContractModel):
    """What a matched request is answered with; a ``file`` is plan-relative, confined like ``file_ref``."""

    status: Annotated[int, Field(ge=100, le=599)] = 200
    json_: Any = Field(default=None, alias="json")
    body: str | None = None
    file: NonEmpty | None = None
    headers: dict[NonEmpty, str] = {}

    def given(self) -> list[str]:
        """The body kinds written (``json: null`` counts: it is the JSON ``null``)."""
        return [kind for kind in BODY_KINDS if (("json_" if kind == "json" else kind) in self.model_fields_set)]


class Route(ContractModel):
    """One stub: the requests it takes (``url``, ``method``) and its answer (``respond`` or ``abort: true``)."""

    url: NonEmpty | UrlPattern
    method: RouteMethod | None = None
    respond: RouteResponse | None = None
    abort: bool = False

    @property
    def url_text(self) -> str:
        """The url as a person reads it: the glob, or ``/REGEX/``."""
        return self.url if isinstance(self.url, str) else f"/{self.url.pattern}/"

    def record(self, index: int) -> dict[str, Any]:
        """What the manifest, ``routes_unused`` and ``show`` say of this route (masked where they are written)."""
        out: dict[str, Any] = {"index": index, "url": self.url_text}
        if self.method:
            out["method"] = self.method
        if self.abort:
            out["abort"] = True
        elif self.respond is not None:
            out["status"] = self.respond.status
            out["answer"] = next(iter(self.respond.given()), "empty")
            if self.respond.file is not None:
                out["file"] = self.respond.file
        return out


def routes_record(routes: list[Route] | None) -> list[dict[str, Any]]:
    """The routes as the run manifest records them (no bodies: those are the plan's, hashed with it)."""
    return [route.record(i) for i, route in enumerate(routes or ())]


def body_bytes(value: Any) -> bytes:
    """A ``json`` answer as the bytes sent."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
