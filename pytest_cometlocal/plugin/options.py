"""Command-line options and ini keys, and the settings object built from them.

``pytest_addoption`` registers them; ``hooks.pytest_configure`` reads them once
into ``Settings`` (``store_settings``), which the rest of the plugin gets
with ``settings(config)``.

Option names are prefixed ``--cometlocal-`` so they never clash with
pytest-playwright's (``--browser``, ``--headed``, ...).

``--base-url`` / ini ``base_url`` can come from three places: pytest-base-url
(its ``pytest_addoption``), pytest-playwright 0.10+ (which adds them itself,
after every plugin and initial conftest is loaded, when pytest-base-url is not
in use) or this plugin. Two registrations of one option end every pytest run
with ``ValueError: option dest 'base_url' already used``, so this plugin
registers its own last of all (the outermost wrapper of
``pytest_load_initial_conftests``, the last point before the command line is
parsed) and only when nobody else did. Whoever owns it, plans read the same
``config.option.base_url``. The same wrapper turns ``-n`` without pytest-xdist
into a one-line hint instead of pytest's bare "unrecognized arguments".
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Generator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import pytest

from pytest_cometlocal.contract.allowlist import split_url
from pytest_cometlocal.contract.load.paths import DEFAULT_GLOBS
from pytest_cometlocal.contract.errors import RunVarError
from pytest_cometlocal.contract.load.run_vars import RunVar, layered, parse_run_vars
from pytest_cometlocal.contract.settings import EffectiveSettings, effective_settings
from pytest_cometlocal.contract.validate.validated import ValidPlan
from pytest_cometlocal.contract.model.profiles import PROFILES
from pytest_cometlocal.executor.browser.chromium import display_problem
from pytest_cometlocal.executor.browser.network_guard import DEFAULT_GUARD_HOST
from pytest_cometlocal.executor.browser.remote import CDP, PLAYWRIGHT_SERVER, RemoteTarget, check_endpoint, pick_endpoint, split_endpoints
from pytest_cometlocal.plugin.browsers.matrix import add_options as add_browser_options, read_browsers
from pytest_cometlocal.plugin.pwflags import Flags, add_options, read_flags
from pytest_cometlocal.plugin.reporting.pwtrace import TRACING_MODES
from pytest_cometlocal.plugin.snapshots import add_option as add_snapshots_option

DEFAULT_OUTPUT = "cometlocal-runs"
_TRACING_CHOICES = ", ".join(TRACING_MODES[:-1]) + " or " + TRACING_MODES[-1]  # "off, on or retain-on-failure"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("cometlocal", "cometlocal browser action plans")
    group.addoption(
        "--cometlocal-output",
        metavar="DIR",
        default=None,
        help=f"folder for run folders (trace, evidence); default: ini cometlocal_output or {DEFAULT_OUTPUT}/",
    )
    group.addoption(
        "--cometlocal-config",
        metavar="FILE",
        default=None,
        help="suite config for every plan (default: ini cometlocal_config, else the nearest cometlocal.yaml "
        "in the plan's folder or above it, up to the rootdir)",
    )
    parser.addini("cometlocal_config", "suite config file for every plan (relative to the ini file)", default=None)
    group.addoption("--cometlocal-var", dest="cometlocal_vars", action="append", default=[], metavar="NAME=VALUE",
                    help="set ${vars.NAME} for every plan (repeatable); a plan's own vars and its parametrize row "
                    "win over it, and it wins over ini cometlocal_vars")
    parser.addini("cometlocal_vars", "NAME=VALUE vars for every plan, one a line", type="linelist", default=[])
    group.addoption(
        "--cometlocal-dry-run",
        action="store_true",
        default=False,
        help="run every plan in dry_run mode: stop before the first critical step",
    )
    group.addoption(
        "--cometlocal-profile",
        choices=PROFILES,
        default=None,
        help="execution profile: how much evidence each step takes (balanced: a fresh picture of every state, "
        "the default; fast: pictures only where they decide or a person looks; forensic: full-size screenshot "
        "and HTML at every step); default: the suite config's profile, else ini cometlocal_profile",
    )
    parser.addini("cometlocal_profile", f"execution profile: {', '.join(PROFILES)} (default balanced)", default=None)
    group.addoption(
        "--cometlocal-chromium",
        metavar="PATH",
        default=None,
        help="Chromium binary to launch (default: ini cometlocal_chromium, COMETLOCAL_CHROMIUM, "
        "Playwright's own build, then a system Chromium)",
    )
    group.addoption("--cometlocal-headed", action="store_true", default=False, help="show the browser window")
    group.addoption("--cometlocal-pause-on-failure", action="store_true", default=False,
                    help="headed: keep a failed plan's browser at the failed step until Enter (plugin/pause.py)")
    group.addoption("--cometlocal-step", action="store_true", default=False,
                    help="headed: print each step and wait for Enter before running it")
    group.addoption("--cometlocal-slowmo", metavar="MS", type=float, default=0, help="slow every browser operation down by MS")
    group.addoption(
        "--cometlocal-tracing",
        choices=TRACING_MODES,
        default=None,
        help="record Playwright's trace.zip of each plan into its evidence (default: pytest-playwright's "
        "--tracing, ini cometlocal_tracing or off)",
    )
    add_options(group)  # video, screenshot, device: plugin/pwflags.py
    group.addoption(
        "--cometlocal-connect",
        metavar="URL[,URL...]",
        default=None,
        help="connect to Playwright servers (playwright run-server) instead of launching Chromium; "
        "xdist worker gwN uses URL N %% count (default: COMETLOCAL_CONNECT, ini cometlocal_connect)",
    )
    group.addoption(
        "--cometlocal-cdp",
        metavar="URL[,URL...]",
        default=None,
        help="connect to running Chromiums over CDP instead of launching one; "
        "xdist worker gwN uses URL N %% count (default: COMETLOCAL_CDP, ini cometlocal_cdp)",
    )
    group.addoption(
        "--cometlocal-remote-chromium",
        metavar="PATH",
        default=None,
        help="with --cometlocal-connect: the Chromium binary on the server's machine (the server needs --unsafe; "
        "default: COMETLOCAL_REMOTE_CHROMIUM, ini cometlocal_remote_chromium, else the server's own browser)",
    )
    group.addoption(
        "--cometlocal-guard-host",
        metavar="HOST",
        default=None,
        help="address the network guard listens on, which the browser must reach "
        "(default: COMETLOCAL_GUARD_HOST, ini cometlocal_guard_host or 127.0.0.1)",
    )
    parser.addini("cometlocal_chromium", "Chromium binary to launch", default=None)
    parser.addini("cometlocal_connect", "Playwright server endpoints (ws://host:port/), comma or line separated", default=None)
    parser.addini("cometlocal_cdp", "CDP endpoints (http://host:port or ws://...), comma or line separated", default=None)
    parser.addini("cometlocal_remote_chromium", "the Chromium binary on the Playwright server's machine", default=None)
    parser.addini("cometlocal_guard_host", "address the network guard listens on (default 127.0.0.1)", default=None)
    parser.addini("cometlocal_tracing", _TRACING_CHOICES, default="off")
    parser.addini("cometlocal_glob", "file name patterns of plan files", type="linelist", default=list(DEFAULT_GLOBS))
    parser.addini("cometlocal_output", "folder for run folders (relative to the ini file)", default=DEFAULT_OUTPUT)
    parser.addini("cometlocal_testid_attribute", "attribute used by testid targets", default="data-testid")
    add_snapshots_option(parser)  # (v1.2) --cometlocal-update-snapshots (plugin/snapshots.py)
    add_browser_options(group, parser)  # (v1.4) --cometlocal-browser, --cometlocal-firefox (plugin/browsers/)


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


@dataclass(frozen=True)
class Settings:
    """Everything the plugin reads from options and ini, resolved once."""

    globs: tuple[str, ...]
    output: Path
    dry_run: bool
    base_url: str | None
    default_base_url: str | None
    testid_attribute: str
    chromium: str | None = None
    headed: bool = False
    slowmo: float = 0
    tracing: str = "off"
    remote: RemoteTarget | None = None  # the Playwright server or CDP endpoint this process uses
    guard_host: str = DEFAULT_GUARD_HOST
    suite_config: Path | None = None  # explicit suite config; None: the nearest cometlocal.yaml
    profile: str | None = None  # --cometlocal-profile
    default_profile: str | None = None  # ini cometlocal_profile
    flags: Flags = Flags()  # with pytest-playwright's option names (plugin/pwflags.py)
    run_vars: Mapping[str, RunVar] = field(default_factory=dict)  # --cometlocal-var, ini cometlocal_vars
    browsers: tuple[str, ...] | None = None  # (v1.4) the session's explicit matrix; None: suite config or chromium
    firefox: str | None = None  # (v1.4) --cometlocal-firefox, ini cometlocal_firefox

    def settings_of(self, plan: ValidPlan, default_base_url: str | None) -> EffectiveSettings:
        """The effective settings of ``plan`` under these options (contract/settings.py)."""
        return effective_settings(plan, cli_base_url=self.base_url, default_base_url=default_base_url,
                                  force_dry_run=self.dry_run, cli_profile=self.profile,
                                  default_profile=self.default_profile)

    @property
    def connection_profile(self) -> dict[str, Any]:
        """``connection`` (launch, playwright-server or cdp) and ``endpoint`` for the run manifest."""
        return self.remote.profile() if self.remote else {"connection": "launch"}

    @classmethod
    def from_config(cls, config: pytest.Config) -> "Settings":
        cli_output = config.getoption("cometlocal_output", None)
        if cli_output:
            output = Path(cli_output)
            if not output.is_absolute():
                output = Path(config.invocation_params.dir) / output
        else:
            base = config.inipath.parent if config.inipath else config.rootpath
            output = base / str(config.getini("cometlocal_output") or DEFAULT_OUTPUT)
        ini_base = config.getini("base_url") if _has_ini(config, "base_url") else None
        flags = read_flags(config, remote=_remote_target(config) is not None)
        return cls(
            globs=tuple(config.getini("cometlocal_glob") or DEFAULT_GLOBS),
            output=output,
            dry_run=bool(config.getoption("cometlocal_dry_run", False)),
            base_url=_readable(_cli_base_url(config), "--base-url"),
            default_base_url=_readable(ini_base or None, "ini base_url"),
            testid_attribute=str(config.getini("cometlocal_testid_attribute") or "data-testid"),
            chromium=config.getoption("cometlocal_chromium", None) or config.getini("cometlocal_chromium") or None,
            headed=_headed(config, flags),
            slowmo=flags.slowmo,
            tracing=_tracing_mode(config, flags),
            remote=_remote_target(config),
            guard_host=_guard_host(config),
            suite_config=_suite_config(config),
            profile=config.getoption("cometlocal_profile", None),
            default_profile=_ini_profile(config),
            flags=flags,
            run_vars=_run_vars(config),
            browsers=read_browsers(config),
            firefox=config.getoption("cometlocal_firefox", None) or config.getini("cometlocal_firefox") or None,
        )


def _cli_base_url(config: pytest.Config) -> str | None:
    """``--base-url`` as given on the command line (or PYTEST_BASE_URL, else COMETLOCAL_BASE_URL).

    pytest-base-url copies the ini ``base_url`` into the option when none was
    given; that copy is the suite default, below a plan's own base_url, so it
    only counts as the command line when ``--base-url`` was really passed.
    (pytest-playwright's and this plugin's own option make no such copy.)
    """
    value = config.getoption("base_url", None)
    if value and pytest_base_url_loaded(config):
        passed = list(config.invocation_params.args) + os.environ.get("PYTEST_ADDOPTS", "").split()
        given = any(str(a) == "--base-url" or str(a).startswith("--base-url=") for a in passed)
        if not given and not os.environ.get("PYTEST_BASE_URL"):
            value = None
    return value or os.environ.get("COMETLOCAL_BASE_URL") or None


def _readable(url: str | None, where: str) -> str | None:
    """A base URL that urllib or the browser cannot read, or that they read with two hosts
    (contract/browser_url.py), is a one-line usage error naming where it came from, not a
    ValueError at the first relative ``navigate`` nor a host the allowlist misjudges."""
    parts = split_url(url) if url else None
    if isinstance(parts, str):
        raise pytest.UsageError(f"cometlocal: {where}: {parts}")
    return url


def _layered(config: pytest.Config, name: str, env: str) -> str | None:
    """Option > environment variable > ini; an empty value turns off the ones below it."""
    value = config.getoption(name, None)
    if value is None:
        value = os.environ.get(env)
    if value is None:
        value = config.getini(name) or None
    return (str(value).strip() or None) if value is not None else None


def _remote_target(config: pytest.Config) -> RemoteTarget | None:
    pools = {
        PLAYWRIGHT_SERVER: split_endpoints(_layered(config, "cometlocal_connect", "COMETLOCAL_CONNECT")),
        CDP: split_endpoints(_layered(config, "cometlocal_cdp", "COMETLOCAL_CDP")),
    }
    if pools[PLAYWRIGHT_SERVER] and pools[CDP]:
        raise pytest.UsageError(
            "--cometlocal-connect (Playwright servers) and --cometlocal-cdp (CDP endpoints) exclude each other: "
            "give one (from the option, COMETLOCAL_CONNECT / COMETLOCAL_CDP or the ini file)"
        )
    for connection, endpoints in pools.items():
        if not endpoints:
            continue
        for endpoint in endpoints:
            problem = check_endpoint(connection, endpoint)
            if problem:
                raise pytest.UsageError(f"cometlocal: {problem}")
        workerinput = getattr(config, "workerinput", None)
        worker = workerinput.get("workerid") if workerinput else os.environ.get("PYTEST_XDIST_WORKER")
        executable = _layered(config, "cometlocal_remote_chromium", "COMETLOCAL_REMOTE_CHROMIUM")
        firefox = _layered(config, "cometlocal_remote_firefox", "COMETLOCAL_REMOTE_FIREFOX")  # (v1.4)
        server = connection == PLAYWRIGHT_SERVER
        return RemoteTarget(connection, pick_endpoint(endpoints, worker), executable if server else None,
                            firefox if server else None)
    return None


def _headed(config: pytest.Config, flags: Flags) -> bool:
    """``--cometlocal-headed`` (or ``--headed``), refused in one line where no display can show it (a remote
    browser has its own)."""
    headed = flags.headed
    problem = display_problem(not headed) if headed and _remote_target(config) is None else None
    if problem:
        raise pytest.UsageError(f"cometlocal: {flags.headed_by}: {problem}")
    return headed


def _guard_host(config: pytest.Config) -> str:
    host = _layered(config, "cometlocal_guard_host", "COMETLOCAL_GUARD_HOST") or DEFAULT_GUARD_HOST
    host = host.strip("[]")
    if host in ("0.0.0.0", "::", "*"):
        raise pytest.UsageError(
            f"cometlocal_guard_host {host!r} is a wildcard: the browser must be told one address it can reach "
            "(this machine's address as the browsers' machines see it)"
        )
    return host


def _suite_config(config: pytest.Config) -> Path | None:
    """``--cometlocal-config`` (from the invocation folder) or ini ``cometlocal_config`` (from the ini file)."""
    cli = config.getoption("cometlocal_config", None)
    if cli:
        path = Path(cli)
        path = path if path.is_absolute() else Path(config.invocation_params.dir) / path
    else:
        ini = config.getini("cometlocal_config")
        if not ini:
            return None
        base = config.inipath.parent if config.inipath else config.rootpath
        path = base / str(ini)
    if not path.is_file():
        raise pytest.UsageError(f"cometlocal suite config {path} does not exist")
    return path.resolve()


def _ini_profile(config: pytest.Config) -> str | None:
    value = str(config.getini("cometlocal_profile") or "").strip() or None
    if value is not None and value not in PROFILES:
        raise pytest.UsageError(f"ini cometlocal_profile must be {', '.join(PROFILES)}, not {value!r}")
    return value


def _tracing_mode(config: pytest.Config, flags: Flags) -> str:
    mode = flags.tracing or str(config.getini("cometlocal_tracing") or "off")
    if mode not in TRACING_MODES:
        raise pytest.UsageError(f"cometlocal_tracing must be {_TRACING_CHOICES}, not {mode!r}")
    return mode


def _run_vars(config: pytest.Config) -> dict[str, RunVar]:
    """Ini ``cometlocal_vars``, then ``--cometlocal-var`` (which wins, name by name): vars for every plan
    (contract/load/run_vars.py). A malformed entry stops the session in one line naming its option."""
    try:
        ini = parse_run_vars([e for e in config.getini("cometlocal_vars") if e.strip()], "ini", "ini cometlocal_vars")
        cli = parse_run_vars(config.getoption("cometlocal_vars", None) or [], "cli", "--cometlocal-var")
    except RunVarError as exc:
        raise pytest.UsageError(f"cometlocal: {exc}") from None
    return layered(ini, cli)


def _has_ini(config: pytest.Config, name: str) -> bool:
    try:
        config.getini(name)
    except ValueError:
        return False
    return True


SETTINGS_KEY = pytest.StashKey[Settings]()


def settings(config: pytest.Config) -> Settings:
    return config.stash[SETTINGS_KEY]


def store_settings(config: pytest.Config) -> Settings:
    """Read the options and ini keys once (at ``pytest_configure``); ``settings(config)`` returns them."""
    config.stash[SETTINGS_KEY] = Settings.from_config(config)
    return config.stash[SETTINGS_KEY]
