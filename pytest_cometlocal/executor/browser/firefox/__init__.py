"""Finding and launching a Firefox the executor can drive, and checking that Playwright can drive it.

Two kinds of Firefox work:

- **Playwright's own build** (``playwright install firefox``), driven through
  Playwright's Juggler protocol: launched with no channel;
- **a system Firefox** (Debian's ``firefox-esr``, or ``firefox``), driven
  through WebDriver BiDi: Playwright's driver takes BiDi for a channel starting
  ``moz-``, so it is launched with ``channel="moz-firefox"`` and its
  ``executable_path`` (without that path the driver looks only at
  ``/snap/bin/firefox``).

:func:`find_firefox` looks in this order: an explicit path (``--cometlocal-firefox``
or the ini ``cometlocal_firefox``, passed in), the ``COMETLOCAL_FIREFOX``
environment variable, Playwright's own build, then ``firefox-esr`` and
``firefox`` on PATH and ``/usr/bin/firefox-esr``. An explicit path that does
not exist is refused naming it (tests/browser_guard.py points
``COMETLOCAL_CHROMIUM`` at such a path to forbid launches in a browser-free
run; ``COMETLOCAL_FIREFOX`` works the same way).

:data:`FIREFOX_PREFS` are given to every Firefox launched here (both kinds:
``firefox_user_prefs`` is a launch option of either protocol). Each was
measured on Firefox ESR 153 (issue 49):

- ``network.proxy.allow_hijacking_localhost``: without it Firefox sends
  ``localhost`` straight past the proxy, so past the network guard
  (network_guard.py); with it a request to ``localhost:<port>`` gets the
  guard's 403;
- ``browser.sessionhistory.max_total_viewers: 0``: without it ``go_back`` and
  ``go_forward`` time out (the back-forward cache);
- ``media.peerconnection.ice.proxy_only``: WebRTC gathers no candidate, so
  sends no UDP around the proxy; Firefox's equivalent of Chromium's
  ``--webrtc-ip-handling-policy=disable_non_proxied_udp`` (channels.py).

**The pair probe** (:func:`probe_pair`). A Playwright and a Firefox can disagree
on the BiDi commands: Playwright 1.65 sends ``emulation.setMediaFeaturesOverride``
for every new context, and Firefox ESR 153 does not know it, so the launch
works and every context fails. Right after a launch the manager opens and
closes one context; a protocol error there becomes one line naming both
versions and the way out (:class:`BrowserPairMismatch`), said once per
session instead of a traceback per item. No table of versions is kept: the
probe is the check.

The code: ``launch.py`` (lookup, prefs, launch keyword arguments) and
``pair.py`` (the probe); everything public is importable from this package.
No pytest here.
"""

from pytest_cometlocal.executor.browser.firefox.launch import (
    BIDI_CHANNEL,
    ENV_VAR,
    FIREFOX_PREFS,
    INSTALL_HINT,
    SYSTEM_NAMES,
    SYSTEM_PATHS,
    FirefoxFound,
    find_firefox,
    firefox_launch_kwargs,
    firefox_launch_problem,
    is_playwright_build,
    playwright_firefox,
    system_firefox,
)
from pytest_cometlocal.executor.browser.firefox.pair import pair_mismatch_message, playwright_version, probe_pair

__all__ = [
    "BIDI_CHANNEL", "ENV_VAR", "FIREFOX_PREFS", "INSTALL_HINT", "SYSTEM_NAMES", "SYSTEM_PATHS", "FirefoxFound",
    "find_firefox", "firefox_launch_kwargs", "firefox_launch_problem", "is_playwright_build",
    "pair_mismatch_message", "playwright_firefox", "playwright_version", "probe_pair", "system_firefox",
]
