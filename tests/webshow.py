"""A server's pages served for a real browser: a finished game, a game under way and a
finished round robin, on loopback (tests/test_web_browser.py drives it in headless
Chromium; bench/web_screenshots.py photographs it for docs/img)."""

from __future__ import annotations

import random
import shutil
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from aiohttp import web as web_app

from bot.service import GameService, GameSummary, Player, WebPlace
from bot.settings import Settings
from bot.store import Database
from bot.web import urls
from bot.web.app import create_app
from tests.conftest import ANN, BOB, CAT, DAN, Clock
from tests.webkit import GUILD, PLACE, hex_game, pages_on

#: The finished game: 7x7 Hex, twelve moves, then the player to move resigns.
MOVES = ["d4", "c5", "c4", "d5", "e3", "e4", "f2", "b6", "b5", "c6", "d6", "f3"]
#: Where Debian puts its Chromium (apt-get install chromium).
CHROMIUM = Path("/usr/bin/chromium")
#: What to do where it is missing.
HOW_TO_GET_IT = (
    "the browser tests need Debian's Chromium and Playwright for Python: "
    "`apt-get install chromium` (.ci/run does it) and `make .venv/.installed-dev` "
    "(playwright is a dev dependency; no `playwright install`: the system browser is used)"
)
#: Hosts a page may reach: this machine.
LOOPBACK = {"127.0.0.1", "localhost", "::1"}


def browser_missing() -> str | None:
    """Why the browser cannot run here (None: it can)."""
    try:
        import playwright.async_api  # noqa: F401
    except ImportError:
        return f"Playwright is not installed: {HOW_TO_GET_IT}"
    if not CHROMIUM.exists() and shutil.which("chromium") is None:
        return f"Chromium is not installed: {HOW_TO_GET_IT}"
    return None


def chromium_path() -> str:
    return str(CHROMIUM) if CHROMIUM.exists() else shutil.which("chromium") or str(CHROMIUM)


def on_this_machine(url: str) -> bool:
    """Whether a request stays on the machine: loopback, or no network at all (data:)."""
    parts = urlsplit(url)
    return parts.scheme in ("data", "blob", "about") or parts.hostname in LOOPBACK


@dataclass(frozen=True)
class Showcase:
    """The pages being served: their base address and what they show."""

    base: str  # http://127.0.0.1:<port>
    place: WebPlace
    game: GameSummary  # finished
    going: GameSummary  # under way
    event_id: int  # a finished round robin
    service: GameService

    def url(self, path: str) -> str:
        return self.base + path


@asynccontextmanager
async def showcase(database_url: str, **more: Any) -> AsyncIterator[Showcase]:
    """The pages of a server (public) with its games and an event, served on a free
    loopback port (PUBLIC_URL is that address) until the block ends; `more` settings
    (sign-in with Discord, mail)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(128)
        base = f"http://127.0.0.1:{sock.getsockname()[1]}"
        settings = Settings(  # type: ignore[call-arg]
            _env_file=None,
            database_url=database_url,
            render_processes=0,
            web_rate_limit=0,
            public_url=base,
            **more,
        )
        clock = Clock()
        service = GameService(
            await Database.open(database_url), settings, clock=clock, rng=random.Random(7)
        )
        runner = web_app.AppRunner(create_app(service, settings), access_log=None)
        try:
            place = await pages_on(service)
            game = await played(service, clock, MOVES, size=7)
            going = await played(service, clock, ["b2", "c3", "d2"], players=(CAT, DAN))
            event_id = await round_robin(service, clock)
            await runner.setup()
            await web_app.SockSite(runner, sock).start()
            yield Showcase(base, place, game, going, event_id, service)
        finally:
            await runner.cleanup()
            await service.close()


async def played(
    service: GameService,
    clock: Clock,
    moves: list[str],
    *,
    size: int = 5,
    players: tuple[Player, Player] = (ANN, BOB),
) -> GameSummary:
    """A Hex game with `moves` played an hour or so apart; resigned when `size` is 7."""
    game = await hex_game(service, [], players=players, size=size)
    for i, move in enumerate(moves):
        clock.advance(minutes=37 + 11 * i)
        game = (await service.play.move(game.id, GUILD, players[i % 2], move)).game
    if size == 7:
        clock.advance(hours=2)
        game = (await service.play.resign(game.id, GUILD, players[len(moves) % 2])).game
    return game


async def round_robin(service: GameService, clock: Clock) -> int:
    """A finished round robin of 5x5 Hex among ann, bob, cat and dan: each game two moves
    then a resignation (the first seat's in odd games)."""
    made = await service.events.create_tournament(
        PLACE, ANN, "hex", format="roundrobin", name="Autumn", options={"size": "5"},
        manages=True,
    )  # fmt: skip
    event_id = made.tournament.id
    for person in (ANN, BOB, CAT, DAN):
        await service.events.join_tournament(event_id, GUILD, person)
    await service.events.start_tournament(event_id, GUILD, ANN)
    for _ in range(12):  # round after round
        active = [
            g
            for g in await service.lookups.games(GUILD, status="active", limit=100)
            if g.event_id == event_id
        ]
        if not active:
            break
        for game in active:
            clock.advance(hours=5)
            seats = [Player(s.player_id or 0, s.name or "") for s in game.seats]
            await service.play.move(game.id, GUILD, seats[0], "b2")
            await service.play.move(game.id, GUILD, seats[1], "c3")
            await service.play.resign(game.id, GUILD, seats[game.id % 2])
    return event_id


__all__ = ["Showcase", "browser_missing", "on_this_machine", "showcase", "urls"]
