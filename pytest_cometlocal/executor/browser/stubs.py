"""(v1.2) A plan's ``routes:`` on its browser context: the requests the run answers itself.

Playwright's context routing answers a request inside the browser, before it
would go to the network guard (the context's proxy): a stubbed request never
leaves the machine, so its host need not be on the allowlist. A request no
route takes goes on, through the guard, exactly as without routes. The routes
are set on the context (every page of it, popups included) before the first
step and removed when the run finishes, so a context that outlives the run
(a caller's own, reused) never answers the next plan with this plan's stubs.

Playwright runs the route added last first and ``fallback`` passes a request
on to the next one, so the routes are added last-to-first: the first route
of the plan that matches wins (a route whose ``method`` differs passes it on).
A regex route matches with the plan's own compiled pattern (Python's ``re``
dialect, through contract/patterns.py), never translated, each match bounded in
time: Playwright's client calls the matcher for every request, so a pattern
that gives up takes no request from then on and fails the step that sent it. A plan without routes gets
no ``Stubs`` at all: nothing is installed and no request is intercepted.

Each answered or aborted request is recorded (``take``): the journal writes
it as a ``request_stubbed`` event (its URL masked with the rest of the line).
"""

from __future__ import annotations

import mimetypes
from typing import TYPE_CHECKING, Any, Callable, Mapping

from pytest_cometlocal.contract.errors import PatternTimeout
from pytest_cometlocal.contract.load.interpolation import resolve_secrets
from pytest_cometlocal.contract.model.plan import Route, body_bytes
from pytest_cometlocal.contract.patterns import compiled

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext
    from playwright.sync_api import Request as PwRequest
    from playwright.sync_api import Route as PwRoute

# A page that polls a stub for ever must not fill the trace: past this many, requests are only counted.
MAX_RECORDS = 1000


class _Answer:
    """One route made ready to answer: its matcher, and its status, headers and body (secrets filled in)."""

    def __init__(self, index: int, route: Route, file: bytes | None, secrets: Mapping[str, str]):
        self.index, self.route = index, route
        self.gave_up: PatternTimeout | None = None
        if isinstance(route.url, str):
            self.matcher: str | Callable[[str], bool] = resolve_secrets(route.url, secrets)
        else:
            self.pattern = compiled(route.url.pattern)
            self.matcher = self._matches
        self.status, self.headers, self.body, self.delay_ms = 200, {}, b"", 0
        respond = route.respond
        if respond is None:
            return
        self.status, self.delay_ms = respond.status, respond.delay_ms or 0  # delay_ms: at most 60 s (the model's)
        self.headers = {name: resolve_secrets(value, secrets) for name, value in respond.headers.items()}
        given = respond.given()
        content_type = None
        if "json" in given:
            self.body, content_type = body_bytes(_filled(respond.json_, secrets)), "application/json"
        elif "body" in given:
            self.body, content_type = resolve_secrets(respond.body or "", secrets).encode("utf-8"), "text/plain; charset=utf-8"
        elif file is not None:
            self.body = file
            content_type = mimetypes.guess_type(respond.file or "")[0] or "application/octet-stream"
        if content_type and not any(name.lower() == "content-type" for name in self.headers):
            self.headers["Content-Type"] = content_type

    def _matches(self, url: str) -> bool:
        """The route's regex searched in a request's URL, bounded: one that gives up takes no request from
        then on (each would spin as long), and the step that sent it fails (``Stubs.gave_up``)."""
        if self.gave_up is not None:
            return False
        try:
            return self.pattern.search(url) is not None
        except PatternTimeout as exc:
            self.gave_up = exc
            return False


