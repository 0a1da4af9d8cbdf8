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
from typing import TYPE_CHECKING, Any

from pytest_cometlocal.contract.model.records import StateSignature, dom_key
from pytest_cometlocal.executor.runfolder.clock import utc_now_iso
from pytest_cometlocal.executor.page.screenshots import (
    FRAME_ALGORITHM, FULL_ALGORITHM, PendingFrame, capture_png, grab_frame, retried)
from pytest_cometlocal.executor.page.settle import until_parsed
from pytest_cometlocal.executor.page.settle import evaluate_settled, settled
from pytest_cometlocal.executor.scripts import answer, checked_answer, load_script

if TYPE_CHECKING:
    from playwright.sync_api import Page

__all__ = ["MAX_ELEMENTS", "MAX_TEXT_CHARS", "OBSERVE_JS", "BlankFrames", "Look", "Observation", "PendingObservation",
           "finish", "look_arg", "look_of", "observe", "observe_pending", "same_page", "take_look", "take_pictures"]

MAX_ELEMENTS = 400
# Why an observation of a document that has no <body> yet has no picture (``unpainted``).
UNPAINTED = "no picture: the document has no body yet (a page still arriving is not painted)"
# The visible text hashed for the signature: its first characters, in document order.
MAX_TEXT_CHARS = 20_000

# The one look at the page (scripts/observe.js): its signature's data, the snapshot, the secrets marked.
OBSERVE_JS = load_script(__package__, "observe.js")
# What OBSERVE_JS always answers (executor/scripts.py ``checked_answer``): anything else, a page broke it.
# (``controls``, an object, only when asked for: the fast profile's.)
LOOK_SHAPE: dict[str, Any] = {"url": str, "title": str, "text": str, "key": list, "anchors": list, "inputs": list}


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
    frame: bool = True  # ``screenshot`` is a reduced frame (FRAME_ALGORITHM), not a full-size PNG

    @property
    def state_key(self) -> str:
        return self.signature.state_key

    @property
    def screenshot_is_frame(self) -> bool:
        return self.screenshot is not None and self.frame


class BlankFrames:
    """The frame of an empty about:blank document, by viewport (width, height, pixel ratio, dark scheme).

    Every item's first step starts from one, and its picture is the same each
    time; taking it anew cost a fresh page's first frame, the slowest of all. A
    run's context holds the one its looks use (step/context.py); the pytest
    session hands every run the same (plugin/fixtures.py), and a look given none
    keeps nothing.
    """

    def __init__(self) -> None:
        self._frames: dict[str, bytes] = {}

    def get(self, key: str | None) -> bytes | None:
        return self._frames.get(key) if key else None

    def keep(self, key: str | None, shot: bytes | None) -> None:
        if key and shot is not None:
            self._frames[key] = shot


def _blank_key(data: dict[str, Any]) -> str | None:
    """The key of BlankFrames for a look at an empty about:blank (its viewport), else None."""
    return json.dumps(data["blank"]) if data.get("blank") else None


def _same_page(previous: "Observation", hashes: dict[str, str], snapshot: dict[str, Any]) -> bool:
    old = previous.signature
    return all(getattr(old, name) == value for name, value in hashes.items()) and previous.snapshot == snapshot


def _pictures(page: Page, data: dict[str, Any], full: bool, metadata: dict[str, Any],
              frame_hash: bool = True) -> tuple[bytes | None, bytes | None, str]:
    """The hashed picture, the full-size PNG (when asked for) and the algorithm's name.

    With a secret on screen the hash comes from the masked full-size capture
    (a frame cannot be masked), as it does when there is no DevTools session,
    and when the caller takes the full size anyway and does not need a frame
    (``frame_hash=False``): one capture, which is as fresh (a full capture
    waits for a new frame of its own), instead of two.
    """
    masked = bool(data.get("marked"))
    caret = data.get("caret", True)
    skip = masked or (full and not frame_hash)
    record: dict[str, Any] = {}
    frame, error = (None, None) if skip else retried(page, lambda: grab_frame(page, caret, record))
    if frame is not None and record:
        metadata["screenshot_frame"] = record
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


