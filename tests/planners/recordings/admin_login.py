import re
from playwright.sync_api import Playwright, sync_playwright, expect


def run(playwright: Playwright) -> None:
    browser = playwright.chromium.launch(headless=False)
    context = browser.new_context()
    page = context.new_page()
    page.goto("http://127.0.0.1:8000/admin/login/?next=/admin/")
    page.get_by_label("Username:").click()
    page.get_by_label("Username:").fill("admin")
    page.get_by_label("Username:").press("Tab")
    page.get_by_label("Password:").fill("a-test-password-for-127.0.0.1")
    page.get_by_role("button", name="Log in").click()
    expect(page).to_have_url(re.compile(r"/admin/$"))
    page.get_by_role("link", name="Groups").click()
    expect(page.get_by_role("heading", name="Select group to change")).to_be_visible()
    page.get_by_role("link", name="Add group").click()
    page.get_by_label("Name:").click()
    page.get_by_label("Name:").fill("Editors")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.locator("#result_list")).to_contain_text("Editors")

    # ---------------------
    context.close()
    browser.close()


with sync_playwright() as playwright:
    run(playwright)
