"""What an extension's callable gets: a narrow, typed context, not the executor's internals.

``ExtensionContext`` holds the active page and its browser context (whose routes are the network
guard's: whatever the page sends is still held to the allowlist), the validated args with secrets
resolved, the step's element when it has one, an evidence store that masks and hashes what it is
given, a log whose lines go into the trace masked, and the time left of the step. docs/extensions.md
is its contract; ``ExtensionIO`` is what the executor hands over to build one.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Locator, Page

    from pytest_cometlocal.contract.model.records import EvidenceRef
    from pytest_cometlocal.executor.runfolder.folder import RunFolder

AttachKind = Literal["text", "json", "binary", "image"]
ATTACH_KINDS: tuple[str, ...] = ("text", "json", "binary", "image")
# One attachment may hold this much; a log line this many characters (both are masked first).
ATTACH_MAX_BYTES = 5 * 1024 * 1024
LOG_MAX_CHARS = 2_000
_SAFE = re.compile(r"[^A-Za-z0-9_.-]+")


@dataclass
class ExtensionIO:
    """The run's parts an extension's context writes through, for one step's attempt."""

    run: RunFolder
    step_id: str
    tag: str  # the attempt's evidence prefix: step_003, step_003_a2
    evidence: list[EvidenceRef]  # the attempt's evidence refs: an attachment joins them
    deadline: float  # time.monotonic() at which the step's time for this phase is up
    attached: list[str] = field(default_factory=list)


class Evidence:
    """``ctx.evidence.attach(name, data, kind)``: a file in the run's evidence, masked and hashed."""

    def __init__(self, io: ExtensionIO, kind_name: str):
        self._io, self._kind = io, kind_name

    def attach(self, name: str, data: bytes | str, kind: AttachKind = "text") -> str:
        """Store ``data`` as ``evidence/extensions/<step>_<name>``; returns that path in the run folder.
        Text and JSON are masked like every evidence file; so are bytes (the secrets' bytes are replaced)."""
        if kind not in ATTACH_KINDS:
            raise ValueError(f"kind must be one of {', '.join(ATTACH_KINDS)}, not {kind!r}")
        if kind == "json" and not isinstance(data, (bytes, str)):
            data = json.dumps(data, ensure_ascii=False, indent=2, default=str)
        raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
        if len(raw) > ATTACH_MAX_BYTES:
            raise ValueError(f"an attachment holds at most {ATTACH_MAX_BYTES} bytes, not {len(raw)}")
        safe = _SAFE.sub("_", str(name)).strip("._")[:80] or "attachment"
        count = len(self._io.attached) + 1
        ref = self._io.run.evidence.add_bytes(
            "extension", f"extensions/{self._io.tag}_{count:02d}_{safe}", raw, step_id=self._io.step_id,
            metadata={"name": str(name)[:200], "attach_kind": kind, "extension": self._kind})
        self._io.evidence.append(ref)
        self._io.attached.append(ref.uri)
        return ref.uri


class ExtensionContext:
    """The context of one call of an extension's ``perform`` or ``check`` (docs/extensions.md)."""

    def __init__(self, *, page: Page, args: BaseModel, target: Locator | None, kind: str, phase: str,
                 io: ExtensionIO):
        self.page = page
        self.args = args
        self.target = target
        self.kind = kind
        self.phase = phase  # "action", "pre" or "post"
        self.step_id = io.step_id
        self.evidence = Evidence(io, kind)
        self._io = io

    @property
    def context(self) -> BrowserContext:
        """The page's browser context (its cookies, its other pages); its requests meet the guard too."""
        return self.page.context

    @property
    def remaining_ms(self) -> int:
        """What is left of the step's time for this call (0 when it is up)."""
        return max(0, int((self._io.deadline - time.monotonic()) * 1000))

    def log(self, message: str, **fields: Any) -> None:
        """A trace line (``extension_log``), masked like every trace line; ``fields`` must be JSON values."""
        safe_fields = json.loads(json.dumps(fields, default=str, allow_nan=False)) if fields else {}
        self._io.run.trace.emit("extension_log", self._io.step_id, metadata={
            "kind": self.kind, "phase": self.phase, "message": str(message)[:LOG_MAX_CHARS], **(
                {"fields": safe_fields} if safe_fields else {})})
