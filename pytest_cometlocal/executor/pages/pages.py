"""(v1.2) The run's pages and the active one: the one place that says which page a step works on.

``StepContext`` (step/context.py) holds one ``Pages`` per run.

Every part of a step (observations, conditions, actions, evidence, the
watchdog) reads ``StepContext.page``, which is ``Pages.active``; nothing else
holds a page of its own. The open pages are Playwright's ``context.pages``
(in the order they were opened, closed ones gone), so a popup, a
``target=_blank`` tab or a ``window.open`` is a page of the run as soon as it
exists. The network guard is the context's proxy, and the channel guard an
init script of the context: both hold for every page from its first request.

The active page changes only by ``activate`` (``opens: page``,
``switch_page``) or when it closes (``close_page``, or a popup that closes
itself): then the page that opened it becomes active, else the first open
page. Openers are read (``page.opener()``) when the executor first sees a new
page, outside Playwright's event handlers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Page


class Pages:
    """The run's open pages, which one is active, and the pages opened that no step has reported yet."""

    def __init__(self, page: Page):
        self.context: BrowserContext = page.context
        self._active = page
        self._known: list[Page] = list(self.context.pages) or [page]  # every page seen, in order
        self._openers: dict[Page, Page | None] = {}
        self._new: list[Page] = []  # opened since the last ``take_opened``
        self.ever_several = False  # a second page was opened: signatures name their page's index
        self.context.on("page", self._on_page)

    def _on_page(self, page: Page) -> None:
        # An event handler: only note it (no Playwright call here).
        self._known.append(page)
        self._new.append(page)
        self.ever_several = True

    @property
    def open(self) -> list[Page]:
        """The open pages, in the order they were opened (index 0 = the first)."""
        return [p for p in self._known if not p.is_closed()]

    @property
    def active(self) -> Page:
        """The page steps work on; if it closed, its opener (else the first open page) takes its place."""
        page = self._active
        if page.is_closed():
            self._active = page = self._successor(page)
        return page

    def index(self, page: Page | None = None) -> int | None:
        """``page``'s (default: the active page's) place among the open pages, None when it is closed."""
        page = page or self.active
        pages = self.open
        return pages.index(page) if page in pages else None

    def activate(self, page: Page) -> None:
        self._note_opener(page)
        self._active = page

    def close_active(self) -> Page:
        """Close the active page; returns the page that becomes active (its opener, else the first)."""
        page = self.active
        self._note_opener(page)
        page.close(run_before_unload=False)
        self._active = self._successor(page)
        return self._active

    def closed_itself(self, page: Page) -> bool:
        """Whether ``page`` is closed while the run still has an open page: a page that closed itself (a popup's
        ``window.close()``), not a browser or context that went away."""
        return page.is_closed() and page is not self.active and bool(self.open)

    def take_opened(self) -> list[Page]:
        """The pages opened since the last call (each reported once), their openers noted."""
        new, self._new = self._new, []
        for page in new:
            self._note_opener(page)
        return new

    def opened_since(self, count: int) -> list[Page]:
        """Pages opened after the first ``count`` the run had seen (``seen()`` before an action)."""
        return self._known[count:]

    def seen(self) -> int:
        return len(self._known)

    def describe(self, mask: Callable[[str], str]) -> list[dict[str, Any]]:
        """The open pages as an error lists them: index, URL and title, each masked by ``mask``."""
        return [{"index": i, "url": mask(p.url), "title": mask(_title(p))} for i, p in enumerate(self.open)]

    def signature_metadata(self) -> dict[str, Any]:
        """What a state signature adds once the run has more than one page: the active page's index."""
        if not self.ever_several:
            return {}
        return {"page": self.index()}

    def _note_opener(self, page: Page) -> None:
        if page not in self._openers:
            try:
                self._openers[page] = page.opener()
            except Exception:  # a page already gone: its opener is unknown
                self._openers[page] = None

    def _successor(self, closed: Page) -> Page:
        opener = self._openers.get(closed)
        while opener is not None and opener.is_closed():
            opener = self._openers.get(opener)
        if opener is not None:
            return opener
        pages = self.open
        return pages[0] if pages else closed


def _title(page: Page) -> str:
    try:
        return page.title()
    except Exception:
        return ""

