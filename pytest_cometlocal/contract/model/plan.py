"""Plan v1: one YAML document of a ``*.actions.yaml`` file.

Every key of docs/plan-format.md is here; anything else is rejected. ``Plan``
is the validated form (defaults merged, vars substituted); what users may
write before that is described by :func:`pytest_cometlocal.contract.model.schema.plan_json_schema`.
"""

from __future__ import annotations

import json
import re
from typing import Annotated, Any, Literal, Mapping, get_args

from pydantic import BeforeValidator, Field
from pydantic_core import PydanticCustomError

from pytest_cometlocal.contract.model.actionspec import ActionSpec, StepDefaults, StepId, TAG_PATTERN, format_versions
from pytest_cometlocal.contract.model.base import ContractModel, SharedDefault
from pytest_cometlocal.contract.model.codes import ErrorCodeName
from pytest_cometlocal.contract.model.profiles import ExecutionProfile
from pytest_cometlocal.contract.model.targets import Pixels, Viewport  # noqa: F401 (v1.2's names, kept importable here)
from pytest_cometlocal.contract.model.checks.traffic import UrlPattern  # a route's url: {pattern: REGEX}

NonEmpty = Annotated[str, Field(min_length=1)]
PlanTag = Annotated[str, Field(pattern=TAG_PATTERN)]
# Hosts: "example.com", "*.example.com", "127.0.0.1", "[::1]"; no scheme, port or path.
HOST_PATTERN = r"^(?:\*\.)?(?:[A-Za-z0-9](?:[A-Za-z0-9\-]{0,61}[A-Za-z0-9])?\.)*[A-Za-z0-9](?:[A-Za-z0-9\-]{0,61}[A-Za-z0-9])?$|^\[[0-9A-Fa-f:.]+\]$"
VAR_NAME_PATTERN = r"^[A-Za-z_][A-Za-z0-9_]*$"
# For names checked outside the models (groups, parametrize): fullmatch, as pydantic's
# regex engine reads ``$`` (end of text; Python's ``match`` would accept "a\n").
VAR_NAME = re.compile(VAR_NAME_PATTERN)
ENV_NAME_PATTERN = VAR_NAME_PATTERN  # environment variable names follow the same rule
# pytest's and this plugin's own markers: a plan tag with one of these names
# would change how pytest runs or reports the item.
RESERVED_TAGS = frozenset({
    "skip", "skipif", "xfail", "parametrize", "usefixtures", "filterwarnings",
    "cometlocal", "cometlocal_error_code",  # this plugin's own markers
})
# Where toasts are looked for when neither the plan nor its suite config sets ``toast_selector``.
DEFAULT_TOAST_SELECTOR = "[role=alert], [role=status], [aria-live]"


# ---------------------------------------------------------------------------
# (v1.2) ``browser:`` and ``clock:``: the settings a plan's browser context is made with.
# Plan keys a suite config may also set (merged key by key, the plan's key wins). They are
# context options (Playwright's ``browser.new_context``), set before the first step for the
# whole run. The closed sets are the models'; what needs the outside world (the device
# registry, the time-zone database, a time with its offset) is checked by
# contract/validate/settings_rules.py, located at the key.
# Chromium's permissions as Playwright grants them (BrowserContext.grant_permissions).
Permission = Literal[
    "geolocation", "midi", "midi-sysex", "notifications", "camera", "microphone", "background-sync",
    "ambient-light-sensor", "accelerometer", "gyroscope", "magnetometer", "clipboard-read", "clipboard-write",
    "payment-handler", "storage-access", "local-fonts", "local-network-access", "screen-wake-lock",
]
PERMISSIONS: tuple[str, ...] = get_args(Permission)
ColorScheme = Literal["light", "dark", "no-preference"]
# BCP 47 as browsers take it: "de", "de-DE", "zh-Hant-TW", "sr-Latn".
LOCALE_PATTERN = r"^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})*$"


# (v1.4) The browsers a plan may run on (``browser.name``) and a suite runs (the suite config's ``browsers``).
# contract/browsers.py reads them: which browsers of a run's matrix a plan gets an item on, and which of its
# features only Chromium has (rule BROWSER_FEATURE).
BrowserName = Literal["chromium", "firefox", "webkit"]
BROWSER_NAMES: tuple[str, ...] = get_args(BrowserName)


