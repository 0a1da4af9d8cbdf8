"""What `balanced` would cost with tracing's kind of picture: the newest frame of a screencast kept running.

A measuring tool for a contract decision (docs/executor.md, "The picture of a state"), never the plugin:
``unfenced_pictures()`` replaces, for as long as it is open, the fenced picture of every state
(``page/screenshots.py``: a fence in the page, then a screencast started for one frame) by the newest frame of
a screencast started once per page and left running, acknowledged as its frames arrive, as Playwright's
tracing keeps its own. Nothing waits for a fresh frame, so a picture may show the page before the last change:
this is the rule "the picture shows the state it stands for" given up, which is what the figure prices.
``benchmarks/flow_calls.py`` runs it as the ``-unfenced`` variants.
"""

from __future__ import annotations

import base64
import contextlib
import time
from typing import Any, Iterator

from pytest_cometlocal.executor.page import observation
from pytest_cometlocal.executor.page.screenshots import FRAME_PARAMS
from pytest_cometlocal.executor.page.watchdog import cdp_session


class _Running:
    """One page's screencast, started once and left running: its newest frame, acknowledged on arrival."""

    def __init__(self, page: Any, session: Any) -> None:
        self.page, self.session = page, session
        self.newest: dict[str, Any] | None = None

        def on_frame(event: dict[str, Any]) -> None:
            self.newest = event
            try:
                session.send("Page.screencastFrameAck", {"sessionId": event["sessionId"]})
            except Exception:
                pass

        session.on("Page.screencastFrame", on_frame)
        session.send("Page.startScreencast", FRAME_PARAMS)

    def frame(self, record: dict[str, Any] | None) -> bytes:
        """The newest frame; only the page's very first waits for one to arrive."""
        deadline = time.monotonic() + 3
        while self.newest is None and time.monotonic() < deadline:
            self.page.wait_for_timeout(2)
        if self.newest is None:
            raise RuntimeError("unfenced: no screencast frame in 3 s")
        if record is not None:
            record.clear()
            record.update(method="screencast-newest-unfenced",
                          frame_ts=(self.newest.get("metadata") or {}).get("timestamp"), waited_ms=0)
        return base64.b64decode(self.newest["data"])


def _running(pages: dict[Any, _Running], page: Any) -> _Running | None:
    """The page's running screencast, started on its first picture (one DevTools session a page)."""
    session = cdp_session(page)
    if session is None:
        return None
    running = pages.get(session)
    if running is None:
        running = pages[session] = _Running(page, session)
    return running


@contextlib.contextmanager
def unfenced_pictures() -> Iterator[None]:
    pages: dict[Any, _Running] = {}  # by DevTools session, held for the block: no reused id

    def grab_frame(page: Any, caret: bool = True, record: dict[str, Any] | None = None) -> bytes | None:
        running = _running(pages, page)
        return None if running is None else running.frame(record)

    class PendingFrame:
        def __init__(self, page: Any, caret: bool) -> None:
            self.page, self.record, self.done = page, {}, False
            self.running = _running(pages, page)
            self.session = None if self.running is None else self.running.session

        @classmethod
        def request(cls, page: Any, caret: bool = True) -> "PendingFrame":
            return cls(page, caret)

        def result(self) -> bytes | None:
            self.done = True
            return None if self.running is None else self.running.frame(self.record)

        def cancel(self) -> None:
            self.done = True

    saved = observation.grab_frame, observation.PendingFrame
    observation.grab_frame, observation.PendingFrame = grab_frame, PendingFrame
    try:
        yield
    finally:
        observation.grab_frame, observation.PendingFrame = saved
