"""One folder per run: run_manifest.json, trace.jsonl, evidence_manifest.json, evidence/.

Folders are created with ``exist_ok=False`` under a unique run id, so parallel
workers and reruns never share or wipe one. The manifest is written when the
run starts and rewritten (atomically) when it finishes, redacted like every
other file of the run.

A run also keeps a small reserve file (``.reserve``, RESERVE_BYTES) while it is
open. When the disk fills up during the run, the executor frees it and so
still has room to record OUTPUT_WRITE_FAILED, run_finished and the final
manifest. It is removed when the run finishes.
"""

from __future__ import annotations

import os
import platform
import re
import secrets as _secrets
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

from pytest_cometlocal import __version__
from pytest_cometlocal.contract.model.actionspec import FORMAT_VERSIONS
from pytest_cometlocal.contract.model.records import TraceEvent
from pytest_cometlocal.contract.model.plan import Policy
from pytest_cometlocal.contract.run_folder import RUN_MANIFEST, TRACE
from pytest_cometlocal.executor.runfolder.clock import utc_now_iso
from pytest_cometlocal.executor.runfolder.evidence_store import EvidenceStore, write_json_atomic
from pytest_cometlocal.executor.errors import OutputWriteFailed
from pytest_cometlocal.executor.runfolder.redactor import Redactor
from pytest_cometlocal.executor.runfolder.trace_writer import TraceWriter

RESERVE = ".reserve"
RESERVE_BYTES = 64 * 1024


def new_run_id(name: str) -> str:
    """Sortable, readable and unique without coordination between processes."""
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:40] or "plan"
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    return f"{stamp}-{slug}-{_secrets.token_hex(4)}"


@dataclass
class RunFolder:
    """The artifacts of one run, open for writing."""

    path: Path
    run_id: str
    manifest: dict[str, Any]
    trace: TraceWriter
    evidence: EvidenceStore
    redactor: Redactor = field(default_factory=Redactor)

    @classmethod
    def create(
        cls,
        output: Path,
        name: str,
        *,
        mode: str,
        policy: Policy,
        allowlist: tuple[str, ...] | list[str],
        plan_info: dict[str, Any],
        redactor: Redactor | None = None,
        profile: dict[str, Any] | None = None,
        extra: dict[str, Any] | None = None,
        format_versions: list[str] | tuple[str, ...] | None = None,
        listeners: Iterable[Callable[[TraceEvent], None]] = (),
    ) -> "RunFolder":
        redactor = redactor or Redactor()
        try:
            output.mkdir(parents=True, exist_ok=True)
        except OSError as exc:  # a file in the way, a read-only file system, no permission
            raise OutputWriteFailed(output, exc) from None
        for _ in range(5):
            run_id = new_run_id(name)
            path = output / run_id
            try:
                path.mkdir(exist_ok=False)
                break
            except FileExistsError:  # pragma: no cover - 32 random bits
                continue
            except OSError as exc:
                raise OutputWriteFailed(path, exc) from None
        else:  # pragma: no cover
            raise RuntimeError("could not create a unique run folder")
        try:
            return cls._open(path, run_id, name, mode=mode, policy=policy, allowlist=allowlist, plan_info=plan_info,
                             redactor=redactor, profile=profile, extra=extra, format_versions=format_versions,
                             listeners=listeners)
        except OutputWriteFailed:
            # Not even the start of the run fits: remove the folder this call made
            # rather than leave one that cannot verify.
            shutil.rmtree(path, ignore_errors=True)
            raise

    @classmethod
    def _open(cls, path: Path, run_id: str, name: str, *, mode: str, policy: Policy,
              allowlist: tuple[str, ...] | list[str], plan_info: dict[str, Any], redactor: Redactor,
              profile: dict[str, Any] | None, extra: dict[str, Any] | None,
              format_versions: list[str] | tuple[str, ...] | None,
              listeners: Iterable[Callable[[TraceEvent], None]]) -> "RunFolder":
        try:
            with open(path / RESERVE, "wb") as fh:
                fh.write(bytes(RESERVE_BYTES))  # written, not sparse: the space is really taken
        except OSError as exc:
            raise OutputWriteFailed(path / RESERVE, exc) from None
        manifest: dict[str, Any] = {
            "schema_version": "v1",
            "run_id": run_id,
            "started_at": utc_now_iso(),
            "finished_at": None,
            "status": "running",
            "execution_profile": profile or {"name": "default"},
            "execution_mode": mode,
            "policy_defaults": Policy().model_dump(mode="json"),
            "policy": policy.model_dump(mode="json"),
            "app_version": {"pytest_cometlocal": __version__},
            "platform": {
                "python": platform.python_version(),
                "system": platform.platform(),
                "pid": os.getpid(),
                "worker": os.environ.get("PYTEST_XDIST_WORKER"),
            },
            "domain_allowlist": list(allowlist),
            "redaction_policy": redactor.describe(),
            "plan": plan_info,
        }
        if format_versions is not None:  # the plan formats its steps use (docs/trace-and-evidence.md)
            manifest["format_versions"] = list(format_versions)
        if extra:
            manifest.update(extra)
        write_json_atomic(path / RUN_MANIFEST, redactor.tree(manifest))
        trace = TraceWriter(path / TRACE, run_id, redactor, listeners)
        evidence = EvidenceStore(path, run_id, redactor)
        return cls(path, run_id, manifest, trace, evidence, redactor)

    def uses_format(self, version: str) -> None:
        """A step of ``version`` ran that the manifest's ``format_versions`` did not list yet (a planner's
        step, proposed one at a time): listed from now on, oldest first, written when the run finishes."""
        listed = self.manifest.setdefault("format_versions", [])
        if version not in listed:
            listed.append(version)
            listed.sort(key=FORMAT_VERSIONS.index)

    def release_reserve(self) -> bool:
        """Free the reserve (the disk is full); True if there was one."""
        try:
            (self.path / RESERVE).unlink()
            return True
        except OSError:
            return False

    def finish(self, status: str, **fields: Any) -> None:
        """Close the trace and the evidence (both fsynced here, once) and record the outcome in the manifest."""
        try:
            try:
                self.trace.close()
            finally:
                self.evidence.close()
            self.manifest.update(status=status, finished_at=utc_now_iso(), **fields)
            manifest = self.redactor.tree(self.manifest)  # like every file of the run
            try:
                write_json_atomic(self.path / RUN_MANIFEST, manifest)
            except OutputWriteFailed:
                if not self.release_reserve():
                    raise
                write_json_atomic(self.path / RUN_MANIFEST, manifest)
        finally:
            self.release_reserve()