def _browser_names(value: Any, *, scalar: bool) -> Any:
    """One located message for what a name or a list of names can get wrong (unknown, twice, empty), in place of
    the union's two (a name's, a list's). ``scalar``: one name is allowed (``browser.name``; ``browsers`` is a list)."""
    problem = browser_names_problem(value, scalar=scalar)
    if problem:
        raise PydanticCustomError("browser_names", "{problem}", {"problem": problem})
    return value


def browser_names_problem(value: Any, *, scalar: bool) -> str | None:
    """What is wrong with a ``browser.name`` (``scalar``) or ``browsers`` value, or None."""
    expected = ", ".join(BROWSER_NAMES)
    names = [value] if scalar and isinstance(value, str) else value if isinstance(value, list) else None
    if names is None:
        return f"must be {'a browser name or a list of them' if scalar else 'a list of browser names'} ({expected})"
    if not names:
        return f"must not be empty: name at least one of {expected}"
    for name in names:
        if name not in BROWSER_NAMES:
            hint = next((f"; did you mean '{b}'?" for b in BROWSER_NAMES if isinstance(name, str)
                         and (name.lower() == b or name.lower() in _BROWSER_ALIASES[b])), "")
            return f"unknown browser {name!r}{hint}; expected one of: {expected}"
    twice = next((name for i, name in enumerate(names) if name in names[:i]), None)
    return f"browser {twice!r} is listed twice" if twice is not None else None


# Names users may reach for that are one of BROWSER_NAMES (a did-you-mean, never accepted as such).
_BROWSER_ALIASES = {"chromium": ("chrome", "google-chrome", "msedge", "edge", "chrome-beta"),
                    "firefox": ("firefox-esr", "moz-firefox", "ff", "gecko"), "webkit": ("safari",)}
_NAME_LIST = Annotated[list[BrowserName], Field(min_length=1, json_schema_extra={"uniqueItems": True})]
# ``browser.name``: one name, or a non-empty list of names without repeats.
BrowserNames = Annotated[BrowserName | _NAME_LIST, BeforeValidator(lambda v: _browser_names(v, scalar=True))]
# The suite config's ``browsers``: a non-empty list without repeats.
BrowserMatrix = Annotated[_NAME_LIST, BeforeValidator(lambda v: _browser_names(v, scalar=False))]


# Policy v1: the counters and limits that keep a run from looping silently.
class Policy(SharedDefault):
    """v1 defaults; a plan's ``policy`` overrides any of them."""

    retries_per_action: Annotated[int, Field(ge=0, le=20)] = 2
    recovery_max: Annotated[int, Field(ge=0, le=20)] = 3
    same_state_revisits: Annotated[int, Field(ge=1, le=1000)] = 2
    hard_cap_steps: Annotated[int, Field(ge=1, le=100_000)] = 60
    backoff_ms: Annotated[list[Annotated[int, Field(ge=0, le=600_000)]], Field(min_length=1)] = [300, 1000, 2000]
    retry_on: list[ErrorCodeName] = ["NAVIGATION_TIMEOUT", "OVERLAY_BLOCKING"]
    allow_stop: bool = False

    def backoff_for(self, attempt: int) -> int:
        """Delay before retry number ``attempt`` (1-based); the last value repeats."""
        return self.backoff_ms[min(attempt, len(self.backoff_ms)) - 1]


class Geolocation(ContractModel):
    """Where the page's ``navigator.geolocation`` says it is (needs the ``geolocation`` permission)."""

    latitude: Annotated[float, Field(ge=-90, le=90)]
    longitude: Annotated[float, Field(ge=-180, le=180)]
    # Finite: YAML's .inf passes ge=0, but Playwright cannot send it to the browser (not JSON).
    accuracy: Annotated[float, Field(ge=0, allow_inf_nan=False)] | None = None


class BrowserSettings(ContractModel):
    """(v1.2) The browser context's settings; a key left out keeps the executor's default."""

    viewport: Viewport | None = None
    device: Annotated[str, Field(min_length=1)] | None = None  # a name from Playwright's device registry
    locale: Annotated[str, Field(pattern=LOCALE_PATTERN)] | None = None
    timezone: Annotated[str, Field(min_length=1)] | None = None  # an IANA zone, "Europe/Madrid"
    geolocation: Geolocation | None = None
    permissions: list[Permission] | None = None
    color_scheme: ColorScheme | None = None
    offline: bool | None = None
    # (v1.4) the browsers the plan may run on: a run's matrix gives it an item on these only (contract/browsers.py)
    name: BrowserNames | None = None