@dataclass
class Look:
    """The DOM-derived part of an observation: what one evaluate read, hashed (no picture yet)."""

    data: dict[str, Any]
    hashes: dict[str, str]
    snapshot: dict[str, Any]
    metadata: dict[str, Any]

    def again(self) -> "Look":
        """The same read for a second observation (the one read between two steps is the "after" of one
        and the "before" of the next): its own metadata, which each observation writes into."""
        return Look(self.data, self.hashes, self.snapshot, dict(self.metadata))

    @property
    def loading(self) -> bool:
        """The document was still being parsed: not yet a state (``page/settle.py``, ``until_parsed``)."""
        return bool(self.data.get("loading"))

    @property
    def dom_key(self) -> str:
        """The DOM-derived part of the anti-loop key (``StateSignature.dom_key``)."""
        return dom_key(self.hashes["key_elements_hash"], self.hashes["visible_text_hash"])


def take_look(page: Page, secrets: tuple[str, ...] = (), controls: bool = False, wait_ms: float = 0) -> Look:
    """Read the page's signature data and snapshot in one evaluate.

    ``controls`` (the ``fast`` profile) adds the state of the form controls
    among the key elements (value, checked and selected as hashes taken in the
    page, a password or a secret only as "set") and which one has focus, to
    the key elements' hash: a run of fills on one form is then not one state.
    A document still being parsed is read again once it is, for up to ``wait_ms``
    (``page/settle.py``, ``until_parsed``).
    """
    arg = look_arg(secrets, controls)
    return until_parsed(page, lambda: look_of(answer("observation", lambda: settled(
        page, lambda: evaluate_settled(page, OBSERVE_JS, arg))), controls), lambda look: look, wait_ms)


def look_arg(secrets: tuple[str, ...], controls: bool) -> dict[str, Any]:
    """The argument of OBSERVE_JS."""
    return {"maxElements": MAX_ELEMENTS, "maxTextChars": MAX_TEXT_CHARS, "secrets": list(secrets), "controls": controls}


def look_of(data: dict[str, Any] | str, controls: bool) -> Look:
    """The Look of what OBSERVE_JS returned, its JSON text or parsed (``take_look`` reads it; the fast profile's
    target match reads it too); an answer without its shape is PageTampered."""
    data = checked_answer("observation", data, {**LOOK_SHAPE, "controls": dict} if controls else LOOK_SHAPE)
    key = [data["key"], data["controls"]] if controls else data["key"]
    key_json = json.dumps(key, separators=(",", ":"), ensure_ascii=False)
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
    return Look(data, hashes, snapshot, metadata)


def take_pictures(page: Page, seen: Look, full: bool, frame_hash: bool = True,
                  blanks: BlankFrames | None = None) -> tuple[bytes | None, bytes | None, str]:
    """The hashed picture of the page ``seen`` read (a fresh one), a full-size PNG if ``full``, the method.

    ``frame_hash=False`` with ``full``: the hash is the full-size PNG's (method ``v1``), no frame is taken.
    ``blanks``: the frames of empty pages already taken, and where this one's is kept.
    """
    blanks = blanks if blanks is not None else BlankFrames()
    data, metadata = seen.data, seen.metadata
    if data.get("unpainted"):
        metadata["screenshot_error"] = UNPAINTED
        return None, None, FRAME_ALGORITHM
    blank = _blank_key(data)
    kept = blanks.get(blank)
    if kept is not None and not full:
        metadata["screenshot_from"] = "blank_page"
        return kept, None, FRAME_ALGORITHM
    shot, png, algorithm = _pictures(page, data, full, metadata, frame_hash)
    if algorithm == FRAME_ALGORITHM:
        blanks.keep(blank, shot)
    return shot, png, algorithm


def same_page(previous: "Observation", seen: Look) -> bool:
    """``previous`` read exactly what ``seen`` read (its picture can stand for this look's)."""
    return _same_page(previous, seen.hashes, seen.snapshot)


