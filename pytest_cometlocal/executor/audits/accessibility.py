"""``accessibility_clean``: the vendored axe-core, run in an isolated world of the page (v1.2 audits).

Why an isolated world: axe run by ``page.evaluate`` would share the page's globals, so a
page could read ``window.axe``, or change the result by overriding ``Array.prototype``,
``Element.prototype.querySelectorAll`` or ``JSON.stringify``. Chromium's isolated world
(CDP ``Page.createIsolatedWorld``, the world extensions run in) shares the DOM but not
one JavaScript object with the page. axe-core is read from the package (``vendor/``,
pinned by ``vendor/axe.lock.json``): nothing is fetched at run time, and ``iframes: false``
keeps axe from messaging the page's frames.

The world is made once per page and document, and made again when a navigation destroyed
it. A ``target`` is handed over by a random attribute set on the one element the target
resolves to and removed by the isolated world as it reads it. Everything seen is masked
(``ctx.mask_text``) and a rule lists at most ``AXE_TARGETS_SHOWN`` targets.

**No isolated world, no audit: a refusal, never a failed check** (issue 49). Playwright's public
API has no isolated world for Firefox or WebKit, and axe in the page's world is what this module
rejects. So on a browser that is not Chromium (its name, read before any CDP call), or where the
world cannot be made (a connection without CDP, axe not loading), the condition does not
evaluate to "does not hold": it raises ``AuditUnavailable``, and the step fails
**PRECONDITION_FAILED** (stage ``precondition``/``postcondition`` as the condition's phase),
``details`` ``{"condition": "accessibility_clean", "unavailable": "isolated_world_available",
"browser": B, "problem": "isolated_world_unavailable", "message": ...}``. Why not
POSTCONDITION_FAILED with that observation, as before: a negative plan that expects
POSTCONDITION_FAILED from a violation then passed on Firefox without any audit run (a false
pass, measured). The refusal is a ``StepRefused`` (the typed
failure a condition may raise past page/conditions.py's ``_safe_evaluate``; the engine makes it
the step's error with that code and those details). The plugin refuses such an item at setup
already (a plan pinned to Chromium, or a matrix item); this is the executor's own guard for a
plan run on such a browser all the same (``run_plan``, the agent).
"""

from __future__ import annotations

import json
import secrets
import weakref
from importlib.resources import files
from typing import TYPE_CHECKING, Any

from pytest_cometlocal.contract.errors import CometLocalError
from pytest_cometlocal.contract.model.checks.audits import AXE_TARGETS_SHOWN, AXE_VERSION, IMPACTS
from pytest_cometlocal.contract.model.codes import ErrorCode
from pytest_cometlocal.executor.errors import is_crash
from pytest_cometlocal.executor.errors import StepRefused
from pytest_cometlocal.executor.browser.channels import browser_type_name
from pytest_cometlocal.executor.scripts import load_script

if TYPE_CHECKING:
    from pytest_cometlocal.contract.model.conditions import Condition
    from pytest_cometlocal.executor.audits.baselines import AuditContext

# The engine, read once at import (a step never touches the disk for it).
_VENDOR = files(__package__) / "vendor"
AXE_SOURCE = (_VENDOR / "axe.min.js").read_text(encoding="utf-8")
AXE_LOCK: dict[str, Any] = json.loads((_VENDOR / "axe.lock.json").read_text(encoding="utf-8"))
# The function the isolated world calls (scripts/axe_run.js).
AXE_RUN_JS = load_script(__package__, "axe_run.js")
WORLD_NAME = "cometlocal-audit"
# Set a random attribute on the target's one element, in the page's world (see the docstring).
MARK_TARGET_JS = load_script(__package__, "mark_target.js")


class IsolatedWorldUnavailable(CometLocalError):
    """No isolated world with axe in it: the browser gives no CDP session (not Chromium, or a
    connection without CDP), or axe-core did not load there. The message says which."""


class AuditUnavailable(StepRefused):
    """The audit cannot run in this browser: PRECONDITION_FAILED, never a condition that did not hold
    (module docstring)."""

    def __init__(self, browser: str | None, phase: str, message: str):
        super().__init__(ErrorCode.PRECONDITION_FAILED, f"accessibility_clean cannot run here: {message}",
                         {"condition": "accessibility_clean", "unavailable": "isolated_world_available",
                          "browser": browser or "unknown", "problem": "isolated_world_unavailable",
                          "message": message},
                         "precondition" if phase == "pre" else "postcondition")


def _browser_name(page: Any) -> str | None:
    """The page's browser (watchdog.py's ``browser_name``, which this room may not import: page imports audits)."""
    try:
        return browser_type_name(page.context.browser)
    except Exception:
        return None


