"""Tap to move in a real browser (Debian's Chromium, as tests/test_web_browser.py): two
signed-in players play a whole game of each of the six games on a small board by tapping
the board's picture and the tools, each move previewed and confirmed, to the game's end;
and a phone's 375 px screen plays a few Hex moves by touch. No console error, no CSP
violation, no request leaving the machine."""

from __future__ import annotations

import asyncio
import random
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import pytest_asyncio

import engine
from bot.service import GameService, GameSummary, Player
from bot.web import auth
from engine import GameState
from engine.notation import points
from tests.conftest import ANN, BOB
from tests.test_taps import taps_of
from tests.test_web_browser import PATIENCE_MS, WATCH_CSP, Watched, clean
from tests.webkit import GUILD, PLACE
from tests.webshow import Showcase, browser_missing, chromium_path, on_this_machine, showcase, urls

if TYPE_CHECKING:
    from playwright.async_api import Browser, BrowserContext, Page, Route

pytestmark = [
    pytest.mark.skipif(browser_missing() is not None, reason=browser_missing() or ""),
    pytest.mark.asyncio(loop_scope="module"),
]

#: Each game on a small board (Livewire's smallest), with a seed whose game is short.
GAMES: list[tuple[str, dict[str, Any]]] = [
    ("hex", {"size": 2, "swap": "on"}),
    ("disthex", {"size": 3, "swap": "on"}),
    ("hotwire", {"size": "3x3"}),
    ("shortcircuit", {"size": 3, "max_turns": 10}),
    ("livewire", {"size": "17x14"}),
    ("intersections", {"size": 3, "segments": 2, "rounds": 2}),
]
PHONE = {"viewport": {"width": 375, "height": 740}, "is_mobile": True, "has_touch": True}
#: The preview's picture once it has loaded.
PREVIEWED = """() => {
  const picture = document.getElementById("tap-picture");
  return picture.complete && picture.naturalWidth > 0;
}"""


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def site(
    migrated_sqlite: Path, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[tuple[Showcase, Browser]]:
    from playwright.async_api import async_playwright

    database = tmp_path_factory.mktemp("taps") / "paperboard.db"
    shutil.copyfile(migrated_sqlite, database)
    async with showcase(f"sqlite:///{database}") as shown, async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=chromium_path(), args=["--no-sandbox"]
        )
        try:
            yield shown, browser
        finally:
            await browser.close()


async def signed_in(
    shown: Showcase, browser: Browser, player: Player, watched: Watched, **options: Any
) -> Page:
    """A page of a fresh browser context signed in as `player`, every request kept on
    the machine."""
    context: BrowserContext = await browser.new_context(**options)
    context.set_default_timeout(PATIENCE_MS)
    await context.add_init_script(WATCH_CSP)
    opened = await shown.service.sessions.start(player, "bot")
    await context.add_cookies([{"name": auth.COOKIE, "value": opened.secret, "url": shown.base}])

    async def route(route: Route) -> None:
        if on_this_machine(route.request.url):
            await route.continue_()
        else:
            watched.offsite.append(route.request.url)
            await route.abort()

    await context.route("**/*", route)
    return watched.watch(await context.new_page())


async def started(service: GameService, name: str, options: dict[str, Any]) -> GameSummary:
    issued = await service.challenges.challenge(
        PLACE, ANN, name, opponents=[BOB], options=options, first="challenger"
    )
    return (await service.challenges.accept(issued.game.id, GUILD, BOB)).game


def chosen(state: GameState, rng: random.Random) -> tuple[list[str], GameState]:
    """A whole turn for the player to move (Short Circuit's pops and its piece) and the
    position after it: Livewire's lines run forward, so its game ends soon."""
    actions = []
    while True:
        legal = state.legal_moves()
        if state.name == "livewire":
            ahead = [1, -1][state.to_move or 0]
            far = max(points(move.replace("-", " "))[1][0] * ahead for move in legal)
            legal = [m for m in legal if points(m.replace("-", " "))[1][0] * ahead == far]
        actions.append(rng.choice(legal))
        state = state.play(actions[-1])
        if not state.mid_turn:
            return actions, state


async def tap_move(page: Page, actions: list[str], touch: bool = False) -> None:
    """Tap `actions` (one turn) on the page and confirm once their preview shows."""
    for tap in (tap for action in actions for tap in taps_of(action)):
        button = page.locator(f'#targets [data-tap="{tap}"], #moving [data-tap="{tap}"]')
        await (button.tap() if touch else button.click())
    await page.wait_for_function(PREVIEWED)
    assert await page.text_content("#tap-played") == ", ".join(actions)
    async with page.expect_navigation():  # its script leads to the page: the next goto waits
        await page.click("#tap-confirm")


async def reached(service: GameService, game_id: int, ply: int) -> GameSummary:
    """The game once its record is `ply` long (the confirmation's answer is on its way)."""
    for _ in range(PATIENCE_MS // 20):
        game = await service.lookups.game(game_id, GUILD)
        if game.ply >= ply:
            return game
        await asyncio.sleep(0.02)
    raise AssertionError(f"game {game_id} never reached ply {ply}")


@pytest.mark.parametrize(("name", "options"), GAMES, ids=[name for name, _ in GAMES])
async def test_a_whole_game_by_tapping(
    site: tuple[Showcase, Browser], name: str, options: dict[str, Any]
) -> None:
    shown, browser = site
    service = shown.service
    watched = Watched()
    pages = [await signed_in(shown, browser, person, watched) for person in (ANN, BOB)]
    game = await started(service, name, options)
    address = shown.url(urls.game(shown.place, game.id))
    state, rng = engine.new(name, **options), random.Random(1)
    while state.outcome is None:
        actions, after = chosen(state, rng)
        page = pages[state.to_move or 0]
        await page.goto(address)
        await tap_move(page, actions)
        game = await reached(service, game.id, after.ply)
        state = after
    assert game.status == "finished"
    for page in pages:
        await page.goto(address)
        assert await page.locator("#targets .target").count() == 0
        await clean(page, watched)
        await page.context.close()


async def test_a_phone_plays_hex_by_touch(site: tuple[Showcase, Browser]) -> None:
    shown, browser = site
    service = shown.service
    watched = Watched()
    pages = [await signed_in(shown, browser, person, watched, **PHONE) for person in (ANN, BOB)]
    game = await started(service, "hex", {"size": 5, "swap": "off"})
    address = shown.url(urls.game(shown.place, game.id))
    for ply, move in enumerate(["c3", "b4", "d2"]):
        page = pages[ply % 2]
        await page.goto(address)
        width = await page.evaluate("document.documentElement.scrollWidth")
        assert width <= 375  # nothing wider than the phone
        await tap_move(page, [move], touch=True)
        await reached(service, game.id, ply + 1)
    assert (await service.lookups.game(game.id, GUILD)).ply == 3
    wrong = pages[1]  # bob, to move: a taken cell is refused at once, in a sentence
    await wrong.goto(address)
    await wrong.locator('#targets [data-tap="c3"]').tap()
    await wrong.wait_for_function("() => document.getElementById('tap-sentence').textContent")
    assert "c3" in (await wrong.text_content("#tap-sentence") or "")
    for page in pages:
        await clean(page, watched)
        await page.context.close()
