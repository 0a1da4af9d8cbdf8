"""A failed condition, and a policy halt, as the one line a person reads first: why, before the values.

What was seen can be long (a stored item holding three to-dos, a response
body), and the lines are cut (pytest's failure text at 160 characters a value,
``cometlocal show`` at 140). Before, the line was the condition's arguments and
then everything observed, so the cut took the explanation ("the pointer names
nothing in the item") and left it only in ``trace.jsonl``. So every condition's
line leads with the reason, then what was expected (its arguments, the target
last), then what was seen (cut); the pytest failure text and ``show`` both
compose it here. Values are recorded masked already: nothing here unmasks.

The reason is the executor's own ``observed.problem`` when it gave one, else
what the observed count says (the target matches nothing, or several), else the
kind's row of ``REASONS``.
"""

from __future__ import annotations

import json
from typing import Any, Callable

__all__ = ["REASONS", "condition_line", "halt_line", "reason_of", "short"]


def short(value: Any, limit: int) -> str:
    """``value`` as text (JSON for a non-string), cut at ``limit`` characters with an ellipsis."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _cookie(seen: dict[str, Any]) -> str:
    return "no such cookie is sent with the page's URL" if seen.get("value", "") is None else "the cookie's value differs"


def _picture(seen: dict[str, Any]) -> str:
    baseline = seen.get("baseline")
    return {"missing": "no baseline yet", "differs": "the picture differs from its baseline"}.get(
        baseline, f"the baseline is {baseline}" if isinstance(baseline, str) else "the picture differs from its baseline")


def _audit(seen: dict[str, Any]) -> str:
    return f"the audit could not run: {seen['error']}" if seen.get("error") else "the page has accessibility violations"


# Kind -> why it did not hold, when what was seen says no more (a row per condition kind of the contract).
REASONS: dict[str, str | Callable[[dict[str, Any]], str]] = {
    "url_is": "the page's URL is another",
    "url_matches": "the page's URL does not match",
    "host_in_allowlist": "the page's host is outside the allowlist",
    "title_contains": "the title does not contain the text",
    "element_exists": "the target matches nothing",
    "element_visible": "the element is not visible",
    "element_enabled": "the element is disabled",
    "element_clickable": "the element cannot be clicked (hidden, disabled, covered or moving)",
    "element_count_equals": "the target matches another number of elements",
    "element_text_contains": "the element's text does not contain the text",
    "element_attr_equals": "the attribute has another value",
    "element_value_equals": "the field's value is another",
    "network_idle": "requests were still in flight",
    "no_blocking_overlay": "an overlay covers the page",
    "toast_contains": "no toast shows the text",
    "download_started": "no download started",
    "upload_completed": "the upload did not complete",
    "element_checked": "the element's checked state is the other one",
    "element_focused": "the element does not have the focus",
    "aria_snapshot_matches": "the aria snapshot does not match the template",
    "element_text_matches": "the element's text does not match the pattern",
    "element_value_contains": "the field's value does not contain the text",
    "element_value_matches": "the field's value does not match the pattern",
    "element_attr_matches": "the attribute does not match the pattern",
    "element_hidden": "the element is shown",
    "element_texts_equal": "the elements' texts differ from the list",
    "storage_item": "the stored value differs",
    "cookie": _cookie,
    "cookie_count": "another number of cookies",  # v1.3 (state)
    "storage_items": lambda seen: ("an item does not meet the check" if "failing" in seen
                                   else "another number of items matches key_matches"),
    "storage_equals": "the area's items differ",
    "page_count_equals": "another number of pages is open",
    "response_status": "the response has another status",
    "response_json": "the body's value differs",
    "response_header": "the header's value differs",
    "accessibility_clean": _audit,
    "screenshot_matches": _picture,
    "request_seen": "no request the page sent matched and passed its checks",  # v1.3 (observed.problem says more)
    "element_css": "the computed style has another value",  # v1.3
    "element_in_viewport": "the element is not in the viewport (or less of it than the ratio)",
    "element_html_contains": "the element's inner HTML does not contain the text",
}
# (v1.3) A number check that did not hold, in words.
_NUMBER_WORDS = {"greater_than": "greater than the bound", "less_than": "less than the bound",
                 "between": "between the bounds", "one_of": "one of the values"}
# Kinds whose target must match one element: a count other than one is the reason.
_ONE = frozenset({"element_visible", "element_enabled", "element_clickable", "element_text_contains",
                  "element_attr_equals", "element_value_equals", "element_checked", "element_focused",
                  "element_text_matches", "element_value_contains", "element_value_matches", "element_attr_matches",
                  "element_css", "element_in_viewport", "element_html_contains"})


def reason_of(kind: str, observed: Any) -> str:
    """Why the condition did not hold, in words: the executor's problem, the count, else the kind's row."""
    seen = observed if isinstance(observed, dict) else {}
    if isinstance(seen.get("problem"), str) and seen["problem"]:
        return seen["problem"]
    count = seen.get("count")
    if isinstance(count, int) and kind in _ONE and count != 1:
        return "the target matches nothing" if count == 0 else f"the target matches {count} elements, not one"
    if isinstance(seen.get("failed_checks"), list):  # (v1.3) number keys (contract/numbers.py)
        return "the number is not " + " and not ".join(_NUMBER_WORDS.get(k, k) for k in seen["failed_checks"])
    row = REASONS.get(kind, "it did not hold")
    return row(seen) if callable(row) else row


def condition_line(kind: str, args: Any, observed: Any, limit: int) -> str:
    """``storage_item: the pointer names nothing in the item — expected {...} — seen {...}``; each value cut at
    ``limit``, the reason never."""
    expected = dict(args) if isinstance(args, dict) else args
    if isinstance(expected, dict) and "target" in expected:
        expected["target"] = expected.pop("target")  # the value expected first, the target after it
    seen = {k: v for k, v in observed.items() if k != "problem"} if isinstance(observed, dict) else observed
    line = f"{kind}: {reason_of(kind, observed)}"
    if expected:
        line += f" — expected {short(expected, limit)}"
    if seen not in (None, {}):
        line += f" — seen {short(seen, limit)}"
    return line


# Halt reason -> (the policy key, what the details say was seen, how to let the run go on).
_HALTS: dict[str, tuple[str, Callable[[dict[str, Any]], str], str]] = {
    "same_state_revisit": ("same_state_revisits", lambda d: f"state seen {d.get('count')} times", "raise it"),
    "max_steps": ("hard_cap_steps", lambda d: f"{d.get('steps_taken')} steps taken", "raise it"),
    "stop_not_allowed": ("allow_stop", lambda d: "a stop step would end the run", "set it to true"),
}


def halt_line(reason: str, details: dict[str, Any], policy: Any) -> str:
    """``policy halt: same_state_revisit — state seen 3 times (policy.same_state_revisits: 2; raise it in the
    plan's policy: or the suite config)``: the policy key, its value in the run's ``policy`` and how to change it."""
    row = _HALTS.get(reason)
    if row is None:
        return f"policy halt: {reason}"
    key, seen, change = row
    value = getattr(policy, key, None)
    shown = str(value).lower() if isinstance(value, bool) else value
    return (f"policy halt: {reason} — {seen(details)} (policy.{key}: {shown}; {change} in the plan's policy: "
            "or the suite config)")
