"""Observations: the state signature and the partial DOM snapshot of a page.

One ``evaluate`` collects everything the signature and the snapshot need
(title, visible text, the structure of interactive elements, visible anchors
and inputs) and marks the elements showing a secret; one viewport screenshot
gives the screenshot hash. Values of hidden and password inputs never leave
the page: the structure used for ``key_elements_hash`` has no values at all,
and the snapshot masks them.

Screenshots are the expensive part of a step (measured in
benchmarks/RESULTS.md), so:

* they are taken through CDP's ``Page.captureScreenshot`` with
  ``optimizeForSpeed`` (about half the time of ``page.screenshot``); when a
  focused editable element could show a text caret, the caret is hidden by a
  constructed style sheet for the capture (a blinking caret would make two
  looks at the same page hash differently); when a
  secret is on screen, or CDP is not available, ``page.screenshot`` with its
  ``mask`` is used instead;
* an observation taken right after another, with nothing done to the page in
  between (the executor checks that no request started and no download
  arrived) and the same DOM-derived data, carries the previous screenshot
  over instead of taking a new one; its signature says so
  (``metadata.screenshot_from``).
"""

from __future__ import annotations

import base64
import hashlib
import json
import time
from dataclasses import dataclass
from typing import Any

from ..contract.records import StateSignature
from .clock import utc_now_iso
from .errors import first_line, is_crash
from .watchdog import CAPTURE_MS, CallTimedOut, bound, cdp_session, forget_cdp_session, page_answers

MAX_ELEMENTS = 400

OBSERVE_JS = r"""
({maxElements, secrets}) => {
  const clip = (s, n) => (s || "").replace(/\s+/g, " ").trim().slice(0, n);
  const visible = (el) => {
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) return false;
    const st = getComputedStyle(el);
    return st.visibility !== "hidden" && st.display !== "none";
  };
  // The labels of each control, as el.labels gives them (label.control, in document
  // order), in one pass: el.labels walks the whole document on every call.
  const labelsOf = new Map();
  for (const l of document.getElementsByTagName("label")) {
    const control = l.control;
    if (control) (labelsOf.get(control) || labelsOf.set(control, []).get(control)).push(l);
  }
  const labelOf = (el) => {
    if (el.getAttribute("aria-label")) return el.getAttribute("aria-label");
    const by = el.getAttribute("aria-labelledby");
    if (by) return by.split(/\s+/).map(id => (document.getElementById(id) || {}).textContent || "").join(" ");
    const labels = labelsOf.get(el);
    if (labels) return labels.map(l => l.textContent).join(" ");
    if (["INPUT", "SELECT", "TEXTAREA"].includes(el.tagName)) return el.getAttribute("placeholder") || el.getAttribute("title") || "";
    return el.innerText || el.getAttribute("title") || el.getAttribute("alt") || "";
  };
  const sel = "a[href],button,input,select,textarea,[role],[tabindex],[data-testid],[contenteditable=true]";
  // The first maxElements matches in document order, found by a walk that stops there:
  // the cost does not grow with the page beyond them (querySelectorAll would match all).
  // (A document being replaced can have no root element yet: then nothing to read.)
  const all = [];
  const walk = document.documentElement && document.createTreeWalker(document.documentElement, NodeFilter.SHOW_ELEMENT);
  for (let n = walk && walk.nextNode(); n && all.length < maxElements; n = walk.nextNode()) {
    if (n.matches(sel)) all.push(n);
  }
  const key = all.map(el => [
    el.tagName.toLowerCase(),
    el.getAttribute("role") || "",
    clip(labelOf(el), 80),
    el.getAttribute("data-testid") || "",
    (el.getAttribute("type") || "").toLowerCase(),
    el.disabled === true || el.getAttribute("aria-disabled") === "true",
  ]);
  const maskValue = (el) => {
    const t = (el.getAttribute("type") || "").toLowerCase();
    if (t === "password") return el.value ? "***" : "";
    if (t === "hidden") return null;
    if (t === "file") return Array.from(el.files || []).map(f => f.name).join(", ");
    if (el.tagName === "SELECT") return el.value;
    return clip(el.value, 200);
  };
  const anchors = [], inputs = [];
  for (const el of all) {
    if (!visible(el) && (el.getAttribute("type") || "").toLowerCase() !== "hidden") continue;
    if (el.tagName === "A" && anchors.length < 100) {
      anchors.push({text: clip(el.innerText, 80), href: el.getAttribute("href"), testid: el.getAttribute("data-testid")});
    } else if (["INPUT", "SELECT", "TEXTAREA"].includes(el.tagName) && inputs.length < 100) {
      const t = (el.getAttribute("type") || "").toLowerCase();
      if (t === "hidden") { inputs.push({tag: "input", type: "hidden", name: el.getAttribute("name")}); continue; }
      inputs.push({
        tag: el.tagName.toLowerCase(), type: t || null, name: el.getAttribute("name"), id: el.id || null,
        label: clip(labelOf(el), 80), testid: el.getAttribute("data-testid"),
        value: maskValue(el), disabled: !!el.disabled, readonly: !!el.readOnly,
      });
    }
  }
  // Elements showing a secret get an attribute, for the screenshot's mask.
  const attr = "data-cometlocal-secret";
  document.querySelectorAll("[" + attr + "]").forEach(e => e.removeAttribute(attr));
  let marked = 0;
  if (secrets.length && (document.body || document.documentElement)) {
    const has = (s) => !!s && secrets.some(v => s.includes(v));
    for (const el of document.querySelectorAll("input, textarea, select")) {
      if (has(el.value)) { el.setAttribute(attr, ""); marked++; }
    }
    const walker = document.createTreeWalker(document.body || document.documentElement, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (has(n.nodeValue) && n.parentElement) { n.parentElement.setAttribute(attr, ""); marked++; }
    }
  }
  // Whether a text caret can be on screen: only in a focused editable element.
  const noCaret = ["button", "submit", "reset", "checkbox", "radio", "range", "color", "file", "image", "hidden"];
  const active = document.activeElement;
  const caret = document.designMode === "on" || (!!active && (active.isContentEditable || active.tagName === "TEXTAREA" ||
    (active.tagName === "INPUT" && !noCaret.includes((active.getAttribute("type") || "").toLowerCase()))));
  return {
    url: location.href,
    title: document.title,
    text: document.body ? document.body.innerText : "",
    key,
    anchors,
    inputs,
    marked,
    caret,
  };
}
"""

