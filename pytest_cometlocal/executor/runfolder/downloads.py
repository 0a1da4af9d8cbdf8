"""What a download becomes in the evidence: its file name, and its bytes masked, as they came, or withheld.

No secret may reach an artifact, and a download can carry one in its URL,
its suggested file name and its content. The executor names the file: the
suggested name (made safe) when it holds no secret, else a neutral
``download_<n>`` with the suggested name's extension; the metadata keeps the
suggested name and URL masked. Content: a download without a secret is
stored as it came. A text download (by its content type, or because it
decodes as UTF-8) is stored with every secret masked, with the hash of the
bytes as downloaded. A binary one holding a secret cannot be masked without
being corrupted and is not stored: the manifest lists its hash and size and
why (an evidence gap). Pure: the Redactor decides what a secret looks like.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from pytest_cometlocal.contract.run_folder import sha256_bytes
from pytest_cometlocal.executor.runfolder.redactor import Redactor

WITHHELD_REASON = "contains a secret"
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_EXTENSION = re.compile(r"\.[A-Za-z0-9]{1,10}")
_TEXT_TYPES = re.compile(r"^\s*(text/|application/([\w.+-]*\+)?(json|xml|javascript|ecmascript|csv|x-ndjson|"
                         r"x-www-form-urlencoded|yaml|x-yaml|sql|graphql)\b)", re.IGNORECASE)


@dataclass(frozen=True)
class DownloadEvidence:
    """What to do with one download: write ``data`` as ``name`` (``masked_from`` set when masked), or withhold it."""

    name: str  # under evidence/downloads/, without the step's tag
    data: bytes  # what to write; withheld: the bytes as received (hashed, never written)
    metadata: dict[str, Any]
    masked_from: tuple[str, int] | None = None  # (sha256 of the bytes as downloaded, occurrences masked)
    withheld: bool = False


def is_text(data: bytes, content_type: str | None) -> bool:
    """Text by its content type (``text/*``, JSON, XML, CSV...), else if it decodes as UTF-8."""
    if content_type and _TEXT_TYPES.match(content_type):
        return True
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def file_name(suggested: str, index: int, redactor: Redactor) -> str:
    """The evidence file's name: the suggested one made safe when it holds no secret, else (or
    when there is none) ``download_<index>`` with its extension, if that is 1-10 letters and
    digits holding no secret."""
    if suggested and redactor.file_name(suggested) == suggested:
        return _UNSAFE.sub("_", suggested)[:100]
    extension = _EXTENSION.fullmatch(PurePosixPath(suggested).suffix or "")
    safe = extension is not None and redactor.file_name(extension.group()) == extension.group()
    return f"download_{index}" + (extension.group() if safe else "")


def download_evidence(data: bytes, *, suggested: str, url: str, content_type: str | None, index: int,
                      redactor: Redactor) -> DownloadEvidence:
    """Name, metadata and content of the ``index``-th download (1-based) of a step."""
    metadata = {"suggested_filename": redactor.file_name(suggested), "url": redactor.text(url)}
    if content_type:
        metadata["content_type"] = redactor.text(content_type)
    name = file_name(suggested, index, redactor)
    masked, count = redactor.counted(data)
    if not count:
        return DownloadEvidence(name, data, metadata)
    if is_text(data, content_type):
        return DownloadEvidence(name, masked, metadata, masked_from=(sha256_bytes(data), count))
    return DownloadEvidence(name, data, metadata, withheld=True)