def _held(request: PwRequest, delay_ms: int) -> None:
    """(v1.3) ``respond.delay_ms``: wait before the answer without holding anything else up.

    Under Playwright's sync API a route handler runs in a greenlet of its own; a
    sync call made there (the frame's ``wait_for_timeout``) hands control back to
    the event loop until its timer fires, so the executor, the other requests
    and the other routes' handlers go on meanwhile. ``time.sleep`` would stop
    that loop, and with it the executor and every page. A request with no frame
    (a service worker's) is answered without the delay: there is nothing to wait on.
    """
    try:
        frame = request.frame
    except Exception:
        return
    frame.wait_for_timeout(delay_ms)


def _filled(value: Any, secrets: Mapping[str, str]) -> Any:
    """A ``json`` answer with ``${secrets.X}`` filled into its strings (the plan keeps the placeholders)."""
    if isinstance(value, str):
        return resolve_secrets(value, secrets)
    if isinstance(value, list):
        return [_filled(v, secrets) for v in value]
    if isinstance(value, dict):
        return {k: _filled(v, secrets) for k, v in value.items()}
    return value


class Stubs:
    """The run's routes on one context: installed once, each request they take recorded, removed at the end."""

    def __init__(self, routes: list[Route], files: Mapping[int, bytes], secrets: Mapping[str, str]):
        self.answers = [_Answer(i, route, files.get(i), secrets) for i, route in enumerate(routes)]
        self.used = [0] * len(routes)
        self.records: list[dict[str, Any]] = []
        self.untraced = 0  # requests answered past MAX_RECORDS
        self._installed: list[tuple[Any, Callable[..., None]]] = []
        self._context: BrowserContext | None = None
        self._told: set[int] = set()  # the routes whose regex giving up failed a step already

    def install(self, context: BrowserContext) -> None:
        """Set every route on ``context``, last first, so the plan's first route is tried first."""
        self._context = context
        for answer in reversed(self.answers):
            handler = self._handler(answer)
            context.route(answer.matcher, handler)
            self._installed.append((answer.matcher, handler))

    def remove(self) -> None:
        """Take the routes off the context (a closed or dead context has none left to take)."""
        context, installed, self._installed = self._context, self._installed, []
        for matcher, handler in installed:
            try:
                context.unroute(matcher, handler)  # type: ignore[union-attr]
            except Exception:
                pass

    def _handler(self, answer: _Answer) -> Callable[[PwRoute, PwRequest], None]:
        def handle(route: PwRoute, request: PwRequest) -> None:
            method = answer.route.method
            try:
                if method is not None and request.method != method:
                    route.fallback()
                    return
                self._record(answer, request)
                if answer.route.abort:
                    route.abort("blockedbyclient")
                    return
                if answer.delay_ms:
                    _held(request, answer.delay_ms)
                route.fulfill(status=answer.status, headers=answer.headers, body=answer.body)
            except Exception:  # the page or the context went away meanwhile: nothing left to answer
                pass

        return handle

    def _record(self, answer: _Answer, request: PwRequest) -> None:
        self.used[answer.index] += 1
        if len(self.records) >= MAX_RECORDS:
            self.untraced += 1
            return
        self.records.append({"route": answer.index, "method": request.method, "url": request.url,
                             "answer": "aborted" if answer.route.abort else "answered",
                             **({} if answer.route.abort else {"status": answer.status}),
                             **({"delay_ms": answer.delay_ms} if answer.delay_ms and not answer.route.abort else {})})

    def gave_up(self) -> tuple[str, PatternTimeout] | None:
        """(key path, why) of the first route whose regex gave up on a request's URL, once (then None)."""
        for answer in self.answers:
            if answer.gave_up is not None and answer.index not in self._told:
                self._told.add(answer.index)
                return f"routes[{answer.index}].url.pattern", answer.gave_up
        return None

    def take(self) -> list[dict[str, Any]]:
        """The requests answered or aborted since the last call."""
        taken, self.records = self.records, []
        return taken

    def unused(self) -> list[dict[str, Any]]:
        """The routes no request matched (``details.routes_unused``): a stale stub is seen."""
        return [answer.route.record(answer.index) for answer in self.answers if not self.used[answer.index]]
