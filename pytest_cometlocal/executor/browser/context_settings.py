"""(v1.2) A plan's ``browser:`` and ``clock:`` made into its browser context.

``context_args`` turns the validated settings into ``browser.new_context``'s
keyword arguments: the device's descriptor from Playwright's registry first,
then each key the plan sets (so ``viewport`` beside ``device`` resizes that
phone). A plan without ``browser:`` gets ``{}``: the context is made exactly
as before. ``install_clock`` installs Playwright's fake clock at ``clock.at``
on a context no page of which has loaded anything yet, so the first
navigation already sees it, and pauses it there: ``install`` alone lets the
fake time flow with real time (a page would read ``clock.at`` plus the run's
elapsed time), while the plan format promises a clock that stands still until
``advance_clock`` (``clock.run_for``) moves it and fires the timers due.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pytest_cometlocal.contract.devices import device_registry
from pytest_cometlocal.contract.model.plan import BrowserSettings, ClockSettings
from pytest_cometlocal.contract.validate.settings_rules import clock_time

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext

# Plan key -> new_context's keyword, for the keys that pass through as they are.
_PLAIN: dict[str, str] = {"locale": "locale", "timezone": "timezone_id", "permissions": "permissions",
                          "color_scheme": "color_scheme", "offline": "offline"}


def context_args(browser: BrowserSettings | None) -> dict[str, Any]:
    """new_context's keyword arguments for these settings ({} for none)."""
    if browser is None:
        return {}
    args: dict[str, Any] = {}
    if browser.device is not None:
        descriptor = dict(device_registry()[browser.device])
        descriptor.pop("default_browser_type", None)  # the browser is always Chromium
        args.update(descriptor)
    if browser.viewport is not None:
        args["viewport"] = browser.viewport.model_dump()
    if browser.geolocation is not None:
        args["geolocation"] = browser.geolocation.model_dump(exclude_none=True)
    for key, keyword in _PLAIN.items():
        value = getattr(browser, key)
        if value is not None:
            args[keyword] = list(value) if isinstance(value, list) else value
    return args


def install_clock(context: BrowserContext, clock: ClockSettings | None) -> None:
    """Playwright's fake clock, standing at ``clock.at`` (nothing for a plan without ``clock``).

    ``pause_at`` the install time: on every page of the context ``Date`` and ``performance.now``
    read the same until ``advance_clock``; a refusal of either call is the caller's ``clock.install``.
    """
    if clock is not None:
        at = clock_time(clock.at)
        context.clock.install(time=at)
        context.clock.pause_at(at)
