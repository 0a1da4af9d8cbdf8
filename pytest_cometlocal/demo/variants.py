"""The demo portal after a release: variants of its pages, to show ``cometlocal fix`` on (docs/triage.md).

A release renames things and removes others, and the plans that named them
go red. The ``renamed`` variant does what such a release does, each change a
row: the sign-in button is renamed (its text and its test id, so the plans
and the shared step group that sign in fail), a field label is reworded, a
link text changes, and the SQL editor's "Run SQL" button is removed (its
function is gone: a plan that ran it can only be judged by a person). Pick
one with ``DemoPortal(variant=...)``, ``python -m pytest_cometlocal.demo.portal
--variant renamed``, or, for the example suite (example_plans/conftest.py),
the environment variable ``COMETLOCAL_DEMO_VARIANT``. The ``visual`` variant is
a visual regression for ``screenshot_matches``: the checkout's button moved and
recoloured (demo/pages/audit_pages.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from pytest_cometlocal.demo.pages.audit_pages import PAY_BUTTON, PAY_BUTTON_REGRESSED

__all__ = ["ENV", "VARIANTS", "Change", "apply", "check"]

ENV = "COMETLOCAL_DEMO_VARIANT"  # read by example_plans/conftest.py


@dataclass(frozen=True)
class Change:
    """On the page at ``path``, the HTML ``before`` is served as ``after``."""

    path: str
    before: str
    after: str
    what: str


VARIANTS: dict[str, tuple[Change, ...]] = {
    "renamed": (
        Change("/login", '<button type="submit" data-testid="login-submit">Sign in</button>',
               '<button type="submit" data-testid="login-button">Log in</button>',
               'renamed button: "Sign in" (test id login-submit) is "Log in" (test id login-button)'),
        Change("/form", '<label for="country">Country</label>', '<label for="country">Your country</label>',
               'reworded label: "Country" is "Your country"'),
        Change("/dashboard", '<a href="/download/report.csv">Export CSV</a>',
               '<a href="/download/report.csv">Export report (CSV)</a>',
               'changed link text: "Export CSV" is "Export report (CSV)"'),
        Change("/spa/editor", '<p><button type="button" id="run">Run SQL</button></p>\n', "",
               'removed button: the SQL editor has no "Run SQL" any more'),
    ),
    # A visual regression (issue 40): nothing a text check sees changed; screenshot_matches does.
    "visual": (
        Change("/pictures", PAY_BUTTON, PAY_BUTTON_REGRESSED, '"Pay now" moved 40 px right and turned red'),
    ),
}


def check(variant: str | None) -> str | None:
    """``variant`` when it is one of VARIANTS (or None/empty: the portal as it is), else ValueError."""
    if not variant:
        return None
    if variant not in VARIANTS:
        raise ValueError(f"unknown demo portal variant {variant!r}; known: {', '.join(sorted(VARIANTS))}")
    return variant


def apply(variant: str | None, path: str, body: str) -> str:
    """The page body at ``path`` as ``variant`` serves it (unchanged without one)."""
    for change in VARIANTS.get(variant or "", ()):
        if change.path == path:
            body = body.replace(change.before, change.after)
    return body
