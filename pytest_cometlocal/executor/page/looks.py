"""(v1.3) How an element looks: ``element_css``, ``element_in_viewport``, ``element_html_contains``.

Rows of page/conditions.py's ``EVALUATORS`` through its ``_on_element`` (the
element resolved first: exactly one match, U1): ``(locator, args, ctx) ->
(holds, observed)``. Each is one evaluate in the page (scripts/), bounded by a
short timeout and looked at again by ``poll``, never waited for. What a failure
shows (a computed value, inner HTML) is masked, then cut at 2 KB, as texts are
(page/texts.py ``seen``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from pytest_cometlocal.contract.patterns import compiled
from pytest_cometlocal.executor.page.texts import seen
from pytest_cometlocal.executor.scripts import load_script

if TYPE_CHECKING:
    from playwright.sync_api import Locator

    from pytest_cometlocal.executor.page.conditions import CheckContext

# One computed style property (scripts/computed_style.js).
COMPUTED_STYLE_JS = load_script(__package__, "computed_style.js")
# The element's intersection ratio with the viewport (scripts/viewport_ratio.js).
VIEWPORT_RATIO_JS = load_script(__package__, "viewport_ratio.js")
# The element's innerHTML (scripts/inner_html.js).
INNER_HTML_JS = load_script(__package__, "inner_html.js")
# Playwright's toBeInViewport allows this much below ``ratio``.
RATIO_SLACK = 1e-9


def _css(locator: Locator, args: Any, ctx: CheckContext) -> tuple[bool, Any]:
    """``equals`` the computed value exactly, or ``matches`` it (searched)."""
    value = str(locator.evaluate(COMPUTED_STYLE_JS, args.property, timeout=1000))
    ok = value == args.equals if args.equals is not None else compiled(args.matches).search(value) is not None
    return ok, {"count": 1, "property": args.property, "value": seen(value, ctx.mask_text)}


def _in_viewport(locator: Locator, args: Any, ctx: CheckContext) -> tuple[bool, Any]:
    """As ``toBeInViewport``: some of the element is in the viewport (ratio > 0), and at least ``ratio``."""
    got = locator.evaluate(VIEWPORT_RATIO_JS, timeout=1000)
    ratio = float(got) if isinstance(got, (int, float)) and not isinstance(got, bool) else 0.0
    ok = ratio > 0 and (args.ratio is None or ratio > args.ratio - RATIO_SLACK)
    return ok, {"count": 1, "ratio": round(ratio, 4)}


def _html_contains(locator: Locator, args: Any, ctx: CheckContext) -> tuple[bool, Any]:
    """The element's innerHTML contains ``text`` (a secret in it resolved here only); shown masked and cut."""
    html = str(locator.evaluate(INNER_HTML_JS, timeout=1000))
    return ctx.resolve_text(args.text) in html, {"count": 1, "html": seen(html, ctx.mask_text)}


LOOK_CHECKS: dict[str, Callable[[Locator, Any, CheckContext], tuple[bool, Any]]] = {
    "element_css": _css,
    "element_in_viewport": _in_viewport,
    "element_html_contains": _html_contains,
}
