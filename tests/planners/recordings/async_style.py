import asyncio

from playwright.async_api import Playwright, async_playwright, expect


async def run(playwright: Playwright) -> None:
    browser = await playwright.chromium.launch(headless=False)
    context = await browser.new_context()
    page = await context.new_page()
    await page.goto("http://127.0.0.1:8000/login")
    await page.get_by_label("User").fill("demo")
    await page.get_by_role("button", name="Sign in").click()
    await expect(page).to_have_url("http://127.0.0.1:8000/dashboard")
    await context.close()
    await browser.close()


async def main() -> None:
    async with async_playwright() as playwright:
        await run(playwright)


asyncio.run(main())
