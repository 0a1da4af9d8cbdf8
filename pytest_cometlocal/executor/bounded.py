"""Bounds for the few Playwright calls that can wait forever.

The executor must never hang on a page or a server that misbehaves: every
wait ends with a typed error. Two Playwright waits have no timeout of their
own:

* saving a download (``Download.save_as``, ``path``) waits until the
  download finishes, and a server that stops sending never lets it finish;
* evaluating script in a page waits for its execution context, which does
  not exist while a navigation to a server that does not answer is pending.

``bounded`` runs such a sync-API call under ``asyncio.wait_for`` on
Playwright's own event loop. The sync API has no public hook for that, so it
uses the wrapper's ``_sync`` and ``_impl_obj`` (present in every Playwright
for Python release); without them it falls back to the plain, unbounded
call. ``stop_loading`` ends a pending navigation through CDP (Chromium only,
which is what the executor drives), so the page can be observed again.
"""

from __future__ import annotations

import asyncio
from typing import Any


class CallTimedOut(TimeoutError):
    """A bounded call did not finish in time."""


def bounded(api_obj: Any, method: str, timeout_ms: float, *args: Any, **kwargs: Any) -> Any:
    """``api_obj.method(*args, **kwargs)``, raising CallTimedOut after ``timeout_ms``."""
    impl = getattr(api_obj, "_impl_obj", None)
    run = getattr(api_obj, "_sync", None)
    if impl is None or run is None or not hasattr(impl, method):
        return getattr(api_obj, method)(*args, **kwargs)
    try:
        return run(asyncio.wait_for(getattr(impl, method)(*args, **kwargs), timeout_ms / 1000))
    except asyncio.TimeoutError:
        raise CallTimedOut(f"{method} did not finish within {int(timeout_ms)} ms") from None


def stop_loading(page: Any) -> bool:
    """Stop the page's pending navigation (the browser's Stop button); True when it was sent."""
    try:
        session = page.context.new_cdp_session(page)
    except Exception:
        return False
    try:
        session.send("Page.stopLoading")
        return True
    except Exception:
        return False
    finally:
        try:
            session.detach()
        except Exception:
            pass