class ClockSettings(ContractModel):
    """(v1.2) ``clock.at``: an ISO 8601 time with its UTC offset; the page's clock starts there."""

    at: Annotated[str, Field(min_length=1)]


# The browser settings that make a saved storage state: a state made under other values of
# these is not reused (plugin/shared_states.py). What the server and the application see of
# who is there (user agent, language, time zone); the rest (size, colours, permissions, place,
# network) changes how the page looks, not who is signed in.
STATE_SETTINGS: tuple[str, ...] = ("device", "locale", "timezone")


def settings_record(browser: BrowserSettings | None, clock: ClockSettings | None) -> dict[str, Any]:
    """What a manifest, ``show`` and Allure say about the settings: only the keys set."""
    record: dict[str, Any] = {}
    if browser is not None:
        record["browser"] = browser.model_dump(mode="json", exclude_none=True)
    if clock is not None:
        record["clock"] = clock.model_dump(mode="json")
    return record


def settings_items(record: Mapping[str, Any]) -> list[tuple[str, str]]:
    """A settings record (:func:`settings_record`, as a manifest holds it) as flat ``(key, value)`` pairs,
    ``browser.locale`` / ``clock.at``: one wording for ``show``, ``diff`` and Allure's parameters. Only the
    keys set; a hand-made record is read leniently (a value that is not a mapping is left out)."""
    items: list[tuple[str, str]] = []
    for group in ("browser", "clock"):
        values = record.get(group)
        if not isinstance(values, Mapping):
            continue
        for key, value in values.items():
            if isinstance(value, Mapping) and {"width", "height"} <= set(value):
                text = f"{value['width']}x{value['height']}"
            elif isinstance(value, (Mapping, list, bool)):
                text = json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
            else:
                text = str(value)
            items.append((f"{group}.{key}", text))
    return items


def state_settings(browser: BrowserSettings | None) -> dict[str, str]:
    """The STATE_SETTINGS a context is made with (only those set): what a saved state was made under."""
    if browser is None:
        return {}
    return {key: getattr(browser, key) for key in STATE_SETTINGS if getattr(browser, key) is not None}


