"""The demo portal driven with Chromium: login, a cookie banner, an upload, a frame."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_cometlocal.demo import DemoPortal


@pytest.mark.browser
def test_in_chromium(portal: DemoPortal, tmp_path: Path, chromium) -> None:
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import expect

    upload = tmp_path / "notes.txt"
    upload.write_text("hello portal\n", encoding="utf-8")
    # The session's shared Chromium: one sync Playwright per process.
    browser = chromium.browser()
    context = browser.new_context(base_url=portal.url)
    try:
        context.set_default_timeout(5000)
        page = context.new_page()

        page.goto("/login")
        page.get_by_label("User name").fill("alice")
        page.get_by_label("Password").fill("demo")
        page.get_by_test_id("login-submit").click()
        expect(page).to_have_url(portal.url + "/dashboard")
        expect(page.get_by_test_id("greeting")).to_have_text("Welcome, alice")
        assert page.get_by_role("link", name="Reports").count() == 2

        page.goto("/cookies")
        with pytest.raises(PlaywrightError) as blocked:
            page.get_by_test_id("continue").click(timeout=1000)
        assert "intercepts pointer events" in str(blocked.value)
        page.get_by_role("button", name="Accept cookies").click()
        page.get_by_test_id("continue").click()
        expect(page.get_by_test_id("result")).to_have_text("Continued")

        page.goto("/form")
        expect(page.locator("#status")).to_have_text("Ready")
        page.get_by_label("Attachment").set_input_files(upload)
        expect(page.get_by_test_id("upload-status")).to_have_text("Uploaded notes.txt")
        expect(page.get_by_role("status")).to_have_text("Upload complete: notes.txt")
        page.get_by_role("button", name="Send request").click()
        expect(page.get_by_role("status").filter(has_text="Subject is required")).to_be_visible()

        page.goto("/frame")
        inner = page.frame_locator("#inner-frame")
        inner.get_by_test_id("inner-button").click()
        expect(inner.get_by_test_id("inner-result")).to_have_text("Inner done")
    finally:
        context.close()
    assert ("POST", "/upload") in portal.hits