def finish(seen: Look, shot: bytes | None, png: bytes | None, method: str, algorithm: str | None = None) -> Observation:
    """The observation of ``seen`` with its pictures; ``algorithm`` overrides the signature's (a profile's own)."""
    signature = StateSignature(
        algorithm_version=algorithm or method,
        url=seen.data["url"],
        **seen.hashes,
        screenshot_hash=("sha256:" + hashlib.sha256(shot).hexdigest()) if shot is not None else None,
        created_at=utc_now_iso(),
        metadata=seen.metadata,
    )
    return Observation(signature, seen.snapshot, shot, png, frame=method == FRAME_ALGORITHM)


def observe(page: Page, *, screenshot: bool = True, secrets: tuple[str, ...] = (),
            previous: "Observation | None" = None, full: bool = False, seen: Look | None = None,
            blanks: BlankFrames | None = None) -> Observation:
    """Capture a StateSignature and the data of a dom_snapshot_partial.

    With ``secrets``, every field or text showing one is masked in the
    pictures (password fields already show dots), so no picture in the
    evidence can show a secret. With ``previous`` (an observation the caller
    knows nothing has acted on the page since), its frame is carried over
    when the page's DOM-derived data is unchanged. With ``full``, a full-size
    PNG is taken as well (``Observation.full``). ``seen``: the look, when the caller has just read it
    (with the same ``secrets``). ``blanks``: the run's frames of empty pages (BlankFrames).
    """
    if seen is None:
        seen = take_look(page, secrets if screenshot else ())
    if not screenshot:
        return finish(seen, None, None, FRAME_ALGORITHM)
    if previous is not None and previous.screenshot is not None and not full and same_page(previous, seen):
        seen.metadata["screenshot_from"] = "previous_observation"
        return finish(seen, previous.screenshot, None, FRAME_ALGORITHM if previous.frame else FULL_ALGORITHM)
    return finish(seen, *take_pictures(page, seen, full, blanks=blanks))


@dataclass
class PendingObservation:
    """A look whose picture is under way (``take_pictures`` split in two): the caller does read-only
    work meanwhile, then ``result`` gives the observation; ``cancel`` when it is not needed."""

    page: Page
    seen: Look
    frame: PendingFrame | None = None
    ready: Observation | None = None
    blanks: BlankFrames | None = None  # where an empty page's frame is kept once it arrives

    @property
    def waiting(self) -> bool:
        return self.frame is not None

    def result(self) -> Observation:
        if self.ready is not None:
            return self.ready
        frame, self.frame = self.frame, None
        assert frame is not None
        shot, error = retried(self.page, frame.result)  # a retry after the first call takes a frame of its own
        if error:
            self.seen.metadata["screenshot_error"] = error
        elif shot is not None and frame.record:
            self.seen.metadata["screenshot_frame"] = frame.record
        if self.blanks is not None:
            self.blanks.keep(_blank_key(self.seen.data), shot)
        self.ready = finish(self.seen, shot, None, FRAME_ALGORITHM)
        return self.ready

    def cancel(self) -> None:
        if self.frame is not None:
            self.frame.cancel()
            self.frame = None

    def abandon(self, why: str) -> Observation:
        """The observation without its picture, asking the page nothing more (it stopped answering)."""
        self.frame = None
        self.seen.metadata["screenshot_error"] = why
        self.ready = finish(self.seen, None, None, FRAME_ALGORITHM)
        return self.ready


def observe_pending(page: Page, secrets: tuple[str, ...] = (), blanks: BlankFrames | None = None,
                    seen: Look | None = None) -> PendingObservation:
    """``observe`` with its frame requested, not waited for: a page showing a secret, one not painted,
    an empty document already seen or no DevTools protocol get their (whole) observation at once.
    ``seen``: the look, when the caller has just read it (with the same ``secrets``)."""
    seen = seen if seen is not None else take_look(page, secrets)
    data = seen.data
    blanks = blanks if blanks is not None else BlankFrames()
    if not (data.get("marked") or data.get("unpainted") or blanks.get(_blank_key(data)) is not None):
        pending = PendingFrame.request(page, data.get("caret", True))
        if pending.session is not None:
            return PendingObservation(page, seen, frame=pending, blanks=blanks)
    return PendingObservation(page, seen, ready=finish(seen, *take_pictures(page, seen, False, blanks=blanks)))
