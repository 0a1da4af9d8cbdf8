"""Which hosts a run may touch.

Hosts match literally and case-insensitively, ports ignored, no DNS
resolution (``localhost`` is not ``127.0.0.1``); ``*.x`` matches subdomains
of ``x`` only. Pure functions: the network guard (executor/browser/network_guard.py) and the
``host_in_allowlist`` condition both use them.

A plan's URLs are read here too (rule URL): ``urlsplit`` raises on a bracket out
of place (``http://outs]ide.example/``), and ``.port`` on a port that is not a
number from 0 to 65535; ``split_url`` asks both once, so validation reports them
and nothing later meets them.
"""

from __future__ import annotations

from urllib.parse import SplitResult, urlsplit


def split_url(url: str) -> SplitResult | str:
    """The URL's parts, or why urllib cannot read it (one line)."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises on a port out of range or not a number
        parts.hostname  # noqa: B018
    except ValueError as exc:
        return f"cannot read URL {url!r}: {exc}"
    return parts


def is_absolute_http(url: str) -> bool:
    parts = split_url(url)
    return not isinstance(parts, str) and parts.scheme in ("http", "https") and bool(parts.netloc)


def url_host(url: str | None) -> str:
    """Lower-case host of a URL ('' for none, and for URLs without one, such as about:blank)."""
    try:
        host = urlsplit(url or "").hostname or ""
    except ValueError:
        return ""
    return host.lower()


def host_allowed(host: str, allowlist: tuple[str, ...] | list[str]) -> bool:
    host = host.lower().strip("[]").rstrip(".")
    for pattern in allowlist:
        pattern = pattern.lower().strip("[]").rstrip(".")
        if pattern.startswith("*."):
            if host.endswith(pattern[1:]) and host != pattern[2:]:
                return True
        elif host == pattern:
            return True
    return False


def url_allowed(url: str, allowlist: tuple[str, ...] | list[str]) -> bool:
    """Non-network URLs (about:, data:, blob:) are always allowed: they leave no host."""
    try:
        scheme = urlsplit(url).scheme.lower()
    except ValueError:  # a URL urllib cannot read has no host to allow
        return False
    if scheme not in ("http", "https", "ws", "wss"):
        return True
    return host_allowed(url_host(url), allowlist)
