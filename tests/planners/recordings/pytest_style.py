import re
from playwright.sync_api import Page, expect


def test_example(page: Page) -> None:
    page.goto("http://127.0.0.1:8000/form")
    page.get_by_placeholder("Your e-mail").click()
    page.get_by_placeholder("Your e-mail").fill("qa@example.com")
    page.get_by_label("Country").select_option("ES")
    page.locator("#terms").check()
    page.get_by_test_id("upload").set_input_files("report.pdf")
    page.frame_locator("#pay").get_by_role("button", name="Pay").click()
    page.get_by_role("row", name="Order 7").get_by_role("button").click()
    page.get_by_role("listitem").nth(2).click()
    page.locator("li.item").filter(has_text="Second").first.click()
    page.locator("xpath=//button[@id='go']").click()
    page.get_by_text("Send", exact=True).press("Enter")
    expect(page.get_by_test_id("out")).to_have_text("done")
    expect(page.locator("li.item")).to_have_count(3)
    expect(page.get_by_label("Email")).to_have_value("qa@example.com")
    expect(page).to_have_title("Form")
    page.goto("http://127.0.0.1:8000/done")
    page.goto("https://docs.example.com/help")
