"""The in-page scripts: JavaScript files of the package, read once at import.

Each room keeps the scripts it evaluates in the page in a ``scripts/`` folder
of its own (``executor/page/scripts/observe.js``), shipped as package data:
JavaScript is read, diffed and checked as JavaScript, and a module holds only
the Python that runs it. A module reads its scripts into constants when it is
imported, so a step never touches the disk for one. A file opens with a
header of ``//`` lines saying what it is for; the header is for its reader
and is not sent to the page.

A script built from others names each one where it goes by a placeholder,
``$name$``: a valid JavaScript identifier, so every file parses on its own
(tests/executor/test_page_scripts.py runs each in Chromium). ``fill_script``
puts the given text in its place, and refuses a placeholder left unfilled or
a part given for none: a script never reaches a page half-built.

A script runs in the page's own world, whose built-ins the page can replace
(``JSON.stringify``, ``Array.prototype.map``, ...): its answer is checked
where it is read (``answer``, ``checked_answer``), and one that threw or has
not its usual shape is ``PageTampered``, which the executor types as the
step's error, never a Python traceback.
"""

from __future__ import annotations

import json
import re
from importlib.resources import files
from typing import Any, Callable

from pytest_cometlocal.executor.errors import PageTampered, first_line, is_crash, is_timeout

__all__ = ["PLACEHOLDER", "answer", "checked_answer", "fill_script", "load_script", "read_script"]

PLACEHOLDER = re.compile(r"\$([a-z_]+)\$")
_HEADER = re.compile(r"\A(?:[ \t]*//[^\n]*\n)+")


def read_script(package: str, name: str) -> str:
    """The script ``scripts/<name>`` of ``package`` without its header, placeholders as written."""
    return _HEADER.sub("", (files(package) / "scripts" / name).read_text(encoding="utf-8")).strip()


def fill_script(template: str, **parts: str) -> str:
    """``template`` with each ``$name$`` replaced by ``parts[name]``: exactly the placeholders it has."""
    named = set(PLACEHOLDER.findall(template))
    if named != set(parts):
        raise ValueError(f"script placeholders {sorted(named)} but parts given for {sorted(parts)}")
    return PLACEHOLDER.sub(lambda m: parts[m.group(1)], template)


def load_script(package: str, name: str, **parts: str) -> str:
    """The script ``scripts/<name>`` of ``package``, ready to evaluate (its placeholders filled from ``parts``)."""
    return fill_script(read_script(package, name), **parts)


def answer(what: str, call: Callable[[], Any]) -> Any:
    """``call()`` (an evaluate of one of these scripts); the script throwing in the page is PageTampered.

    Only an exception the script raised in the page is turned: a crash, a
    timeout and anything not from Playwright go up as they are.
    """
    from playwright.sync_api import Error as PlaywrightError

    try:
        return call()
    except PlaywrightError as exc:
        if is_crash(exc) or is_timeout(exc):
            raise
        raise PageTampered(what, f"the script threw: {first_line(exc, 200)}") from None


def checked_answer(what: str, raw: Any, shape: dict[str, type | tuple[type, ...]]) -> dict[str, Any]:
    """The object a script answered (its JSON text, or the object), with each key of ``shape`` of its type.

    Anything else (not JSON, not an object, a key missing or of another type)
    is PageTampered naming the first thing wrong.
    """
    data = raw
    if isinstance(raw, str):
        try:
            data = json.loads(raw)
        except ValueError:
            raise PageTampered(what, f"not JSON: {raw[:60]!r}") from None
    if not isinstance(data, dict):
        raise PageTampered(what, f"not an object but {type(data).__name__}")
    for key, kind in shape.items():
        if key not in data:
            raise PageTampered(what, f"no {key!r}")
        if not isinstance(data[key], kind) or isinstance(data[key], bool) and bool not in _types(kind):
            raise PageTampered(what, f"{key!r} is {type(data[key]).__name__}")
    return data


def _types(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)
