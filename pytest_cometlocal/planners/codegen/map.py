"""Recorded codegen calls -> plan steps (plain dicts with the plan file's keys).

Each mapping keeps what the recording meant, in the plan format's words:
locators become targets (``codegen.targets``), actions become steps and
``expect`` checks conditions (``codegen.steps``, a row per Playwright method);
a check becomes a postcondition of the step before it (an ``assert`` step when
there is none). What has no equivalent is reported with its line, never
guessed: a key outside the plan's key grammar, a descendant locator inside a
role or text locator, ``.last``, a second page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable
from urllib.parse import urlsplit

from pytest_cometlocal.contract.allowlist import url_host
from pytest_cometlocal.contract.model.actionspec import CLICK_KEYS
from pytest_cometlocal.planners.codegen.http import request_step
from pytest_cometlocal.planners.codegen.parse import Recorded, Unmapped
from pytest_cometlocal.planners.codegen.state import storage_script
from pytest_cometlocal.planners.codegen.steps import action_step, add_rationale, condition_of
from pytest_cometlocal.planners.codegen.targets import no_reference
from pytest_cometlocal.planners.errors import CannotMap

_CLICK_KEYS = frozenset((*CLICK_KEYS, "position", "force"))  # (v1.3) a click at a point, or forced, is kept
# Words of a delete or a payment; ``_`` separates words too (Django's ``delete_selected`` action).
_RISKY = re.compile(r"(?<![a-z0-9])(delete|remove|destroy|erase|pay|payment|purchase|checkout|check out|buy|"
                    r"place order)(?![a-z0-9])", re.I)


@dataclass
class Mapped:
    """The plan's steps, its origin (first ``goto``), other hosts, and what was left out."""

    steps: list[dict[str, Any]] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)      # the script line of each step
    origin: str | None = None                            # the plan's base URL
    recorded: str | None = None                          # the origin of the first absolute goto
    hosts: list[str] = field(default_factory=list)
    unmapped: list[Unmapped] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    settings: dict[str, Any] = field(default_factory=dict)  # (v1.2) the plan's browser: and clock: keys


class _Mapper:
    def __init__(self, base_url: str | None):
        self.out = Mapped(origin=base_url.rstrip("/") if base_url else None)
        self.last_mapped = False  # did the previous recorded call become the last step?
        self.after_gap = False    # was the last action left out? Its checks then open an assert step

    def add(self, line: int, step: dict[str, Any]) -> None:
        self.out.steps.append(step)
        self.out.lines.append(line)

    def navigate(self, call: Recorded) -> dict[str, Any]:
        if len(call.args) != 1 or not isinstance(call.args[0], str):
            raise CannotMap("goto() needs one URL")
        url = no_reference(call.args[0])
        parts = urlsplit(url)
        if parts.scheme in ("http", "https") and parts.netloc and self.out.recorded is None:
            self.out.recorded = f"{parts.scheme}://{parts.netloc}"
            if self.out.origin is None:
                self.out.origin = self.out.recorded
            elif self.out.origin != self.out.recorded:
                self.out.notices.append(f"the recording's origin {self.out.recorded} is replaced by the base URL "
                                        f"{self.out.origin}: its pages are navigated relative to it")
        if not parts.netloc or self.recorded(url):
            return {"kind": "navigate", "target": {"type": "url", "url": self.relative(url)}}
        host = url_host(url)  # the host the browser goes to, as the allowlist reads it
        if host not in self.out.hosts:
            self.out.hosts.append(host)
        return {"kind": "navigate", "target": {"type": "url", "url": url}}

    def recorded(self, url: str) -> bool:
        parts = urlsplit(url)
        return self.out.recorded is not None and f"{parts.scheme}://{parts.netloc}" == self.out.recorded

    def relative(self, url: str) -> str:
        """A URL of the recorded origin as a path the base URL resolves (navigate and url_is alike)."""
        if not self.recorded(url):
            return url
        parts = urlsplit(url)
        return (parts.path or "/") + (f"?{parts.query}" if parts.query else "") + (f"#{parts.fragment}" if parts.fragment else "")

    def action(self, call: Recorded) -> dict[str, Any] | None:
        if not call.chain:
            if call.action == "goto":
                return self.navigate(call)
            if call.action == "opens_page":
                return self.opens_page()
            if call.action in SETTINGS_CALLS:
                return SETTINGS_CALLS[call.action](self, call)
            page_step = PAGE_STEPS.get(call.action)
            if page_step is not None:
                return page_step(call)
            if call.action == "wait_for_timeout":
                raise CannotMap("a fixed wait does not map: a plan never sleeps; each step waits for its target "
                                "and its postconditions (add one where the page needs time)")
            raise CannotMap(f"page.{call.action}() does not map")
        return action_step(call)

    def opens_page(self) -> None:
        """(v1.2) The action just mapped waited for a popup (``expect_popup``): it takes ``opens: page``."""
        step = self.out.steps[-1] if self.out.steps and self.last_mapped else None
        if step is None or step["kind"] not in ("click", "press"):
            raise CannotMap("expect_popup() maps around a click or a key press only (opens: page)")
        step["opens"] = "page"
        return None

    def check(self, call: Recorded) -> None:
        if call.action == "response_check":
            self.response_check(call)
            return
        if call.action == "download_started" and not self.last_mapped:
            raise CannotMap("the action that starts the download was not imported, so neither is its check")
        if call.action == "request_seen" and not self.last_mapped:
            raise CannotMap("the action that sends the request was not imported, so neither is its check")
        condition, rationale = condition_of(call, self.relative)
        if not self.out.steps or self.after_gap:
            # Not the step before a statement left out: the author puts its replacement before this assert.
            self.add(call.line, {"kind": "assert"})
            self.after_gap = False
        step = self.out.steps[-1]
        step.setdefault("_checks", []).append(condition)
        add_rationale(step, rationale)


    def response_check(self, call: Recorded) -> None:
        """(v1.2) A check of a response joins the request step that got it, the step right before."""
        step = self.out.steps[-1] if self.out.steps and self.last_mapped else None
        if step is None or step["kind"] != "request" or step.get("_response") != call.response:
            raise CannotMap(f"a check of {call.response} maps only right after the request that got it "
                            "(its postcondition)")
        step.setdefault("_checks", []).append(call.args[0])

    def request(self, call: Recorded) -> dict[str, Any]:
        """(v1.2) A ``request`` step; a URL of the recorded origin is relative, another host is allowed."""
        url = call.args[1]
        parts = urlsplit(url)
        if parts.scheme in ("http", "https") and parts.netloc and not self.recorded(url):
            host = url_host(url)  # the host the browser goes to, as the allowlist reads it
            if host not in self.out.hosts:
                self.out.hosts.append(host)
        step = request_step(call, self.relative(url))
        if call.response is not None:
            step["_response"] = call.response
        return step

    def route(self, call: Recorded) -> None:
        """(v1.2) ``page.route(...)``: an entry of the plan's ``routes:``, in place before the first step."""
        routes = self.out.settings.setdefault("routes", [])
        if self.out.steps and not routes:
            self.out.notices.append(f"route() (line {call.line}) came after {len(self.out.steps)} step(s); the "
                                    "plan's routes answer from its first step")
        routes.append(call.args[0])
        return None


