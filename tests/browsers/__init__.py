"""Tests that launch a browser other than Chromium (issue 49: Firefox); marked ``browser``.

``ON_BOTH`` runs a test on Chromium and on Firefox: it parametrizes the suite's
``browser_manager`` fixture (tests/conftest.py), which ``run`` uses, with the ids
``[chromium]`` and ``[firefox]``. The Firefox half skips with one line when no
Firefox can be driven here (fails under ``COMETLOCAL_REQUIRE_FIREFOX=1``, as in CI).
"""

import os

import pytest

BROWSERS = ("chromium", "firefox")
REQUIRE = "COMETLOCAL_REQUIRE_FIREFOX"  # "1" in CI (.ci/run): a Firefox that cannot be driven fails the tests
ON_BOTH = pytest.mark.parametrize("browser_manager", BROWSERS, indirect=True)


def inner_browser_args(request: pytest.FixtureRequest, name: str) -> list[str]:
    """The arguments that make an inner pytest session (pytester) run its plan items on ``name``.

    Chromium: none (the default). Firefox: the suite's ``firefox`` fixture first (so the test skips
    or, under ``COMETLOCAL_REQUIRE_FIREFOX=1``, fails with its one line where no Firefox can be
    driven), then the plugin's ``--cometlocal-browser firefox``; a plugin without that option
    (before issue 49's plugin slice) skips naming it.
    """
    if name == "chromium":
        return []
    request.getfixturevalue(name)
    option = f"--cometlocal-browser={name}"
    known = {o for group in request.config._parser._groups for opt in group.options for o in opt.names()}
    if "--cometlocal-browser" not in known:
        pytest.skip(f"this plugin has no --cometlocal-browser: plan items cannot run on {name}")
    return [option]


def firefox_not_here(reason: str) -> None:
    """Skip with one line, or fail where Firefox is required (``COMETLOCAL_REQUIRE_FIREFOX=1``, as in CI)."""
    if os.environ.get(REQUIRE) == "1":
        pytest.fail(f"{REQUIRE}=1: {reason}", pytrace=False)
    pytest.skip(reason)
