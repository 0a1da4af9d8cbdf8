"""A step's URL made absolute: a ``navigate``'s target, a ``request``'s ``url`` (v1.2).

Relative to the effective base URL, with its secrets filled in at the last
moment, joined as the browser joins (contract/browser_url.py's join_url: a
backslash is a slash). One that cannot be made absolute is INVALID_ACTIONSPEC
(rule URL) at stage proposal_validation, naming the key it was written at. One
the browser reads otherwise than urllib is returned as it is: the allowlist's
pre-check refuses it (DOMAIN_BLOCKED, nothing sent).
"""

from __future__ import annotations

from urllib.parse import SplitResult, urlsplit

from pytest_cometlocal.contract.browser_url import join_url
from pytest_cometlocal.contract.load.interpolation import resolve_secrets
from typing import Any

from pytest_cometlocal.contract.model.codes import ErrorCode


def absolute_url(failures: Any, attempt: Any, written: str) -> str:
    """``written`` (the step's URL, secrets as references) as the absolute URL the step requests;
    ``failures`` is the step's Failures, ``attempt`` its StepAttempt (the step room imports this one)."""
    settings = failures.ctx.settings
    url = resolve_secrets(written, settings.secrets)
    parts = _urllib(url)  # validated, but a secret's value can still break it (never shown)
    if not isinstance(parts, str) and parts.scheme:
        return url
    base = _urllib(settings.base_url) if settings.base_url else None  # a fixture's, unchecked
    if isinstance(parts, str):
        why, short = "cannot be read as a URL once its secrets are filled in", "unreadable URL"
    elif base is None:
        why = "needs a base URL: --base-url, the plan's base_url, ini base_url or a cometlocal_base_url fixture"
        short = "relative URL without a base URL"
    elif isinstance(base, str):
        why, short = f"has an unreadable base URL: {base}", "unreadable base URL"
    else:
        return join_url(settings.base_url, url)
    key_path = "target.url" if attempt.spec.target is not None else "url"
    raise failures.fail(
        attempt, ErrorCode.INVALID_ACTIONSPEC, "proposal_validation",
        f"{'URL' if isinstance(parts, str) else 'relative URL'} {written!r} {why}",
        details={"violated_rules": ["URL"], "validation_errors": [
            {"key_path": key_path, "message": short, "rule": "URL"}]},
        retryable=False,
    )


def _urllib(url: str) -> SplitResult | str:
    """urllib's parts, or why it cannot read the URL (the browser's reading is the allowlist's)."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises on a port out of range or not a number
        parts.hostname  # noqa: B018
    except ValueError as exc:
        return f"cannot read URL {url!r}: {exc}"
    return parts