def _no_args(kind: str) -> Callable[[Recorded], dict[str, Any]]:
    def step(call: Recorded) -> dict[str, Any]:
        if call.args:
            raise CannotMap(f"{call.action}() maps without arguments")
        return {"kind": kind}
    return step


def _set_viewport(call: Recorded) -> dict[str, Any]:
    """(v1.3) ``page.set_viewport_size({"width": W, "height": H})``: a set_viewport step."""
    size = call.args[0] if len(call.args) == 1 and not call.kwargs else call.kwargs.get("viewport_size")
    if not (isinstance(size, dict) and set(size) == {"width", "height"}
            and all(type(v) is int and 1 <= v <= 10_000 for v in size.values())):
        raise CannotMap("set_viewport_size() maps with a literal {width, height} of 1-10000 px each")
    return {"kind": "set_viewport", "viewport": {"width": size["width"], "height": size["height"]}}


# window.scrollTo(X, Y) to a fixed place, as scripts scroll a page to its top or bottom: X whole pixels, Y
# whole pixels or the document's scrollHeight (its bottom). Any other script is page code a plan never runs.
_SCROLL_TO = re.compile(r"^\s*(?:\(\)\s*=>\s*)?window\.scrollTo\(\s*(\d+)\s*,\s*"
                        r"(\d+|document\.(?:body|documentElement)\.scrollHeight)\s*\)\s*;?\s*$")


def _evaluate(call: Recorded) -> dict[str, Any]:
    """(v1.3) The two scripts a step says without code: ``window.scrollTo(0, document.body.scrollHeight)``
    (scroll ``to`` that place) and a storage call with literal arguments (codegen.state.storage_script)."""
    script = call.args[0] if len(call.args) == 1 and isinstance(call.args[0], str) else None
    if script is not None and re.match(r"\s*(?:window\.)?(?:local|session)Storage\.", script):
        return storage_script(script)  # its own reasons: a call it does not take, a wrong argument count
    found = _SCROLL_TO.match(script) if script is not None else None
    if found is None:
        raise CannotMap("page.evaluate() does not map: a plan runs no page code (only window.scrollTo(x, y) to a "
                        "fixed place maps, as scroll with `to`; and localStorage / sessionStorage .clear(), "
                        ".removeItem('k'), .setItem('k', 'v') with literal arguments)")
    x, y = found.groups()
    return {"kind": "scroll", "to": {"x": int(x), "y": int(y) if y.isdigit() else "100%"}}


