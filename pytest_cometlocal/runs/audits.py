"""What the audit conditions found, as ``cometlocal show`` and ``cometlocal diff`` tell it (v1.2 audits).

A failed ``accessibility_clean`` leaves its violations in the error's ``details.violations``
(each rule, impact, help text, targets; masked when the run wrote them). ``show`` gives one
line per rule instead of one cut-off JSON line; ``diff`` says which rules fail in one run only,
the question after a release ("what did this change break?").
"""

from __future__ import annotations

from typing import Any, Iterable

__all__ = ["accessibility_note", "detail_lines", "violated_rules"]

# How many targets a show line names before "and N more".
TARGETS_SHOWN = 3


def _violation_lines(violations: Any, indent: str) -> list[str]:
    lines = [f"{indent}violations: {len(violations)} rule(s)"]
    for v in violations:
        targets = [str(t) for t in v.get("targets") or []]
        more = max(0, int(v.get("count") or len(targets)) - TARGETS_SHOWN)
        where = ", ".join(targets[:TARGETS_SHOWN]) + (f" and {more} more" if more else "")
        lines.append(f"{indent}  {v.get('rule')} ({v.get('impact')}): {v.get('help')}; {where}")
    return lines


# details key -> its lines in `show` (the other keys keep their one cut-off line).
DETAIL_LINES = {"violations": _violation_lines}


def detail_lines(key: str, value: Any, indent: str) -> list[str] | None:
    """``show``'s lines for one key of an error's details, or None when it has no reader here."""
    lines = DETAIL_LINES.get(key)
    return lines(value, indent) if lines is not None and isinstance(value, list) else None


def violated_rules(errors: Iterable[dict[str, Any]]) -> set[str]:
    """The axe rules a run's errors name in ``details.violations``."""
    return {str(v.get("rule")) for e in errors for v in (e.get("details") or {}).get("violations") or []
            if isinstance(v, dict)}


def accessibility_note(errors_a: Iterable[dict[str, Any]], errors_b: Iterable[dict[str, Any]]) -> str | None:
    """``accessibility: rules violated in run B only: color-contrast`` (and A only), or None when the same."""
    a, b = violated_rules(errors_a), violated_rules(errors_b)
    parts = [f"in run {label} only: {', '.join(sorted(rules))}" for label, rules in (("A", a - b), ("B", b - a)) if rules]
    return "accessibility: rules violated " + "; ".join(parts) if parts else None
