"""Which hosts a run may touch.

Hosts match literally and case-insensitively, ports ignored, no DNS
resolution (``localhost`` is not ``127.0.0.1``); ``*.x`` matches subdomains
of ``x`` only. Pure functions: the network guard (executor/browser/network_guard.py), the
run-time pre-checks and the ``host_in_allowlist`` condition all use them.

The host judged is the one the browser connects to: every URL is read by
contract/browser_url.py's ``read_url`` (the WHATWG reading), never by urllib alone,
and one that urllib and the browser read two ways is refused.

A plan's URLs are read here too (rule URL): ``urlsplit`` raises on a bracket out
of place (``http://outs]ide.example/``), and ``.port`` on a port that is not a
number from 0 to 65535; the browser refuses others (``http://1.2.3.4.5/``) and reads
some differently (``http://localhost\\@127.0.0.1/``); ``split_url`` asks all of them
once, so validation reports them and nothing later meets them.
"""

from __future__ import annotations

from functools import lru_cache
from urllib.parse import SplitResult, urlsplit

from pytest_cometlocal.contract.browser_url import NETWORK_SCHEMES, read_url


@lru_cache(maxsize=1024)
def split_url(url: str) -> SplitResult | str:
    """The URL's parts, or why it cannot be read (one line): urllib cannot, the browser cannot,
    or the two read another host. Cached by the text (both answers are immutable): a suite's plans
    repeat their base URL and paths, and reading one the browser's way is costly."""
    reading = read_url(url)
    if reading.refused:
        return reading.refused
    return urlsplit(url)


def is_absolute_http(url: str) -> bool:
    parts = split_url(url)
    return not isinstance(parts, str) and parts.scheme in ("http", "https") and bool(parts.netloc)


def url_host(url: str | None) -> str:
    """The host the browser would connect to, as it writes it, an IPv6 address without brackets
    ('' for none: a URL without one, such as about:blank, or one that cannot be read)."""
    return (read_url(url or "").host or "").strip("[]")


def host_allowed(host: str, allowlist: tuple[str, ...] | list[str]) -> bool:
    """Whether ``host`` (a URL's host, the guard's CONNECT host, a page script's ``hostname``), read as the
    browser reads a host, matches an entry; a host that cannot be read so never does."""
    host = _host_read(host)
    if not host:
        return False
    for pattern in map(_entry, allowlist):
        if pattern.startswith("*."):
            if host.endswith(pattern[1:]) and host != pattern[2:]:
                return True
        elif host == pattern:
            return True
    return False


def _host_read(host: str) -> str:
    bracketed = f"[{host}]" if ":" in host and not host.startswith("[") else host
    reading = read_url(f"http://{bracketed}/")
    return "" if reading.refused else (reading.host or "").strip("[]").rstrip(".")


@lru_cache(maxsize=256)
def _entry(pattern: str) -> str:
    """An allowlist entry read as the browser reads a host: ``[0:0::1]`` is ``::1``, ``127.1`` is ``127.0.0.1``."""
    pattern = pattern.lower()
    if pattern.startswith("*."):
        return pattern.rstrip(".")
    return _host_read(pattern) or pattern.strip("[]").rstrip(".")


def browser_entries(allowlist: tuple[str, ...] | list[str]) -> list[str]:
    """The entries as the browser writes hosts, for a page script that compares Chromium's hostnames
    (executor/browser/channels.py): the same reading as host_allowed's."""
    return [_entry(pattern) for pattern in allowlist]


def url_allowed(url: str, allowlist: tuple[str, ...] | list[str]) -> bool:
    """Non-network URLs (about:, data:, blob:) are always allowed: they leave no host. A URL that
    cannot be read, or is read two ways, never is (allowlist_refusal says why)."""
    reading = read_url(url)
    if reading.refused:
        return False
    if reading.scheme not in NETWORK_SCHEMES and reading.host is None:
        return True
    return bool(reading.host) and host_allowed(reading.host, allowlist)


def allowlist_refusal(url: str) -> str | None:
    """Why ``url`` is refused whatever the allowlist (unreadable, or read two ways), or None; it never
    quotes the URL, which a run's error holds, masked, in ``details.url``."""
    return read_url(url).reason
