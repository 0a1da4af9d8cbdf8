"""A plan's URLs as ``urllib`` reads them (rule URL): every way it refuses one is a problem, not a ValueError.

``urlsplit`` raises on a bracket out of place (``http://outs]ide.example/``),
and ``.port`` on a port that is not a number from 0 to 65535: both are asked
here, once, so validation reports them and nothing later meets them.
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
