"""Tap to move in a real browser (Debian's Chromium, as tests/test_web_browser.py): two
signed-in players play a whole game of each of the six games on a small board by tapping
the board's picture and the tools, each move previewed and confirmed, to the game's end;
and a phone's 375 px screen plays a few Hex moves by touch. No console error, no CSP
violation, no request leaving the machine."""

from __future__ import annotations

import asyncio
import random
import re
import shutil
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import pytest_asyncio
from pydantic import SecretStr

import engine
from bot.email.runner import MailRunner, start_mail
from bot.service import GameService, GameSummary, Player, Result
from bot.web import auth
from engine import GameState
from engine.notation import points
from tests.conftest import ANN, BOB
from tests.fakediscord import FakeDiscord
from tests.mailkit import Capture, mail_settings, serve
from tests.test_taps import taps_of
from tests.test_web_browser import PATIENCE_MS, Watched, clean, watched_context
from tests.webkit import GUILD, PLACE
from tests.webshow import Showcase, browser_missing, chromium_path, showcase, urls

if TYPE_CHECKING:
    from playwright.async_api import Browser, BrowserContext, Page

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
    ("livewire", {"size": "17x14", "lengths": "8,1"}),  # long lines: a short game
    ("intersections", {"size": 3, "segments": 2, "rounds": 2}),
]
PHONE = {"viewport": {"width": 375, "height": 740}, "is_mobile": True, "has_touch": True}
#: The preview's picture once it has loaded.
PREVIEWED = """() => {
  const picture = document.getElementById("tap-picture");
  return picture.complete && picture.naturalWidth > 0;
}"""


@dataclass
class Table:
    """The pages with sign-in by Discord (the fake Discord's OAuth2) and by mail (the
    bot's mail runner, a capturing SMTP server), and a browser."""

    shown: Showcase
    browser: Browser
    fake: FakeDiscord
    capture: Capture
    mail: MailRunner


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def site(
    migrated_sqlite: Path, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Table]:
    from playwright.async_api import async_playwright

    database = tmp_path_factory.mktemp("taps") / "paperboard.db"
    shutil.copyfile(migrated_sqlite, database)
    capture = Capture()
    smtp, smtp_port = await serve(capture)
    async with FakeDiscord() as fake:
        mail = mail_settings(f"sqlite:///{database}", smtp_port)
        sign_in = {
            "discord_api_base": fake.api_base,
            "discord_client_id": fake.application_id,
            "discord_client_secret": SecretStr(fake.oauth.client_secret),
        }
        mailing = {key: getattr(mail, key) for key in MAIL_SETTINGS}
        # A browser taps a turn's moves faster than anyone: each tap is a form, and a
        # signed-in browser's forms are limited (WEB_SESSION_RATE, tested on its own).
        async with (
            showcase(f"sqlite:///{database}", **sign_in, **mailing, web_session_rate=0) as shown,
            async_playwright() as playwright,
        ):
            service = shown.service
            runner = await start_mail(
                service, service.records.settings, nobody, service.records.clock, codes=False
            )
            assert runner is not None
            browser = await playwright.chromium.launch(
                executable_path=chromium_path(), args=["--no-sandbox"]
            )
            try:
                yield Table(shown, browser, fake, capture, runner)
            finally:
                await browser.close()
                await runner.stop()
    smtp.close()


async def nobody(result: Result) -> None:
    """The process's own announcements (no Discord here: the pages are watched)."""


#: What makes the pages' process mail (tests/mailkit.py's values).
MAIL_SETTINGS = ("email_from", "email_secret", "email_smtp_url", "email_listen")


async def by_discord(table: Table, watched: Watched) -> tuple[Player, BrowserContext]:
    """A browser signed in with Discord: "Sign in with Discord", the fake Discord's page
    approves, and back."""
    user = table.fake.oauth.signed_in = table.fake.create_user("ann")
    context = await watched_context(table.browser, watched)
    page = watched.watch(await context.new_page())
    await page.goto(table.shown.url("/signin"))
    await page.click("button:has-text('Sign in with Discord')")
    await page.wait_for_load_state()
    await page.wait_for_selector("text=Signed in as ann")
    await page.close()
    return Player(user.id, "ann"), context


async def by_mail(table: Table, watched: Watched) -> tuple[Player, BrowserContext]:
    """A browser signed in by a mailed link: bob links his address (the code mailed), asks
    for a link on the sign-in page, opens the mail's link and signs in."""
    service, address = table.shown.service, "bob@home.test"
    await service.mail.link_email(BOB, address)
    assert await table.mail.announcer.send_codes() == 1
    code = table.capture.last(address).get_content().split("code is ")[1][:6]
    await service.mail.confirm_email(BOB, code)
    context = await watched_context(table.browser, watched)
    page = await context.new_page()
    await page.goto(table.shown.url("/signin"))
    await page.fill("#address", address)
    await page.click("button:has-text('Mail me a link')")
    assert await table.mail.announcer.send_sign_in_links() == 1  # the runner's next pass
    mailed = table.capture.last(address).get_content()
    link = re.search(r"http://127\.0\.0\.1:[0-9]+/signin/[A-Za-z0-9_-]{43}", mailed)
    assert link is not None, mailed
    await page.goto(link[0])
    await page.click("button:has-text('Sign in as bob')")
    await page.wait_for_selector("text=Signed in as bob")
    await page.close()
    return BOB, context


