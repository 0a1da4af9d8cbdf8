"""The floors' reads and pictures, made by hand with the plugin's own scripts (real_flow.py, site.py).

Why: issue 38 asks that a goal out of reach name the cost in the way, measured.
A hand-written flow that also makes the page reads (and, for ``balanced``, the
pictures) an executor cannot do without, and nothing else, is that cost: the
plan's ratio to it is the executor's own share. Imported by the hand-written
tests the benchmarks generate (the inner pytest processes import the side's
``pytest_cometlocal``); nothing here runs in the controller.

``Floor.read``: the one read between two steps (step N's "after", step N+1's
"before" with N+1's target matched: ``match_observe.js`` through
``locator.evaluate_all``, or ``observe.js`` through ``page.evaluate`` when N+1
has no target). With ``pictures``, each read is followed by the picture
``balanced`` takes of that state, the way ``observation.take_pictures`` takes it
(no full-size PNG): a fresh screencast frame (``screenshots.grab_frame``: the
fence, then the first frame, a JPEG of at most 320 px) and its sha256; the
masked full-size capture when a secret is on screen; nothing for a document
not painted yet; the empty page's frame once per process (BlankFrames); the
previous picture when the read is the previous one exactly (the executor
carries it over: nothing was done to the page in between).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any


class Floor:
    """One hand-written flow's reads (``arg``: OBSERVE_JS's argument) and, with ``pictures``, their pictures."""

    blanks: dict[str, str | None] = {}  # the empty page's picture, per process, as the plugin's session keeps it

    def __init__(self, arg: dict[str, Any], pictures: bool) -> None:
        from pytest_cometlocal.executor.page.locators import _MATCH_OBSERVE_JS
        from pytest_cometlocal.executor.page.observation import OBSERVE_JS

        self.arg, self.pictures = arg, pictures
        self.match_observe_js, self.observe_js = _MATCH_OBSERVE_JS, OBSERVE_JS
        self.last_look: str | None = None
        self.last_hash: str | None = None
        self.hashes: list[str | None] = []  # one per read: what the pictures were (a flow can check them)

    def read(self, page: Any, locator: Any = None) -> None:
        """The one read (with ``locator``'s match when the next step has a target), then its picture."""
        if locator is None:
            look = page.evaluate(self.observe_js, self.arg)
        else:
            look = json.loads(locator.evaluate_all(self.match_observe_js, self.arg))["look"]
        if self.pictures:
            self.hashes.append(self.picture(page, look))

    def picture(self, page: Any, look: str | dict[str, Any]) -> str | None:
        """The sha256 of the picture ``balanced`` takes of the state ``look`` read (see the module's docstring)."""
        from pytest_cometlocal.executor.page.screenshots import capture_png, grab_frame, retried

        text = look if isinstance(look, str) else json.dumps(look, sort_keys=True)
        if text == self.last_look:
            return self.last_hash
        data = json.loads(text)
        blank = json.dumps(data["blank"]) if data.get("blank") else None
        caret = data.get("caret", True)
        if data.get("unpainted"):
            digest = None
        elif blank is not None and blank in self.blanks:
            digest = self.blanks[blank]
        else:
            take = (lambda: capture_png(page, True, caret)) if data.get("marked") else (lambda: grab_frame(page, caret))
            shot, _error = retried(page, take)
            digest = hashlib.sha256(shot).hexdigest() if shot is not None else None
            if blank is not None:
                self.blanks[blank] = digest
        self.last_look, self.last_hash = text, digest
        return digest


__all__ = ["Floor"]
