"""The example suite serves the bundled demo portal itself: no server to install.

Plans use relative URLs; this conftest gives them the portal's address as the
suite's base URL (the ``cometlocal_base_url`` fixture). The portal's links to
"outside" point at http://outside.example/, a host no plan may touch.
COMETLOCAL_DEMO_VARIANT=renamed serves the portal as a release changed it
(pytest_cometlocal/demo/variants.py; docs/triage.md, "Fixing twenty plans
after a rename").
"""

import os

import pytest

from pytest_cometlocal.demo.portal import DemoPortal
from pytest_cometlocal.demo.orders import ENV as ORDERS_ENV
from pytest_cometlocal.demo.variants import ENV


@pytest.fixture(scope="session")
def demo_portal():
    variant = os.environ.get(ENV) or None
    with DemoPortal(outside_url="http://outside.example/landing", variant=variant) as portal:
        # The extensions' x_order_row (extensions/conftest.py) reads the orders this portal writes.
        before = os.environ.get(ORDERS_ENV)
        os.environ[ORDERS_ENV] = str(portal.orders_db)
        try:
            yield portal
        finally:
            if before is None:
                os.environ.pop(ORDERS_ENV, None)
            else:
                os.environ[ORDERS_ENV] = before


@pytest.fixture
def cometlocal_base_url(demo_portal):
    return demo_portal.url


@pytest.hookimpl(trylast=True)
def pytest_terminal_summary(terminalreporter):
    """The demo's flaky passes are there on purpose: the plans tagged ``recovery`` show a
    recovery (cookie_wall.actions.yaml always, flaky/flaky_continue.actions.yaml on every
    second load of its page). Say so under the plugin's flaky list, so a first clean run
    does not read as a problem."""
    shown = []
    for report in terminalreporter.stats.get("passed", []):
        props = dict(getattr(report, "user_properties", []) or [])
        if props.get("cometlocal.flaky_steps") and "recovery" in getattr(report, "keywords", {}):
            shown.append(report.nodeid.split("::")[0])
    if shown:
        terminalreporter.write_line(
            f"(expected: {', '.join(shown)}, tagged 'recovery', show{'s' if len(shown) == 1 else ''} "
            "a recovery on purpose; README, 'Set up and run')")
