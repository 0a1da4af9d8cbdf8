"""A URL read as the browser reads it (the WHATWG URL standard), for every allowlist judgement.

Python's urllib and the browser disagree on some URLs: ``http://localhost\\@127.0.0.1/``
is host 127.0.0.1 to urllib, but Chromium reads the backslash as a slash and goes to
localhost. That difference is the classic allowlist bypass, so the allowlist judges the
host the browser will connect to, read here (``read_url``) and nowhere else. Only the
parts that decide the host are parsed: leading/trailing C0 control or space trimmed,
tab and newline removed, backslash as slash in special schemes, userinfo up to the last
``@``, percent-decoding, IDNA, IPv4 number forms (``2130706433``, ``0x7f.1``, ``127.1``),
IPv6, ports. A URL whose host urllib (the rest of the project) reads otherwise, or that
this small parser cannot read with certainty, is refused with the reason: never guessed.
Pure: no browser, no network, no dependency.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from urllib.parse import unquote_to_bytes, urljoin, urlsplit

from pytest_cometlocal.contract.errors import CometLocalError

# The special schemes (WHATWG) and their default ports; ``file`` is special but has no network host.
SPECIAL_PORTS: dict[str, int | None] = {"http": 80, "https": 443, "ws": 80, "wss": 443, "ftp": 21, "file": None}
# The schemes whose host the allowlist judges; another (about:, data:, blob:, javascript:) leaves no host.
NETWORK_SCHEMES = frozenset({"http", "https", "ws", "wss", "ftp"})
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*):")
_C0_OR_SPACE = "".join(chr(i) for i in range(0x21))
_TAB_OR_NEWLINE = str.maketrans("", "", "\t\n\r")
_SLASHES = "/\\"
# After IDNA, a host this parser vouches for holds only these (a DNS name or an IPv4 address): a
# host with another character ('!', '*', '{'...) may be escaped or refused by one browser and not
# another, so it is refused rather than judged.
_PLAIN_HOST = re.compile(r"^[a-z0-9._-]+$")
# IDNA 2008 (UTS 46, non-transitional, Chromium's) and Python's IDNA 2003 map these differently.
_DEVIATIONS = frozenset("\u00df\u03c2\u200c\u200d")
_DECIMAL, _OCTAL, _HEX = re.compile(r"^[0-9]+$"), re.compile(r"^[0-7]+$"), re.compile(r"^[0-9A-Fa-f]+$")


@dataclass(frozen=True)
class UrlReading:
    """``scheme`` lower-case ('' for a relative URL); ``host`` as the browser writes it (lower-case,
    IPv4 dotted, IPv6 in brackets, IDNA as punycode), None when the URL has no host of its own (a
    relative path, a non-network scheme); ``refused``: why the URL cannot be judged (a validation
    message, quoting it), or None; ``reason``: the same without the URL, for a run's error, where
    the URL may hold a secret's value (and ``repr`` would write it otherwise than the masking sees it)."""

    scheme: str
    host: str | None
    port: int | None = None
    refused: str | None = None
    reason: str | None = None


class _Unreadable(CometLocalError):
    """Inside read_url only: why the browser cannot read a URL (read_url returns it as ``refused``)."""


def browser_text(url: str) -> str:
    """The URL as the browser starts reading it: C0 control and space trimmed, tab and newline removed."""
    return url.strip(_C0_OR_SPACE).translate(_TAB_OR_NEWLINE)


