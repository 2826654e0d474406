"""The pages in a real browser: Debian's headless Chromium driven by Playwright (the
system browser; nothing downloaded). The game page's slider under the keyboard, the
same page without JavaScript, an event's standings; no console error, no
Content-Security-Policy violation, no request leaving the machine.

One browser and one served site for the module (tests/webshow.py); skipped, saying how to
get them, where Chromium or Playwright are missing."""

from __future__ import annotations

import re
import shutil
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import pytest_asyncio

from tests.webshow import (
    Showcase,
    browser_missing,
    chromium_path,
    on_this_machine,
    showcase,
    urls,
)

if TYPE_CHECKING:
    from playwright.async_api import Browser, BrowserContext, Page, Route

pytestmark = [
    pytest.mark.skipif(browser_missing() is not None, reason=browser_missing() or ""),
    pytest.mark.asyncio(loop_scope="module"),
]

#: Records every CSP violation the page sees (added before any script of the page).
WATCH_CSP = """
window.__csp = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__csp.push(e.violatedDirective + " " + e.blockedURI);
});
"""
#: Playwright's waits, in milliseconds: generous for a loaded machine, never slept.
PATIENCE_MS = 15_000


@dataclass
class Watched:
    """What the pages of a browser context did wrong: console errors, uncaught
    exceptions, requests that would have left the machine."""

    errors: list[str] = field(default_factory=list)
    offsite: list[str] = field(default_factory=list)

    def watch(self, page: Page) -> Page:
        page.on(
            "console",
            lambda message: (
                self.errors.append(f"console: {message.text}") if message.type == "error" else None
            ),
        )
        page.on("pageerror", lambda error: self.errors.append(f"exception: {error}"))
        return page


@dataclass
class Browsing:
    site: Showcase
    browser: Browser

    async def context(self, watched: Watched, **options: Any) -> BrowserContext:
        return await watched_context(self.browser, watched, **options)


async def watched_context(browser: Browser, watched: Watched, **options: Any) -> BrowserContext:
    """A fresh browser context whose every request is checked to stay on loopback
    (one that would not is refused and noted)."""
    context = await browser.new_context(**options)
    context.set_default_timeout(PATIENCE_MS)
    await context.add_init_script(WATCH_CSP)

    async def route(route: Route) -> None:
        url = route.request.url
        if on_this_machine(url):
            await route.continue_()
        else:
            watched.offsite.append(url)
            await route.abort()

    await context.route("**/*", route)
    return context


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def browsing(
    migrated_sqlite: Path, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Browsing]:
    from playwright.async_api import async_playwright

    database = tmp_path_factory.mktemp("browser") / "paperboard.db"
    shutil.copyfile(migrated_sqlite, database)
    async with (
        showcase(f"sqlite:///{database}") as site,
        async_playwright() as playwright,
    ):
        browser = await playwright.chromium.launch(
            executable_path=chromium_path(), args=["--no-sandbox"]
        )
        try:
            yield Browsing(site, browser)
        finally:
            await browser.close()


#: The board picture once it has loaded (a picture that failed throws), and the plies the
#: move list marks: one round trip.
SHOWN = """async () => {
  const board = document.getElementById("board");
  if (!board.complete) {
    await new Promise((loaded, failed) => {
      board.addEventListener("load", loaded, { once: true });
      board.addEventListener("error", () => failed(new Error("no board")), { once: true });
    });
  }
  if (!board.naturalWidth) throw new Error("the board did not load: " + board.src);
  const marked = document.querySelectorAll("#moves a[aria-current='step']");
  return [board.getAttribute("src"), Array.from(marked, (a) => a.dataset.ply)];
}"""


async def board_shown(page: Page, wanted: str | None = None) -> tuple[str, list[str]]:
    """The board picture's address once it has loaded, and the moves the list marks;
    given `wanted`, once the picture is that one (the slider swaps it after a pause)."""
    if wanted is not None:
        await page.wait_for_function(
            "(wanted) => document.getElementById('board').getAttribute('src') === wanted",
            arg=wanted,
        )
    src, marked = await page.evaluate(SHOWN)
    return src, marked


async def clean(page: Page, watched: Watched) -> None:
    """No console error, exception, CSP violation or request off the machine so far."""
    violations = await page.evaluate("window.__csp")
    assert not violations, violations
    assert not watched.errors, watched.errors
    assert not watched.offsite, watched.offsite


async def test_the_slider_moves_with_the_keyboard(browsing: Browsing) -> None:
    site = browsing.site
    watched = Watched()
    context = await browsing.context(watched)
    page = watched.watch(await context.new_page())
    await page.goto(site.url(urls.game(site.place, site.game.id)))
    boards = (await page.get_attribute("#moves", "data-boards") or "").split()
    assert len(boards) == site.game.ply + 1 == 13  # the start and twelve moves
    assert all(re.search(rf"/board/{n}\.png\?v=\w+$", b) for n, b in enumerate(boards))
    assert await page.is_visible("#slider")  # the script added the slider
    assert await board_shown(page, boards[12]) == (boards[12], ["12"])
    await page.keyboard.press("Home")
    assert await board_shown(page, boards[0]) == (boards[0], ["0"])
    assert page.url.endswith("?ply=0") and await page.text_content("#ply-now") == "0"
    for ply in range(1, 13):
        await page.keyboard.press("ArrowRight")
        assert await board_shown(page, boards[ply]) == (boards[ply], [str(ply)]), ply
    await page.keyboard.press("ArrowRight")  # past the end: stays
    assert await board_shown(page, boards[12]) == (boards[12], ["12"])
    await page.keyboard.press("ArrowLeft")
    await page.keyboard.press("ArrowLeft")
    assert await board_shown(page, boards[10]) == (boards[10], ["10"])
    assert await page.input_value("#slider") == "10"
    await page.keyboard.press("End")
    assert await board_shown(page, boards[12]) == (boards[12], ["12"])
    await page.click("#moves a[data-ply='4']")  # a move in the list, without a reload
    assert await board_shown(page, boards[4]) == (boards[4], ["4"])
    await clean(page, watched)
    await context.close()


