"""Living beside the plugins a suite commonly has: who owns ``--base-url``, and ``-n`` without pytest-xdist.

``--base-url`` / ini ``base_url`` can come from three places: pytest-base-url
(its ``pytest_addoption``), pytest-playwright 0.10+ (which adds them itself,
after every plugin and initial conftest is loaded, when pytest-base-url is not
in use) or this plugin. Two registrations of one option end every pytest run
with ``ValueError: option dest 'base_url' already used``, so this plugin
registers its own last of all (the outermost wrapper of
``pytest_load_initial_conftests``, the last point before the command line is
parsed) and only when nobody else did. Whoever owns it, plans read the same
``config.option.base_url``.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Generator

import pytest

# The flags pytest-xdist adds; given without it, pytest only says "unrecognized arguments".
_XDIST_FLAGS = ("-n", "--numprocesses", "--maxprocesses", "--dist")
XDIST_HINT = "pip install 'pytest-cometlocal[xdist]' (or pytest-xdist)"


def _loaded(config: pytest.Config, module_name: str) -> bool:
    """The plugin module is registered, under its entry-point name or its module name (``-p module``)."""
    module = sys.modules.get(module_name)
    return module is not None and config.pluginmanager.is_registered(module)


def pytest_base_url_loaded(config: pytest.Config) -> bool:
    return _loaded(config, "pytest_base_url.plugin")


def pytest_playwright_loaded(config: pytest.Config) -> bool:
    """pytest-playwright is in use (its session ``playwright`` fixture is then the one to share)."""
    return _loaded(config, "pytest_playwright.pytest_playwright")


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config, parser: pytest.Parser,
                                  args: list[str]) -> Generator[None, None, None]:
    # tryfirst makes this the outermost wrapper: the code after ``yield`` runs after every other
    # plugin's, pytest-playwright's own late --base-url included.
    result = yield
    if not hasattr(early_config.option, "base_url"):  # every registered option sets its default there
        _own_base_url(parser)
    _hint_missing_xdist(early_config, parser, args)
    return result


def _own_base_url(parser: pytest.Parser) -> None:
    """``--base-url`` and ini ``base_url`` as pytest-base-url and pytest-playwright define them."""
    parser.addini("base_url", "base URL for relative plan URLs", default=None)
    parser.getgroup("cometlocal").addoption(
        "--base-url",
        metavar="URL",
        default=os.environ.get("PYTEST_BASE_URL") or None,
        help="base URL for relative plan URLs (default: PYTEST_BASE_URL)",
    )


def _hint_missing_xdist(config: pytest.Config, parser: pytest.Parser, args: list[str]) -> None:
    """``-n 2`` that no plugin understands: say where pytest-xdist comes from, in one line."""
    if getattr(config.known_args_namespace, "help", False):
        return
    _, unknown = parser.parse_known_and_unknown_args(args)
    flags = [a for a in unknown if _is_xdist_flag(a)]
    if not flags:
        return
    why = ("installed but not loaded (-p no:xdist or PYTEST_DISABLE_PLUGIN_AUTOLOAD?)"
           if importlib.util.find_spec("xdist") else f"not installed: {XDIST_HINT}")
    raise pytest.UsageError(f"{flags[0]} needs pytest-xdist, which is {why}")


def _is_xdist_flag(arg: str) -> bool:
    """``-n``, ``-n2``, ``-nauto``, ``--numprocesses=2``, ``--dist load``..."""
    if arg.startswith("-n") and not arg.startswith("--"):
        return arg[2:].lstrip("=").isalnum() or arg == "-n"
    return any(arg == flag or arg.startswith(flag + "=") for flag in _XDIST_FLAGS if flag.startswith("--"))
