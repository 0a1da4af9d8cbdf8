"""pytest-html's report of plan items (plugin/reporting/html_report.py), opened in a real Chromium.

One inner session (a failing plan and a plain test, Playwright's trace kept for the failure)
writes a self-contained report; the test opens it as a reader would and checks what the row of the
failed item shows: its error code, its failing step, its screenshot embedded in the file, and links
that lead to the trace.zip and the run folder. ``COMETLOCAL_DOCS_PICTURES=1`` also rewrites the
picture of the report in the docs (docs/img/html-report.png); without it the tree stays as it is.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import unquote, urljoin, urlparse

import pytest

from tests.support import plan, served_pages, write

pytest.importorskip("pytest_html", reason="pytest-html is not installed (pip install 'pytest-cometlocal[html]')")
pytestmark = pytest.mark.browser

DOCS_PICTURE = Path(__file__).resolve().parents[2] / "docs" / "img" / "html-report.png"
PAGE = "<title>Orders</title><h1>Orders</h1><button data-testid='new-order'>New order</button>"
FAILING = plan("""\
    - {id: open, kind: navigate, timeout_ms: 20000, target: {type: url, url: /orders}}
    - {id: export, kind: click, target: {type: role, role: button, name: Export to CSV}}
    """, "export orders", extra="policy: {retries_per_action: 0}\n", timeout_ms=1500)
PLAIN = "def test_plain():\n    pass\n"  # a row of its own, with nothing of a plan


@pytest.fixture
def report(pytester: pytest.Pytester) -> Path:
    """The report of one inner run (a subprocess: it has a Playwright of its own)."""
    with served_pages({"/orders": PAGE}) as url:
        write(pytester, "plans/export.actions.yaml", FAILING.replace("name: export orders\n",
                                                                     f"name: export orders\nbase_url: {url}\n"))
        write(pytester, "test_plain.py", PLAIN)
        result = pytester.runpytest_subprocess("--html=out/report.html", "--self-contained-html",
                                               "--cometlocal-tracing=retain-on-failure", timeout=180)
    result.assert_outcomes(passed=1, failed=1)
    return pytester.path / "out" / "report.html"


def test_the_failed_items_row_shows_its_code_step_screenshot_and_links(report: Path, chromium) -> None:
    context = chromium.browser().new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.goto(report.as_uri())
        failed = page.locator("tbody.results-table-row").filter(has_text="export orders")
        failed.locator("td.col-cometlocal-error-code").wait_for()
        assert failed.locator("td.col-cometlocal-error-code").inner_text() == "TARGET_NOT_FOUND"
        assert failed.locator("td.col-cometlocal-failing-step").inner_text() == "export"
        passed = page.locator("tbody.results-table-row").filter(has_text="test_plain")
        assert passed.locator("td.col-cometlocal-error-code").inner_text() == ""

        picture = failed.locator("img").first
        picture.wait_for()
        assert re.match(r"data:image/(png|jpeg);base64,", picture.get_attribute("src") or "")  # embedded in the one file
        assert picture.evaluate("img => img.complete && img.naturalWidth > 0")  # and a picture Chromium can draw

        hrefs = {a.inner_text(): a.get_attribute("href") for a in failed.locator("td.col-links a").all()}
        assert set(hrefs) >= {"trace.zip (playwright show-trace)", "trace.jsonl", "run folder"}
        for name, href in hrefs.items():
            target = Path(unquote(urlparse(urljoin(page.url, href)).path))
            assert target.exists(), (name, href)
        assert (Path(unquote(urlparse(urljoin(page.url, hrefs["trace.zip (playwright show-trace)"])).path)).name
                == "trace.zip")
        assert passed.locator("td.col-links a").count() == 0

        if os.environ.get("COMETLOCAL_DOCS_PICTURES") == "1":
            DOCS_PICTURE.parent.mkdir(parents=True, exist_ok=True)
            page.locator("#results-table").screenshot(path=str(DOCS_PICTURE))
    finally:
        context.close()