async def signed_in(table: Table, player: Player, watched: Watched, **options: Any) -> Page:
    """A page of a fresh browser context signed in as `player` (a session opened straight
    away: the sign-in flows are tested with the whole games)."""
    context = await watched_context(table.browser, watched, **options)
    opened = await table.shown.service.sessions.start(player, "bot")
    await context.add_cookies(
        [{"name": auth.COOKIE, "value": opened.secret, "url": table.shown.base}]
    )
    return watched.watch(await context.new_page())


async def started(
    service: GameService,
    name: str,
    options: dict[str, Any],
    players: tuple[Player, Player] = (ANN, BOB),
) -> GameSummary:
    first, second = players
    issued = await service.challenges.challenge(
        PLACE, first, name, opponents=[second], options=options, first="challenger"
    )
    return (await service.challenges.accept(issued.game.id, GUILD, second)).game


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
    """Tap `actions` (one turn) on the page and confirm once their preview shows. A
    failure says what the page said instead (a refusal, a limit)."""
    from playwright.async_api import TimeoutError as Waited

    for tap in (tap for action in actions for tap in taps_of(action)):
        button = page.locator(f'#targets [data-tap="{tap}"], #moving [data-tap="{tap}"]')
        await (button.tap() if touch else button.click())
    try:
        await page.wait_for_function(PREVIEWED)
        assert await page.text_content("#tap-played") == ", ".join(actions)
        async with page.expect_navigation():  # its script leads to the page: the next goto waits
            await page.click("#tap-confirm")
    except Waited:
        said = await page.text_content("#tap-sentence")
        raise AssertionError(f"{actions} tapped: the page says {said!r}") from None


async def reached(service: GameService, game_id: int, ply: int) -> GameSummary:
    """The game once its record is `ply` long (the confirmation's answer is on its way)."""
    for _ in range(PATIENCE_MS // 20):
        game = await service.lookups.game(game_id, GUILD)
        if game.ply >= ply:
            return game
        await asyncio.sleep(0.02)
    raise AssertionError(f"game {game_id} never reached ply {ply}")


async def test_two_players_sign_in_and_play_each_game_by_tapping(site: Table) -> None:
    """One browser signs in with Discord, the other by a mailed link; they play a whole
    game of each of the six games by tapping, to its end."""
    service = site.shown.service
    watched = Watched()
    seated = [await by_discord(site, watched), await by_mail(site, watched)]
    players = (seated[0][0], seated[1][0])
    for name, options in GAMES:
        pages = [watched.watch(await context.new_page()) for _, context in seated]
        game = await started(service, name, options, players)
        address = site.shown.url(urls.game(site.shown.place, game.id))
        state, rng = engine.new(name, **options), random.Random(1)
        while state.outcome is None:
            actions, after = chosen(state, rng)
            page = pages[state.to_move or 0]
            await page.goto(address)
            await tap_move(page, actions)
            game = await reached(service, game.id, after.ply)
            state = after
        assert game.status == "finished", name
        for page in pages:
            await page.goto(address)
            assert await page.locator("#targets .target").count() == 0
            await clean(page, watched)
            await page.close()


async def test_a_phone_plays_hex_by_touch(site: Table) -> None:
    shown = site.shown
    service = shown.service
    watched = Watched()
    pages = [await signed_in(site, person, watched, **PHONE) for person in (ANN, BOB)]
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


async def test_the_board_is_one_tab_stop_and_the_arrows_walk_it(site: Table) -> None:
    """A keyboard reaches the board in one Tab stop, walks its points with the arrows
    (the position slider stays put) and taps with Enter."""
    watched = Watched()
    page = await signed_in(site, ANN, watched)
    service = site.shown.service
    game = await started(service, "hex", {"size": 5, "swap": "off"})
    for player, move in ((ANN, "a1"), (BOB, "e5")):
        await service.play.move(game.id, GUILD, player, move)
    await page.goto(site.shown.url(urls.game(site.shown.place, game.id)))
    stops = page.locator('#targets .target[tabindex="0"]')
    assert await stops.count() == 1 and await stops.get_attribute("data-tap") == "c3"
    await stops.focus()
    focused = "document.activeElement.dataset.tap"
    await page.keyboard.press("ArrowRight")
    assert await page.evaluate(focused) == "d3"
    await page.keyboard.press("ArrowDown")  # a neighbour on the row below
    below = await page.evaluate(focused)
    assert below in ("c4", "d4"), below
    await page.keyboard.press("ArrowLeft")
    left = chr(ord(below[0]) - 1) + "4"
    assert await page.evaluate(focused) == left
    await page.keyboard.press("Enter")
    await page.wait_for_function(PREVIEWED)
    assert await page.text_content("#tap-played") == left
    assert await page.evaluate("document.getElementById('slider').value") == "2"
    await clean(page, watched)
    await page.context.close()
