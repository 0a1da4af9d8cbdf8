"""(v1.4) One BrowserManager per browser name, made when an item first needs it, all on one Playwright.

Playwright's sync API allows one instance per thread: two managers that each start their own
fail. Every manager of the session therefore gets the same one (``playwright=``): pytest-playwright's
session ``playwright`` fixture when that plugin is loaded, else the one ``SharedPlaywright`` starts
for the first manager that needs it (stopped after every manager closed). The Chromium manager is
the ``cometlocal_browser_manager`` fixture's, so a conftest that overrides it keeps working.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from pytest_cometlocal.executor.browser.manager import BrowserManager

if TYPE_CHECKING:
    from playwright.sync_api import Playwright


class SharedPlaywright:
    """A Playwright started on first ``get()`` (unless one is given), stopped by ``stop()`` if started here."""

    def __init__(self, given: Playwright | None = None):
        self._playwright = given
        self._owned = False

    def get(self) -> Playwright:
        if self._playwright is None:
            from playwright.sync_api import sync_playwright

            self._playwright = sync_playwright().start()
            self._owned = True
        return self._playwright

    def stop(self) -> None:
        if self._playwright is not None and self._owned:
            try:
                self._playwright.stop()
            except Exception:  # a driver that is already gone fails in more ways than Playwright's Error
                pass
        self._playwright = None


class BrowserManagers(dict):
    """browser name -> BrowserManager; a missing name is made by ``make(name)`` on first use."""

    def __init__(self, make: Callable[[str], BrowserManager], **given: BrowserManager):
        super().__init__(given)
        self._make = make

    def __missing__(self, name: str) -> BrowserManager:
        manager = self[name] = self._make(name)
        return manager

    def close(self, keep: Any = None) -> None:
        """Close the managers made here (``keep``: one closed by its own fixture)."""
        for manager in list(self.values()):
            if manager is not keep:
                manager.close()


def browser_record(manager: BrowserManager | None, name: str) -> dict[str, Any]:
    """The run manifest's browser keys for ``name`` (its manager's ``profile`` once it launched)."""
    profile = getattr(manager, "profile", None) if manager is not None else None
    if isinstance(profile, dict) and profile.get("browser") == name:
        return dict(profile)
    return {"browser": name, "browser_version": getattr(manager, "version", None)}
