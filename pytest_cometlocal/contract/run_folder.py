"""What a run folder holds, by name, and the hash its evidence files are listed under.

The executor writes a run folder (executor/runfolder/) and runs/ reads it back
(``cometlocal verify``, ``show``, ``diff``, the retries in reports); both name
its files from here, so the two sides cannot drift apart. The hash is part of
the same contract: ``evidence_manifest.json`` lists each file's sha256 as
lowercase hex, and verify recomputes it with the function that wrote it.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

__all__ = ["EVIDENCE_DIR", "EVIDENCE_MANIFEST", "RUN_MANIFEST", "TMP_SUFFIX", "TRACE", "sha256_bytes", "sha256_file"]

RUN_MANIFEST = "run_manifest.json"  # what ran, how, with which policy; rewritten at the end
TRACE = "trace.jsonl"  # one TraceEvent per line, append-only
EVIDENCE_MANIFEST = "evidence_manifest.json"  # every evidence file with its sha256
EVIDENCE_DIR = "evidence"  # the evidence files; every uri of the evidence manifest starts with it
TMP_SUFFIX = ".tmp"  # a file replaced atomically is written as <name>.tmp first


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 16), b""):
            digest.update(chunk)
    return digest.hexdigest()
