"""(v1.3) What the active page shows: ``set_viewport`` mid-plan, and ``reload`` with ``bypass_cache``.

``set_viewport`` is Playwright's ``page.set_viewport_size`` on the active page.
Nothing of the executor keeps a page's size: every look reads ``innerWidth`` /
``innerHeight`` afresh (page/scripts/observe.js) and pictures are taken of the
viewport as it is, so the steps after it see, and picture, the new size. A
``browser.device`` keeps its user agent, scale factor, touch and mobile flag:
only the size changes. It is the active page's size only: a page opened later
(a popup, a new tab) gets the run's size (``browser.viewport``, the device's or
1280x720), as Playwright gives every new page of a context.

``bypass_cache`` is the browser's hard reload (Ctrl+Shift+R): the document and
every resource it loads are fetched from the server, whatever the HTTP cache
holds. Playwright's ``page.reload`` has no such option; Chromium's DevTools
protocol has ``Page.reload`` with ``ignoreCache: true``, sent on the page's CDP
session (Playwright's public ``new_cdp_session``), while Playwright waits for
the navigation it starts (``expect_navigation``, to ``load``). A browser
without the DevTools protocol (Firefox, WebKit: issue 49) cannot do it here:
PRECONDITION_FAILED at execution, failed condition ``cache_bypass_available``
(observed and ``details``: the browser's name), before anything is reloaded;
never a plain reload passed off as a hard one. No CDP session is asked of such
a browser (the watchdog's ``has_cdp``).
tests/executor/test_v13_scroll.py pins it: a resource served with
``Cache-Control: max-age`` is fetched again by a hard reload, not by a plain one.
"""

from __future__ import annotations

from typing import Any

from pytest_cometlocal.contract.model.codes import ErrorCode
from pytest_cometlocal.contract.model.records import FailedCondition
from pytest_cometlocal.executor.page.watchdog import cdp_session
from pytest_cometlocal.executor.pages.actions import _landed
from pytest_cometlocal.executor.pages.actions import reload as plain_reload
from pytest_cometlocal.executor.results import StepAttempt

Actions = Any  # the step room's Actions (its ctx, its failures); the step room imports this module


def set_viewport(actions: Actions, attempt: StepAttempt) -> dict[str, Any]:
    """Resize the active page; action_executed records the size before and after."""
    page = actions.ctx.page
    size = attempt.spec.viewport.model_dump()
    before = page.viewport_size
    page.set_viewport_size(size)
    return {"viewport": size, **({"viewport_before": before} if before else {})}


def reload(actions: Actions, attempt: StepAttempt) -> dict[str, Any]:
    """v1.2's reload, or (v1.3) with ``bypass_cache`` the hard reload."""
    if not attempt.spec.bypass_cache:
        return plain_reload(actions, attempt)
    page = actions.ctx.page
    session = cdp_session(page)
    if session is None:
        browser = page.context.browser
        name = browser.browser_type.name if browser is not None else "unknown"
        failed = FailedCondition(kind="cache_bypass_available", args={}, phase="pre", observed={"browser": name})
        raise actions.failures.fail(attempt, ErrorCode.PRECONDITION_FAILED, "execution",
                                    f"reload with bypass_cache needs Chromium's DevTools protocol; {name} has none",
                                    details={"browser": name, "unavailable": "cache_bypass_available"},
                                    failed_conditions=[failed], retryable=False)
    with page.expect_navigation(wait_until="load", timeout=attempt.spec.timeout_ms) as navigation:
        session.send("Page.reload", {"ignoreCache": True})
    return {"bypass_cache": True, **_landed(page, navigation.value)}
