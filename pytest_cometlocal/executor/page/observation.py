"""Observations: the state signature and the partial DOM snapshot of a page.

One ``evaluate`` collects everything the signature and the snapshot need
(title, visible text, the structure of interactive elements, visible anchors
and inputs) and marks the elements showing a secret; one screencast frame
gives the screenshot hash (``screenshots.py``: how, and why it is fresh).
Values of hidden and password inputs never leave the page: the structure used
for ``key_elements_hash`` has no values at all, and the snapshot masks them.

An observation taken right after another, with nothing done to the page in
between (the executor checks that no request started and no download
arrived) and the same DOM-derived data, carries the previous frame over
instead of taking a new one; its signature says so
(``metadata.screenshot_from``). A full-size screenshot is taken only when the
caller asks for it (``full``: critical steps and failures, whose evidence it
is).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from pytest_cometlocal.contract.model.records import StateSignature
from pytest_cometlocal.executor.runfolder.clock import utc_now_iso
from pytest_cometlocal.executor.page.screenshots import FRAME_ALGORITHM, FULL_ALGORITHM, capture_png, grab_frame, retried
from pytest_cometlocal.executor.page.settle import evaluate_settled, settled

__all__ = ["MAX_ELEMENTS", "MAX_TEXT_CHARS", "OBSERVE_JS", "TARGET_CONTEXT_JS", "Observation", "observe"]

MAX_ELEMENTS = 400
# Why an observation of a document that has no <body> yet has no picture (``unpainted``).
UNPAINTED = "no picture: the document has no body yet (a page still arriving is not painted)"
# The visible text hashed for the signature: its first characters, in document order.
MAX_TEXT_CHARS = 20_000

OBSERVE_JS = r"""
({maxElements, maxTextChars, secrets}) => {
  const clip = (s, n) => (s || "").replace(/\s+/g, " ").trim().slice(0, n);
  const visible = (el) => {
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) return false;
    const st = getComputedStyle(el);
    return st.visibility !== "hidden" && st.display !== "none";
  };
  // The labels of a control, as el.labels gives them (labels whose control it is, in
  // document order): el.labels walks the whole document on every call, and reading
  // label.control for every label of a large page costs as much. So: the for= labels
  // by the id they name, one pass reading an attribute; the wrapping label by
  // closest(); label.control only for those few candidates.
  const labelsFor = new Map();
  for (const l of document.getElementsByTagName("label")) {
    const id = l.getAttribute("for");
    if (id) (labelsFor.get(id) || labelsFor.set(id, []).get(id)).push(l);
  }
  const labelsOf = (el) => {
    const found = [];
    if (el.id && document.getElementById(el.id) === el) found.push(...(labelsFor.get(el.id) || []));
    const wrapping = el.parentElement && el.parentElement.closest("label");
    if (wrapping && !wrapping.hasAttribute("for") && wrapping.control === el) found.push(wrapping);
    return found.length > 1
      ? found.sort((a, b) => a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1) : found;
  };
  // Text as shown, read from text nodes in document order until a cap: an element's
  // innerText (and the body's) costs as much as its whole subtree, and a [role=main] or
  // the body can be the whole page. A text node counts when its element is rendered and
  // not visibility:hidden (checkVisibility); script and style text never does.
  const unshownTags = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE"]);
  let lastParent = null, lastShown = false;
  const shown = (p) => {
    if (p !== lastParent) {
      lastParent = p;
      lastShown = p.checkVisibility ? p.checkVisibility({visibilityProperty: true}) : !!(p.offsetParent || p.getClientRects().length);
    }
    return lastShown;
  };
  const shownText = (root, maxChars, maxNodes, sep) => {
    const out = [];
    let chars = 0, nodes = 0;
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    let t = walker.nextNode();
    for (; t && chars < maxChars && nodes < maxNodes; t = walker.nextNode(), nodes++) {
      const s = t.nodeValue, p = t.parentElement;
      if (!p || unshownTags.has(p.tagName) || !s.trim() || !shown(p)) continue;
      out.push(s);
      chars += s.length;
    }
    return {text: out.join(sep).slice(0, maxChars), capped: !!t};
  };
  const shortText = (el) => shownText(el, 320, 64, " ").text;
  const labelOf = (el) => {
    if (el.getAttribute("aria-label")) return el.getAttribute("aria-label");
    const by = el.getAttribute("aria-labelledby");
    if (by) return by.split(/\s+/).map(id => (document.getElementById(id) || {}).textContent || "").join(" ");
    const labels = labelsOf(el);
    if (labels.length) return labels.map(l => l.textContent).join(" ");
    if (["INPUT", "SELECT", "TEXTAREA"].includes(el.tagName)) return el.getAttribute("placeholder") || el.getAttribute("title") || "";
    return shortText(el) || el.getAttribute("title") || el.getAttribute("alt") || "";
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
      anchors.push({text: clip(shortText(el), 80), href: el.getAttribute("href"), testid: el.getAttribute("data-testid")});
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
  // A text caret that does not blink: a blinking one would give two pictures of the
  // same page two hashes. A constructed style sheet (not a node in the DOM, not subject
  // to a Content-Security-Policy on inline styles), added once per document and kept:
  // hiding the caret for each picture instead made the browser restyle and repaint
  // the page twice per picture, which on large pages cost more than the rest of a step.
  const steadyCaret = typeof CSS !== "undefined" && CSS.supports("caret-animation", "manual");
  if (steadyCaret && !document.adoptedStyleSheets.some((s) => s.__cometlocalSteadyCaret)) {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(":focus, :focus * { caret-animation: manual !important; }");
    sheet.__cometlocalSteadyCaret = true;
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
  }
  // Without it (an older browser): whether a caret can be on screen, to hide it for the
  // picture. Only in a focused editable element.
  const noCaret = ["button", "submit", "reset", "checkbox", "radio", "range", "color", "file", "image", "hidden"];
  const active = document.activeElement;
  const caret = !steadyCaret && (document.designMode === "on" || (!!active && (active.isContentEditable || active.tagName === "TEXTAREA" ||
    (active.tagName === "INPUT" && !noCaret.includes((active.getAttribute("type") || "").toLowerCase())))));
  // One JSON string: Playwright's serialisation of a nested object costs several
  // times what building it does (hundreds of small objects at 400 elements).
  // A fresh page's empty document (about:blank, as a new page starts): its picture
  // depends only on the viewport, which is given with it.
  const root = document.documentElement;
  const blank = location.href === "about:blank" && !!root && root.innerHTML === "<head></head><body></body>"
    ? [innerWidth, innerHeight, devicePixelRatio, matchMedia("(prefers-color-scheme: dark)").matches] : null;
  // A document whose parser has not reached <body> (a page still arriving, or one whose
  // arrival was stopped before it) is never painted: no frame can come, so the executor
  // does not wait for one (a body removed by a script later is a page that was painted).
  const unpainted = document.contentType === "text/html" && !document.body
    && (document.readyState === "loading" || !performance.getEntriesByType("paint").length);
  const pageText = document.body ? shownText(document.body, maxTextChars, 4 * maxTextChars, " ") : {text: "", capped: false};
  return JSON.stringify({
    blank,
    url: location.href,
    title: document.title,
    text: pageText.text,
    textCapped: pageText.capped,
    key,
    anchors,
    inputs,
    marked,
    caret,
    unpainted,
  });
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
    """One look at the page: its signature, the snapshot data and its pictures.

    ``screenshot`` is the picture the hash was computed from (a JPEG frame, or
    a PNG when the signature's algorithm is ``v1``); ``full`` a full-size PNG
    when one was asked for.
    """

    signature: StateSignature
    snapshot: dict[str, Any]
    screenshot: bytes | None
    full: bytes | None = None

    @property
    def state_key(self) -> str:
        return self.signature.state_key

    @property
    def screenshot_is_frame(self) -> bool:
        return self.signature.algorithm_version == FRAME_ALGORITHM


# The frame of an empty about:blank document, by viewport (width, height, pixel ratio,
# dark scheme): every item's first step starts from one, and its picture is the same
# each time; taking it anew cost a fresh page's first frame, the slowest of all.
_BLANK_FRAMES: dict[str, bytes] = {}


def _same_page(previous: "Observation", hashes: dict[str, str], snapshot: dict[str, Any]) -> bool:
    old = previous.signature
    return all(getattr(old, name) == value for name, value in hashes.items()) and previous.snapshot == snapshot


def _pictures(page: Any, data: dict[str, Any], full: bool, metadata: dict[str, Any]) -> tuple[bytes | None, bytes | None, str]:
    """The hashed picture, the full-size PNG (when asked for) and the algorithm's name.

    With a secret on screen the hash comes from the masked full-size capture
    (a frame cannot be masked), as it does when there is no DevTools session.
    """
    masked = bool(data.get("marked"))
    caret = data.get("caret", True)
    frame, error = (None, None) if masked else retried(page, lambda: grab_frame(page, caret))
    if frame is not None or error is not None:
        png = None
        if full:
            png, full_error = retried(page, lambda: capture_png(page, False, caret))
            if full_error:
                metadata["full_screenshot_error"] = full_error
        if error:
            metadata["screenshot_error"] = error
        return frame, png, FRAME_ALGORITHM
    png, error = retried(page, lambda: capture_png(page, masked, caret))
    if error:
        metadata["screenshot_error"] = error
    return png, png, FULL_ALGORITHM


def observe(page, *, screenshot: bool = True, secrets: tuple[str, ...] = (),
            previous: "Observation | None" = None, full: bool = False) -> Observation:
    """Capture a StateSignature and the data of a dom_snapshot_partial.

    With ``secrets``, every field or text showing one is masked in the
    pictures (password fields already show dots), so no picture in the
    evidence can show a secret. With ``previous`` (an observation the caller
    knows nothing has acted on the page since), its frame is carried over
    when the page's DOM-derived data is unchanged. With ``full``, a full-size
    PNG is taken as well (``Observation.full``).
    """
    arg = {"maxElements": MAX_ELEMENTS, "maxTextChars": MAX_TEXT_CHARS, "secrets": list(secrets) if screenshot else []}
    data = json.loads(settled(page, lambda: evaluate_settled(page, OBSERVE_JS, arg)))
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
    if data.get("textCapped"):
        metadata["visible_text_capped"] = MAX_TEXT_CHARS
    shot = png = None
    algorithm = FRAME_ALGORITHM
    if screenshot:
        if (previous is not None and previous.screenshot is not None and not full
                and _same_page(previous, hashes, snapshot)):
            shot, algorithm = previous.screenshot, previous.signature.algorithm_version
            metadata["screenshot_from"] = "previous_observation"
        elif data.get("unpainted"):
            metadata["screenshot_error"] = UNPAINTED
        elif data.get("blank") and not full and json.dumps(data["blank"]) in _BLANK_FRAMES:
            shot = _BLANK_FRAMES[json.dumps(data["blank"])]
            metadata["screenshot_from"] = "blank_page"
        else:
            shot, png, algorithm = _pictures(page, data, full, metadata)
            if data.get("blank") and shot is not None and algorithm == FRAME_ALGORITHM:
                _BLANK_FRAMES[json.dumps(data["blank"])] = shot
    signature = StateSignature(
        algorithm_version=algorithm,
        url=data["url"],
        **hashes,
        screenshot_hash=("sha256:" + hashlib.sha256(shot).hexdigest()) if shot is not None else None,
        created_at=utc_now_iso(),
        metadata=metadata,
    )
    return Observation(signature, snapshot, shot, png)
