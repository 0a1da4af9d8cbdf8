"""Secrets in a download's URL, file name and content reach no file of the run, nor the Allure results.

A text download holding a secret is stored masked, with the hash of what was
downloaded; a binary one is not stored and its manifest entry says why; a
download without a secret is kept as it came, under its own name. The run
verifies. Every file is scanned for each secret raw and in every encoding the
redactor knows, base64 included, and for the file names too.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import os
import re
from pathlib import Path
from urllib.parse import quote

import pytest

from pytest_cometlocal.runs.verify import verify_run
from pytest_cometlocal.executor.runfolder.redactor import encoded_forms
from tests.reliability.faultserver import SecretDownloads
from tests.browsers import BROWSERS, ON_BOTH, inner_browser_args
from tests.support import DEFAULTS, run_text, write

REPO = Path(__file__).resolve().parents[2]
TOK = "Tk-7f3a9c1e"  # survives as it is in a file name
SYM = 'dl:<"&é+/=9x'  # changes in every encoding
ENV = {"DL_TOK": TOK, "DL_SYM": SYM}
GAP = {"evidence_gaps": [{"kind": "download", "reason": "contains a secret"}]}

PLAN = ("name: downloads\nsecrets: {tok: {env: DL_TOK}, sym: {env: DL_SYM}}\n"
        "policy: {same_state_revisits: 10}\n") + DEFAULTS + """\
steps:
  - {id: open, kind: navigate, target: {type: url, url: /page}}
  - {id: get, kind: click, target: {type: role, role: link, name: Export},
     postconditions: [{kind: download_started, args: {filename: "^export-Tk-.+\\\\.csv$"}}]}
  - {id: blob, kind: click, target: {type: role, role: link, name: Blob}, postconditions: [{kind: download_started}]}
  - {id: key, kind: click, target: {type: role, role: link, name: Key}, timeout_ms: 1000,
     postconditions: [{kind: download_started}, {kind: download_started, severity: warning, args: {filename: "^no$"}}]}
  - {id: report, kind: click, target: {type: role, role: link, name: Report},
     postconditions: [{kind: download_started, args: {filename: "^report\\\\.csv$"}}]}
  - {id: plain, kind: click, target: {type: role, role: link, name: Plain}, postconditions: [{kind: download_started}]}
"""


def secret_forms() -> set[bytes]:
    """Each secret as the redactor knows it, and base64-encoded whatever the redactor knows."""
    forms: set[str] = set()
    for secret in ENV.values():
        raw = secret.encode()
        forms |= encoded_forms(secret)
        for b64 in (base64.b64encode(raw), base64.urlsafe_b64encode(raw)):
            forms |= {b64.decode(), b64.decode().rstrip("=")}
    return {f.encode() for f in forms}


def skeleton(text: str) -> str:
    """Letters and digits, every other run one ``_``: a secret the browser made safe for a file name."""
    return re.sub(r"[^A-Za-z0-9]+", "_", text)


def leaks(*folders: Path) -> list[str]:
    """Every file (by its name or bytes) under the folders that holds a secret in any form,
    or (text files) its letters and digits as a file name made safe by the browser keeps them."""
    forms = secret_forms()
    found = []
    for folder in folders:
        for path in sorted(folder.rglob("*")):
            name = path.relative_to(folder).as_posix().encode()
            data = path.read_bytes() if path.is_file() else b""
            found += [f"{path}: {form!r}" for form in forms if form in name or form in data]
            if path.suffix not in (".png", ".jpg"):
                text = skeleton(data.decode("utf-8", "replace"))
                found += [f"{path}: {secret!r} made safe" for secret in ENV.values() if skeleton(secret) in text]
    return found


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def check_downloads(run_dir: Path, site: SecretDownloads) -> None:
    """The manifest's download entries and the files they name, as the rules say."""
    evidence = json.loads((run_dir / "evidence_manifest.json").read_text(encoding="utf-8"))
    entries = {e["step_id"]: e for e in evidence["files"] if e["kind"] == "download"}
    assert set(entries) == {"get", "blob", "key", "report", "plain"}, entries

    # Text: stored with every secret masked, under a neutral name; the hash of what came too.
    export, original = entries["get"], site.files["/export.csv"][2]
    masked = (original.replace(TOK.encode(), b"***").replace(html.escape(SYM).encode(), b"***")
              .replace(quote(SYM, safe="").encode(), b"***"))
    assert export["uri"] == "evidence/downloads/step_001_download_1.csv"
    assert (run_dir / export["uri"]).read_bytes() == masked
    assert export["sha256"] == sha(masked) and export["size_bytes"] == len(masked)
    assert export["original_sha256"] == sha(original)
    assert export["masked"] is True and export["masked_count"] == 3
    assert export["metadata"]["suggested_filename"] == "export-***.csv"
    assert "t=***&u=***" in export["metadata"]["url"]

    # Binary holding a secret (raw, base64): not stored; its hash, size and the gap are listed.
    # key.bin's name held SYM, which the browser made safe for a file name: masked whole.
    for step, path, shown in (("blob", "/blob.bin", "blob.bin"), ("key", "/key.bin", "***.bin")):
        entry, data = entries[step], site.files[path][2]
        assert entry["uri"] is None and entry["sha256"] is None, entry
        assert entry["original_sha256"] == sha(data) and entry["size_bytes"] == len(data)
        assert entry["details"] == GAP
        assert entry["metadata"]["suggested_filename"] == shown

    # No secret: its own name, its bytes as they came, nothing added.
    for step, path, tag in (("report", "/report.csv", "step_004"), ("plain", "/plain.bin", "step_005")):
        entry, data = entries[step], site.files[path][2]
        assert entry["uri"] == f"evidence/downloads/{tag}_{path.lstrip('/')}"
        assert (run_dir / entry["uri"]).read_bytes() == data and entry["sha256"] == sha(data)
        assert not {"original_sha256", "masked", "masked_count", "details"} & set(entry), entry
    stored = sorted(p.name for p in (run_dir / "evidence" / "downloads").iterdir())
    assert stored == ["step_001_download_1.csv", "step_004_report.csv", "step_005_plain.bin"]


