"""The evidence pack: files under ``evidence/`` and a manifest of their hashes.

Every file is hashed as it is written and listed in ``evidence_manifest.json``
(kind, step, uri relative to the run folder, sha256, size). A success is
recorded only together with the hashes of its evidence: the manifest lists a
step's files before the trace refers to them. Paths and metadata are masked
when a file is added (once: the manifest's entries are encoded once too); a
file withheld for holding a secret is listed in its place, without a file.

Batches. A step leaves several files (DOM snapshots before and after; on
failures the page and screenshots too). ``batch()`` lists them with one
manifest rewrite when it ends rather than one per file; ``add_bytes`` outside
a batch is a batch of one.

Kills. ``cometlocal verify`` rejects a file in evidence/ that the manifest
does not list as firmly as a listed file that is missing. So a file of a
batch is written to ``.evidence-staging/`` first (in the run folder, outside
evidence/, where verify does not look), and the end of the batch writes the
new manifest to ``evidence_manifest.json.tmp``, renames the batch's files into
evidence/ and then replaces the manifest with the new one. A process killed
while a batch is open, SIGKILL included, leaves staged files and perhaps a
partial ``.tmp`` manifest, neither of which verify reads: the manifest and
evidence/ are those of the last finished batch, and they verify. The files
and the manifest are separate names, and no file system changes two names in
one step, so one short window remains: between the first rename and the
replacement of the manifest, a few metadata calls with no data written,
hashed or encoded (before batches, a kill anywhere in the encoding, writing
and fsync of the manifest after each file left that file unlisted). A kill
inside it leaves the batch's files in evidence/, unlisted, and the complete
new manifest, which lists them with their hashes, in the ``.tmp`` file:
verify recognises exactly that state and counts those files as listed
(runs/verify.py, ``_pending_batch``), with a note.
SIGTERM and Ctrl-C reach Python as an exception, which can land in that
window too: the batch is remembered until its manifest is in place, and
``close`` (run at the end of every run, interrupted or not) finishes it.

No fsync per batch. A process that crashes or is killed loses nothing it has
already written: write() has handed the data to the operating system, which
writes it out whatever becomes of the process. fsync only guards against the
machine losing power, and for that one fsync of the manifest when the run
ends (``close``) is enough: a run cut by a power loss is incomplete anyway.

A failed write (a full disk, a folder gone read-only) raises OutputWriteFailed
and leaves nothing of its batch behind: its staged and moved files are
removed, the manifest is the old one, the batch's refs are not in ``refs``.
A file that fails while a batch is open raises at once; the files before it
are listed when the batch ends.
"""

from __future__ import annotations

import json
import os
import shutil
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, Callable, Iterator

from pytest_cometlocal.contract.model.records import EvidenceRef, WithheldEvidence
from pytest_cometlocal.contract.run_folder import EVIDENCE_DIR, EVIDENCE_MANIFEST, TMP_SUFFIX, sha256_bytes
from pytest_cometlocal.executor.runfolder.redactor import Redactor
from pytest_cometlocal.executor.errors import OutputWriteFailed

STAGING = ".evidence-staging"




def _unlink_quietly(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass


def write_text_atomic(path: Path, text: str, *, fsync: bool = True,
                      before_replace: Callable[[], None] | None = None) -> None:
    """Replace ``path`` with ``text`` by way of ``<path>.tmp``: readers see the old or the new file.

    ``before_replace`` runs once the new text is written, just before it
    replaces the old (the evidence store moves a batch's files there). Any
    failure removes the temporary file and leaves the old one as it was.
    """
    tmp = path.with_name(path.name + TMP_SUFFIX)
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)
            if fsync:
                fh.flush()
                os.fsync(fh.fileno())
        if before_replace is not None:
            before_replace()
        os.replace(tmp, path)
    except OutputWriteFailed:
        _unlink_quietly(tmp)
        raise
    except OSError as exc:
        _unlink_quietly(tmp)  # the old file stays as it was
        raise OutputWriteFailed(path, exc) from None


def _json_text(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, indent=2, sort_keys=False, allow_nan=False)


def write_json_atomic(path: Path, data: Any) -> None:
    """A JSON file replaced atomically and fsynced (the run manifest)."""
    write_text_atomic(path, _json_text(data) + "\n")