TARGET_CONTEXT_JS = r"""
(el) => {
  const clip = (s, n) => (s || "").replace(/\s+/g, " ").trim().slice(0, n);
  // The first characters of an element's text, read from its first text nodes: an
  // ancestor can be the whole page (a table of thousands of rows), whose innerText
  // would cost as much as the page. Script and style text is left out.
  const head = (e, n) => {
    let out = "";
    const walk = document.createTreeWalker(e, NodeFilter.SHOW_TEXT, {acceptNode: (t) =>
      t.parentElement && ["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE"].includes(t.parentElement.tagName)
        ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT});
    for (let t = walk.nextNode(); t && out.length < 4 * n; t = walk.nextNode()) out += " " + t.nodeValue;
    return clip(out, n);
  };
  const describe = (e, text) => e && e.nodeType === 1 ? {
    tag: e.tagName.toLowerCase(), id: e.id || null, classes: clip(e.className && e.className.baseVal === undefined ? e.className : "", 80),
    role: e.getAttribute("role"), testid: e.getAttribute("data-testid"), name: e.getAttribute("name"),
    text: text(e),
  } : null;
  const visibleText = (e) => clip(e.innerText, 80);  // the target itself: its text as shown
  const firstText = (e) => head(e, 80);
  const ancestors = [];
  for (let p = el.parentElement; p && ancestors.length < 5; p = p.parentElement) ancestors.push(describe(p, firstText));
  const siblings = [];
  for (let c = el.parentElement ? el.parentElement.firstElementChild : null; c && siblings.length < 10; c = c.nextElementSibling) {
    if (c !== el) siblings.push(describe(c, firstText));
  }
  return {target: describe(el, visibleText), ancestors, siblings};
}
"""


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass
class Observation:
    """One look at the page: its signature, the snapshot data and the screenshot bytes."""

    signature: StateSignature
    snapshot: dict[str, Any]
    screenshot: bytes | None

    @property
    def state_key(self) -> str:
        return self.signature.state_key


_TRANSIENT = ("Execution context was destroyed", "Cannot find context", "navigating", "frame was detached")


