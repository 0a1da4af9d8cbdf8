"""(v1.3) The page's own requests, each followed until it ends: what ``request_seen`` reads.

page/events.py's listeners hand every request of the context to ``TrafficLog``
(in the order they started, the same order as ``PageEvents.requests``, so one
``Marks.requests`` index cuts both), and tell it when one got its response,
finished or failed. Nothing here asks the browser anything while a listener
runs: the request's headers, its body and the response's body are read later,
by the condition, once, and only for the requests its filters keep
(``Exchange.read``). A request the network guard refused is marked
``blocked`` when it ends, never taken for an answer: its 403 carries the
guard's ``X-Cometlocal-Blocked`` header, or (a beacon's answer comes without
headers) the guard's own list names it; an HTTPS request fails at the tunnel
the guard refused for its host.

**Request bodies per browser** (issue 49). Firefox through WebDriver BiDi
(Playwright 1.64.1) gives no request body: ``post_data_buffer`` is None for a
JSON ``fetch`` POST, in a route's handler too (measured). ``Exchange.read``
then records ``body_unavailable`` (the browser's name) for a request that had
one or may have had one (a method that carries a body, and a
``content-length`` that is not 0, or none at all), and request_seen's body
checks refuse instead of reading None as an empty body (http/seen.py).
Chromium's reading is unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from pytest_cometlocal.executor.http.exchange import HttpResponse

if TYPE_CHECKING:
    from playwright.sync_api import Request, Response

BLOCK_HEADER = "x-cometlocal-blocked"  # the guard's (executor/browser/network_guard.py), as Chromium lowers it


@dataclass
class Exchange:
    """One request the page sent, and what became of it."""

    request: Request
    method: str
    url: str
    response: Response | None = None
    done: bool = False  # finished (its body read) or failed
    failure: str | None = None  # the browser's network error (Chromium's net::ERR_*, Firefox's NS_ERROR_*)
    number: int = 0  # its place in the run's traffic: names its evidence file
    evidence: dict[str, str] = field(default_factory=dict)  # attempt tag -> its evidence file's uri
    _read: tuple[dict[str, str], bytes | None, HttpResponse | None, str | None] | None = field(default=None, repr=False)

    blocked: bool = False  # refused by the network guard (TrafficLog.ended tells)
    body_unavailable: str | None = None  # (issue 49) read(): the browser that gave no body for it (module docstring)

    @property
    def answered(self) -> bool:
        """A response came (the server's or a route's), not the guard's refusal, and the request finished."""
        return self.done and self.response is not None and self.failure is None and not self.blocked

    def read(self) -> tuple[dict[str, str], bytes | None, HttpResponse | None, str | None]:
        """(request headers, request body, the response as HttpResponse or None, why its body is missing),
        read from the browser once (all headers, cookies included; the response's body)."""
        if self._read is None:
            request = self.request
            try:
                headers = request.all_headers()
            except Exception:
                headers = dict(request.headers)
            try:
                body = request.post_data_buffer
            except Exception:
                body = None
            if body is None:
                self.body_unavailable = _bodiless_browser(request, self.method, headers)
            response, missing = None, None
            if self.answered and self.response is not None:
                raw = self.response
                try:
                    data = raw.body()
                except Exception as exc:  # the page went on: Chromium dropped the body
                    data, missing = b"", "the response's body is no longer available: " + str(exc).splitlines()[0][:120]
                try:
                    pairs = [(h["name"].lower(), h["value"]) for h in raw.headers_array()]
                except Exception:
                    pairs = list(raw.headers.items())
                response = HttpResponse(raw.url, raw.status, pairs, data)
            self._read = (headers, body, response, missing)
        return self._read

    def state(self) -> dict[str, Any]:
        """How it ended, as ``observed`` lists it: ``status``, ``blocked``, ``failure`` or ``in_flight``."""
        if not self.done:
            return {"in_flight": True}
        if self.blocked:
            return {"blocked": True}
        if self.failure is not None:
            return {"failure": self.failure}
        return {"status": self.response.status if self.response is not None else None}


# The methods whose request never carries a body (page/events.py's BODILESS, which this room may not import).
_NO_BODY = frozenset({"GET", "HEAD", "OPTIONS"})


def _bodiless_browser(request: Request, method: str, headers: dict[str, str]) -> str | None:
    """The browser's name when it is not Chromium and the request may have had a body it did not give."""
    if method.upper() in _NO_BODY or headers.get("content-length", "").strip() == "0":
        return None
    try:
        browser = request.frame.page.context.browser
        name = browser.browser_type.name if browser is not None else None
    except Exception:  # a service worker's request has no frame: its browser is not known here
        return None
    return name if isinstance(name, str) and name != "chromium" else None


class TrafficLog:
    """Every request of the context, in the order they started; each one's end as it arrives.
    ``guard``: the run's network guard (its ``blocked`` list), when the context has one."""

    def __init__(self, guard: Any = None) -> None:
        self.exchanges: list[Exchange] = []
        self._open: dict[Any, Exchange] = {}
        self.guard = guard

    def started(self, request: Request) -> None:
        exchange = Exchange(request, request.method, request.url, number=len(self.exchanges))
        self.exchanges.append(exchange)
        self._open[request] = exchange

    def answered(self, response: Response) -> None:
        try:
            exchange = self._open.get(response.request)
        except Exception:
            return
        if exchange is not None:
            exchange.response = response

    def ended(self, request: Request, failure: str | None = None) -> None:
        exchange = self._open.pop(request, None)
        if exchange is not None:
            exchange.done, exchange.failure = True, failure
            exchange.blocked = self._refused(exchange)

    def _refused(self, exchange: Exchange) -> bool:
        """Whether the guard refused it: the guard's header on its 403, or the guard's record of it (a
        beacon's answer comes without headers), or an HTTPS tunnel to a host the guard refused."""
        response = exchange.response
        if response is None and exchange.failure is None:
            return False
        if response is not None:
            try:
                if BLOCK_HEADER in response.headers:
                    return True
            except Exception:
                pass
            if response.status != 403:
                return False
        if self.guard is None:
            return False
        host = urlsplit(exchange.url).hostname
        for refused in reversed(self.guard.blocked_since(0)):
            if (refused.method == exchange.method and refused.url == exchange.url) or (
                    response is None and refused.method == "CONNECT" and refused.host == host):
                return True
        return False

    def since(self, index: int) -> list[Exchange]:
        return self.exchanges[index:]
