import re
from playwright.sync_api import Playwright, sync_playwright, expect


def run(playwright: Playwright) -> None:
    browser = playwright.chromium.launch(headless=False)
    context = browser.new_context()
    page = context.new_page()
    page.goto("http://127.0.0.1:8000/spa/search")
    page.get_by_label("Search").click()
    page.get_by_label("Search").fill("dune")
    page.get_by_label("Search").press("Enter")
    expect(page.get_by_role("status")).to_have_text("Results for \"dune\": 2")
    page.goto("http://127.0.0.1:8000/spa/toggles")
    page.get_by_label("Subscribe to the newsletter").check()
    expect(page.get_by_label("Subscribe to the newsletter")).to_be_checked()
    page.get_by_role("button", name="Save settings").click()
    expect(page.get_by_role("status")).to_contain_text("Saved. newsletter=true terms=false")
    page.goto("http://127.0.0.1:8000/spa/menu")
    page.get_by_role("button", name="Products").hover()
    expect(page.get_by_role("menuitem", name="Laptops")).to_be_visible()
    page.get_by_role("menuitem", name="Laptops").click()
    expect(page.get_by_role("status")).to_have_text("Picked: Laptops")
    page.get_by_test_id("grid").hover()
    page.get_by_role("button", name="Fullscreen").dblclick()
    expect(page.get_by_role("status")).to_have_text("Tool: Fullscreen")

    # ---------------------
    context.close()
    browser.close()


with sync_playwright() as playwright:
    run(playwright)