class _World:
    """A page's CDP session and the id of its isolated world's execution context (with axe in it)."""

    def __init__(self, page: Any) -> None:
        self._page = weakref.ref(page)  # weak: _WORLDS' key is the page, and must not be kept alive by its value
        self._attach()

    def _attach(self) -> None:
        page = self._page()
        try:
            if page is None:
                raise RuntimeError("the page is gone")
            self.session = page.context.new_cdp_session(page)
        except Exception as exc:
            if is_crash(exc):
                raise
            raise IsolatedWorldUnavailable(
                "accessibility_clean runs axe-core in Chromium's isolated world, through CDP, which this browser "
                "connection does not offer: " + (str(exc).splitlines() or [type(exc).__name__])[0][:200]) from None
        self.context_id: int | None = None

    def ready(self) -> int:
        """The isolated world's context id, made (and axe loaded in it) if there is none."""
        if self.context_id is None:
            frame_id = self.session.send("Page.getFrameTree")["frameTree"]["frame"]["id"]
            made = self.session.send("Page.createIsolatedWorld", {"frameId": frame_id, "worldName": WORLD_NAME})
            loaded = self.session.send("Runtime.evaluate", {
                "expression": AXE_SOURCE + "\n;typeof axe", "contextId": made["executionContextId"],
                "returnByValue": True})
            if loaded.get("exceptionDetails") or loaded["result"].get("value") != "object":
                raise IsolatedWorldUnavailable("axe-core did not load in the page's isolated world")
            self.context_id = made["executionContextId"]
        return self.context_id

    def run(self, marker: str, tags: list[str], disabled: list[str]) -> dict[str, Any]:
        """axe's violations, or ``{"error": ...}``. A world a navigation destroyed is made again, and a
        session that went away attached again, once."""
        for again in (False, True):
            try:
                reply = self.session.send("Runtime.callFunctionOn", {
                    "functionDeclaration": AXE_RUN_JS, "executionContextId": self.ready(),
                    "arguments": [{"value": marker}, {"value": tags}, {"value": disabled}],
                    "awaitPromise": True, "returnByValue": True})
            except IsolatedWorldUnavailable:
                raise
            except Exception as exc:
                if again or (is_crash(exc) and self._page_closed()):
                    raise  # (a detached session reads as closed too: the page's own state says which)
                self.context_id = None  # a navigation destroyed the world: made again
                if "cannot find context" not in str(exc).lower():  # not the world but the session went away
                    self._detach()
                    self._attach()
                continue
            if reply.get("exceptionDetails"):
                details = reply["exceptionDetails"]
                text = (details.get("exception") or {}).get("description") or details.get("text") or "exception"
                return {"error": "axe-core failed: " + str(text).splitlines()[0][:200]}
            return reply["result"].get("value") or {"error": "axe-core returned nothing"}
        raise AssertionError("unreachable")

    def _page_closed(self) -> bool:
        page = self._page()
        return page is None or page.is_closed()

    def _detach(self) -> None:
        try:
            self.session.detach()
        except Exception:  # already detached: nothing to release (a dead browser is found by _attach next)
            pass


_WORLDS: "weakref.WeakKeyDictionary[Any, _World]" = weakref.WeakKeyDictionary()


def _world(page: Any) -> _World:
    world = _WORLDS.get(page)
    if world is None:
        world = _WORLDS[page] = _World(page)
        page.once("close", lambda closed: _WORLDS.pop(closed, None))  # a closed page's session is gone
    return world


def accessibility_clean(cond: Condition, ctx: AuditContext, phase: str) -> tuple[bool, Any]:
    """Holds when axe finds no violation at or above ``impact_at_least`` (on the page, or in the target)."""
    args = cond.args
    browser = _browser_name(ctx.page)
    if browser not in (None, "chromium"):  # no CDP asked for: the refusal comes before anything is done
        raise AuditUnavailable(browser, phase, f"it runs axe-core in Chromium's isolated world; {browser} has none")
    seen: dict[str, Any] = {"axe": AXE_VERSION, "rules": list(args.rules), "impact_at_least": args.impact_at_least}
    marker = ""
    if args.target is not None:
        locator, found = ctx.locate(args.target)
        if locator is None:
            return False, {**seen, **found}
        marker = "data-cometlocal-" + secrets.token_hex(8)
        locator.evaluate(MARK_TARGET_JS, marker, timeout=2000)
    try:
        got = _world(ctx.page).run(marker, list(args.rules), list(args.disable))
    except IsolatedWorldUnavailable as exc:
        raise AuditUnavailable(browser, phase, ctx.mask_text(str(exc))) from None
    if "error" in got:
        return False, {**seen, "error": ctx.mask_text(str(got["error"]))}
    floor = IMPACTS.index(args.impact_at_least)
    counted, below = [], []
    for v in got["violations"]:
        rank = IMPACTS.index(v["impact"]) if v["impact"] in IMPACTS else 0
        if rank >= floor:
            counted.append({"rule": v["id"], "impact": v["impact"], "help": ctx.mask_text(v["help"]),
                            "help_url": v["helpUrl"], "count": v["count"],
                            "targets": [ctx.mask_text(t) for t in v["targets"][:AXE_TARGETS_SHOWN]]})
        else:
            below.append({"rule": v["id"], "impact": v["impact"], "count": v["count"]})
    return not counted, {**seen, "violations": counted, **({"below_impact": below} if below else {})}


EVALUATORS = {"accessibility_clean": accessibility_clean}