def read_url(url: str, base: str | None = None) -> UrlReading:
    """How the browser reads ``url`` (relative to ``base``, when given and it is relative), checked against
    urllib's reading: a different host (or scheme) is refused, as is any URL either cannot read."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises on a port out of range or not a number
        theirs = parts.hostname
    except ValueError as exc:
        return _refused(f"cannot read URL {url!r}: {exc}", f"urllib cannot read it: {exc}")
    try:
        scheme, host, port = _browser_reading(url, base)
    except _Unreadable as exc:
        return _refused(f"the browser cannot read URL {url!r}: {exc}", f"the browser cannot read it: {exc}")
    if scheme and scheme not in NETWORK_SCHEMES:
        return UrlReading(scheme, None, None)  # no host to judge (about:, data:, blob:, chrome-error:)
    text = browser_text(url)
    written = _SCHEME.match(text)
    if host is not None and base is not None and not _two_slashes(text[written.end():] if written else text):
        return UrlReading(scheme, host, port)  # the base's host: urllib never saw it in ``url``
    try:
        theirs = _host(f"[{theirs}]" if ":" in theirs else theirs) if theirs else None
    except _Unreadable:
        pass  # urllib's host as it wrote it: differs from any host the browser reads
    if theirs != host or parts.scheme.lower() != (scheme if written else ""):
        why = f"read two ways: the browser's host is {host or 'none'}, urllib's {theirs or 'none'}"
        return UrlReading(scheme, host, port, f"URL {url!r} is {why} (write it as the browser reads it)", why)
    return UrlReading(scheme, host, port)


def _refused(refused: str, reason: str) -> UrlReading:
    return UrlReading("", None, None, refused, reason)


def join_url(base: str, url: str) -> str:
    """``url`` made absolute against ``base`` as the browser would: its backslashes are slashes (so
    ``/\\\\evil.example/`` is that host, not a path of the base's), tab and newline gone."""
    text = browser_text(url)
    match = _SCHEME.match(text)
    if match is None or match.group(1).lower() in SPECIAL_PORTS:
        cut = min([i for i in (text.find("?"), text.find("#")) if i >= 0] or [len(text)])
        text = text[:cut].replace("\\", "/") + text[cut:]
    return urljoin(base, text)


def _browser_reading(url: str, base: str | None) -> tuple[str, str | None, int | None]:
    text = browser_text(url)
    match = _SCHEME.match(text)
    base_reading = _browser_reading(base, None) if base else None
    if match:
        scheme, rest = match.group(1).lower(), text[match.end():]
        if scheme not in SPECIAL_PORTS or scheme == "file":
            return scheme, None, None
        if base_reading is not None and base_reading[0] == scheme and not _two_slashes(rest):
            return base_reading  # ``http:path`` against an http base: relative
    elif _two_slashes(text):
        scheme, rest = (base_reading[0] if base_reading else ""), text
    else:
        return (base_reading[0], base_reading[1], base_reading[2]) if base_reading else ("", None, None)
    rest = rest.lstrip(_SLASHES)
    end = min([i for i in (rest.find(c) for c in "/\\?#") if i >= 0] or [len(rest)])
    authority = rest[:end]
    at = authority.rfind("@")
    hostport = authority[at + 1:]
    if at >= 0 and not hostport:
        raise _Unreadable("credentials without a host")
    if hostport.startswith("["):
        close = hostport.find("]")
        raw, after = (hostport[:close + 1], hostport[close + 1:]) if close >= 0 else (hostport, "")
        if after and not after.startswith(":"):
            raise _Unreadable("characters after an IPv6 address")
        port_text = after[1:] if after else None
    else:
        raw, colon, port_text = hostport.partition(":")
        port_text = port_text if colon else None
    if not raw:
        raise _Unreadable("no host")
    port = None
    if port_text:
        if not _DECIMAL.match(port_text) or int(port_text) > 65535:
            raise _Unreadable(f"port {port_text!r} is not a number from 0 to 65535")
        port = int(port_text)
        if port == SPECIAL_PORTS.get(scheme):
            port = None
    return scheme, _host(raw), port


def _two_slashes(text: str) -> bool:
    return len(text) >= 2 and text[0] in _SLASHES and text[1] in _SLASHES


def _host(raw: str) -> str:
    """The WHATWG host parser for a special scheme, as the browser serialises the host."""
    if raw.startswith("["):
        if not raw.endswith("]") or "%" in raw:
            raise _Unreadable(f"invalid IPv6 address {raw!r}")
        try:
            return f"[{ipaddress.IPv6Address(raw[1:-1]).compressed}]"
        except ValueError:
            raise _Unreadable(f"invalid IPv6 address {raw!r}") from None
    domain = unquote_to_bytes(raw).decode("utf-8", errors="replace")
    if domain.isascii():
        domain = domain.lower()
    else:
        if _DEVIATIONS & set(domain):
            raise _Unreadable(f"host {raw!r} holds a character IDNA versions map differently")
        try:
            domain = domain.encode("idna").decode("ascii").lower()
        except UnicodeError as exc:
            raise _Unreadable(f"host {raw!r} is not a valid international name ({exc})") from None
    for label in domain.split("."):
        if label.startswith("xn--"):
            try:
                label[4:].encode("ascii").decode("punycode")
            except UnicodeError:
                raise _Unreadable(f"host {raw!r} has an invalid punycode label") from None
    if _ends_in_number(domain):
        return _ipv4(domain)
    if not _PLAIN_HOST.match(domain):
        raise _Unreadable(f"host {domain!r} holds a character other than letters, digits, '-', '_' and '.'")
    return domain


def _ends_in_number(domain: str) -> bool:
    parts = domain.split(".")
    if parts[-1] == "" and len(parts) > 1:
        parts.pop()
    last = parts[-1]
    return bool(_DECIMAL.match(last)) or _ipv4_number(last) is not None


def _ipv4_number(part: str) -> int | None:
    if not part:
        return None
    digits, pattern, radix = part, _DECIMAL, 10
    if part[:2] in ("0x", "0X"):
        digits, pattern, radix = part[2:], _HEX, 16
    elif len(part) > 1 and part[0] == "0":
        digits, pattern, radix = part[1:], _OCTAL, 8
    if not digits:
        return 0
    return int(digits, radix) if pattern.match(digits) else None


def _ipv4(domain: str) -> str:
    parts = domain.split(".")
    if parts[-1] == "" and len(parts) > 1:
        parts.pop()
    numbers = [_ipv4_number(p) for p in parts]
    if len(parts) > 4 or any(n is None for n in numbers):
        raise _Unreadable(f"host {domain!r} ends in a number but is not an IPv4 address")
    values = [n for n in numbers if n is not None]
    if any(n > 255 for n in values[:-1]) or values[-1] >= 256 ** (5 - len(values)):
        raise _Unreadable(f"IPv4 address {domain!r} is out of range")
    address = values[-1] + sum(n * 256 ** (3 - i) for i, n in enumerate(values[:-1]))
    return str(ipaddress.IPv4Address(address))