def _settled(page, fn, attempts: int = 20):
    """Run ``fn`` again while the page is between two documents (a navigation in flight).

    A page that is still between documents after ``attempts`` tries keeps
    navigating (a page that reloads itself forever): CallTimedOut, which the
    executor types as a page that never settled, not a raw navigation error.
    """
    started = time.monotonic()
    for attempt in range(attempts):
        try:
            return fn()
        except Exception as exc:
            if not any(t in str(exc) for t in _TRANSIENT):
                raise
            if attempt == attempts - 1:
                raise CallTimedOut("observation (the page kept navigating)",
                                   int((time.monotonic() - started) * 1000)) from None
            try:
                page.wait_for_load_state("domcontentloaded", timeout=2_000)
            except Exception as exc:
                if is_crash(exc):
                    raise
    raise AssertionError("unreachable")  # pragma: no cover


# Chromium's "Unable to capture screenshot" (Page.captureScreenshot): the compositor
# has no frame to give yet. Seen on the first screenshot of a fresh page when two
# browsers share two busy CPUs (pytest -n 2); a moment later the same capture works.
# "Not attached to an active page": the session's document was swapped by a
# navigation (a page that reloads itself); a new session works.
_SCREENSHOT_TRANSIENT = ("Unable to capture screenshot", "Not attached to an active page", "Session closed")
SCREENSHOT_RETRY_DELAYS_MS = (50, 100, 200, 400, 800)


def _screenshot(page, take) -> tuple[bytes | None, str | None]:
    """``take()`` (the screenshot), retried while Chromium cannot capture one yet.

    Navigation errors are retried by ``_settled`` as for every observation call.
    A transient capture error is retried after 50, 100, 200, 400 and 800 ms; if
    it persists, the observation is recorded without a screenshot (``None``,
    with the error's first line), as ``observe(screenshot=False)`` would: the
    format allows a null ``screenshot_hash``, and a screenshot missing is no
    reason to fail a step of the application under test, let alone to report
    a fault of the plugin. A capture that gets no answer within CAPTURE_MS
    is recorded the same way when the page still runs scripts (a document
    still arriving has no frame to show); when it does not, the page stopped
    answering and CallTimedOut goes up. Crashes propagate.
    """
    for delay_ms in (*SCREENSHOT_RETRY_DELAYS_MS, None):
        try:
            return _settled(page, take), None
        except CallTimedOut as exc:
            if not page_answers(page):
                raise
            return None, str(exc)
        except Exception as exc:
            if is_crash(exc) or not any(t in str(exc) for t in _SCREENSHOT_TRANSIENT):
                raise
            forget_cdp_session(page)
            if delay_ms is None:
                return None, first_line(exc)
            try:  # keeps Playwright's events flowing (a page crash is noticed), unlike a sleep
                page.wait_for_timeout(delay_ms)
            except Exception as exc:
                if is_crash(exc):
                    raise
                time.sleep(delay_ms / 1000)
    raise AssertionError("unreachable")  # pragma: no cover


SETTLE_TIMEOUT_MS = 10_000


def _evaluate_settled(page, script: str, arg: Any) -> Any:
    """``page.evaluate``, bounded: a navigation still pending after SETTLE_TIMEOUT_MS is stopped.

    ``evaluate`` waits for the page's execution context, and a navigation to a
    server that never answers keeps it from existing, for as long as the
    server keeps the connection open. The wait is bounded here (the step's own
    bound around the observation still applies); then the navigation is
    stopped, as the browser's Stop button would, and the page is observed as
    it is.
    """
    try:
        with bound("observation", SETTLE_TIMEOUT_MS):
            return page.evaluate(script, arg)
    except CallTimedOut:
        stop_loading(page)
        with bound("observation", SETTLE_TIMEOUT_MS):
            return page.evaluate(script, arg)


def stop_loading(page: Any) -> bool:
    """Stop the page's pending navigation (the browser's Stop button); True when it was sent."""
    session = cdp_session(page)
    if session is None:
        return False
    try:
        # Served by the browser, not the page: it answers while a navigation is pending.
        with bound("Page.stopLoading", CAPTURE_MS, isolated=True):
            session.send("Page.stopLoading", {})
        return True
    except Exception:
        return False


