"""What the executor writes: state signatures, evidence refs, errors, trace events.

These models are the schema of ``trace.jsonl`` lines and of the typed error a
failed step raises. They are built by code, never parsed from user files, so
they are frozen and closed but not strict.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, model_serializer

from pytest_cometlocal.contract.model.base import RecordModel
from pytest_cometlocal.contract.model.codes import Criticality, ErrorCode, Severity, Stage

SHA256_HEX = r"^[0-9a-f]{64}$"
PREFIXED_SHA256 = r"^sha256:[0-9a-f]{64}$"


def dom_key(key_elements_hash: str, visible_text_hash: str) -> str:
    """The DOM-derived part of the anti-loop key (the fast profile compares it before any picture)."""
    return f"{key_elements_hash}:{visible_text_hash}"


class StateSignature(RecordModel):
    """StateSignature v1: a comparable fingerprint of what the page showed."""

    schema_version: Literal["v1"] = "v1"
    # v1: full-size PNG; v2-frame-320: a reduced frame; v3-fast-dom: the fast profile (controls in the
    # key elements, a picture only where it decides: docs/trace-and-evidence.md).
    algorithm_version: Literal["v1", "v2-frame-320", "v3-fast-dom"] = "v1"
    url: str
    url_hash: str
    title_hash: str
    key_elements_hash: str
    visible_text_hash: str
    screenshot_hash: Annotated[str, Field(pattern=PREFIXED_SHA256)] | None
    created_at: str
    metadata: dict[str, Any] = {}

    @property
    def state_key(self) -> str:
        """The anti-loop key of the trace contract."""
        return f"{self.dom_key}:{self.screenshot_hash}"

    @property
    def dom_key(self) -> str:
        """The DOM-derived part of the anti-loop key: the state key without its picture."""
        return dom_key(self.key_elements_hash, self.visible_text_hash)


EvidenceKind = Literal[
    "dom_snapshot_partial",
    "state_signature",
    "html_full",
    "screenshot",
    "validation_report",
    "inspection_report",
    "download",
    "console_log",
    "playwright_trace",
    "video",  # a page's video (--cometlocal-video): plugin/reporting/pwvideo.py
    "http_exchange",  # (v1.2) a request step's request and response, masked
    "aria_snapshot",  # a failure's page as Playwright's aria snapshot, masked and cut at 20 KB
    "extension",  # (extensions) a file an extension attached (ctx.evidence.attach), or its traceback, masked
]


class EvidenceRef(RecordModel):
    """EvidenceRef v1: one evidence file, relative to the run folder, with its hash.

    A download stored with its secrets masked also has ``original_sha256`` (of
    the bytes as downloaded), ``masked: true`` and ``masked_count``; any other
    file has none of the three, not even as null.
    """

    kind: EvidenceKind
    uri: str
    sha256: Annotated[str, Field(pattern=SHA256_HEX)]
    size_bytes: Annotated[int, Field(ge=0)] | None = None
    step_id: str | None = None
    metadata: dict[str, Any] = {}
    original_sha256: Annotated[str, Field(pattern=SHA256_HEX)] | None = None
    masked: Literal[True] | None = None
    masked_count: Annotated[int, Field(ge=1)] | None = None

    @model_serializer(mode="wrap")
    def _masking_only_when_masked(self, handler: Any) -> dict[str, Any]:
        data = handler(self)
        if self.masked is None:
            for key in ("original_sha256", "masked", "masked_count"):
                data.pop(key, None)
        return data


class WithheldEvidence(RecordModel):
    """A file the run received but did not store: a binary download holding a secret.

    ``evidence_manifest.json`` lists it in its place, with ``uri`` and
    ``sha256`` null, the hash and size of the bytes as received, and why in
    ``details.evidence_gaps`` (``[{kind, reason}]``). No trace event refers to it.
    """

    kind: EvidenceKind
    step_id: str | None
    size_bytes: Annotated[int, Field(ge=0)]
    original_sha256: Annotated[str, Field(pattern=SHA256_HEX)]
    metadata: dict[str, Any] = {}
    details: dict[str, Any] = {}


class FailedCondition(RecordModel):
    """One condition that did not hold, with what was observed instead."""

    kind: str
    args: dict[str, Any] = {}
    phase: Literal["pre", "post", "assert"]
    severity: Severity = "error"
    observed: Any = None


class ExecutorError(RecordModel):
    """ExecutorError v1: every failure of a run, typed and reproducible.

    Step fields are required keys but may be ``null`` when there is no step
    (an invalid plan is rejected before any step exists).
    """

    schema_version: Literal["v1"] = "v1"
    error_code: ErrorCode
    stage: Stage
    severity: Severity
    message: str
    retryable: bool
    run_id: str
    seq: Annotated[int, Field(ge=1)]
    step_index: Annotated[int, Field(ge=0)] | None
    action_id: str | None
    action_kind: str | None
    criticality: Criticality | None
    state_before: StateSignature | None
    evidence_refs: Annotated[list[EvidenceRef], Field(min_length=1)]
    created_at: str
    state_after: StateSignature | None = None
    cause: str | None = None
    details: dict[str, Any] = {}
    debug_message: str | None = None
    failed_conditions: list[FailedCondition] = []


MANDATORY_EVENTS: tuple[str, ...] = (
    "run_started", "run_finished", "observation_captured",
    "proposal_received", "proposal_accepted", "proposal_rejected",
    "action_compiled", "preconditions_checked", "action_started", "action_executed",
    "postconditions_checked", "assert_checked", "retry_scheduled", "backoff_applied",
    "recovery_started", "recovery_finished", "policy_halt", "evidence_captured", "error_raised",
)
# (v1.2) page_opened: a page a step opened (a popup, a new tab), its URL masked.
# (v1.2) request_stubbed: a request one of the plan's routes answered or aborted, its URL masked.
# (extensions) extension_log: a line an extension logged (ctx.log), masked.
EXTENSION_EVENTS: tuple[str, ...] = ("inspection_started", "inspection_finished", "page_opened", "request_stubbed",
                                     "extension_log")

EventType = Literal[MANDATORY_EVENTS + EXTENSION_EVENTS]  # type: ignore[valid-type]


class TraceEvent(RecordModel):
    """TraceEvent v1: one line of ``trace.jsonl``."""

    run_id: str
    seq: Annotated[int, Field(ge=1)]
    ts_utc: str
    event_type: EventType
    step_id: str | None
    state_signature_before: StateSignature | None = None
    state_signature_after: StateSignature | None = None
    action_spec: dict[str, Any] | None = None
    result: dict[str, Any] | None = None
    error: ExecutorError | None = None
    evidence_refs: list[EvidenceRef] = []
    metadata: dict[str, Any] = {}
