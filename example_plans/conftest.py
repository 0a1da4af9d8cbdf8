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
from pytest_cometlocal.demo.variants import ENV


@pytest.fixture(scope="session")
def demo_portal():
    variant = os.environ.get(ENV) or None
    with DemoPortal(outside_url="http://outside.example/landing", variant=variant) as portal:
        yield portal


@pytest.fixture
def cometlocal_base_url(demo_portal):
    return demo_portal.url


@pytest.hookimpl(trylast=True)
def pytest_terminal_summary(terminalreporter):
    """The demo's one flaky pass is there on purpose: say so under the plugin's flaky list."""
    for report in terminalreporter.stats.get("passed", []):
        props = dict(getattr(report, "user_properties", []) or [])
        if "flaky_continue" in report.nodeid and props.get("cometlocal.flaky_steps"):
            terminalreporter.write_line(
                "  (expected: flaky/flaky_continue.actions.yaml shows a recovery on purpose; "
                "see its comment and docs/triage.md)")
