"""What the browser tells the executor without being asked: requests, responses, downloads, crashes.

Listeners are attached to the whole context, so a popup's first navigation is
seen as soon as the popup exists. Each list only grows; a step takes a
``Marks`` snapshot when its action begins and later reads what arrived since
(``since``), instead of keeping loose counters of its own.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pytest_cometlocal.executor.http.traffic import Exchange, TrafficLog


if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Download, Page, Response
    from playwright.sync_api import Request as PlaywrightRequest

    from pytest_cometlocal.executor.browser.network_guard import BlockedRequest, NetworkGuard


# How long no request may start or end before ``network_idle`` holds.
IDLE_QUIET_S = 0.5


@dataclass
class NetworkTracker:
    """In-flight requests of a page, for ``network_idle`` (no request for 500 ms)."""

    inflight: int = 0
    last_change: float = field(default_factory=time.monotonic)

    def started(self, *_: Any) -> None:
        self.inflight += 1
        self.last_change = time.monotonic()

    def ended(self, *_: Any) -> None:
        self.inflight = max(0, self.inflight - 1)
        self.last_change = time.monotonic()

    def idle(self) -> bool:
        return self.inflight == 0 and time.monotonic() >= self.quiet_at()

    def quiet_at(self) -> float:
        """When ``idle`` holds if no request starts or ends before (``time.monotonic()``)."""
        return self.last_change + IDLE_QUIET_S


@dataclass(frozen=True)
class Marks:
    """How many of each event had arrived at one moment."""

    requests: int = 0
    statuses: int = 0
    downloads: int = 0
    blocked: int = 0
    sent: int = 0


# Methods whose requests carry no body: they never carry a file (an upload's progress stream is one).
BODILESS = frozenset({"GET", "HEAD", "OPTIONS"})


@dataclass
class SentRequest:
    """A request with a body (a POST of a file, a form), followed until it ends: upload_completed waits for it."""

    method: str
    url: str
    started: float = field(default_factory=time.monotonic)
    ended: float | None = None
    status: int | None = None  # the response's, once it came
    failure: str | None = None  # the browser's network error when it failed (net::ERR_*, Firefox's NS_ERROR_*)

    def failed(self) -> bool:
        return self.failure is not None or (self.status is not None and self.status >= 400)


@dataclass(frozen=True)
class SeenRequest:
    """A request the context started: whether it loads a document, in the main frame."""

    url: str
    navigation: bool
    main_frame: bool


class PageEvents:
    """The events of one context and its pages, as the executor needs them."""

    def __init__(self, context: BrowserContext, page: Page, guard: NetworkGuard | None = None):
        self.guard = guard  # the allowlist proxy: its list of blocked requests
        self.network = NetworkTracker()
        self.requests: list[SeenRequest] = []
        self.doc_statuses: list[tuple[str, int]] = []  # main-frame documents: (url, status)
        self.content_types: dict[str, str] = {}  # navigations (downloads among them): url -> Content-Type
        self.downloads: list[Download] = []
        self.sent: list[SentRequest] = []  # requests with a body, in the order they started
        self._open: dict[Any, SentRequest] = {}  # Playwright's request -> its SentRequest, until it ends
        self.upload: tuple[int, float] | None = None  # the last upload action: (len(sent) before it, when it ended)
        self.crashed = False
        self._blocked_reported = 0
        self.traffic = TrafficLog(guard)  # (v1.3) every request followed to its end: request_seen's (http/traffic.py)
        self.step_marks: dict[str, Marks] = {}  # (v1.3) each step's marks when it began (request_seen's since)
        context.on("request", self._on_request)
        context.on("requestfinished", self._on_request_finished)
        context.on("requestfailed", self._on_request_failed)
        context.on("response", self._on_response)
        self._attach(page)
        context.on("page", self._attach)

    def mark(self, step_id: str | None = None) -> Marks:
        """The counts now; ``step_id``: a step begins (its attempt's marks), kept for a later ``since``."""
        marks = Marks(len(self.requests), len(self.doc_statuses), len(self.downloads),
                      len(self.guard.blocked) if self.guard else 0, len(self.sent))
        if step_id is not None:
            self.step_marks[step_id] = marks
        return marks

    def exchanges_since(self, marks: Marks) -> list[Exchange]:
        """(v1.3) The requests started since ``marks``, each with its end once it came (request_seen)."""
        return self.traffic.since(marks.requests)

    def note_upload(self, sent_before: int) -> None:
        """An upload action set its files: the requests with a body started since ``sent_before`` are its own."""
        self.upload = (sent_before, time.monotonic())

    def upload_requests(self, marks: Marks) -> tuple[list[SentRequest], float]:
        """The requests with a body started since the run's last upload action (none yet: since ``marks``),
        and when that action ended (else when the marks were taken, approximately: now)."""
        if self.upload is None:
            return self.sent[marks.sent:], 0.0
        first, at = self.upload
        return self.sent[first:], at

    def requests_since(self, marks: Marks) -> list[SeenRequest]:
        return self.requests[marks.requests:]

    def statuses_since(self, marks: Marks) -> list[tuple[str, int]]:
        return self.doc_statuses[marks.statuses:]

    def downloads_since(self, marks: Marks) -> list[Download]:
        return self.downloads[marks.downloads:]

    def blocked_since(self, marks: Marks) -> list[dict[str, Any]]:
        if not self.guard:
            return []
        return [_described(b) for b in self.guard.blocked_since(marks.blocked)]

    def take_blocked(self) -> list[dict[str, Any]]:
        """The requests the guard refused since the last call: each is reported once, by one event."""
        if not self.guard:
            return []
        taken = self.guard.blocked_since(self._blocked_reported)
        self._blocked_reported += len(taken)
        return [_described(b) for b in taken]

    def content_type(self, url: str) -> str | None:
        """The Content-Type a navigation to ``url`` was answered with (a download's), if one was."""
        return self.content_types.get(url)

    def note_status(self, url: str, status: int) -> None:
        """A document status learnt otherwise (an auth failure surfaces as a net:: error)."""
        self.doc_statuses.append((url, status))

    # -- listeners -------------------------------------------------------------

    def _attach(self, page: Page) -> None:
        page.on("download", self._on_download)
        page.on("crash", self._on_crash)

    def _on_request(self, request: PlaywrightRequest) -> None:
        self.network.started()
        navigation = request.is_navigation_request()
        try:
            main = request.frame.parent_frame is None
        except Exception:
            # A popup's first navigation is issued before its frame exists.
            main = navigation
        self.requests.append(SeenRequest(request.url, navigation, main))
        self.traffic.started(request)  # the same order as ``requests``: one Marks index cuts both
        if request.method not in BODILESS:
            sent = SentRequest(request.method, request.url)
            self.sent.append(sent)
            self._open[request] = sent

    def _on_request_finished(self, request: PlaywrightRequest) -> None:
        self.network.ended()
        self.traffic.ended(request)
        sent = self._open.pop(request, None)
        if sent is not None:
            sent.ended = time.monotonic()

    def _on_request_failed(self, request: PlaywrightRequest) -> None:
        self.network.ended()
        self.traffic.ended(request, request.failure or "failed")
        sent = self._open.pop(request, None)
        if sent is not None:
            sent.ended = time.monotonic()
            sent.failure = request.failure or "failed"
        failure = request.failure or ""
        # Chromium's name; Firefox's NS_ERROR_* (issue 49) has no measured equivalent for a refused login.
        if "ERR_INVALID_AUTH_CREDENTIALS" in failure and request.is_navigation_request():
            self.doc_statuses.append((request.url, 401))

    def _on_response(self, response: Response) -> None:
        self.traffic.answered(response)
        try:
            request = response.request
            sent = self._open.get(request)
            if sent is not None:
                sent.status = response.status
            if request.is_navigation_request():
                # headers: what arrived with the response, no round trip to the browser.
                self.content_types[response.url] = response.headers.get("content-type", "")
                if request.frame.parent_frame is None:
                    self.doc_statuses.append((response.url, response.status))
        except Exception:
            pass

    def _on_download(self, download: Download) -> None:
        self.downloads.append(download)

    def _on_crash(self, *_: Any) -> None:
        self.crashed = True


def _described(blocked: BlockedRequest) -> dict[str, Any]:
    """A refused request as the trace lists it."""
    return {"method": blocked.method, "url": blocked.url, "host": blocked.host}
