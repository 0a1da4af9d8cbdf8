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
"""

from __future__ import annotations

import re
from importlib.resources import files

__all__ = ["PLACEHOLDER", "fill_script", "load_script", "read_script"]

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
