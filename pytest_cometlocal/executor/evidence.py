"""The evidence pack: files under ``evidence/`` and a manifest of their hashes.

Every file is hashed as it is written and listed in ``evidence_manifest.json``
(kind, step, uri relative to the run folder, sha256, size). The manifest is
rewritten atomically after each file, so it is valid at every moment; a
success is recorded only together with the hashes of its evidence.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path, PurePosixPath
from typing import Any

from ..contract.records import EvidenceRef
from .redaction import Redactor

MANIFEST = "evidence_manifest.json"


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 16), b""):
            digest.update(chunk)
    return digest.hexdigest()


class OutputWriteFailed(OSError):
    """A run's artifacts cannot be written: the output folder is not writable, or the disk is full.

    An OSError naming the file (``str()`` reads ``[Errno 28] No space left on
    device: '<path>'``). Whatever raised it left nothing half-written behind: a
    partial trace line is cut off again, a partial evidence file removed, and a
    manifest is either the old or the new one.
    """

    def __init__(self, path: Path | str, exc: OSError):
        super().__init__(exc.errno, exc.strerror or str(exc), str(path))
        self.path = Path(path)


def _unlink_quietly(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass


def write_json_atomic(path: Path, data: Any) -> None:
    tmp = path.with_name(path.name + ".tmp")
    text = json.dumps(data, ensure_ascii=False, indent=2, sort_keys=False, allow_nan=False) + "\n"
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        _unlink_quietly(tmp)  # the old manifest stays as it was
        raise OutputWriteFailed(path, exc) from None


class EvidenceStore:
    """Writes evidence files of one run and keeps their manifest."""

    def __init__(self, run_dir: Path, run_id: str, redactor: Redactor | None = None):
        self.run_dir = run_dir
        self.run_id = run_id
        self.redactor = redactor or Redactor()
        self.refs: list[EvidenceRef] = []
        self._write_manifest()

    def add_bytes(
        self,
        kind: str,
        relpath: str,
        data: bytes,
        *,
        step_id: str | None = None,
        metadata: dict[str, Any] | None = None,
        redact: bool = True,
    ) -> EvidenceRef:
        """Store ``data`` at ``evidence/<relpath>`` and return its EvidenceRef.

        Text evidence is redacted first (``redact=False`` for binary files such
        as screenshots, where there is no text to mask).
        """
        rel = PurePosixPath("evidence") / relpath
        if rel.is_absolute() or ".." in rel.parts:
            raise ValueError(f"evidence path {relpath!r} must stay inside the run folder")
        if redact and self.redactor:
            data = self.redactor.data(data)
        target = self.run_dir / rel
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            with open(target, "wb") as fh:
                fh.write(data)
        except OSError as exc:
            _unlink_quietly(target)  # no unlisted, half-written file in evidence/
            raise OutputWriteFailed(target, exc) from None
        ref = EvidenceRef(
            kind=kind,
            uri=str(rel),
            sha256=sha256_bytes(data),
            size_bytes=len(data),
            step_id=step_id,
            metadata=metadata or {},
        )
        self.refs.append(ref)
        try:
            self._write_manifest()
        except OutputWriteFailed:
            self.refs.pop()  # a file the manifest does not list would not verify
            _unlink_quietly(target)
            raise
        return ref

    def add_json(self, kind: str, relpath: str, value: Any, **kw: Any) -> EvidenceRef:
        text = json.dumps(value, ensure_ascii=False, indent=2, allow_nan=False, default=str)
        return self.add_bytes(kind, relpath, text.encode("utf-8"), **kw)

    def _write_manifest(self) -> None:
        write_json_atomic(
            self.run_dir / MANIFEST,
            {
                "schema_version": "v1",
                "run_id": self.run_id,
                "files": [
                    {
                        "kind": r.kind,
                        "step_id": r.step_id,
                        "uri": r.uri,
                        "sha256": r.sha256,
                        "size_bytes": r.size_bytes,
                        "metadata": r.metadata,
                    }
                    for r in self.refs
                ],
            },
        )
