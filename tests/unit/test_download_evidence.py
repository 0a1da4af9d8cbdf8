"""What a download becomes in the evidence (executor/runfolder/downloads.py), and the redactor and store parts it uses.

Its file name holds no secret, even one the browser changed to make it a
file name; text is masked and counted, binary holding a secret is withheld;
the store masks what it lists and ``verify`` accepts withheld and masked
entries, and only well-formed ones. The browser side is
tests/reliability/test_download_secrets.py.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
from pathlib import Path
from urllib.parse import quote

import pytest

from pytest_cometlocal.runs.verify import verify_run
from pytest_cometlocal.executor.runfolder.downloads import download_evidence, file_name, is_text
from pytest_cometlocal.contract.run_folder import EVIDENCE_MANIFEST as MANIFEST
from pytest_cometlocal.executor.runfolder.evidence_store import EvidenceStore
from pytest_cometlocal.executor.runfolder.redactor import Redactor

SECRET = 'Tk9:<"é+/=x*?|\\'
TOK = "tok-7f3a9c"


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# ---------------------------------------------------------------------------
# The redactor: counted masking, base64, file names


def test_counted_masks_every_form_once_and_counts_each_occurrence() -> None:
    r = Redactor([SECRET])
    text = f"a,{SECRET}\nb,{html.escape(SECRET)}\nc,{json.dumps(SECRET)[1:-1]}\nd,{quote(SECRET, safe='')}\ne,{SECRET}"
    masked, count = r.counted(text.encode())
    assert masked == b"a,***\nb,***\nc,***\nd,***\ne,***" and count == 5
    assert r.counted(b"nothing here") == (b"nothing here", 0)
    assert Redactor().counted(b"x") == (b"x", 0)


def test_base64_of_a_secret_is_masked_and_short_ones_are_left_alone() -> None:
    raw = TOK.encode()
    r = Redactor([TOK])
    for encoded in (base64.b64encode(raw), base64.urlsafe_b64encode(raw), base64.b64encode(raw).rstrip(b"=")):
        assert r.text("key=" + encoded.decode() + ";") == "key=***;"
    assert r.text("key=" + quote(base64.b64encode(b"\xfb" + raw).decode(), safe="")) != "key=***"  # another value
    # 1-3 byte secrets: their base64 (2-4 characters) would mask unrelated text.
    assert Redactor(["ab"]).text("YWI= YWI") == "YWI= YWI"


@pytest.mark.parametrize("name, expected", [
    ("export-tok-7f3a9c.csv", "export-***.csv"),  # as it is: masked where it is
    ("export-tok_7f3a9c.csv", "***.csv"),  # a character replaced: the whole name
    ("export-Tk9___é+_=x____.csv", "***.csv"),  # SECRET as Chromium suggests it
    ("Tk9_x_.tok-7f3a9c", "***"),  # the extension holds one: not kept
    ("report (1).csv", "report (1).csv"),
])
def test_file_name_masks_a_secret_the_browser_made_safe_for_a_file_name(name: str, expected: str) -> None:
    assert Redactor([SECRET, TOK]).file_name(name) == expected


def test_file_name_ignores_secrets_with_fewer_than_three_letters_or_digits_once_made_safe() -> None:
    assert Redactor(["a!!b"]).file_name("a_b.csv") == "a_b.csv"
    assert Redactor(["a!!b"]).file_name("a!!b.csv") == "***.csv"


# ---------------------------------------------------------------------------
# Names


@pytest.mark.parametrize("suggested, expected", [
    ("report.csv", "report.csv"),
    ("my report (1).csv", "my_report_1_.csv"),  # made safe, as before
    ("export-tok-7f3a9c.csv", "download_2.csv"),
    ("export-Tk9___é+_=x____.CSV", "download_2.CSV"),
    ("report.tok-7f3a9c", "download_2"),  # an extension holding a secret is dropped
    ("data.tar.gz-" + TOK, "download_2"),
    ("", "download_2"),
])
def test_evidence_file_name(suggested: str, expected: str) -> None:
    assert file_name(suggested, 2, Redactor([SECRET, TOK])) == expected


# ---------------------------------------------------------------------------
# Content


@pytest.mark.parametrize("data, content_type, text", [
    (b"a,b\n", None, True),
    ("é,€\n".encode(), "application/octet-stream", True),  # decodes as UTF-8
    ("é,ü\n".encode("latin-1"), "text/csv; charset=latin-1", True),  # by its type
    (b"{}", "application/vnd.api+json", True),
    (b"\x89PNG\xff", "image/png", False),
    (b"\xff\xfe", None, False),
])
def test_is_text(data: bytes, content_type: str | None, text: bool) -> None:
    assert is_text(data, content_type) is text


def evidence(data: bytes, content_type: str | None = None, suggested: str = "export-tok-7f3a9c.csv"):
    return download_evidence(data, suggested=suggested, url=f"http://h/x?t={TOK}&u={quote(SECRET, safe='')}",
                             content_type=content_type, index=1, redactor=Redactor([SECRET, TOK]))


def test_text_download_is_masked_with_the_hash_of_what_came() -> None:
    original = f"é;{TOK}\n".encode("latin-1") + f"x;{html.escape(SECRET)}\n".encode()
    kept = evidence(original, "text/csv; charset=latin-1")  # not UTF-8: text by its type
    assert kept.data == "é;***\n".encode("latin-1") + b"x;***\n" and not kept.withheld
    assert kept.masked_from == (sha(original), 2)
    assert kept.name == "download_1.csv"
    assert kept.metadata == {"suggested_filename": "export-***.csv", "url": "http://h/x?t=***&u=***",
                             "content_type": "text/csv; charset=latin-1"}


@pytest.mark.parametrize("inside", [TOK.encode(), SECRET.encode(), quote(SECRET, safe="").encode(),
                                    base64.b64encode(SECRET.encode()), base64.urlsafe_b64encode(TOK.encode())])
def test_binary_download_holding_a_secret_is_withheld(inside: bytes) -> None:
    data = b"\x89PNG\r\n\x1a\n\xff" + inside + b"\x00\xfe"
    kept = evidence(data, "application/octet-stream", suggested="blob.bin")
    assert kept.withheld and kept.data == data and kept.masked_from is None
    assert kept.metadata["suggested_filename"] == "blob.bin"


def test_download_without_a_secret_is_kept_as_it_came() -> None:
    data = b"\x89PNG\xff\x00data"
    kept = evidence(data, "application/octet-stream", suggested="plain.bin")
    assert (kept.name, kept.data, kept.masked_from, kept.withheld) == ("plain.bin", data, None, False)


# ---------------------------------------------------------------------------
# The store lists them; verify accepts them, and only well-formed


def evidence_problems(run_dir: Path) -> list[str]:
    return [p for p in verify_run(run_dir).problems if not p.startswith(("trace.jsonl", "run_manifest.json"))]


def test_store_masks_paths_and_metadata_and_lists_masked_and_withheld_entries(tmp_path: Path) -> None:
    store = EvidenceStore(tmp_path, "run", Redactor([SECRET, TOK]))
    with store.batch():
        plain = store.add_json("inspection_report", f"inspections/{TOK}.json", {"ok": True}, step_id="a",
                               metadata={"url": f"http://h/?t={quote(SECRET, safe='')}", "n": 1})
        masked = store.add_bytes("download", "downloads/a.csv", b"x,***\n", step_id="a", redact=False,
                                 masked_from=(sha(b"x,secret\n"), 1))
        withheld = store.withhold("download", b"\xff" + TOK.encode(), "contains a secret", step_id="b",
                                  metadata={"url": f"http://h/{TOK}"})
    store.close()
    assert plain.uri == "evidence/inspections/***.json" and plain.metadata == {"url": "http://h/?t=***", "n": 1}
    assert all(store.listed(r) for r in (plain, masked, withheld))
    text = (tmp_path / MANIFEST).read_text(encoding="utf-8")
    assert TOK not in text and quote(SECRET, safe="") not in text
    files = json.loads(text)["files"]
    assert files[1] == {"kind": "download", "step_id": "a", "uri": "evidence/downloads/a.csv", "sha256": sha(b"x,***\n"),
                        "size_bytes": 6, "original_sha256": sha(b"x,secret\n"), "masked": True, "masked_count": 1,
                        "metadata": {}}
    assert files[2] == {"kind": "download", "step_id": "b", "uri": None, "sha256": None, "size_bytes": 1 + len(TOK),
                        "original_sha256": sha(b"\xff" + TOK.encode()), "metadata": {"url": "http://h/***"},
                        "details": {"evidence_gaps": [{"kind": "download", "reason": "contains a secret"}]}}
    assert "masked" not in files[0] and "original_sha256" not in files[0]
    assert sorted(p.name for p in (tmp_path / "evidence").rglob("*") if p.is_file()) == ["***.json", "a.csv"]
    assert evidence_problems(tmp_path) == []
    assert verify_run(tmp_path).withheld == 1


@pytest.mark.parametrize("change, problem", [
    (lambda e: e["details"].pop("evidence_gaps"), "has no uri and is not a withheld file"),
    (lambda e: e.update(original_sha256="x"), "has no uri and is not a withheld file"),
    (lambda e: e.update(sha256="0" * 64), "has no uri and is not a withheld file"),
    (lambda e: e["details"].update(evidence_gaps=[{"kind": "download"}]), "has no uri and is not a withheld file"),
])
def test_verify_rejects_an_entry_without_a_file_that_is_not_withheld(tmp_path: Path, change, problem) -> None:
    store = EvidenceStore(tmp_path, "run", Redactor([TOK]))
    store.withhold("download", b"\xff" + TOK.encode(), "contains a secret", step_id="b")
    manifest = json.loads((tmp_path / MANIFEST).read_text())
    change(manifest["files"][0])
    (tmp_path / MANIFEST).write_text(json.dumps(manifest))
    (found,) = evidence_problems(tmp_path)
    assert problem in found and "'download' (step 'b')" in found


@pytest.mark.parametrize("drop", ["original_sha256", "masked_count"])
def test_verify_rejects_a_masked_entry_missing_its_original_hash_or_count(tmp_path: Path, drop: str) -> None:
    store = EvidenceStore(tmp_path, "run", Redactor([TOK]))
    store.add_bytes("download", "downloads/a.csv", b"x,***\n", redact=False, masked_from=(sha(b"x,y\n"), 1))
    assert evidence_problems(tmp_path) == []
    manifest = json.loads((tmp_path / MANIFEST).read_text())
    del manifest["files"][0][drop]
    (tmp_path / MANIFEST).write_text(json.dumps(manifest))
    assert evidence_problems(tmp_path) == [
        f"{MANIFEST}: 'evidence/downloads/a.csv' is masked without its original_sha256 and masked_count"]
