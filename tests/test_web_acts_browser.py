"""A player's acts and home page in a real browser (headless Chromium, tests/webshow.py):
on a 375 px phone with JavaScript off, every form works by its buttons and links alone
and nothing overflows sideways; no CSP violation, no request off the machine."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from bot.web import auth
from tests.conftest import DAN
from tests.test_web_browser import Browsing, Watched, browsing, clean
from tests.webshow import browser_missing, urls

if TYPE_CHECKING:
    from playwright.async_api import Page

pytestmark = [
    pytest.mark.skipif(browser_missing() is not None, reason=browser_missing() or ""),
    pytest.mark.asyncio(loop_scope="module"),
]
__all__ = ["browsing"]  # the module's browser and site, shared with tests/test_web_browser.py

#: How far the page overflows sideways (0: it fits the phone).
OVERFLOW = "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"


async def fits(page: Page) -> None:
    await page.wait_for_load_state()  # its stylesheets too: a click does not wait for them
    assert await page.evaluate(OVERFLOW) == 0


async def test_a_phone_without_javascript_acts_from_its_pages(browsing: Browsing) -> None:
    site = browsing.site
    watched = Watched()
    context = await browsing.context(
        watched, viewport={"width": 375, "height": 740}, is_mobile=True, java_script_enabled=False
    )
    opened = await site.service.sessions.start(DAN, "bot")  # dan is to move in `going`
    await context.add_cookies([{"name": auth.COOKIE, "value": opened.secret, "url": site.base}])
    page = watched.watch(await context.new_page())
    game_page = urls.game(site.place, site.going.id)

    await page.goto(site.url("/"))
    assert "Waiting for your move" in await page.inner_text("main")
    await fits(page)
    await page.click(f'a[href="{game_page}"]')
    await fits(page)

    await page.click("text=Resign…")  # asks first; keeping on changes nothing
    assert "Resign this game?" in await page.inner_text("#acts")
    await fits(page)
    await page.click("text=Keep playing")
    assert "Resign this game?" not in await page.inner_text("#acts")

    await page.click("text=Ask to take back my last move")
    assert "You ask to take back your last move" in await page.inner_text(".said")
    assert "Your undo request waits for an answer." in await page.inner_text("#acts")
    await fits(page)

    await page.click("text=Start my vacation")
    assert "You are on vacation" in await page.inner_text(".said")
    await page.reload()  # the sentence shows once; a reload acts nothing
    assert await page.query_selector(".said") is None
    await page.click("text=End my vacation")
    assert "You are back from vacation" in await page.inner_text(".said")
    await fits(page)
    await clean(page, watched)
    await context.close()
