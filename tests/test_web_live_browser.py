"""A live game page in a real browser (headless Chromium, as tests/test_web_browser.py):
a move made through the service shows on the open page within a second, without a
reload; after the web server restarts, the page comes back by itself and shows the next
move. The latencies measured are printed (`pytest -s`)."""

from __future__ import annotations

import random
import shutil
import socket
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from aiohttp import web as web_app

from bot.service import GameService
from bot.settings import Settings
from bot.store import Database
from bot.web import urls
from bot.web.app import create_app
from tests.conftest import ANN, BOB, Clock
from tests.test_web_browser import WATCH_CSP, Watched
from tests.webkit import GUILD, hex_game, pages_on
from tests.webshow import browser_missing, chromium_path

pytestmark = pytest.mark.skipif(browser_missing() is not None, reason=browser_missing() or "")

#: The most a move may take to show on an open page.
LIVE_SECONDS = 1.0
#: Playwright's waits for what is no latency (a page loading, a restart), in ms.
PATIENCE_MS = 15_000
#: The page's move list shows the position after `ply` moves, and the page never reloaded.
SHOWS = """(ply) => window.__same_page === true
  && document.querySelector(`#moves a[data-ply="${ply}"]`) !== null
  && document.getElementById("ply-now").textContent === String(ply)"""


@asynccontextmanager
async def served(service: GameService, port: int) -> AsyncIterator[None]:
    """The pages on 127.0.0.1:`port` while the block runs (stopped as a restart stops them)."""
    address = f"http://127.0.0.1:{port}"
    settings = service.records.settings.model_copy(
        update={"web_rate_limit": 0, "public_url": address}
    )
    runner = web_app.AppRunner(create_app(service, settings), access_log=None)
    await runner.setup()
    await web_app.TCPSite(runner, "127.0.0.1", port, reuse_address=True).start()
    try:
        yield
    finally:
        await runner.cleanup()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_an_open_page_shows_each_move_and_comes_back_after_a_restart(
    migrated_sqlite: Path, tmp_path: Path
) -> None:
    from playwright.async_api import async_playwright

    shutil.copyfile(migrated_sqlite, tmp_path / "paperboard.db")
    url = f"sqlite:///{tmp_path / 'paperboard.db'}"
    settings = Settings(_env_file=None, database_url=url, render_processes=0)  # type: ignore[call-arg]
    service = GameService(await Database.open(url), settings, clock=Clock(), rng=random.Random(7))
    port = free_port()
    watched = Watched()
    try:
        place = await pages_on(service)
        game = await hex_game(service, ["b2"], days_per_move=3)
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(
                executable_path=chromium_path(), args=["--no-sandbox"]
            )
            context = await browser.new_context()
            context.set_default_timeout(PATIENCE_MS)
            await context.add_init_script(WATCH_CSP)
            page = watched.watch(await context.new_page())
            latencies = []

            async def moved(player: object, move: str, ply: int) -> None:
                await service.play.move(game.id, GUILD, player, move)  # type: ignore[arg-type]
                started = time.perf_counter()
                await page.wait_for_function(SHOWS, arg=ply, polling="raf")
                latencies.append(time.perf_counter() - started)

            async with served(service, port):
                await page.goto(f"http://127.0.0.1:{port}{urls.game(place, game.id)}")
                await page.evaluate("window.__same_page = true")
                await page.wait_for_function("document.querySelector('.countdown').textContent")
                assert "left" in (await page.text_content(".countdown") or "")
                await page.wait_for_timeout(300)  # the stream opened
                await moved(BOB, "c3", 2)
                assert await page.is_visible("#slider")  # game.js read the new parts
                assert await page.input_value("#slider") == "2"
                await moved(ANN, "a4", 3)
            # the server goes away and comes back; meanwhile a move is made
            await service.play.move(game.id, GUILD, BOB, "d1")
            async with served(service, port):
                started = time.perf_counter()
                await page.wait_for_function(SHOWS, arg=4, polling="raf")
                back = time.perf_counter() - started
                await moved(ANN, "a1", 5)
            print(f"live page: move shown after {[round(s * 1000) for s in latencies]} ms; "
                  f"after the restart, back in {back:.1f} s")  # fmt: skip
            assert max(latencies) < LIVE_SECONDS, latencies
            assert await page.evaluate("window.__csp") == []
            assert not watched.offsite
            # a page that loses its stream logs a network error; nothing else is wrong
            assert all("live" in error or "ERR_" in error for error in watched.errors), watched
            await browser.close()
    finally:
        await service.close()
