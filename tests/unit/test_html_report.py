"""plugin/reporting/html_report.py without a browser: which pictures and links a plan item's row gets.

A run folder is written by hand, as the executor leaves one: an evidence manifest with a failing
step's screenshot, Playwright's trace.zip and a video, and the run's trace.jsonl.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from pytest_cometlocal.contract.model.records import EvidenceRef
from pytest_cometlocal.plugin.reporting.html_report import COLUMNS, HtmlReport, links

pytest.importorskip("pytest_html", reason="pytest-html is not installed (pip install 'pytest-cometlocal[html]')")

PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")
HASH = "0" * 64


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    run = tmp_path / "runs" / "20260101T000000Z-a-1"
    files = {"evidence/step_001_before.png": PNG, "playwright/trace.zip": b"PK", "video/page.webm": b"webm",
             "trace.jsonl": b"{}\n"}
    for name, data in files.items():
        (run / name).parent.mkdir(parents=True, exist_ok=True)
        (run / name).write_bytes(data)
    manifest = {"files": [{"kind": "screenshot", "uri": "evidence/step_001_before.png", "sha256": HASH},
                          {"kind": "playwright_trace", "uri": "playwright/trace.zip", "sha256": HASH},
                          {"kind": "video", "uri": "video/page.webm", "sha256": HASH},
                          {"kind": "download", "uri": None, "sha256": HASH}]}  # withheld: no file, no link
    (run / "evidence_manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return run


def test_a_failure_gets_its_pictures_embedded_and_links_relative_to_the_report(run_dir: Path, tmp_path: Path) -> None:
    # Only its evidence is read: the refs a TARGET_NOT_FOUND at step 'find' carries.
    error = SimpleNamespace(evidence_refs=[EvidenceRef(kind="screenshot", uri="evidence/step_001_before.png",
                                                       sha256=HASH, step_id="find")])
    extras = HtmlReport(tmp_path / "out" / "report.html").extras(run_dir, error)  # type: ignore[arg-type]
    pictures = [e for e in extras if e["format_type"] == "image"]
    assert [(p["name"], p["mime_type"], base64.b64decode(p["content"])) for p in pictures] == [
        ("find: step_001_before.png", "image/png", PNG)]
    assert {e["name"]: e["content"] for e in extras if e["format_type"] == "url"} == {
        "trace.zip (playwright show-trace)": "../runs/20260101T000000Z-a-1/playwright/trace.zip",
        "video: page.webm": "../runs/20260101T000000Z-a-1/video/page.webm",
        "trace.jsonl": "../runs/20260101T000000Z-a-1/trace.jsonl",
        "run folder": "../runs/20260101T000000Z-a-1/",
    }


def test_a_run_folder_without_its_manifest_still_links_the_folder(tmp_path: Path) -> None:
    assert links(tmp_path) == [("run folder", tmp_path)]


class Report:
    user_properties = [("cometlocal.error_code", "TARGET_NOT_FOUND"), ("cometlocal.step_id", "<find>")]


def test_the_columns_follow_the_test_name_and_escape_the_step(tmp_path: Path) -> None:
    html = HtmlReport(tmp_path / "r.html")
    header = ["<th>Result</th>", "<th>Test</th>", "<th>Duration</th>", "<th>Links</th>"]
    html.pytest_html_results_table_header(header)
    assert [h.split(">")[1].split("<")[0] for h in header] == ["Result", "Test", *(t for t, _ in COLUMNS),
                                                              "Duration", "Links"]
    row = ["<td>failed</td>", "<td>a::b</td>", "<td>1 s</td>", "<td></td>"]
    html.pytest_html_results_table_row(Report(), row)
    assert row[2:4] == ['<td class="col-cometlocal-error-code">TARGET_NOT_FOUND</td>',
                        '<td class="col-cometlocal-failing-step">&lt;find&gt;</td>']
