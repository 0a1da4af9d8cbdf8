"""(v1.4) The run's browser matrix: which browsers, where the choice came from, and the items' names.

One place decides the matrix, first of these that names any browser: ``--cometlocal-browser``
(repeatable), pytest-playwright's ``--browser`` (read when that plugin registered it, never
registered here: two owners of one option end every run), ini ``cometlocal_browsers``, the suite
config's ``browsers:``, else Chromium alone. Only the last is implicit: with it the items keep
their old ids (``name``, ``name[row]``), so Chromium's ids and pytest-split's durations stay the
same; any explicit choice names the browser in every id (``name[firefox]``, ``name[row-firefox]``,
pytest-playwright's parametrize order). ``COMETLOCAL_BROWSER`` is scripts/demo.sh's, not read here.

A plan's ``browser.name`` is read from the raw document at collection (items are validated at
setup, contract/validate/outline.py), with the suite config's ``browser.name`` under it, as
validation merges it; it filters the matrix through ``contract.browsers.browsers_for``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import pytest

from pytest_cometlocal.contract.browsers import BROWSER_NAMES, browsers_for

DEFAULT_MATRIX: tuple[str, ...] = ("chromium",)


def add_options(group: Any, parser: pytest.Parser) -> None:
    """``--cometlocal-browser``, ``--cometlocal-firefox`` and their ini keys (pytest-playwright's ``--browser``
    is read, not registered)."""
    group.addoption("--cometlocal-browser", dest="cometlocal_browser", action="append", default=[],
                    choices=list(BROWSER_NAMES), metavar="NAME",
                    help="run every plan on this browser (repeatable: chromium, firefox, webkit); a plan's "
                         "browser.name filters them (default: pytest-playwright's --browser, ini cometlocal_browsers, "
                         "the suite config's browsers, else chromium)")
    group.addoption("--cometlocal-firefox", metavar="PATH", default=None,
                    help="Firefox binary to launch (default: ini cometlocal_firefox, COMETLOCAL_FIREFOX, "
                         "Playwright's own build, then a system firefox-esr)")
    group.addoption("--cometlocal-remote-firefox", metavar="PATH", default=None,
                    help="with --cometlocal-connect: the Firefox binary on the server's machine (the server needs "
                         "--unsafe; default: COMETLOCAL_REMOTE_FIREFOX, ini cometlocal_remote_firefox, else the "
                         "server's own)")
    parser.addini("cometlocal_remote_firefox", "the Firefox binary on the Playwright server's machine", default=None)
    parser.addini("cometlocal_browsers", "browsers every plan runs on, one a line (chromium, firefox, webkit)",
                  type="linelist", default=[])
    parser.addini("cometlocal_firefox", "Firefox binary to launch", default=None)


def chosen_browsers(cli: Sequence[str] | None, theirs: Sequence[str] | None,
                    ini: Sequence[str] | None) -> tuple[str, ...] | None:
    """The session's explicit choice (option > pytest-playwright's ``--browser`` > ini), each name once,
    or None when none of them names a browser (the suite config or the default decides, per plan file)."""
    for layer in (cli, theirs, ini):
        layer = [layer] if isinstance(layer, str) else layer
        names = [str(n).strip() for n in (layer or ()) if str(n).strip()]
        if names:
            return tuple(dict.fromkeys(names))
    return None


def check_names(names: Sequence[str], where: str) -> None:
    """An unknown name in the ini key is a one-line usage error (the options' choices check their own)."""
    unknown = [n for n in names if n not in BROWSER_NAMES]
    if unknown:
        raise pytest.UsageError(f"cometlocal: {where}: unknown browser {unknown[0]!r} "
                                f"(known: {', '.join(BROWSER_NAMES)})")


def read_browsers(config: pytest.Config) -> tuple[str, ...] | None:
    """``--cometlocal-browser`` > pytest-playwright's ``--browser`` (its dest, when a plugin registered it) > ini."""
    ini = [str(n).strip() for n in config.getini("cometlocal_browsers") if str(n).strip()]
    check_names(ini, "ini cometlocal_browsers")
    return chosen_browsers(config.getoption("cometlocal_browser", None), getattr(config.option, "browser", None), ini)


@dataclass(frozen=True)
class Matrix:
    """The browsers a plan file's items run on; ``explicit``: chosen by an option, the ini or the suite."""

    names: tuple[str, ...] = DEFAULT_MATRIX
    explicit: bool = False


def matrix_for(chosen: tuple[str, ...] | None, suite: Sequence[str] | None) -> Matrix:
    """The session's choice, else the suite config's ``browsers:``, else Chromium alone (implicit)."""
    if chosen:
        return Matrix(tuple(chosen), True)
    if suite:
        return Matrix(tuple(dict.fromkeys(suite)), True)
    return Matrix()


def item_name(name: str, row_id: str | None, browser: str, explicit: bool) -> str:
    """``name`` / ``name[row]`` under the implicit default; ``name[firefox]`` / ``name[row-firefox]`` otherwise."""
    if not explicit:
        return f"{name}[{row_id}]" if row_id is not None else name
    return f"{name}[{row_id}-{browser}]" if row_id is not None else f"{name}[{browser}]"


class _Named:
    """What ``browsers_for`` reads of a plan: ``plan.browser.name``."""

    def __init__(self, name: Any):
        self.browser = _Browser(name)


class _Browser:
    def __init__(self, name: Any):
        self.name = name


def usable_names(value: Any) -> str | list[str] | None:
    """A raw ``browser.name`` as validation takes it (a known name or a list of them), else None: a malformed
    one makes the plan invalid, and it then gets its items (which fail INVALID_ACTIONSPEC) on every browser."""
    if isinstance(value, str) and value in BROWSER_NAMES:
        return value
    if isinstance(value, list) and value and all(isinstance(v, str) and v in BROWSER_NAMES for v in value):
        return list(value)
    return None


def raw_browser_name(document: Any, suite: Mapping[str, Any] | None) -> str | list[str] | None:
    """The ``browser.name`` of a raw plan document, its own, else the suite config's (``browser`` is merged key
    by key into the plan)."""
    for tree in (document, suite):
        browser = tree.get("browser") if isinstance(tree, Mapping) else None
        if isinstance(browser, Mapping) and "name" in browser:
            return usable_names(browser.get("name"))
    return None


def browser_names_of(data: bytes, file: str, suite_config: Any = None) -> dict[int, str | list[str] | None]:
    """document index -> its ``browser.name`` (``raw_browser_name``); {} for a file that mentions no ``browser``
    (nor does its suite config), which is not parsed a second time, or for one that does not parse (its items
    fail as they would without a matrix)."""
    from pytest_cometlocal.contract.load.safe_yaml import load_documents

    suite = getattr(suite_config, "tree", None)
    if b"browser" not in data and not (isinstance(suite, Mapping) and "browser" in suite):
        return {}
    try:
        docs = load_documents(data, file, positions=False)
    except Exception:  # the outline reports it; the items then run on every browser and fail as invalid
        return {}
    return {doc.index: raw_browser_name(doc.value, suite) for doc in docs}


def split_matrix(matrix: Matrix, name: str | list[str] | None) -> tuple[list[str], list[str]]:
    """(browsers the plan gets an item on, browsers it is not run on), by ``contract.browsers.browsers_for``."""
    return browsers_for(_Named(name), matrix.names)  # type: ignore[arg-type]


def not_run_lines(counts: Mapping[str, int]) -> list[str]:
    """The terminal summary's lines: ``3 plans not run on firefox (browser.name)``, one per browser."""
    return [f"{n} plan{'s' if n != 1 else ''} not run on {browser} (browser.name)"
            for browser, n in counts.items() if n]