def _fsync_file(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as exc:
        raise OutputWriteFailed(path, exc) from None


@dataclass
class _Staged:
    ref: EvidenceRef | WithheldEvidence
    staged: Path | None  # the file as written, under .evidence-staging/ (None: withheld, no file)
    final: Path | None  # its place under evidence/


class EvidenceStore:
    """Writes evidence files of one run and keeps their manifest."""

    def __init__(self, run_dir: Path, run_id: str, redactor: Redactor | None = None):
        self.run_dir = run_dir
        self.run_id = run_id
        self.redactor = redactor or Redactor()
        self.refs: list[EvidenceRef | WithheldEvidence] = []  # what the manifest lists, in its order
        self._staged: list[_Staged] = []  # written, not yet listed
        self._committing: list[_Staged] | None = None  # a batch on its way in (see _recover)
        self._depth = 0
        self._serial = 0
        self._dirs: set[Path] = set()  # folders known to exist
        self._rendered: list[tuple[EvidenceRef | WithheldEvidence, str]] = []  # manifest entries, encoded once
        self._write_manifest()

    @contextmanager
    def batch(self) -> Iterator["EvidenceStore"]:
        """Files added in the block are listed together, with one manifest rewrite, when it ends.

        The refs that ``add_bytes`` returns inside the block hold once the block
        has ended without OutputWriteFailed. The block ends the batch even when
        it raises: what was written before stays (``listed`` tells which refs
        made it when the end of the batch itself failed). Batches nest; the
        outermost one writes.
        """
        self._depth += 1
        try:
            yield self
        except BaseException as exc:
            self._end_batch(exc)
            raise
        self._end_batch(None)

    def _end_batch(self, error: BaseException | None) -> None:
        self._depth -= 1
        if self._depth:
            return
        try:
            self.flush()
        except OutputWriteFailed:
            if error is None or isinstance(error, Exception):
                raise
            # A KeyboardInterrupt (SIGTERM, Ctrl-C) is on its way out: it stays what
            # the run sees, and the batch is simply not listed.

    def add_bytes(
        self,
        kind: str,
        relpath: str,
        data: bytes,
        *,
        step_id: str | None = None,
        metadata: dict[str, Any] | None = None,
        redact: bool = True,
        masked_from: tuple[str, int] | None = None,
    ) -> EvidenceRef:
        """Store ``data`` at ``evidence/<relpath>`` and return its EvidenceRef.

        Text evidence is redacted first (``redact=False`` for binary files such
        as screenshots, where there is no text to mask). The path and the
        metadata always are. ``masked_from`` is ``(original_sha256, count)`` for
        data the caller masked itself (a download). Inside a batch the file is
        listed when the batch ends, otherwise at once.
        """
        if self.redactor:
            relpath, metadata = self.redactor.text(relpath), self.redactor.tree(metadata)
        rel = PurePosixPath(EVIDENCE_DIR) / relpath
        if rel.is_absolute() or ".." in rel.parts:
            raise ValueError(f"evidence path {relpath!r} must stay inside the run folder")
        if redact and self.redactor:
            data = self.redactor.data(data)
        final = self.run_dir / rel
        staged = self._stage(final, data)
        ref = EvidenceRef(
            kind=kind,
            uri=str(rel),
            sha256=sha256_bytes(data),
            size_bytes=len(data),
            step_id=step_id,
            metadata=metadata or {},
            **({"original_sha256": masked_from[0], "masked": True, "masked_count": masked_from[1]} if masked_from else {}),
        )
        self._staged.append(_Staged(ref, staged, final))
        if self._depth == 0:
            self.flush()
        return ref

    def withhold(self, kind: str, data: bytes, reason: str, *, step_id: str | None = None,
                 metadata: dict[str, Any] | None = None) -> WithheldEvidence:
        """List a file the run received but does not store (no file is written), and why.

        Its manifest entry has ``uri`` and ``sha256`` null, the hash and size of
        ``data``, and ``details.evidence_gaps: [{kind, reason}]``. Listed like a file:
        when the batch ends.
        """
        entry = WithheldEvidence(kind=kind, step_id=step_id, size_bytes=len(data), original_sha256=sha256_bytes(data),
                                 metadata=self.redactor.tree(metadata or {}),
                                 details={"evidence_gaps": [{"kind": kind, "reason": reason}]})
        self._staged.append(_Staged(entry, None, None))
        if self._depth == 0:
            self.flush()
        return entry

    def add_json(self, kind: str, relpath: str, value: Any, **kw: Any) -> EvidenceRef:
        text = json.dumps(value, ensure_ascii=False, indent=2, allow_nan=False, default=str)
        return self.add_bytes(kind, relpath, text.encode("utf-8"), **kw)

    def listed(self, ref: EvidenceRef | WithheldEvidence) -> bool:
        """Whether the manifest lists this very ref (a batch whose end failed is not listed)."""
        return any(r is ref for r in reversed(self.refs))

    def flush(self) -> None:
        """List every staged file: move them into evidence/ and rewrite the manifest once."""
        self._recover()
        staged = self._staged
        self._staged = []
        if not staged:
            return
        self._committing = staged
        kept = len(self.refs)
        self.refs.extend(s.ref for s in staged)
        moved: list[_Staged] = []
        manifest = self.run_dir / EVIDENCE_MANIFEST
        held = manifest.with_name(EVIDENCE_MANIFEST + ".prev")

        def move_in() -> None:
            # A second name for the old manifest keeps its inode alive through the
            # replace, so freeing it (done inside the rename when it is the last
            # name) happens after the replace, not between the moves and it.
            try:
                os.link(manifest, held)
            except OSError:
                pass  # best effort: the window is only wider
            for s in staged:
                if s.staged is None or s.final is None:
                    continue  # withheld: nothing to move
                try:
                    os.rename(s.staged, s.final)
                except OSError as exc:
                    raise OutputWriteFailed(s.final, exc) from None
                moved.append(s)

        try:
            self._write_manifest(move_in)
        except OutputWriteFailed:
            del self.refs[kept:]  # the old manifest stays: none of the batch is listed
            for s in moved:
                _unlink_quietly(s.final)
            for s in staged:
                if s.staged is not None:
                    _unlink_quietly(s.staged)
            self._committing = None
            raise
        finally:
            _unlink_quietly(held)
        self._committing = None

    def close(self) -> None:
        """The run is over: list what is still staged, fsync the manifest, drop the staging folder."""
        try:
            self.flush()
            _fsync_file(self.run_dir / EVIDENCE_MANIFEST)
        finally:
            shutil.rmtree(self.run_dir / STAGING, ignore_errors=True)
            self._dirs.discard(self.run_dir / STAGING)

    # -- internals -------------------------------------------------------------

    def _stage(self, final: Path, data: bytes) -> Path:
        """Write ``data`` under the staging folder; nothing is left of a failed write."""
        self._serial += 1
        staging = self.run_dir / STAGING
        staged = staging / f"{self._serial:06d}.partial"
        try:
            for folder in (staging, final.parent):
                if folder not in self._dirs:
                    folder.mkdir(parents=True, exist_ok=True)
                    self._dirs.add(folder)
            with open(staged, "wb") as fh:
                fh.write(data)
        except OSError as exc:
            _unlink_quietly(staged)
            raise OutputWriteFailed(final, exc) from None
        return staged

    def _recover(self) -> None:
        """Finish a batch whose commit an exception (SIGTERM, Ctrl-C) cut short.

        Where exactly it was cut does not matter: each of its files that is
        still staged is moved in, each one now in its place is listed, and the
        manifest is written again.
        """
        staged = self._committing
        if staged is None:
            return
        ids = {id(s.ref) for s in staged}
        self.refs[:] = [r for r in self.refs if id(r) not in ids]
        for s in staged:
            if s.staged is None or s.final is None:
                self.refs.append(s.ref)  # withheld: listed, no file
                continue
            try:
                os.rename(s.staged, s.final)
            except FileNotFoundError:
                pass  # moved before the interruption
            except OSError:
                continue
            if s.final.is_file():
                self.refs.append(s.ref)
        self._write_manifest()  # if this fails, the batch stays remembered and close() tries again
        self._committing = None

    def _write_manifest(self, before_replace: Callable[[], None] | None = None) -> None:
        write_text_atomic(self.run_dir / EVIDENCE_MANIFEST, self._render(), fsync=False, before_replace=before_replace)

    def _render(self) -> str:
        """The manifest's text, as ``json.dumps(..., indent=2)`` writes it; each entry is encoded once."""
        cache = self._rendered
        same = 0
        while same < len(cache) and same < len(self.refs) and cache[same][0] is self.refs[same]:
            same += 1
        del cache[same:]
        for ref in self.refs[same:]:
            entry = _json_text(_manifest_entry(ref))
            cache.append((ref, "    " + entry.replace("\n", "\n    ")))
        files = "[\n" + ",\n".join(text for _, text in cache) + "\n  ]" if cache else "[]"
        return ('{\n  "schema_version": "v1",\n  "run_id": ' + json.dumps(self.run_id, ensure_ascii=False)
                + ',\n  "files": ' + files + "\n}\n")


def _manifest_entry(ref: EvidenceRef | WithheldEvidence) -> dict[str, Any]:
    """One ``files`` entry: a stored file (with its masking, if any), or one withheld."""
    if isinstance(ref, WithheldEvidence):
        return {"kind": ref.kind, "step_id": ref.step_id, "uri": None, "sha256": None, "size_bytes": ref.size_bytes,
                "original_sha256": ref.original_sha256, "metadata": ref.metadata, "details": ref.details}
    entry = {"kind": ref.kind, "step_id": ref.step_id, "uri": ref.uri, "sha256": ref.sha256,
             "size_bytes": ref.size_bytes}
    if ref.masked:
        entry.update(original_sha256=ref.original_sha256, masked=True, masked_count=ref.masked_count)
    entry["metadata"] = ref.metadata
    return entry