# The caret, hidden for a capture by a constructed style sheet: not a node in
# the DOM (no mutation observer of the page sees it, page.content() does not
# show it) and not subject to a Content-Security-Policy on inline styles. The
# sheet carries an expando property, by which it is taken away again.
_CARET_OFF_JS = """(() => {
  const sheet = new CSSStyleSheet();
  sheet.replaceSync("*, *::before, *::after { caret-color: transparent !important; }");
  sheet.__cometlocalCaret = true;
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
})()"""
_CARET_ON_JS = """(() => {
  document.adoptedStyleSheets = document.adoptedStyleSheets.filter((s) => !s.__cometlocalCaret);
})()"""

def _send(session, method: str, params: dict[str, Any]) -> dict[str, Any]:
    """A CDP command, bounded: the capture must never wait forever on a stuck renderer."""
    with bound(method, CAPTURE_MS):
        return session.send(method, params)


def _capture(page, masked: bool, caret: bool = True) -> bytes:
    """A viewport PNG of ``page``: CDP's fast capture, or ``page.screenshot`` with the secret mask.

    ``caret`` says a text caret may be on screen (a focused editable element):
    only then is it hidden for the capture, since the style change makes
    Chromium draw a new frame first (about 10-25 ms, benchmarks/RESULTS.md).
    """
    session = None if masked else cdp_session(page)
    if session is None:
        mask = [page.locator("[data-cometlocal-secret]")] if masked else []
        with bound("screenshot", CAPTURE_MS + 500):
            return page.screenshot(type="png", caret="hide", timeout=CAPTURE_MS, mask=mask)
    params = {"format": "png", "optimizeForSpeed": True, "captureBeyondViewport": False}
    if not caret:
        return base64.b64decode(_send(session, "Page.captureScreenshot", params)["data"])
    try:
        _send(session, "Runtime.evaluate", {"expression": _CARET_OFF_JS})
        shot = _send(session, "Page.captureScreenshot", params)
    finally:
        try:
            _send(session, "Runtime.evaluate", {"expression": _CARET_ON_JS})
        except Exception:
            pass
    return base64.b64decode(shot["data"])


def _same_page(previous: "Observation", hashes: dict[str, str], snapshot: dict[str, Any]) -> bool:
    old = previous.signature
    return all(getattr(old, name) == value for name, value in hashes.items()) and previous.snapshot == snapshot


def observe(page, *, screenshot: bool = True, secrets: tuple[str, ...] = (),
            previous: "Observation | None" = None) -> Observation:
    """Capture a StateSignature v1 and the data of a dom_snapshot_partial.

    With ``secrets``, every field or text showing one is masked in the
    screenshot (password fields already show dots), so no screenshot in the
    evidence can show a secret. With ``previous`` (an observation the caller
    knows nothing has acted on the page since), its screenshot is carried over
    when the page's DOM-derived data is unchanged.
    """
    arg = {"maxElements": MAX_ELEMENTS, "secrets": list(secrets) if screenshot else []}
    data = _settled(page, lambda: _evaluate_settled(page, OBSERVE_JS, arg))
    key_json = json.dumps(data["key"], separators=(",", ":"), ensure_ascii=False)
    snapshot = {
        "schema_version": "v1",
        "url": data["url"],
        "title": data["title"],
        "visible_anchors": data["anchors"],
        "visible_inputs": data["inputs"],
    }
    hashes = {
        "url_hash": sha256_text(data["url"]),
        "title_hash": sha256_text(data["title"]),
        "key_elements_hash": sha256_text(key_json),
        "visible_text_hash": sha256_text(data["text"]),
    }
    metadata: dict[str, Any] = {"key_elements": len(data["key"])}
    shot = None
    if screenshot:
        if previous is not None and previous.screenshot is not None and _same_page(previous, hashes, snapshot):
            shot = previous.screenshot
            metadata["screenshot_from"] = "previous_observation"
        else:
            shot, shot_error = _screenshot(page, lambda: _capture(page, masked=bool(data.get("marked")),
                                                                  caret=data.get("caret", True)))
            if shot_error:
                metadata["screenshot_error"] = shot_error
    signature = StateSignature(
        url=data["url"],
        **hashes,
        screenshot_hash=("sha256:" + hashlib.sha256(shot).hexdigest()) if shot is not None else None,
        created_at=utc_now_iso(),
        metadata=metadata,
    )
    return Observation(signature, snapshot, shot)