# ---------------------------------------------------------------------------
# (v1.2) ``routes:``: requests a plan (or its suite config) answers itself, never sent.
# A route names the requests it takes (``url``: Playwright's glob, or
# ``{pattern: REGEX}``; optional ``method``) and what they get: ``respond``
# (``status``, one of ``json`` / ``body`` / ``file``, ``headers``) or
# ``abort: true``. The models hold the shape; what needs more than one key
# (respond or abort, one body kind) and what needs the disk (``file``) are
# rule ROUTE / PATH_CONFINEMENT in contract/validate/settings_rules.py, located at
# the key. A plan's routes come first, then its suite config's; the first that
# matches wins.
RouteMethod = Literal["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]
# A route's file is read at load time: a stub is a small fixture, not a download.
MAX_ROUTE_FILE_BYTES = 1_048_576
# The body kinds of ``respond``: at most one (rule ROUTE).
BODY_KINDS: tuple[str, ...] = ("json", "body", "file")
# (v1.3) The longest a route may hold its answer back (``respond.delay_ms``): a minute.
MAX_ROUTE_DELAY_MS = 60_000


class RouteResponse(ContractModel):
    """What a matched request is answered with; a ``file`` is plan-relative, confined like ``file_ref``."""

    status: Annotated[int, Field(ge=100, le=599)] = 200
    json_: Any = Field(default=None, alias="json")
    body: str | None = None
    file: NonEmpty | None = None
    headers: dict[NonEmpty, str] = {}
    # (v1.3) the answer is sent this long after the request came (the page waits; nothing else does)
    delay_ms: Annotated[int, Field(ge=0, le=MAX_ROUTE_DELAY_MS)] | None = None

    def given(self) -> list[str]:
        """The body kinds written (``json: null`` counts: it is the JSON ``null``)."""
        return [kind for kind in BODY_KINDS if (("json_" if kind == "json" else kind) in self.model_fields_set)]


class Route(ContractModel):
    """One stub: the requests it takes (``url``, ``method``) and its answer (``respond`` or ``abort: true``)."""

    url: NonEmpty | UrlPattern
    method: RouteMethod | None = None
    respond: RouteResponse | None = None
    abort: bool = False

    @property
    def url_text(self) -> str:
        """The url as a person reads it: the glob, or ``/REGEX/``."""
        return self.url if isinstance(self.url, str) else f"/{self.url.pattern}/"

    def record(self, index: int) -> dict[str, Any]:
        """What the manifest, ``routes_unused`` and ``show`` say of this route (masked where they are written)."""
        out: dict[str, Any] = {"index": index, "url": self.url_text}
        if self.method:
            out["method"] = self.method
        if self.abort:
            out["abort"] = True
        elif self.respond is not None:
            out["status"] = self.respond.status
            out["answer"] = next(iter(self.respond.given()), "empty")
            if self.respond.file is not None:
                out["file"] = self.respond.file
            if self.respond.delay_ms:
                out["delay_ms"] = self.respond.delay_ms
        return out


def routes_record(routes: list[Route] | None) -> list[dict[str, Any]]:
    """The routes as the run manifest records them (no bodies: those are the plan's, hashed with it)."""
    return [route.record(i) for i, route in enumerate(routes or ())]


def body_bytes(value: Any) -> bytes:
    """A ``json`` answer as the bytes sent."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


class SecretRef(ContractModel):
    """Where a secret comes from: an environment variable, never the file."""

    env: Annotated[str, Field(pattern=ENV_NAME_PATTERN)]


class Recovery(ContractModel):
    """Steps to run when one of ``on_error`` occurs, before the failed step is retried."""

    on_error: Annotated[list[ErrorCodeName], Field(min_length=1)]
    steps: Annotated[list[ActionSpec], Field(min_length=1)]


class AuthSignals(ContractModel):
    """What marks an authentication failure (AUTH_FAILED)."""

    url_pattern: NonEmpty | None = None
    texts: list[NonEmpty] = []
    status: list[Annotated[int, Field(ge=100, le=599)]] = []


class Expect(ContractModel):
    """A negative test: the plan passes only if this code is raised (at ``step``)."""

    error_code: ErrorCodeName
    step: StepId | None = None


VarName = Annotated[str, Field(pattern=VAR_NAME_PATTERN)]
RowValue = str | int | float
# Names of saved browser storage states (``save_storage_state`` / ``storage_state``).
STATE_NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}$"
StateName = Annotated[str, Field(pattern=STATE_NAME_PATTERN)]
STATE_NAME = re.compile(STATE_NAME_PATTERN)  # for names read outside the models (groups, outlines)
GROUP_SUFFIXES: tuple[str, ...] = (".steps.yaml", ".steps.yml")
GroupPath = Annotated[str, Field(pattern=r"^.+\.steps\.ya?ml$")]
Parametrize = (
    dict[VarName, Annotated[list[RowValue], Field(min_length=1)]]
    | Annotated[list[dict[VarName, RowValue]], Field(min_length=1)]
    | Annotated[str, Field(pattern=r".+\.csv$")]
)
"""Data-driven plans: ``{name: [values]}`` (every combination), a list of rows, or
a CSV file next to the plan. Each row's values are vars of one item ``plan[row-id]``."""


class UseStep(ContractModel):
    """``- use: groups/login.steps.yaml``: a step group, expanded in place at load time.

    Only in what users write: validation replaces it with the group's steps,
    whose ids become ``<id>.<step id>`` (``id`` defaults to the file's stem).
    """

    use: GroupPath
    id: StepId | None = None
    with_: dict[VarName, RowValue] = Field(default={}, alias="with")


class StepGroup(ContractModel):
    """A ``*.steps.yaml`` file: reusable steps with their own vars (set by ``with``)."""

    description: str | None = None
    vars: dict[VarName, RowValue] = {}
    secrets: dict[VarName, SecretRef] = {}
    defaults: StepDefaults | None = None
    save_storage_state: StateName | None = None
    steps: Annotated[list[ActionSpec | UseStep], Field(min_length=1)]


GROUP_KEYS: tuple[str, ...] = tuple(StepGroup.model_fields)


class Plan(ContractModel):
    """A validated plan: what a pytest item runs."""

    name: NonEmpty
    description: str | None = None
    tags: list[PlanTag] = []
    base_url: NonEmpty | None = None
    allowlist: list[Annotated[str, Field(pattern=HOST_PATTERN)]] | None = None
    mode: Literal["live", "dry_run"] = "live"
    policy: Policy = Policy()
    vars: dict[Annotated[str, Field(pattern=VAR_NAME_PATTERN)], str | int | float] = {}
    secrets: dict[Annotated[str, Field(pattern=VAR_NAME_PATTERN)], SecretRef] = {}
    defaults: StepDefaults | None = None
    recovery: Recovery | None = None
    uploads_root: NonEmpty | None = None
    auth_signals: AuthSignals | None = None
    toast_selector: NonEmpty | None = None  # None: DEFAULT_TOAST_SELECTOR
    overlay_selectors: list[NonEmpty] = []
    expect: Expect | None = None
    parametrize: Parametrize | None = None
    storage_state: StateName | None = None
    save_storage_state: StateName | None = None
    browser: BrowserSettings | None = None  # (v1.2)
    clock: ClockSettings | None = None  # (v1.2)
    routes: list[Route] | None = None  # (v1.2) the plan's own first, then the suite config's
    steps: Annotated[list[ActionSpec], Field(min_length=1)]

    def all_steps(self) -> list[ActionSpec]:
        """Normal steps then recovery steps: every ActionSpec the plan holds."""
        return list(self.steps) + (list(self.recovery.steps) if self.recovery else [])


PLAN_KEYS: tuple[str, ...] = tuple(Plan.model_fields)


class SuiteConfig(ContractModel):
    """``cometlocal.yaml``: suite-wide values every plan below it starts from.

    A plan's own key wins; ``policy`` and ``defaults`` are merged key by key.
    """

    base_url: NonEmpty | None = None
    allowlist: list[Annotated[str, Field(pattern=HOST_PATTERN)]] | None = None
    policy: Policy | None = None
    auth_signals: AuthSignals | None = None
    toast_selector: NonEmpty | None = None
    overlay_selectors: list[NonEmpty] | None = None
    defaults: StepDefaults | None = None
    # The run's execution profile (contract/model/profiles.py): a setting of the runs, not a plan key.
    profile: ExecutionProfile | None = None
    browser: BrowserSettings | None = None  # (v1.2)
    clock: ClockSettings | None = None  # (v1.2)
    routes: list[Route] | None = None  # (v1.2) after the plan's own routes
    # Vars for every plan below it: the lowest layer (under --cometlocal-var, the plan's own vars and a row).
    vars: dict[Annotated[str, Field(pattern=VAR_NAME_PATTERN)], str | int | float] | None = None
    # (v1.4) the browsers every plan below it runs on, one item each (a setting of the runs, not merged into a
    # plan: a plan's ``browser.name`` filters it). The command line's and the ini's matrix win over it.
    browsers: BrowserMatrix | None = None


SUITE_KEYS: tuple[str, ...] = tuple(SuiteConfig.model_fields)
MERGED_SUITE_KEYS: frozenset[str] = frozenset({"policy", "defaults", "browser"})
# (v1.2) Plan and suite keys only plan format v1.2 has.
V12_PLAN_KEYS: frozenset[str] = frozenset({"browser", "clock", "routes"})
# (v1.2) Suite keys whose list is added after the plan's own (``routes``: the plan's first, first match wins).
APPENDED_SUITE_KEYS: frozenset[str] = frozenset({"routes"})
# Suite config keys that are not plan keys: kept beside the plan, never merged into it.
SUITE_ONLY_KEYS: frozenset[str] = frozenset({"profile", "vars", "browsers"})
# (v1.4) What only plan format v1.4 has: plan keys (as key paths: ``browser.name`` is a key of v1.2's
# ``browser``) and suite config keys.
V14_PLAN_KEYS: frozenset[str] = frozenset({"browser.name"})
V14_SUITE_KEYS: frozenset[str] = frozenset({"browsers"})


def plan_keys_version(plan: Plan) -> str | None:
    """(v1.4) ``"v1.4"`` when the plan sets a V14_PLAN_KEYS key (its own or its suite config's), else None.

    Only v1.4's plan keys count: a plan's v1.2 keys (``browser``, ``clock``, ``routes``) never made a run's
    ``format_versions`` list v1.2, and the records of runs made since say what they said."""
    return "v1.4" if plan.browser is not None and plan.browser.name is not None else None


def plan_format_versions(plan: Plan) -> list[str]:
    """The format versions a plan uses, oldest first: its steps' and recovery steps' (``format_versions``),
    and (v1.4) ``"v1.4"`` for a v1.4 plan key. What a run manifest's and ``cometlocal validate``'s
    ``format_versions`` list (no step is ever v1.4: its keys are the plan's)."""
    versions = format_versions(plan.all_steps())
    extra = plan_keys_version(plan)
    return versions + [extra] if extra and extra not in versions else versions