async def test_a_high_dpi_screen_is_shown_the_2x_boards(browsing: Browsing) -> None:
    """At a device pixel ratio of 2 the browser takes each board's 2x picture from its
    srcset, the slider's too (game.js), and never the 1x."""
    site = browsing.site
    watched = Watched()
    context = await browsing.context(watched, device_scale_factor=2)
    page = watched.watch(await context.new_page())
    boards: list[str] = []
    page.on(
        "request", lambda request: boards.append(request.url) if "/board/" in request.url else None
    )
    await page.goto(site.url(urls.game(site.place, site.game.id, 8)))
    await board_shown(page)
    shown = "() => document.getElementById('board').currentSrc"
    assert re.search(r"/board/8@2x\.png\?v=\w+$", await page.evaluate(shown))
    await page.keyboard.press("ArrowLeft")
    await page.wait_for_function(
        "(wanted) => document.getElementById('board').currentSrc.includes(wanted)",
        arg="/board/7@2x.png?v=",
    )
    assert boards and all("@2x.png?v=" in board for board in boards), boards
    await clean(page, watched)
    await context.close()


async def test_without_javascript_each_position_is_a_link(browsing: Browsing) -> None:
    site = browsing.site
    watched = Watched()
    context = await browsing.context(watched, java_script_enabled=False)
    page = watched.watch(await context.new_page())
    await page.goto(site.url(urls.game(site.place, site.game.id, 2)))
    assert not await page.query_selector("#slider")
    src, marked = await board_shown(page)
    assert "/board/2.png" in src and marked == ["2"]
    await page.click("a.step[title='one move on']")
    await page.wait_for_url(re.compile(r"\?ply=3$"))
    src, marked = await board_shown(page)
    assert "/board/3.png" in src and marked == ["3"]
    await page.click("#moves a[data-ply='7']")
    await page.wait_for_url(re.compile(r"\?ply=7$"))
    src, marked = await board_shown(page)
    assert "/board/7.png" in src and marked == ["7"]
    await page.click("a.step[title='the start']")
    await page.wait_for_url(re.compile(r"\?ply=0$"))
    assert "/board/0.png" in (await board_shown(page))[0]
    assert not watched.errors and not watched.offsite
    await context.close()


async def test_an_events_standings_lead_to_its_games(browsing: Browsing) -> None:
    site = browsing.site
    watched = Watched()
    context = await browsing.context(watched)
    page = watched.watch(await context.new_page())
    await page.goto(site.url(urls.event(site.place, site.event_id)))
    assert await page.text_content("h1") == "Autumn Hex"
    assert await page.is_visible("text=Standings")
    standings = await page.inner_text("table")
    for name in ("ann", "bob", "cat", "dan"):
        assert name in standings
    games = await page.eval_on_selector_all(
        "a[href*='/g/']", "links => links.map(a => a.getAttribute('href'))"
    )
    assert len(set(games)) == 6  # every game of the round robin, linked
    await page.click(f"a[href='{games[0]}']")
    await page.wait_for_url(re.compile(re.escape(games[0]) + "$"))
    await board_shown(page)
    await clean(page, watched)
    await context.close()


#: At a phone's width: the tops of the step buttons and the position's label, the heights
#: of the move rows (the marked one among them), how far the page overflows sideways.
PHONE_GAME = """() => {
  const top = (e) => Math.round(e.getBoundingClientRect().top);
  const height = (e) => Math.round(e.getBoundingClientRect().height);
  const page = document.documentElement;
  return [
    Array.from(document.querySelectorAll(".plies a.step, #ply-label"), top),
    Array.from(document.querySelectorAll("#moves a"), height),
    page.scrollWidth - page.clientWidth,
  ];
}"""
#: Each table's box: how much wider its table is than the box (0: nothing hidden; -1: a
#: table in no box), and how far the page overflows sideways.
PHONE_TABLES = """() => {
  const hidden = (box) => (box ? box.scrollWidth - box.clientWidth : -1);
  const page = document.documentElement;
  return [
    Array.from(document.querySelectorAll("table"), (t) => hidden(t.closest(".scroll"))),
    page.scrollWidth - page.clientWidth,
  ];
}"""


async def test_a_phone_sees_one_line_of_steps_and_whole_standings(browsing: Browsing) -> None:
    site = browsing.site
    watched = Watched()
    context = await browsing.context(
        watched, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
    )
    page = watched.watch(await context.new_page())
    await page.goto(site.url(urls.game(site.place, site.game.id, 8)))
    await board_shown(page)
    tops, rows, overflow = await page.evaluate(PHONE_GAME)
    assert len(tops) == 5 and max(tops) - min(tops) < 8, tops  # |< < 8 of 12 > >| on one line
    assert await page.inner_text("#ply-label") == "8 of 12"
    assert len(rows) == 13 and len(set(rows)) == 1, rows  # the marked move no taller
    assert overflow == 0
    await page.goto(site.url(urls.event(site.place, site.event_id)))
    hidden, overflow = await page.evaluate(PHONE_TABLES)
    assert hidden == [0, 0] and overflow == 0, (hidden, overflow)  # in their boxes, whole
    await clean(page, watched)
    await context.close()
