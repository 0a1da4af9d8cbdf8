"""Text as the text conditions read it: Playwright's own text assertions' reading, and what a failure shows.

``element_text_contains``, ``toast_contains`` and ``upload_completed``'s
``text`` read an element's text as ``toHaveText`` / ``toContainText`` do
(scripts/element_text.js): its text content, not its rendered ``innerText``,
so a name a page draws in two inline elements, flex children or blocks reads
as one word, as a person reads it. The wanted text is normalized the same way
(``normalize``) before it is looked for. A failure records what was read,
masked, cut at ``SEEN_LIMIT``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Callable

from pytest_cometlocal.executor.scripts import load_script, read_script

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

# An element's text as Playwright's toHaveText reads it (scripts/element_text.js).
ELEMENT_TEXT_JS = load_script(__package__, "element_text.js")

# The shown toasts' texts, the page's text and whether the page shows a text (scripts/shown_texts.js).
SHOWN_TEXTS_JS = load_script(__package__, "shown_texts.js", element_text=read_script(__package__, "element_text.js"))

# The most of a text a failed condition records, in UTF-8 bytes, after masking.
SEEN_LIMIT = 2 * 1024
TRUNCATED = "\n... (truncated)"

# JavaScript's \s and String.trim's set (Python's \s differs: it has \x1c-\x1f and \x85, not \ufeff).
_JS_SPACE = "\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_SPACES = re.compile(f"[{_JS_SPACE}]+")
_DROPPED = re.compile("[\u200b\u00ad]")


def normalize(text: str) -> str:
    """Playwright's normalizeWhiteSpace: zero-width spaces and soft hyphens dropped, trimmed, runs of
    whitespace made one space. The wanted text of a condition goes through it, as toContainText's does."""
    return _SPACES.sub(" ", _DROPPED.sub("", text)).strip(" ")


def element_text(locator: Locator) -> str:
    """The one element's text, normalized (the element must exist: ``locator.evaluate`` waits for it)."""
    return locator.evaluate(ELEMENT_TEXT_JS, timeout=1000)


def shown_texts(page: Page, toast_selector: str, wanted: str | None) -> dict[str, Any]:
    """``{toasts, page, shown}``: the shown toasts' texts, the page's text, and whether the page shows ``wanted``."""
    return page.evaluate(SHOWN_TEXTS_JS, [toast_selector, wanted])


def seen(text: str, mask: Callable[[str], str]) -> str:
    """A text read from the page as a failure may record it: masked, then cut at SEEN_LIMIT (marked)."""
    return clip_utf8(mask(text), SEEN_LIMIT)[0]


def first_lines(text: str, limit: int) -> tuple[str, bool]:
    """``text``'s whole lines that fit in ``limit`` UTF-8 bytes (a first line too long for it is cut
    at a character); and whether anything was left out. The MCP server's aria view uses it too."""
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text, False
    head = data[:limit].decode("utf-8", "ignore")
    return (head[:head.rfind("\n") + 1] if "\n" in head else head), True


def clip_utf8(text: str, limit: int) -> tuple[str, bool]:
    """``text`` cut to at most ``limit`` UTF-8 bytes, at the end of a line when it has several, and
    marked as cut; and whether it was."""
    head, cut = first_lines(text, limit - len(TRUNCATED.encode()))
    return (head.removesuffix("\n") + TRUNCATED, True) if cut else (text, False)