# (v1.2) A row per call on the page itself (and per step the reader adds as it follows the pages: codegen/pages.py).
PAGE_STEPS: dict[str, Callable[[Recorded], dict[str, Any]]] = {
    "go_back": _no_args("go_back"),
    "go_forward": _no_args("go_forward"),
    "reload": _no_args("reload"),
    "set_viewport_size": _set_viewport,  # v1.3
    "evaluate": _evaluate,  # v1.3: window.scrollTo to a fixed place, or a storage call
    "switch_page": lambda call: {"kind": "switch_page", "page": {"index": call.args[0]}},
    "close_page": lambda call: {"kind": "close_page"},
}


def _browser(mapper: _Mapper, call: Recorded) -> None:
    mapper.out.settings.setdefault("browser", {}).update(call.kwargs)
    return None


def _clock(mapper: _Mapper, call: Recorded) -> None:
    if "clock" in mapper.out.settings:
        raise CannotMap("a second clock.install() does not map: a plan has one clock.at")
    if mapper.out.steps:
        mapper.out.notices.append(f"clock.install() (line {call.line}) came after {len(mapper.out.steps)} step(s); "
                                  "the plan's clock.at installs the clock before its first step")
    mapper.out.settings["clock"] = {"at": call.args[0]}
    return None


def _advance(mapper: _Mapper, call: Recorded) -> dict[str, Any]:
    if "clock" not in mapper.out.settings:
        raise CannotMap("clock.run_for() before any clock.install(time=...) does not map: advance_clock needs "
                        "the plan's clock.at (rule CLOCK)")
    return {"kind": "advance_clock", "ms": call.args[0]}


# (v1.2) A row per recorded setting, clock or HTTP call (codegen/settings.py, codegen/http.py): plan keys
# (browser:, clock:, routes:), or a step.
SETTINGS_CALLS: dict[str, Callable[[_Mapper, Recorded], dict[str, Any] | None]] = {
    "browser_settings": _browser,
    "clock_install": _clock,
    "advance_clock": _advance,
    "request": _Mapper.request,
    "route": _Mapper.route,
    "state_step": lambda mapper, call: dict(call.args[0]),  # (v1.3) cookies (codegen/state.py)
}


def map_calls(calls: list[Recorded | Unmapped], base_url: str | None = None) -> Mapped:
    """Steps (with ``_checks`` still separate) in order; every call that does not map is in ``unmapped``."""
    mapper = _Mapper(base_url)
    for call in calls:
        if isinstance(call, Unmapped):
            mapper.out.unmapped.append(call)
            mapper.last_mapped, mapper.after_gap = False, True
            continue
        mapped = False
        try:
            if call.check:
                mapper.check(call)
            else:
                step = mapper.action(call)
                if step is not None:
                    mapper.add(call.line, step)
                    mapped, mapper.after_gap = True, False
        except CannotMap as exc:
            mapper.out.unmapped.append(Unmapped(call.line, str(exc), call.source))
            mapper.after_gap = mapper.after_gap or not call.check
        mapper.last_mapped = mapped or (call.check and mapper.last_mapped)
    _drop_clicks_before_fills(mapper.out)
    return mapper.out


def _drop_clicks_before_fills(out: Mapped) -> None:
    """codegen records the click that focuses a field before its fill; the fill is enough."""
    keep_steps, keep_lines = [], []
    for i, step in enumerate(out.steps):
        following = out.steps[i + 1] if i + 1 < len(out.steps) else None
        plain_click = step["kind"] == "click" and not _CLICK_KEYS & step.keys()  # not a double or right click
        if (plain_click and "_checks" not in step and following is not None
                and following["kind"] == "fill" and following["target"] == step["target"]):
            continue
        keep_steps.append(step)
        keep_lines.append(out.lines[i])
    out.steps, out.lines = keep_steps, keep_lines


def risky(step: dict[str, Any]) -> bool:
    """Does a click, a select or a key press look like a delete or a payment (worth ``critical``; the
    author decides)?"""
    if step["kind"] == "request":  # (v1.2) a DELETE, or a call whose URL names a payment
        return step["method"] == "DELETE" or bool(_RISKY.search(step["url"]))
    if step["kind"] not in ("click", "select", "press"):
        return False
    words = " ".join(str(v) for v in strings([step.get("target", {}), step.get("value", "")], skip=("type",)))
    return bool(_RISKY.search(words))


def strings(value: Any, skip: tuple[str, ...] = ()):
    """Every string in a nested step value (dicts, lists), leaving out the values of the keys in ``skip``."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key not in skip:
                yield from strings(item, skip)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item, skip)
    elif isinstance(value, str):
        yield value