@pytest.fixture
def site():
    with SecretDownloads(TOK, SYM) as server:
        yield server


@ON_BOTH
def test_secrets_in_a_download_reach_no_file_of_the_run(browser_manager, tmp_path: Path, site: SecretDownloads) -> None:
    r = run_text(browser_manager, tmp_path, PLAN, site.url, env=ENV)
    # "get" passes: its download_started matched the real name (export-Tk-...), not the stored one.
    assert r.error is None, r.error
    verification = verify_run(r.run_dir)
    assert verification.ok, verification.problems
    check_downloads(r.run_dir, site)
    assert leaks(r.run_dir) == []


INNER_CONFTEST = """
import os
import pytest
from tests.reliability.faultserver import SecretDownloads

@pytest.fixture(scope="session")
def site():
    with SecretDownloads(os.environ["DL_TOK"], os.environ["DL_SYM"]) as server:
        yield server

@pytest.fixture
def cometlocal_base_url(site):
    return site.url
"""


@pytest.mark.browser
@pytest.mark.usefixtures("lean_inner_runs")
@pytest.mark.parametrize("browser", BROWSERS)
def test_secrets_in_a_download_reach_no_allure_result(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
                                                      request: pytest.FixtureRequest, browser: str) -> None:
    args = inner_browser_args(request, browser)
    for name, value in ENV.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])]))
    pytester.makeconftest(INNER_CONFTEST)
    write(pytester, "downloads.actions.yaml", PLAN)
    result = pytester.runpytest_subprocess("--alluredir", "allure-results", "-p", "no:randomly", *args, timeout=240)
    result.assert_outcomes(passed=1)
    (run_dir,) = (pytester.path / "cometlocal-runs").iterdir()
    verification = verify_run(run_dir)
    assert verification.ok, verification.problems
    alluredir = pytester.path / "allure-results"
    (allure,) = [json.loads(p.read_text()) for p in alluredir.glob("*-result.json")]
    attached = {a["name"] for a in allure["attachments"]}
    # The masked text download is attached; the withheld ones are not.
    assert {"evidence_manifest.json", "download: step_001_download_1.csv", "download: step_004_report.csv"} <= attached
    assert not any("blob" in name or "key" in name for name in attached), attached
    assert leaks(run_dir, alluredir) == []
    assert TOK not in result.stdout.str() and SYM not in result.stdout.str()
